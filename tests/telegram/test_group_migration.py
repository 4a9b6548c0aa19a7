"""Groups that change, through the fake Bot API (issue 47, item 14), the bot a separate process
on a simulated clock. A basic group with a Stammtisch evening running, a finished game on its
Deckel and a game under way is upgraded to a supergroup (Telegram's two service messages,
``migrate_to_chat_id`` in the old chat and ``migrate_from_chat_id`` in the new one, and the old
id refused from then on): the game plays on in the new chat, ``/deckel`` and ``/top`` there
show the old numbers with the new game's, nothing more is sent to the old id, and the service
messages told again, in the other order, change nothing. An upgrade the bot hears of only from
a refused send (``ChatMigrated``) moves the group too, merging the row a message in the new
chat made meanwhile. A supergroup switched to a forum keeps its table in the General topic."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from chatbot.i18n import tr
from tests.fakes.telegram_api import FakeBotApi
from tests.simclock import SimClock
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess
from tests.telegram.evening_record import deckel_line, game_points, sheet_rows, summed
from tests.telegram.keyboards import answer_text, bot_texts, buttons, codes, table_of
from tests.telegram.long_game import berlin, sent
from tests.telegram.playing import GroupGame, greet

pytestmark = pytest.mark.e2e

GROUP, SUPER = -4702, -1000000004702
ALMA, BRUNO = 721, 722
NAMES = {ALMA: "Alma", BRUNO: "Bruno"}
TITLE = "Stammtisch Test 4702"  # (the fake's name of the basic group; the supergroup keeps it)


class MovingGame(GroupGame):
    """A group game whose group may take a new id (its name stays the basic group's)."""

    @property
    def title(self) -> str:
        return TITLE


def said(fake: FakeBotApi, chat: int, start: str, since: int = 0) -> str:
    return fake.wait_for(lambda: next((c["params"]["text"] for c in sent(fake, chat, since)
                                       if c["params"]["text"].startswith(start)), None),
                         WAIT, message=f"a message {start!r} in chat {chat}")


def calls_to(fake: FakeBotApi, chat: int, since: int) -> list[dict]:
    """Every Bot API call naming the chat since ``since``."""
    return [c for c in fake.calls(since=since)
            if str((c.get("params") or {}).get("chat_id")) == str(chat)]


def handled(fake: FakeBotApi) -> None:
    """Every update so far was handled (the bot confirms an update only once it is)."""
    fake.wait_for(lambda: not fake.pending_updates(), WAIT, message="the updates handled")


def chat_rows(db: Db) -> list[dict]:
    return db.rows("SELECT id, external_id FROM chat WHERE external_id IN (:a, :b)",
                   a=str(GROUP), b=str(SUPER))


def table_message(fake: FakeBotApi, chat: int, table_id: int) -> dict:
    """The (newest) message of a table in a chat."""
    return fake.wait_for(lambda: next((m for m in reversed(fake.messages(chat))
                                       if not m["deleted"] and table_of(m) == table_id), None),
                         WAIT, message=f"table {table_id} in chat {chat}")


def new_game(fake: FakeBotApi, group: int, since: int) -> MovingGame:
    """``/new schwimmen`` by Alma, Bruno joins, Alma starts."""
    fake.send_text(group, ALMA, "/new schwimmen", user_first_name="Alma", chat_title=TITLE)
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(group, include_deleted=False)
                                        if "join" in codes(m) and any(
                                            c["params"].get("text") == m["text"]
                                            for c in sent(fake, group, since))), None),
                          WAIT, message="the lobby")
    game = MovingGame(fake, group, [ALMA, BRUNO], NAMES, random.Random(group))
    game.table_id, game.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
    assert answer_text(fake, fake.press(group, BRUNO, game.table_msg,
                                        game.wait_code("join"))) == "Du bist dabei."
    fake.wait_for(lambda: "Bruno" in game.table_message().get("text", ""), WAIT,
                  message="Bruno in the lobby")
    start(fake, game)
    return game


def start(fake: FakeBotApi, game: GroupGame) -> None:
    fake.press(game.group, ALMA, game.table_msg, game.wait_code("start"))
    fake.wait_for(lambda: "start" not in codes(game.table_message()), WAIT,
                  message="the game to start")


def some_moves(game: GroupGame, presses: int = 3) -> None:
    pressed, deadline = 0, time.monotonic() + WAIT
    while pressed < presses and not game.finished and time.monotonic() < deadline:
        pressed += game.step()
        time.sleep(0.05)
    assert pressed == presses, "the game ended too early"


