"""No reminder that cannot be acted on (issue 47): a reminder the bot could not send in time
(it was down) and that comes when the turn's clock has run out, or nearly, leaves the person
a short grace — ten minutes, or what the reminder would have left on time if that is less —
and says so; the timeout comes after it. A reminder that comes late with time enough left says
the time really left and moves nothing. Through the service on a simulated clock across
hours, the bot restarting in the middle, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy.engine import Engine

from tests.chatbot.long_games import (
    DAY0,
    GROUP,
    berlin,
    long_table,
    mark,
    move,
    notifying,
    private,
    rows_to,
    until_a_turn,
)
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)


def back_at(h: Harness, when: datetime) -> Harness:
    """The bot was down; it starts again at ``when`` (a new process on the same database and
    chats) and sweeps what is due, as its first sweeps do."""
    h.clock.set(when)
    again = Harness(h.engine, h.clock, cpu_delay=0, next_round_delay=0)
    again.postman, again.transport = h.postman, h.transport
    sweep(again)
    return again


def sweep(h: Harness) -> list[str]:
    """Fire every deadline that is due now, again until none is (the kinds fired)."""
    fired = []
    for _ in range(50):
        due = h.service.due()
        if not due:
            return fired
        for table_id, version in due:
            kind = h.table(table_id).deadline_kind or ""
            if h.fire(table_id, version):
                fired.append(kind)
    raise AssertionError("deadlines did not stop")


def _firsts(rows: list) -> list[str]:
    return [r.text.split("\n")[0] for r in rows]


def test_a_reminder_due_while_the_bot_was_down_leaves_ten_minutes_before_the_timeout(
        h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 10))  # 12 h: a quarter left at 19:00, ends 22:00
    person = until_a_turn(h, table_id)
    assert h.table(table_id).turn_ends_at == berlin(0, 22)
    before = mark(h)
    h = back_at(h, berlin(0, 22, 30))  # down from before 19:00 until after the turn's end
    assert _firsts(notifying(rows_to(h, private(person), before))) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 10 Min."]
    group = [r.text for r in rows_to(h, GROUP, before) if not r.action]
    assert f"⏰ @{person.username}, du bist am Zug (noch 10 Min.)." in group
    assert not [t for t in group if t.startswith("⌛")]  # not timed out right after it
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("timeout", berlin(0, 22, 40))
    assert table.turn_ends_at == berlin(0, 22, 40)
    assert sweep(h) == []  # nothing else is due now
    # the grace runs out: the stand-in plays, the person is told
    h.clock.set(berlin(0, 22, 40))
    assert sweep(h)[0] == "timeout"
    told = [r.text for r in rows_to(h, private(person), before) if r.slot is None]
    assert told == ["⌛ Deine Zeit bei Schwimmen in „Stammtisch“ ist abgelaufen – eine "
                    "Vertretung hat deinen Zug gespielt."]


def test_a_move_in_the_grace_counts(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 10))
    person = until_a_turn(h, table_id)
    h = back_at(h, berlin(0, 23, 0))
    moves = len(h.moves(table_id))
    h.clock.set(berlin(0, 23, 5))
    move(h, table_id, person)
    assert len(h.moves(table_id)) > moves
    assert not [r for r in rows_to(h, GROUP, 0) if r.text.startswith("⌛")]


def test_a_reminder_late_with_hours_left_says_the_time_really_left(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 10))
    person = until_a_turn(h, table_id)
    before = mark(h)
    h = back_at(h, berlin(0, 20))  # down from 18:30 to 20:00: the 19:00 reminder is late
    assert _firsts(notifying(rows_to(h, private(person), before))) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 2 Std."]
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("timeout", berlin(0, 22))


def test_a_turn_start_due_after_quiet_hours_and_missed_leaves_ten_minutes(
        h: Harness) -> None:
    table_id = long_table(h, "1h", at=berlin(1, 7, 30))  # starts in the quiet hours
    person = until_a_turn(h, table_id)
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("nudge", berlin(1, 8))
    assert table.turn_ends_at == berlin(1, 8, 30)
    before = mark(h)
    h = back_at(h, berlin(1, 9))  # down until after the turn's end
    assert _firsts(notifying(rows_to(h, private(person), before))) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 10 Min."]
    assert not [r for r in rows_to(h, GROUP, before) if r.text.startswith("⌛")]
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("timeout", berlin(1, 9, 10))


def test_a_ten_minute_clock_late_leaves_what_its_reminder_would_have(h: Harness) -> None:
    table_id = long_table(h, "10min", at=berlin(0, 10))
    person = until_a_turn(h, table_id)
    table = h.table(table_id)
    assert table.deadline_kind == "remind" and table.turn_ends_at is not None
    before = mark(h)
    h = back_at(h, berlin(0, 12))
    assert _firsts(notifying(rows_to(h, private(person), before))) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 2 Min. 30 s"]
    assert h.table(table_id).next_deadline == berlin(0, 12, 2.5)
