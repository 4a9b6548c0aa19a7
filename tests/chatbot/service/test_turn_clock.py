"""The application service end to end: the turn clock (reminders, timeouts, away players),
other tables' deadlines, the default clock, watching after being out.

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
The harness is in ``harness.py`` beside this module, the fixtures in its ``conftest.py``.
"""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import Service
from storage.models import Result
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    GROUP,
    Harness,
    group_rows_since,
    is_move,
    knocked_out,
    max_outbox_id,
    new_private_game,
    open_group_table,
    pick,
    private,
    snapshot,
    until_a_turn_in_group,
    until_human_moves,
)


def test_turn_clock_reminds_times_out_and_marks_away(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    alice_seat = next(s.seat_no for s in h.seats(table_id) if s.name == "Alice")
    rng = random.Random(3)
    timeouts = away_moves = 0
    for _ in range(400):
        h.run_deadlines(table_id, kinds=("next",))
        table = h.table(table_id)
        assert table.fsm_state != "finished", "the game ended before the clock was tested"
        state = h.state(table_id)
        alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
        if state.to_act != alice_seat:  # Bob is quick
            shown = h.buttons(private(BOB), table_id)
            assert h.press(private(BOB), BOB, shown[pick(
                sorted(c for c in shown if is_move(c)), rng)]).changed
            continue
        moves = len(h.moves(table_id))
        if alice.away:  # the CPU plays for an away player without waiting for the clock
            assert table.deadline_kind == "cpu"
            h.clock.set(table.next_deadline)  # type: ignore[arg-type]
            assert h.fire(table_id, table.version)
            assert h.moves(table_id)[-1].actor == "away"
            assert h.moves(table_id)[-1].code != "knock"  # the stand-in never knocks
            away_moves += 1
            if away_moves == 2:
                break
            continue
        # Alice is on turn and slow: half time → reminder, full time → the CPU plays
        assert table.deadline_kind == "remind"
        start = h.clock()  # the turn began now: the clock has not moved since
        assert table.next_deadline == start + timedelta(seconds=30)
        h.clock.advance(29)
        assert (table_id, table.version) not in h.service.due()
        mark = max_outbox_id(h)
        h.clock.advance(1)
        assert h.fire(table_id, table.version)
        reminder = [r.text for r in group_rows_since(h, mark)]
        assert len(reminder) == 1 and "@alice" in reminder[0] and "⏰" in reminder[0]
        assert len(h.moves(table_id)) == moves  # a reminder is no move
        table = h.table(table_id)
        assert table.deadline_kind == "timeout" and table.reminded
        assert table.next_deadline == start + timedelta(seconds=60)
        h.clock.advance(29)
        assert not h.fire(table_id, table.version)  # too early
        h.clock.advance(1)
        mark = max_outbox_id(h)
        assert h.fire(table_id, table.version)
        assert len(h.moves(table_id)) == moves + 1
        assert h.moves(table_id)[-1].actor == "timeout"
        assert h.moves(table_id)[-1].code != "knock"  # (issue 17, item 10)
        assert h.moves(table_id)[-1].seat_no == alice_seat
        timeouts += 1
        texts = "\n".join(r.text for r in group_rows_since(h, mark))
        assert "Alice" in texts and "⌛" in texts
        alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
        assert alice.timeouts == timeouts
        assert alice.away == (timeouts >= 2)
        if timeouts == 2:
            assert "💤" in texts
    else:
        raise AssertionError("Alice never came to play while away")
    assert timeouts == 2 and away_moves == 2

    # "I'm back" clears it; Alice's next turn has the clock again
    assert "back" in h.buttons(private(ALICE), table_id)  # offered where Alice plays ...
    assert "back" in h.buttons(GROUP, table_id)  # ... and in the group
    back = f"v1:{table_id}:{h.table(table_id).version}:back"
    out = h.press(private(ALICE), ALICE, back)
    assert out.ok and out.changed
    alice = next(s for s in h.seats(table_id) if s.seat_no == alice_seat)
    assert not alice.away and alice.timeouts == 0
    assert any("wieder da" in t for t in (r.text for r in group_rows_since(h, 0)))
    again = h.press(private(ALICE), ALICE, back)
    assert again.ok and not again.changed  # pressing it twice is harmless
    for _ in range(50):
        h.run_deadlines(table_id, kinds=("next",))
        state = h.state(table_id)
        if state.to_act == alice_seat:
            assert h.table(table_id).deadline_kind == "remind"
            break
        shown = h.buttons(private(BOB), table_id)
        assert h.press(private(BOB), BOB, shown[pick(
            sorted(c for c in shown if is_move(c)), rng)]).changed
    else:
        raise AssertionError("Alice never came to play again")


def test_pressing_in_time_resets_the_timeout_count(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    rng = random.Random(4)
    seat_user = {s.seat_no: (ALICE if s.name == "Alice" else BOB) for s in h.seats(table_id)}
    # the first player on turn times out once ...
    slow_seat = until_a_turn_in_group(h, table_id)
    for kind in ("remind", "timeout"):
        table = h.table(table_id)
        assert table.deadline_kind == kind
        h.clock.set(table.next_deadline)  # type: ignore[arg-type]
        assert h.fire(table_id, table.version)
    assert next(s for s in h.seats(table_id) if s.seat_no == slow_seat).timeouts == 1
    # ... then plays in time on the next turn: the count starts again
    for _ in range(50):
        h.run_deadlines(table_id, kinds=("next",))
        state = h.state(table_id)
        user = seat_user[state.to_act]
        shown = h.buttons(private(user), table_id)
        assert h.press(private(user), user, shown[pick(
            sorted(c for c in shown if is_move(c)), rng)]).changed
        if state.to_act == slow_seat:
            break
    slow = next(s for s in h.seats(table_id) if s.seat_no == slow_seat)
    assert slow.timeouts == 0 and not slow.away


def test_deadlines_of_other_tables_are_not_affected(h: Harness) -> None:
    a = new_private_game(h, ALICE)
    b = new_private_game(h, BOB)
    for table_id, user in ((a, ALICE), (b, BOB)):
        until_human_moves(h, table_id, user)
    shown = h.buttons(private(ALICE), a)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    before_b = snapshot(h.engine, b)[:6]
    h.clock.advance(3600)
    assert [t for t, _v in h.service.due()] == [a]
    h.run_deadlines(a)
    assert snapshot(h.engine, b)[:6] == before_b


def test_service_accepts_the_default_clock(db_engine: Engine) -> None:
    service = Service(db_engine)
    out = service.command(private(ALICE), ALICE, "new", "schwimmen 1 normal", "k1")
    assert out.ok and out.table_id


def test_a_player_who_is_out_watches_and_may_skip_to_the_result(h: Harness) -> None:
    """Issue 17, item 3: after being knocked out a person is told so once and watches (one
    table message, edited; no result message each CPU round) and privately may skip to the
    result (the CPUs play the rest at once) or play again."""
    chat = private(ALICE)
    table_id = knocked_out(h)
    assert any("✖ Du bist ausgeschieden – du schaust zu." in m.text
               for m in h.messages(chat))
    shown = h.buttons(chat, table_id)
    assert set(shown) == {"skip", "skip.again"}
    before = len(h.messages(chat))
    h.run_deadlines(table_id, kinds=("cpu",))  # the CPUs play on: no message of its own
    assert len(h.messages(chat)) == before
    out = h.press(chat, ALICE, shown["skip"])
    assert out.ok and h.table(table_id).fsm_state == "finished"
    with Session(h.engine) as session:
        assert session.exec(select(Result).where(Result.table_id == table_id)).first()
    assert "again" in h.buttons(chat, table_id)