def test_an_upgraded_group_plays_on_with_its_evening_deckel_and_stats(
        fake: FakeBotApi, db_url: str, tmp_path: Path,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    clock = SimClock(tmp_path / "clock", berlin(0, 12))  # Monday noon
    start_bot(db_url, TURN_TIMEOUT=300, **clock.env())
    db = db_reader(db_url)
    for user in NAMES:
        greet(fake, user, NAMES[user])
    fake.send_text(GROUP, ALMA, "/abend heute 20:00 schwimmen", user_first_name="Alma")
    said(fake, GROUP, "🍻 Geplant:")
    announcement = fake.wait_for(lambda: next((m for m in fake.messages(GROUP) if "✅ Bin dabei"
                                               in dict(buttons(m))), None), WAIT,
                                 message="the announcement")
    for user in NAMES:
        uid = fake.press(GROUP, user, announcement["message_id"],
                         dict(buttons(announcement))["✅ Bin dabei"])
        assert answer_text(fake, uid) == "Notiert: ✅ Bin dabei"
    since = fake.last_seq()
    clock.set(berlin(0, 20) + timedelta(seconds=1))
    said(fake, GROUP, "🍻 Der Stammtisch beginnt!", since)
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                        if "start" in codes(m)), None), WAIT,
                          message="the evening's lobby")
    first = MovingGame(fake, GROUP, [ALMA, BRUNO], NAMES, random.Random(1))
    first.table_id, first.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
    start(fake, first)
    first.play_to_end(timeout=240)
    parts = [game_points(db, first.table_id)]
    assert said(fake, GROUP, "🍺 Deckel: ") == deckel_line(summed(parts))

    clock.set(clock.now() + timedelta(minutes=30))
    game = new_game(fake, GROUP, fake.last_seq())
    some_moves(game)
    chat_id = chat_rows(db)[0]["id"]

    moved_at = fake.last_seq()
    fake.migrate_chat(GROUP, SUPER, ALMA, first="to")
    fake.wait_for(lambda: chat_rows(db) == [{"id": chat_id, "external_id": str(SUPER)}], WAIT,
                  message="the group's row under its new id")
    game.group, game.table_msg = SUPER, table_message(fake, SUPER, game.table_id)["message_id"]
    handled(fake)
    settled = fake.last_seq()
    # both service messages once more, the other way round: nothing happens twice
    fake.migration_message(SUPER, ALMA, **{"from": GROUP})
    fake.migration_message(GROUP, ALMA, to=SUPER)
    handled(fake)
    assert chat_rows(db) == [{"id": chat_id, "external_id": str(SUPER)}]
    assert [m["message_id"] for m in fake.messages(SUPER)
            if table_of(m) == game.table_id] == [game.table_msg]  # posted there once

    game.play_to_end(timeout=240)
    parts.append(game_points(db, game.table_id))
    fake.wait_for(lambda: sent(fake, SUPER, prefix="🍺 Deckel: "), WAIT,
                  message="the Deckel's line in the new chat")
    assert sent(fake, SUPER, prefix="🍺 Deckel: ")[-1]["params"]["text"] == \
        deckel_line(summed(parts))
    since = fake.last_seq()
    fake.send_text(SUPER, BRUNO, "/deckel", user_first_name="Bruno", chat_type="supergroup")
    sheet = said(fake, SUPER, "🍺 Der Deckel dieses Abends", since)
    assert sheet.split("\n") == ["🍺 Der Deckel dieses Abends (2 Spiele)",
                                 *sheet_rows(summed(parts))]
    fake.send_text(SUPER, BRUNO, "/top", user_first_name="Bruno", chat_type="supergroup")
    board = said(fake, SUPER, "🏆 Bestenliste dieser Gruppe", since).split("\n")
    for name in NAMES.values():  # both games count for the group's board
        assert any(line.split(" · ")[0].endswith(name) and "in 2 Spielen" in line
                   for line in board), board
    assert db.rows("SELECT DISTINCT chat_id FROM game_table WHERE id IN (:a, :b)",
                   a=first.table_id, b=game.table_id) == [{"chat_id": chat_id}]
    # the old id: only refused calls after the upgrade, and none once the bot had moved
    assert all(c["status"] == 400 for c in calls_to(fake, GROUP, moved_at))
    assert calls_to(fake, GROUP, settled) == []
    for text in bot_texts(fake, [GROUP, SUPER, ALMA, BRUNO]):
        assert not any(marker in text for marker in TRACEBACK_MARKERS), text


