"""Forum supergroups end to end (the bot process against the fake Bot API): a table belongs to
its chat and topic. Two topics run two tables, every call of a table carrying its topic's
``message_thread_id``; the General topic and an ordinary supergroup get none (not even when
the update carried a reply chain's thread id); a topic a person closes ends its table at once
(Telegram's service message), a deleted one at the first send refused there (abandoned, its
players told privately, naming the topic) without a retry loop; a message answering the topic's
creation message is no message to the bot. Texts in German and English."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, Db, GroupGame, answer_text, codes, peek, snapshot, table_of

pytestmark = pytest.mark.timeout(240)
FORUM = -1001000000777
PLAIN = -1001000000888  # an ordinary supergroup


def _thread(call: dict) -> int | None:
    value = call["params"].get("message_thread_id")
    return None if value is None else int(value)


def _hello(fake: FakeBotApi, user: int, name: str, lang: str) -> None:
    """/start privately, and the private chat's language (the scripted presses say "de")."""
    since = fake.last_seq()
    fake.send_text(user, user, "/start", user_first_name=name, language_code=lang)
    fake.send_text(user, user, f"/language {lang}", language_code=lang)
    fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == user
                       and ("Sprache" in c["params"]["text"] or "anguage" in c["params"][
                           "text"]), timeout=WAIT, since=since)


def _tap(fake: FakeBotApi, chat: int, user: int, message_id: int, data: str,
         lang: str) -> str | None:
    """A press, waited for: its answer's text, else once the message changed."""
    before = snapshot(peek(fake, chat, message_id))
    answer = answer_text(fake, fake.press(chat, user, message_id, data, language_code=lang))
    if answer is None:
        fake.wait_for(lambda: snapshot(peek(fake, chat, message_id)) != before, WAIT,
                      message=f"message {message_id} to change after {data}")
    return answer


def _open(fake: FakeBotApi, chat: int, names: dict[int, str], langs: dict[int, str],
          topic: int | None = None, reply_to: int | None = None,
          greeted: bool = False, words: str = "schwimmen") -> GroupGame:
    """``/new schwimmen`` (or ``/new <words>``) in a chat's topic by the first person, the
    second joins, the opener starts: the running ``GroupGame``."""
    opener, other = list(names)
    for u in names if not greeted else ():
        _hello(fake, u, names[u], langs[u])
    fake.send_text(chat, opener, f"/new {words}", user_first_name=names[opener],
                   language_code=langs[opener], topic=topic, reply_to_message_id=reply_to)
    lobby = fake.wait_for(lambda: next(
        (m for m in fake.messages(chat) if "join" in codes(m)
         and m["message_thread_id"] == topic), None), WAIT, message=f"the lobby in {topic}")
    game = GroupGame(fake, chat, list(names), names, random.Random(topic or 5))
    game.table_id, game.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
    _tap(fake, chat, other, game.table_msg, game.wait_code("join"), langs[other])
    fake.wait_for(lambda: names[other] in game.table_message().get("text", ""), WAIT,
                  message="the second player in the lobby")
    _tap(fake, chat, opener, game.table_msg, game.wait_code("start"), langs[opener])
    fake.wait_for(lambda: "start" not in codes(game.table_message()), WAIT,
                  message="the game to start")
    return game


def _tables_of_calls(calls: list[dict]) -> dict[int, set[int | None]]:
    """The threads each table's calls (those with its buttons) went to."""
    out: dict[int, set[int | None]] = {}
    for call in calls:
        markup = call["params"].get("reply_markup") or {}
        for row in markup.get("inline_keyboard") or []:
            for button in row:
                data = button.get("callback_data") or ""
                if data.startswith("v1:") and data.split(":")[1] != "0":
                    out.setdefault(int(data.split(":")[1]), set()).add(_thread(call))
    return out


def _said_in(fake: FakeBotApi, chat: int, thread: int | None, text: str, since: int) -> dict:
    return fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == chat
                              and text in c["params"]["text"], timeout=WAIT, since=since)


