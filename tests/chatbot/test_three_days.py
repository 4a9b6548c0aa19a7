"""A group game of Schwimmen with a 12-hour clock played over three simulated days (issue 37),
with two processes firing every deadline and a restart in the middle: reminders come when due
and never in quiet hours, never twice; the group gets at most one mention a turn; moves from
the reminders' buttons count; timeouts play on."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from sqlalchemy.engine import Engine

from chatbot.service.core import quiet_hours
from storage.models import Player
from tests.chatbot.long_games import (
    ALICE,
    BOB,
    DAY0,
    GROUP,
    berlin,
    long_table,
    move,
    on_turn,
    private,
    rows_to,
)
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock

QUIET = Player(platform="test", external_id="x", name="x", language="de", created_at=DAY0)


def _reminders(h: Harness, table_id: int) -> list:
    """Reminder rows to the people privately (a header line starting with ⏰)."""
    return [r for user in (ALICE, BOB) for r in rows_to(h, private(user), 0)
            if r.table_id == table_id and r.fresh and r.text.startswith("⏰")]


def test_a_twelve_hour_game_over_three_days(db_engine: Engine) -> None:
    clock = FakeClock(DAY0)
    h = Harness(db_engine, clock, cpu_delay=0, next_round_delay=0)
    other = Harness(db_engine, clock, cpu_delay=0, next_round_delay=0)  # a second process
    table_id = long_table(h, at=berlin(0, 18))
    end = berlin(3, 18)
    restarted = False
    fired: Counter[str] = Counter()
    timed_out_last = False
    turns = 0
    for _ in range(400):
        table = h.table(table_id)
        if clock.now >= end or table.fsm_state in ("finished", "abandoned") \
                or table.next_deadline is None:
            break
        if not restarted and clock.now >= berlin(1, 18):  # the bot restarts in the middle
            h = Harness(db_engine, clock, cpu_delay=0, next_round_delay=0)
            restarted = True
        turns += table.deadline_kind == "timeout"
        # every third turn the clock runs out (never twice in a row: nobody is marked away)
        answer = table.deadline_kind == "timeout" and (timed_out_last or turns % 3 != 0)
        if answer:  # the person on turn answers a reminder some time before the clock ends
            clock.set(max(clock.now, table.next_deadline - timedelta(minutes=30)))
            move(h, table_id, on_turn(h, table_id))
            timed_out_last = False
            continue
        clock.set(table.next_deadline)
        results = [h.service.fire_due(table_id, table.version),
                   other.service.fire_due(table_id, table.version)]
        assert results.count(True) == 1, results  # claimed once
        fired[table.deadline_kind or ""] += 1
        timed_out_last = table.deadline_kind == "timeout"
    assert restarted and clock.now >= berlin(1, 18)
    assert fired["remind"] and fired["timeout"]
    reminders = _reminders(h, table_id)
    assert reminders, "nobody was reminded"
    for row in reminders:  # none in quiet hours (23:00–08:00 in Berlin)
        assert not quiet_hours.in_quiet(QUIET, row.created_at), (row.created_at, row.text)
    # never twice: one reminder per person and turn (the table's version) and kind
    keys = Counter((r.chat_external_id, r.text.split("\n")[0].split(" – ")[0], r.created_at)
                   for r in reminders)
    assert max(keys.values()) == 1
    mentions = [r for r in rows_to(h, GROUP, 0) if r.slot == f"r{table_id}" and r.text]
    assert len(mentions) == fired["remind"]  # one short mention per last quarter, not more
