"""Games that run for days (issue 37), through the service on a simulated clock: turn clocks
from half a minute to three days, reminders that reach the person privately (at the turn's
start, and when a quarter of the clock is left, with one mention in the group), quiet hours in
the person's time zone, a 12-hour clock that never runs out in them, no reminder twice (another
process, a restart), a move from the reminder's buttons, private notices of timeouts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine

from tests.chatbot.long_games import (
    ALICE,
    BOB,
    DAY0,
    GROUP,
    berlin,
    fire_next,
    long_table,
    mark,
    move,
    notifying,
    private,
    rows_to,
    settings,
    until_a_turn,
)
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)


def test_lobby_clock_cycles_from_half_a_minute_to_three_days(h: Harness) -> None:
    h.clock.set(berlin(0, 13))
    for user in (ALICE, BOB):
        h.command(private(user), user, "start")
    table_id = h.command(GROUP, ALICE, "new", "schwimmen").table_id
    assert table_id
    seen = []
    for _ in range(10):
        lobby = h.messages(GROUP)[-1]
        seen.append(next(label for row in lobby.rows for label, data in row
                         if data.endswith(":clock")))
        assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["clock"]).changed
    assert seen == ["⏱ 60 s", "⏱ 2 Min.", "⏱ 10 Min.", "⏱ 1 Std.", "⏱ 12 Std.", "⏱ 24 Std.",
                    "⏱ 3 Tage", "⏱ –", "⏱ 30 s", "⏱ 60 s"]


def test_new_takes_a_typed_clock_and_refuses_one_it_does_not_offer(h: Harness) -> None:
    h.clock.set(berlin(0, 13))
    h.command(private(ALICE), ALICE, "start")
    out = h.command(GROUP, ALICE, "new", "schwimmen clock=12h")
    assert out.ok and h.table(out.table_id).turn_timeout == 12 * 3600  # type: ignore[arg-type]
    assert "⏱ 12 Std." in h.messages(GROUP)[-1].text
    h.press(GROUP, ALICE, h.buttons(GROUP, out.table_id)["stop"])  # type: ignore[arg-type]
    refused = h.command(GROUP, ALICE, "new", "schwimmen clock=5h")
    assert not refused.ok
    assert refused.text == ("Als Bedenkzeit gibt es: 30 s, 60 s, 2 Min., 10 Min., 1 Std., "
                            "12 Std., 24 Std., 3 Tage oder keine (z. B. clock=12h).")


def test_the_turn_start_brings_the_view_down_and_no_group_reminder_at_half_time(
        h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 10))
    person = until_a_turn(h, table_id)
    table = h.table(table_id)
    assert table.turn_ends_at == h.clock.now + timedelta(hours=12)
    assert (table.deadline_kind, table.next_deadline) == ("remind", h.clock.now + timedelta(hours=9))
    views = [r for r in rows_to(h, private(person), 0) if r.slot == f"h{table_id}"]
    assert views[-1].repost and views[-1].buttons  # brought down, with the move buttons
    assert not [r for r in rows_to(h, GROUP, 0) if r.slot == f"r{table_id}"]  # no reminder


def test_a_quarter_left_reminds_privately_and_once_in_the_group(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 10))
    person = until_a_turn(h, table_id)
    before = mark(h)
    assert fire_next(h, table_id) == "remind"  # at 19:00 in Berlin: not quiet yet
    private_rows = notifying(rows_to(h, private(person), before))
    assert [r.text.split("\n")[0] for r in private_rows] == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 3 Std."]
    assert private_rows[0].buttons  # the move can be made right there
    group = [r.text for r in rows_to(h, GROUP, before) if r.slot and r.slot.startswith("r")]
    assert group == [f"⏰ @{person.username}, du bist am Zug (noch 3 Std.)."]
    table = h.table(table_id)
    assert table.deadline_kind == "timeout" and table.next_deadline == table.turn_ends_at
    # the same deadline again (another process, a repeated job): nothing more
    assert not h.service.fire_due(table_id, table.version)
    assert len(notifying(rows_to(h, private(person), before))) == 1


def test_a_reminder_due_in_quiet_hours_waits_until_they_end(h: Harness) -> None:
    table_id = long_table(h, "24h")  # from 13:00: a quarter is left at 07:00, in quiet hours
    person = until_a_turn(h, table_id)
    table = h.table(table_id)
    assert table.turn_ends_at == berlin(1, 13)
    assert (table.deadline_kind, table.next_deadline) == ("remind", berlin(1, 8))
    before = mark(h)
    fire_next(h, table_id)
    rows = notifying(rows_to(h, private(person), before))
    assert [r.text.split("\n")[0] for r in rows] == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 5 Std."]


def test_a_reminder_that_would_wait_past_the_clock_comes_the_evening_before(
        h: Harness) -> None:
    table_id = long_table(h)  # 13:00 + 12 h ends at 08:00 (not in the night); a quarter
    person = until_a_turn(h, table_id)  # is left at 05:00: reminded before 23:00 instead
    table = h.table(table_id)
    assert table.turn_ends_at == berlin(1, 8)
    assert (table.deadline_kind, table.next_deadline) == ("remind", berlin(0, 22, 45))
    before = mark(h)
    fire_next(h, table_id)
    rows = notifying(rows_to(h, private(person), before))
    assert rows[0].text.split("\n")[0] == (
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“ – noch 9 Std. 15 Min.")


def test_a_twelve_hour_clock_never_runs_out_in_quiet_hours(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 15))  # 15:00 + 12 h = 03:00 in Berlin: quiet
    until_a_turn(h, table_id)
    assert h.table(table_id).turn_ends_at == berlin(1, 8)


def test_a_turn_starting_in_quiet_hours_is_brought_down_when_they_end(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 23, 30))
    person = until_a_turn(h, table_id)
    start_rows = rows_to(h, private(person), 0)
    assert not any(r.repost or r.fresh for r in start_rows if r.table_id == table_id
                   and r.slot == f"h{table_id}")  # edited in place: no notification at night
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("nudge", berlin(1, 8))
    before = mark(h)
    assert fire_next(h, table_id) == "nudge"
    rows = notifying(rows_to(h, private(person), before))
    assert [r.text.split("\n")[0] for r in rows] == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch“."]
    assert h.table(table_id).deadline_kind == "remind"


@pytest.mark.parametrize("choice", ["off", "last"])
def test_reminder_settings_off_and_only_the_last(h: Harness, choice: str) -> None:
    for user in (ALICE, BOB):
        h.command(private(user), user, "start")
        settings(h, user, reminders=choice)
    table_id = long_table(h)
    person = until_a_turn(h, table_id)
    starts = [r for r in rows_to(h, private(person), 0) if r.slot == f"h{table_id}"]
    assert not any(r.repost or r.fresh for r in starts)  # no reminder at the turn's start
    before = mark(h)
    fire_next(h, table_id)
    got = notifying(rows_to(h, private(person), before))
    assert len(got) == (1 if choice == "last" else 0)
    assert len([r for r in rows_to(h, GROUP, before) if r.slot == f"r{table_id}"]) == 1


def test_a_move_from_the_reminder_counts_after_a_restart(db_engine: Engine, h: Harness) -> None:
    table_id = long_table(h)
    person = until_a_turn(h, table_id)
    fire_next(h, table_id)
    moves = len(h.moves(table_id))
    restarted = Harness(db_engine, h.clock, cpu_delay=0, next_round_delay=0)
    restarted.postman = h.postman  # (the same chats, as the platform keeps them)
    restarted.transport = h.transport
    move(restarted, table_id, person)
    assert len(restarted.moves(table_id)) == moves + 1
    assert h.table(table_id).reminded is False  # the group's reminder goes with the turn


def test_long_clock_timeouts_are_told_privately(h: Harness) -> None:
    table_id = long_table(h, "10min")
    person = until_a_turn(h, table_id)
    before = mark(h)
    assert fire_next(h, table_id) == "remind"
    assert fire_next(h, table_id) == "timeout"
    texts = [r.text for r in rows_to(h, private(person), before) if r.slot is None]
    assert texts == ["⌛ Deine Zeit bei Schwimmen in „Stammtisch“ ist abgelaufen – eine "
                     "Vertretung hat deinen Zug gespielt."]
