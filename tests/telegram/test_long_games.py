"""Games that run for days (issue 37) through the real bot process and the fake Bot API, on
the process's simulated clock (``STAMMTISCH_CLOCK_FILE``): a group game with a 12-hour clock
over three simulated days with a restart in the middle — private reminders when due (never
in quiet hours, never twice, with a link to the group's table message), one group mention a
turn, moves from the reminder's buttons, a pause agreed by both that stops the clock and goes
on; a person at three groups' tables sees them all under ``/games`` in their language; a
lobby nobody starts closes by itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db, as_utc
from tests.telegram.bot_process import WAIT, BotProcess
from tests.telegram.keyboards import answer_text, codes, peek, table_of
from tests.telegram.long_game import (
    ALICE,
    BOB,
    GROUP,
    LongTable,
    SimClock,
    answer,
    berlin,
    deadline,
    quiet,
    sent,
)

pytestmark = pytest.mark.e2e


def _json(value: object) -> dict:
    return json.loads(value) if isinstance(value, str) else value  # type: ignore[return-value]


def _entities(call: dict) -> list[dict]:
    value = call["params"].get("entities") or []
    return json.loads(value) if isinstance(value, str) else value


def _pause_a_day(t: LongTable, clock: SimClock) -> None:
    """Alice asks for a pause of a day, Bob agrees: the clock stands still; at its end the
    turn's end and its deadline have moved by the time it stood."""
    before = t.row()
    ends, due = as_utc(before["turn_ends_at"]), deadline(before)
    assert due is not None
    assert t.press(ALICE, "pz.1") == "⏸ Gefragt: die anderen stimmen mit einem Tippen zu."
    text = t.fake.wait_for(lambda: "⏸ Alice bittet um 1 Tag Pause (zugestimmt: 1 von 2)"
                           in (m := t.table_message())["text"] and m["text"], WAIT,
                           message="the request on the table message")
    request = _json(t.row()["pause"])["n"]
    agree = codes(t.table_message(), t.table_id)[f"pa.{request}"]
    assert t.press(BOB, f"pa.{request}") == "✅ Agreed."  # (Bob reads English)
    row = t.fake.wait_for(lambda: (r := t.row())["paused_until"] and r, WAIT, message="pause")
    until = as_utc(row["paused_until"])
    since = as_utc(_json(row["pause"])["since"])
    assert until == since + timedelta(days=1) and row["deadline_kind"] == "resume"
    text = t.fake.wait_for(lambda: "⏸ Pause bis" in (m := t.table_message())["text"]
                           and m["text"], WAIT, message="the pause on the table message")
    assert "▶ Weiter" in json.dumps(t.table_message()["reply_markup"], ensure_ascii=False)
    uid = t.fake.press(GROUP, BOB, t.table_message()["message_id"], agree, check_data=False,
                       language_code="en")  # a second tap (an older keyboard): nothing
    assert answer_text(t.fake, uid) == "The table is paused already."
    assert t.row()["version"] == row["version"]
    assert "Pause bis" in text
    clock.set(until + timedelta(seconds=1))
    row = t.wait_change(row)
    assert row["paused_until"] is None and row["deadline_kind"] == before["deadline_kind"]
    moved = as_utc(row["turn_ends_at"]) - ends
    assert timedelta(days=1) <= moved <= timedelta(days=1, seconds=30), moved
    assert abs((deadline(row) - due) - moved) < timedelta(seconds=1)  # type: ignore[operator]
    t.fake.wait_for(lambda: sent(t.fake, GROUP, prefix="▶ Die Pause ist vorbei"), WAIT,
                    message="the pause's end in the group")