@pytest.mark.parametrize("first", ["to", "from"])
def test_the_service_messages_move_a_lobby_once_in_either_order(
        fake: FakeBotApi, sqlite_url: str, first: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url)
    db = db_reader(sqlite_url)
    for user in NAMES:
        greet(fake, user, NAMES[user])
    fake.send_text(GROUP, ALMA, "/new schwimmen", user_first_name="Alma")
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(GROUP) if "join" in codes(m)),
                                       None), WAIT, message="the lobby")
    table_id = table_of(lobby)
    chat_id = chat_rows(db)[0]["id"]
    handled(fake)
    ids = fake.migrate_chat(GROUP, SUPER, ALMA, first=first)
    fake.redeliver(ids[1])  # (each told twice: the same update, and a new one)
    fake.migration_message(*((SUPER, ALMA) if first == "to" else (GROUP, ALMA)),
                           **({"from": GROUP} if first == "to" else {"to": SUPER}))
    moved = table_message(fake, SUPER, table_id)
    handled(fake)
    settled = fake.last_seq()
    assert chat_rows(db) == [{"id": chat_id, "external_id": str(SUPER)}]
    assert [m["message_id"] for m in fake.messages(SUPER) if table_of(m) == table_id] == \
        [moved["message_id"]]
    uid = fake.press(SUPER, BRUNO, moved["message_id"], codes(moved, table_id)["join"])
    assert answer_text(fake, uid) == "Du bist dabei."
    fake.wait_for(lambda: "Bruno" in (fake.message(SUPER, moved["message_id"]) or {}).get(
        "text", ""), WAIT, message="Bruno in the lobby in the new chat")
    assert calls_to(fake, GROUP, settled) == []


def test_an_upgrade_heard_of_only_from_a_refused_send_moves_the_group(
        fake: FakeBotApi, sqlite_url: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=300)
    db = db_reader(sqlite_url)
    for user in NAMES:
        greet(fake, user, NAMES[user])
    game = new_game(fake, GROUP, 0)
    chat_id = chat_rows(db)[0]["id"]
    fake.migrate_chat(GROUP, SUPER, ALMA, notify=False)  # (the service messages never come)
    since = fake.last_seq()
    fake.send_text(SUPER, BRUNO, "/regeln", user_first_name="Bruno", chat_type="supergroup")
    said(fake, SUPER, "", since)  # the new chat has a row of its own now
    assert len(chat_rows(db)) == 2
    some_moves(game, 1)  # the group's view of the move is refused under the old id
    game.group, game.table_msg = SUPER, table_message(fake, SUPER, game.table_id)["message_id"]
    refused = [c for c in calls_to(fake, GROUP, since) if c["status"] == 400]
    assert refused and refused[0]["response"]["parameters"] == {"migrate_to_chat_id": SUPER}
    fake.wait_for(lambda: chat_rows(db) == [{"id": chat_id, "external_id": str(SUPER)}], WAIT,
                  message="the two rows merged into the older")
    game.play_to_end(timeout=240)
    assert db.result(game.table_id) is not None


def test_a_supergroup_switched_to_a_forum_keeps_its_table_in_the_general_topic(
        fake: FakeBotApi, sqlite_url: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=300)
    for user in NAMES:
        greet(fake, user, NAMES[user])
    game = new_game(fake, SUPER, 0)
    some_moves(game, 2)
    fake.make_forum(SUPER)
    since = fake.last_seq()
    fake.send_text(SUPER, BRUNO, "/new", user_first_name="Bruno")  # in the General topic
    assert said(fake, SUPER, "", since) == tr("de", "busy_table")  # (the running one)
    topic = fake.create_topic(SUPER, "Runde 2", user_id=BRUNO)
    fake.send_text(SUPER, BRUNO, "/new schwimmen", user_first_name="Bruno", topic=topic)
    second = fake.wait_for(lambda: next((m for m in fake.messages(SUPER) if "join" in codes(m)
                                         and m["message_thread_id"] == topic), None), WAIT,
                           message="a second table in the topic")
    assert table_of(second) != game.table_id
    edits = game.table_message()["edit_count"]
    some_moves(game, 2)  # the General topic's table is edited in place, as before
    fake.wait_for(lambda: game.table_message()["edit_count"] > edits, WAIT,
                  message="the table message edited")
    assert fake.message(SUPER, game.table_msg)["message_thread_id"] is None  # type: ignore[index]
    game.play_to_end(timeout=240)