def test_two_topics_run_two_tables_each_in_its_topic(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    fake.make_forum(FORUM)
    first = fake.create_topic(FORUM, "Schwimmen am Montag", user_id=601)
    second = fake.create_topic(FORUM, "Thursday game", user_id=603)
    a = _open(fake, FORUM, {601: "Alma", 602: "Bruno"}, {601: "de", 602: "de"}, first)
    b = _open(fake, FORUM, {603: "Cleo", 604: "Dave"}, {603: "en", 604: "en"}, second)
    assert a.table_id != b.table_id
    db = db_reader(sqlite_url)
    assert {r["id"]: r["thread_id"] for r in db.rows(
        "SELECT id, thread_id FROM game_table")} == {a.table_id: str(first),
                                                     b.table_id: str(second)}
    # a second /new in a topic with a running table is refused there, in the person's words
    since = fake.last_seq()
    fake.send_text(FORUM, 602, "/new", topic=first)
    busy = _said_in(fake, FORUM, first, "Hier läuft schon ein Tisch. /stop beendet ihn.", since)
    fake.send_text(FORUM, 604, "/new", topic=second, language_code="en")
    busy_en = _said_in(fake, FORUM, second, "A table is already open here. /stop ends it.", since)
    assert (_thread(busy), _thread(busy_en)) == (first, second)
    # group commands in a topic answer in that topic
    fake.send_text(FORUM, 603, "/games", topic=second, language_code="en")
    games = _said_in(fake, FORUM, second, "/games and /reminders work in your private chat",
                     since)
    assert _thread(games) == second
    # both tables play on, side by side (their private views, "next" under the tables)
    deadline = time.monotonic() + 90
    moves = {a.table_id: 0, b.table_id: 0}
    while min(moves.values()) < 8 and not (a.finished and b.finished):
        assert time.monotonic() < deadline, fake.summary()
        pressed = False
        for game in (a, b):
            if not game.finished and game.step():
                moves[game.table_id] += 1
                pressed = True
        if not pressed:
            time.sleep(0.02)
    # /stop in the first topic ends the first table only
    fake.send_text(FORUM, 601, "/stop", topic=first)
    fake.wait_for(lambda: db.table(a.table_id)["fsm_state"] == "abandoned", WAIT,
                  message="the first table stopped")
    assert db.table(b.table_id)["fsm_state"] not in ("abandoned", "finished")
    time.sleep(0.5)
    calls = [c for c in fake.calls() if str(c["params"].get("chat_id")) == str(FORUM)]
    sent = [c for c in calls if c["method"] == "sendMessage"]
    assert sent and all(c["status"] == 200 for c in calls), fake.summary()
    # every message into the forum went to a topic: each table's to its own
    assert {_thread(c) for c in sent} == {first, second}
    assert _tables_of_calls(sent) == {a.table_id: {first}, b.table_id: {second}}
    assert {m["message_thread_id"] for m in fake.messages(FORUM)} == {first, second}
    stored = [m for m in fake.messages(FORUM) if table_of(m) == b.table_id]
    assert stored and {m["message_thread_id"] for m in stored} == {second}


def test_the_general_topic_and_an_ordinary_supergroup_get_no_thread_id(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    fake.make_forum(FORUM)
    fake.create_topic(FORUM, "elsewhere", user_id=611)
    general = _open(fake, FORUM, {611: "Ada", 612: "Ben"}, {611: "de", 612: "de"})
    # in an ordinary supergroup a reply chain has a thread id: the bot must not send it back
    root = fake.get_update(fake.send_text(PLAIN, 613, "Wer spielt heute?",
                                          user_first_name="Cora"))["message"]["message_id"]
    plain = _open(fake, PLAIN, {613: "Cora", 614: "Dora"}, {613: "en", 614: "en"},
                  reply_to=root)
    for _ in range(30):
        for game in (general, plain):
            game.step()
        time.sleep(0.02)
    calls = [c for c in fake.calls() if str(c["params"].get("chat_id")) in (str(FORUM),
                                                                            str(PLAIN))]
    assert calls and all("message_thread_id" not in c["params"] for c in calls), calls[:3]
    assert all(c["status"] == 200 for c in calls), fake.summary()
    injected = [fake.get_update(u) for u in range(1, fake.state()["next_update_id"])]
    threaded = [u for u in injected if u and (u.get("message") or {}).get("chat", {}).get(
        "id") == PLAIN and "message_thread_id" in u["message"]]
    assert threaded, "the reply in the ordinary supergroup carried a thread id"


def _end_topic(fake: FakeBotApi, db: Db, game: GroupGame, how: str, topic: int) -> None:
    """Close or delete the table's topic and play on until the table has ended."""
    (fake.close_topic if how == "close" else fake.delete_topic)(FORUM, topic)
    deadline = time.monotonic() + 90
    while db.table(game.table_id)["fsm_state"] != "abandoned":
        assert time.monotonic() < deadline, fake.summary()
        if not game.step():
            time.sleep(0.02)


@pytest.mark.parametrize("how,lang,told", [
    ("close", "de", "🚪 Dein Tisch Schwimmen in „Stammtisch Test 1001000000777 › Runde“ ist "
                    "beendet: sein Thema wurde geschlossen oder gelöscht."),
    ("delete", "en", "🚪 Your Schwimmen (31) table in Stammtisch Test 1001000000777 › Runde has "
                     "ended: its topic was closed or deleted."),
])
def test_a_closed_or_deleted_topic_ends_its_table(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db], how: str, lang: str, told: str) -> None:
    """A topic that is deleted (Telegram says nothing), or closed without a service message
    the bot received: the next send into it is refused and ends its table."""
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    fake.make_forum(FORUM)
    topic = fake.create_topic(FORUM, "Runde", user_id=621)
    names = {621: "Eva", 622: "Finn"}
    game = _open(fake, FORUM, names, dict.fromkeys(names, lang), topic)
    db = db_reader(sqlite_url)
    _end_topic(fake, db, game, how, topic)
    for user in names:  # each player is told privately, in their language
        fake.wait_for(lambda u=user: any(told in (m["text"] or "") for m in fake.messages(u)),
                      WAIT, message=f"{names[user]} told")
    refused = [c for c in fake.calls("sendMessage") if _thread(c) == topic and c["status"] != 200]
    assert 1 <= len(refused) <= 2, refused
    time.sleep(2.0)  # nothing is tried there again
    assert [c for c in fake.calls("sendMessage") if _thread(c) == topic
            and c["status"] != 200] == refused
    assert not db.rows("SELECT id FROM outbox WHERE thread = :t AND status = 'pending'",
                       t=str(topic))
    # a new table opens in another topic as usual
    other = fake.create_topic(FORUM, "Neu", user_id=621)
    again = _open(fake, FORUM, names, dict.fromkeys(names, lang), other, greeted=True)
    assert again.table_id != game.table_id


def test_a_message_answering_the_topics_creation_is_not_for_the_bot(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    fake.make_forum(FORUM)
    topic = fake.create_topic(FORUM, "Made by the bot")  # its creation message is the bot's
    _hello(fake, 631, "Gina", "de")
    since = fake.last_seq()
    uid = fake.send_text(FORUM, 631, "hallo zusammen", topic=topic)
    assert fake.get_update(uid)["message"]["reply_to_message"]["from"]["is_bot"] is True
    fake.send_text(FORUM, 631, "/help", topic=topic)
    help_call = fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == FORUM,
                                   timeout=WAIT, since=since)
    assert _thread(help_call) == topic
    time.sleep(0.5)
    forum_calls: list[Any] = [c for c in fake.calls("sendMessage", since=since)
                              if int(c["params"]["chat_id"]) == FORUM]
    assert forum_calls == [help_call]  # the greeting in the topic was not answered


def _to_topic(fake: FakeBotApi, chat: int, topic: int, since: int) -> list[dict]:
    """The calls since ``since`` that sent into the topic or changed a message in it."""
    in_topic = {m["message_id"] for m in fake.messages(chat) if m["message_thread_id"] == topic}
    return [c for c in fake.calls(since=since) if str(c["params"].get("chat_id")) == str(chat)
            and (_thread(c) == topic or int(c["params"].get("message_id") or 0) in in_topic)]


@pytest.mark.parametrize("lang,told,none", [
    ("de", "🚪 Dein Tisch Schwimmen in „Stammtisch Test 1001000000777 › Montagsrunde“ ist "
           "beendet: sein Thema wurde geschlossen.", "Du sitzt an keinem laufenden Tisch."),
    ("en", "🚪 Your Schwimmen (31) table in Stammtisch Test 1001000000777 › Montagsrunde has "
           "ended: its topic was closed.", "You are not at any running table."),
])
def test_a_topic_closed_by_a_person_ends_its_table_at_once(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db], lang: str, told: str, none: str) -> None:
    """A day-long table in a topic an administrator closes: Telegram's service message ends
    it at once (no send into the closed topic is tried, the table message is not edited
    again), its players are told privately with the topic's name, /games lists it no more;
    the topic reopened takes a new table."""
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    fake.make_forum(FORUM)
    topic = fake.create_topic(FORUM, "Montagsrunde", user_id=641)
    names = {641: "Ida", 642: "Jan"}
    game = _open(fake, FORUM, names, dict.fromkeys(names, lang), topic,
                 words="schwimmen clock=24h")
    db = db_reader(sqlite_url)
    for user in names:  # the private view names the group and the topic
        fake.wait_for(lambda u=user: any("Stammtisch Test 1001000000777 › Montagsrunde" in (
            m["text"] or "") for m in fake.messages(u)), WAIT, message="the topic named")
    since = fake.last_seq()
    fake.close_topic(FORUM, topic, user_id=641)
    fake.wait_for(lambda: db.table(game.table_id)["fsm_state"] == "abandoned", WAIT,
                  message="the table ended by the closing")
    for user in names:
        fake.wait_for(lambda u=user: any(told == m["text"] for m in fake.messages(u)),
                      WAIT, message=f"{names[user]} told")
    fake.send_text(642, 642, "/games", language_code=lang)
    fake.wait_for(lambda: any(none in (m["text"] or "") for m in fake.messages(642)), WAIT,
                  message="/games without the table")
    time.sleep(0.5)
    assert _to_topic(fake, FORUM, topic, since) == [], fake.summary()
    assert not db.rows("SELECT id FROM outbox WHERE thread = :t AND status = 'pending'",
                       t=str(topic))
    # reopened: a new table opens there as usual
    fake.reopen_topic(FORUM, topic, user_id=641)
    again = _open(fake, FORUM, names, dict.fromkeys(names, lang), topic, greeted=True)
    assert again.table_id != game.table_id
    assert db.table(again.table_id)["thread_id"] == str(topic)