def test_a_twelve_hour_group_game_over_three_simulated_days(
        fake: FakeBotApi, tmp_path: Path, db_url: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    clock = SimClock(tmp_path / "clock", berlin(0, 13))
    bot = start_bot(db_url, **clock.env())
    t = LongTable(fake, db_reader(db_url)).open("12h")
    assert "⏱ 12 Std." in t.table_message()["text"] or t.row()["turn_timeout"] == 43200
    end, restarted, paused = berlin(3, 18), False, False
    fired: dict[str, int] = {"remind": 0, "nudge": 0, "timeout": 0}
    turns = answered_reminder = 0
    for _ in range(300):
        row = t.row()
        now = clock.now()
        if row["fsm_state"] in ("finished", "abandoned") or now >= end:
            break
        if not restarted and now >= berlin(1, 18):  # the bot process restarts in the middle
            bot.stop()
            bot = start_bot(db_url, **clock.env())
            restarted = True
        kind, due = row["deadline_kind"], deadline(row)
        if kind in ("cpu", "next") or due is None:
            t.wait_change(row)
            continue
        if kind == "remind" and not paused and now >= berlin(2, 8):
            _pause_a_day(t, clock)
            paused = True
            continue
        if kind in ("remind", "nudge"):
            mark = fake.last_seq()
            clock.set(due + timedelta(seconds=1))
            t.wait_change(row)
            fired[kind] += 1
            # delivered: the person's reminder (and at the last quarter the group's mention)
            fake.wait_for(lambda m=mark, k=kind: (k == "nudge" or sent(
                fake, GROUP, m, prefix="⏰")) and [u for u in (ALICE, BOB)
                                                   if sent(fake, u, m, prefix="⏰")],
                WAIT, message=f"the reminders ({kind})")
            told = [u for u in (ALICE, BOB) if sent(fake, u, mark, prefix="⏰")]
            assert len(told) == 1 and not quiet(due, told[0]), (kind, due, told)
            continue
        assert kind == "timeout", kind
        turns += 1
        if turns % 3 == 0:  # now and then the clock runs out (a stand-in plays)
            clock.set(due + timedelta(seconds=1))
            t.wait_change(row)
            fired["timeout"] += 1
            continue
        answered_reminder += answer(t)
    assert restarted and paused and turns >= 4, (restarted, paused, turns, fired)
    assert fired["remind"] >= 3 and answered_reminder >= 2, (fired, answered_reminder)
    reminders = {u: sent(fake, u, prefix="⏰") for u in (ALICE, BOB)}
    # never twice: one private message per reminder fired (settings "on": the quarter one and
    # the one after quiet hours), and one group mention per quarter reminder
    assert sum(len(r) for r in reminders.values()) == fired["remind"] + fired["nudge"]
    assert len(sent(fake, GROUP, prefix="⏰")) == fired["remind"]
    texts = [c["params"]["text"] for c in reminders[ALICE]] + \
        [c["params"]["text"] for c in reminders[BOB]]
    title = "Stammtisch Test 1001234567890"
    assert any(s.startswith(f"⏰ Du bist am Zug bei Schwimmen in „{title}“ – noch ")
               for s in texts)
    assert any(s.startswith(f"⏰ Your turn at Schwimmen (31) in {title} – ") for s in texts)
    link = f"https://t.me/c/1234567890/{t.table_message()['message_id']}"
    quarter = [c for r in reminders.values() for c in r if " – " in c["params"]["text"]]
    assert quarter and all(any(e.get("url", "").startswith("https://t.me/c/1234567890/")
                               for e in _entities(c)) for c in quarter)
    assert any(e.get("url") == link for c in quarter for e in _entities(c)) or \
        t.table_message()["message_id"] != t.message_id  # (reposted: an older link)


def test_three_groups_in_games_and_a_lobby_that_expires(
        fake: FakeBotApi, tmp_path: Path, sqlite_url: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    clock = SimClock(tmp_path / "clock", berlin(0, 13))
    start_bot(sqlite_url, **clock.env())
    db = db_reader(sqlite_url)
    groups = (-1001000000001, -1001000000002, -1001000000003)
    tables = [LongTable(fake, db, group=g).open(c) for g, c in zip(groups, ("12h", "24h", "3d"),
                                                                     strict=True)]
    since = fake.last_seq()
    fake.send_text(BOB, BOB, "/games", language_code="en")
    listing = fake.wait_for(lambda: next((c["params"] for c in sent(fake, BOB, since)
                                          if "🃏 Your tables:" in c["params"]["text"]), None),
                            WAIT, message="Bob's /games")
    lines = listing["text"].splitlines()[1:]
    assert len(lines) == 3, lines
    for g in groups:
        assert sum(f"Schwimmen (31) · Stammtisch Test {abs(g)} · " in line for line in lines) == 1
    assert all("your turn" in line or "Alice's turn" in line or "between rounds" in line
               for line in lines), lines
    assert len(json.loads(listing["reply_markup"]) if isinstance(listing["reply_markup"], str)
               else listing["reply_markup"]["inline_keyboard"]) >= 3
    since = fake.last_seq()
    fake.send_text(ALICE, ALICE, "/games")
    listing = fake.wait_for(lambda: next((c["params"]["text"] for c in sent(fake, ALICE, since)
                                          if "🃏 Deine Tische:" in c["params"]["text"]), None),
                            WAIT, message="Alice's /games")
    assert len(listing.splitlines()) == 4, listing
    # a lobby nobody starts closes by itself after 24 hours (a clock of 10 minutes or more)
    lobby_group = -1001000000004
    fake.send_text(lobby_group, ALICE, "/new schwimmen clock=12h", user_first_name="Alice")
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(lobby_group)
                                        if "join" in codes(m)), None), WAIT, message="lobby")
    assert "⌛" in lobby["text"]  # it says when it closes
    clock.set(berlin(1, 13, 1))
    fake.wait_for(lambda: sent(fake, lobby_group, prefix="⌛ Niemand hat"), WAIT,
                  message="the lobby to expire")
    fake.wait_for(lambda: not codes(peek(fake, lobby_group, lobby["message_id"])), WAIT,
                  message="the closed lobby without buttons")
    assert db.table(table_of(lobby))["fsm_state"] == "abandoned"  # type: ignore[arg-type]
    assert all(t.row()["fsm_state"] != "abandoned" for t in tables)
