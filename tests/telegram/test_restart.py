"""A hard kill (SIGKILL) in the middle of group games loses nothing and repeats nothing.

All state lives in the database: after a restart on the same database the games go on, the
buttons of messages sent before the kill still work, a pending turn clock fires exactly once,
and an update that Telegram delivers again is not applied twice.

Two tables run side by side: table A with a long clock (60 s, chosen with the lobby's clock
button) for the old-buttons part, so that no restart can be too slow for it, and table B with a
short clock (``TURN_TIMEOUT``) that runs out while the bot is down or restarting.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    answer_text,
    codes,
    move_datas,
    press_and_settle,
)

pytestmark = pytest.mark.e2e

TURN_TIMEOUT = 4


def _answers(fake: FakeBotApi, update_id: int) -> list[dict]:
    query_id = fake.get_update(update_id)["callback_query"]["id"]
    return [c for c in fake.calls("answerCallbackQuery")
            if c["params"].get("callback_query_id") == query_id]


def test_restart_mid_game_and_pending_timeout(fake: FakeBotApi, sqlite_url: str,
                                              start_bot: Callable[..., BotProcess],
                                              db_reader: Callable[[str], Db]) -> None:
    settings = {"TURN_TIMEOUT": TURN_TIMEOUT}
    bot = start_bot(sqlite_url, **settings)
    db = db_reader(sqlite_url)
    rng = random.Random(5)

    def played(table_id: int) -> list[dict]:
        """The moves of the people, not the system's deals (a round that ended on the deal
        is dealt anew before anybody is on turn; ``tests.dealing``)."""
        return [m for m in db.moves(table_id) if m["actor"] != "system"]

    a = GroupGame(fake, -8100, [8101, 8102], {8101: "Hanna", 8102: "Ivo"}, rng)
    a.hello()

    def long_clock() -> None:
        assert press_and_settle(fake, a.group, a.users[0], a.table_msg,
                                a.wait_code("clock")) is None
        assert "⏱ 60 s" in a.table_message()["text"]

    a.open(extra=long_clock)
    assert db.table(a.table_id)["turn_timeout"] == 60

    # ---- 1. killed while a person is on turn; they press the old button while the bot is down
    first, msg = fake.wait_for(a.on_turn, WAIT, message="somebody on turn at table A")
    version = db.table(a.table_id)["version"]
    assert db.table(a.table_id)["deadline_kind"] == "remind"
    bot.kill()
    data = rng.choice(move_datas(msg, a.table_id))
    press = fake.press(first, first, msg["message_id"], data)
    bot = start_bot(sqlite_url, **settings)
    assert answer_text(fake, press) is None, "the old button was refused after the restart"
    moves = fake.wait_for(lambda: len(m := played(a.table_id)) == 1 and m, WAIT,
                          message="the move pressed before the restart")
    assert (moves[0]["actor"], moves[0]["seq"], moves[0]["code"]) == \
        ("player", version + 1, data.split(":", 3)[3])
    # the same update once more (Telegram may deliver an update again): not applied again
    fake.redeliver(press)
    fake.wait_for(lambda: len(_answers(fake, press)) >= 2, WAIT,
                  message="the repeated update to be answered")
    assert len(played(a.table_id)) == 1

    # ---- 2. table B: the person on turn lets the clock run out while the bot is killed
    b = GroupGame(fake, -8200, [8201, 8202], {8201: "Jana", 8202: "Kurt"}, rng)
    b.hello()
    b.open()
    assert db.table(b.table_id)["turn_timeout"] == TURN_TIMEOUT
    seat_no = {u: s["seat_no"] for u, s in zip(b.users, db.seats(b.table_id), strict=True)}

    def person_on_turn() -> tuple[int, int] | None:
        """(user, version) once a person's buttons show and the database agrees."""
        turn, row = b.on_turn(), db.table(b.table_id)
        state = json.loads(row["state_json"] or "{}")
        if turn and state.get("to_act") == seat_no[turn[0]] and row["deadline_kind"] in (
                "remind", "timeout") and codes(turn[1], b.table_id).get("knock", "").split(
                ":")[2] == str(row["version"]):
            return turn[0], row["version"]
        return None

    sleeper, turn_version = fake.wait_for(person_on_turn, WAIT,
                                          message="somebody on turn at table B")
    seat = seat_no[sleeper]
    bot.kill()
    bot = start_bot(sqlite_url, **settings)
    # table A's update from before, once more after another restart: still not applied again
    fake.redeliver(press)

    def timeout_move() -> dict | None:
        return next((m for m in db.moves(b.table_id) if m["seq"] > turn_version), None)

    if timeout_move() is None:  # the clock is still running: kill once more
        bot.kill()
        bot = start_bot(sqlite_url, **settings)
    move = fake.wait_for(timeout_move, WAIT, message="the timeout move at table B")
    # stop table B at once, so that no later turn's clock runs out
    fake.send_text(b.group, b.users[0], "/stop")
    fake.wait_for(lambda: db.table(b.table_id)["fsm_state"] == "abandoned", WAIT,
                  message="table B stopped")
    assert (move["actor"], move["seq"], move["seat_no"]) == \
        ("timeout", turn_version + 1, seat)

    # ---- 3. table A goes on
    fake.wait_for(lambda: len(_answers(fake, press)) >= 3, WAIT,
                  message="the repeated update to be answered again")
    assert len(played(a.table_id)) == 1
    second = next(u for u in a.users if u != first)
    user, msg = fake.wait_for(lambda: (t := a.on_turn()) and t[0] == second and t, WAIT,
                              message="the second player on turn at table A")
    assert press_and_settle(fake, user, user, msg["message_id"],
                            move_datas(msg, a.table_id)[0]) is None
    fake.wait_for(lambda: len(played(a.table_id)) == 2, WAIT, message="table A's next move")
    time.sleep(2.5)  # more than one deadline sweep: only to let a duplicate show, if any

    a_moves = db.moves(a.table_id)
    # (should that move have ended the round, the system deals the next one 0.2 s later)
    assert [m["actor"] for m in a_moves if m["actor"] != "system"] == ["player", "player"]
    seqs = [m["seq"] for m in a_moves]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # one row per version, no repeat
    b_moves = db.moves(b.table_id)
    assert [(m["actor"], m["seat_no"]) for m in b_moves
            if m["seq"] > turn_version and m["seat_no"] == seat] == [("timeout", seat)], b_moves
    b_texts = [m["text"] or "" for m in fake.messages(b.group)]
    timed_out = [t for t in b_texts if t.startswith("⌛")]
    assert timed_out and b.names[sleeper] in timed_out[0], b_texts
    assert sum(b.names[sleeper] in t for t in timed_out) == 1, b_texts
    first_timeout = b_texts.index(timed_out[0])
    reminders = [t for t in b_texts[:first_timeout] if t.startswith("⏰")]
    assert len(reminders) == 1 and b.names[sleeper] in reminders[0], b_texts
    assert not any(t.startswith("💤") for t in b_texts), b_texts  # one timeout: not away
    # the reminder mentions the sleeper by name, with a link to the user (not as raw Markdown)
    reminder = next(m for m in fake.messages(b.group) if (m["text"] or "").startswith("⏰"))
    assert "tg://" not in reminder["text"] and "](" not in reminder["text"]
    assert [e["url"] for e in reminder["entities"] or []] == [f"tg://user?id={sleeper}"]
    a_texts = [m["text"] or "" for m in fake.messages(a.group)]
    assert not any(t.startswith(("⌛", "💤")) for t in a_texts), a_texts
