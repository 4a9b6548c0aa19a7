"""A tournament in a forum through the fake Bot API (issue 48): seven people play Run Fast —
tables of three, so two CPUs fill the seats the people leave — each table in a topic the bot
creates for it (``createForumTopic``, named by round and table), every message of a table in
its topic, the tournament's own messages (announcement, draw, results, standings) where it
was opened. In a forum where the bot may not manage topics Telegram refuses the topics and the
tables are played privately, nothing of them in the forum."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess
from tests.telegram.evening_record import speaking
from tests.telegram.keyboards import bot_texts, table_of
from tests.telegram.test_forum_topics import _tables_of_calls
from tests.telegram.tournament_play import (
    Entrants,
    announcement,
    draw_of,
    greet_all,
    player_ids,
    press_ok,
    round_tables,
    seats_of,
    tournament_id,
    tournament_row,
    wait_said,
)

pytestmark = pytest.mark.e2e

FORUM = -1001000000948
NO_RIGHTS = -1001000000949  # a forum where the bot is a plain member
NAMES = {9301 + i: n for i, n in enumerate(
    ["Anni", "Beppo", "Cilli", "Done", "Emmi", "Ferdl", "Gitti"])}
OTHERS = {9311: "Hias", 9312: "Iris"}
LANGS = {9307: "en"}  # Gitti reads English


def _thread(call: dict) -> int | None:
    value = call["params"].get("message_thread_id")
    return None if value is None else int(value)


def _join_and_start(fake: FakeBotApi, chat: int, names: dict[int, str], words: str) -> int:
    """``/turnier <words>`` in the forum's General topic by the first person, everybody
    joins (in their language), the opener starts: the tournament's id."""
    opener = next(iter(names))
    fake.send_text(chat, opener, f"/turnier {words}", user_first_name=names[opener])
    msg = announcement(fake, chat)
    tid = tournament_id(msg)
    for user in names:
        assert press_ok(fake, chat, user, msg["message_id"], f"v1:0:0:tn.j.{tid}",
                        LANGS.get(user, "de")) == ("✅ You're in." if user in LANGS
                                                   else "✅ Du bist dabei.")
    assert press_ok(fake, chat, opener, msg["message_id"], f"v1:0:0:tn.s.{tid}") is None
    return tid


def test_seven_people_play_run_fast_each_table_in_a_topic_of_its_own(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    began = time.monotonic()
    fake.make_forum(FORUM, "Stammtisch Forum")
    fake.set_status(FORUM, fake.bot_id, "administrator", ("can_manage_topics",))
    fake.make_forum(NO_RIGHTS, "Ohne Rechte")
    speaking(fake, LANGS)
    start_bot(sqlite_url)
    db = db_reader(sqlite_url)
    greet_all(fake, {**NAMES, **OTHERS})
    _join_and_start(fake, FORUM, NAMES, "runfast 1")
    draw = wait_said(fake, FORUM, "🏆 Runde 1 von 1 – die Tische:")
    assert draw.endswith("Jeder Tisch spielt in seinem eigenen Thema.")
    seated = draw_of(draw)
    assert [len(t) for t in seated] == [3, 3, 3]
    assert sum(n.startswith("🤖 ") for t in seated for n in t) == 2  # (7 people: 2 CPUs)
    assert sorted(n for t in seated for n in t if not n.startswith("🤖 ")) == sorted(
        NAMES.values())
    # a topic per table, made by the bot and named for it; each table plays in its topic
    rows = round_tables(db, 1)
    topics = fake.topics(FORUM)
    assert {t: v["name"] for t, v in topics.items()} == {
        int(r["thread_id"]): f"🏆 Runde 1 · Tisch {r['table_no']}" for r in rows}
    assert [c["status"] for c in fake.calls("createForumTopic")] == [200, 200, 200]
    assert [db.table(r["table_id"])["thread_id"] for r in rows] == [r["thread_id"] for r in rows]
    assert [sum(p is None for p in seats_of(r)) for r in rows] == [
        sum(n.startswith("🤖 ") for n in t) for t in seated]

    # each person's view names the forum and their table's topic
    ids = player_ids(db)
    for r in rows:
        for person in (p for p in seats_of(r) if p is not None):
            user = next(u for u, i in ids.items() if i == person)
            fake.wait_for(lambda u=user, n=r["table_no"]: any(
                (m["text"] or "").split("\n")[0].endswith(
                    f" · Stammtisch Forum › 🏆 Runde 1 · Tisch {n}") and table_of(m)
                for m in fake.messages(u)), WAIT, message=f"{NAMES[user]}'s view")
    gitti = [m["text"].split("\n")[0] for m in fake.messages(9307) if table_of(m)]
    assert gitti[0].startswith("🃏 Run Fast (Pao De Kuai) · Hand 1 of 4 · "), gitti
    people = Entrants(fake, dict(NAMES), "runfast", random.Random(7))
    people.play_until(lambda: tournament_row(db)["state"] == "finished", timeout=420)
    final = wait_said(fake, FORUM, "🏆 Endstand:")
    assert "gewinnt das Turnier!" in final or "gewinnen das Turnier!" in final
    assert len(people.accepted) > 30

    calls = [c for c in fake.calls() if str(c["params"].get("chat_id")) == str(FORUM)
             and c["method"] in ("sendMessage", "editMessageText")]
    assert all(c["status"] == 200 for c in calls), fake.summary()
    by_thread = {int(r["thread_id"]): r["table_id"] for r in rows}
    for m in fake.messages(FORUM):
        if m["message_id"] in topics:
            continue  # (a topic's creation message)
        table = table_of(m)
        if m["message_thread_id"] is None:  # the General topic: the tournament's messages
            assert table is None and m["text"].startswith(("🏆", "🏁")), m["text"]
        else:  # a topic: its table's messages, nothing of another table's
            assert table in (None, by_thread[m["message_thread_id"]]), m["text"]
    sent = [c for c in calls if c["method"] == "sendMessage"]
    assert _tables_of_calls(sent) == {table: {thread} for thread, table in by_thread.items()}
    assert all(db.table(table)["fsm_state"] == "finished" for table in by_thread.values())

    # a forum where the bot may not manage topics: Telegram refuses, the table plays privately
    since = fake.last_seq()
    _join_and_start(fake, NO_RIGHTS, {9311: "Hias", 9312: "Iris"}, "runfast 1")
    draw = wait_said(fake, NO_RIGHTS, "🏆 Runde 1 von 1 – die Tische:", since)
    assert draw.endswith("Ihr spielt privat mit mir: euer Tisch kommt in euren Chat.")
    refused = fake.calls("createForumTopic", since=since)
    assert [(c["status"], c["response"].get("description")) for c in refused] == [
        (400, "Bad Request: not enough rights to create a topic")]
    assert fake.topics(NO_RIGHTS) == {}
    table = round_tables(db, 1)[0]["table_id"]
    for user in OTHERS:  # their cards come privately
        fake.wait_for(lambda u=user: any(table_of(m) == table for m in fake.messages(u)),
                      WAIT, message="the private view")
    fake.send_text(NO_RIGHTS, 9311, "/turnier ende", user_first_name="Hias")
    wait_said(fake, NO_RIGHTS, "🏆 Endstand:", since)
    assert not any(table_of(m) for m in fake.messages(NO_RIGHTS))
    for t in bot_texts(fake, [FORUM, NO_RIGHTS, *NAMES, *OTHERS]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t
    print(f"\n7 people, Run Fast in a forum: {time.monotonic() - began:.0f} s, "
          f"{len(people.accepted)} presses")
