"""The application service end to end: private games against the computer, its moves and
deadlines, the own hand in the private view.

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
The harness is in ``harness.py`` beside this module, the fixtures in its ``conftest.py``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from chatbot.service import UserRef
from engine import schwimmen as S
from storage.db import make_engine, migrate
from storage.models import GameTable
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    Harness,
    assert_finished_and_replayable,
    is_move,
    max_outbox_id,
    new_private_game,
    play_private_to_the_end,
    private,
    rows_since,
    snapshot,
    until_human_moves,
)
from tests.conftest import FakeClock, card_symbols

# ---------------------------------------------------------------------------------- private game


def test_private_game_is_played_to_the_end(h: Harness) -> None:
    table_id = new_private_game(h)
    seats = h.seats(table_id)
    assert [(s.seat_no, s.is_cpu, s.cpu_level) for s in seats] == \
        [(0, False, None), (1, True, "anfaenger"), (2, True, "anfaenger")]
    assert h.table(table_id).is_private and h.table(table_id).turn_timeout == 0
    play_private_to_the_end(h, table_id, ALICE, random.Random(1))
    assert_finished_and_replayable(h, table_id)
    actors = {m.actor for m in h.moves(table_id)}
    assert actors <= {"player", "cpu", "system"} and {"player", "cpu"} <= actors
    last = h.messages(private(ALICE))
    assert any("Gewinner" in m.text for m in last)
    assert "again" in h.buttons(private(ALICE), table_id)


def test_private_game_against_experte_uses_the_configured_budget(db_engine: Engine,
                                                                 clock: FakeClock) -> None:
    """An Experte chosen at setup plays its seats (with the operator's budget per decision);
    its decisions count how many run at once for the load factor."""
    h = Harness(db_engine, clock, experte_budget=0.02)
    out = h.command(private(ALICE), ALICE, "new", "schwimmen 2 experte")
    assert out.ok and out.table_id
    table_id = out.table_id
    assert [s.cpu_level for s in h.seats(table_id)] == [None, "experte", "experte"]
    assert h.service.settings.experte_budget == 0.02
    assert h.service.decision_load() >= 1.0
    play_private_to_the_end(h, table_id, ALICE, random.Random(3))
    assert_finished_and_replayable(h, table_id)
    assert "cpu" in {m.actor for m in h.moves(table_id)}
    assert h.service.decisions.thinking == 0  # every decision that started has finished


def _until_cpu_due(h: Harness, table_id: int, user: UserRef = ALICE) -> GameTable:
    """Play the person's moves until a CPU seat's turn is due (the clock moved to it)."""
    for _ in range(50):
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            h.clock.set(table.next_deadline)  # type: ignore[arg-type]
            return table
        h.press(private(user), user, next(iter(
            d for c, d in h.buttons(private(user), table_id).items()
            if c not in ("cards", "back", "again"))))
    raise AssertionError("no CPU turn came")


def test_a_cpu_that_must_think_is_not_played_where_thinking_may_not_run(
        db_engine: Engine, clock: FakeClock) -> None:
    """``fire_due(may_think=False)`` (an adapter's event loop) leaves an Experte's turn alone
    and says so with ``None``; quick levels are played right there. (The Experte's turn is due
    at once here, so nothing was thought during a delay: ``test_thinking_ahead``.)"""
    h = Harness(db_engine, clock, experte_budget=0.02, cpu_delay=0)
    table_id = h.command(private(ALICE), ALICE, "new", "schwimmen 2 experte").table_id
    assert table_id
    table = _until_cpu_due(h, table_id)
    before = snapshot(h.engine, table_id)
    assert h.service.fire_due(table_id, table.version, may_think=False) is None
    assert snapshot(h.engine, table_id) == before
    assert h.service.fire_due(table_id, table.version) is True
    assert h.table(table_id).version > table.version

    quick = Harness(db_engine, clock)
    quick_id = quick.command(private(BOB), BOB, "new", "schwimmen 2 normal").table_id
    assert quick_id
    table = _until_cpu_due(quick, quick_id, BOB)
    assert quick.service.fire_due(quick_id, table.version, may_think=False) is True
    assert quick.table(quick_id).version > table.version


def _first_move(h: Harness, table_id: int, user: UserRef = ALICE) -> str:
    """The button data of the person's first offered move (or "next" after a round)."""
    shown = h.buttons(private(user), table_id)
    moves = sorted(c for c in shown if is_move(c))
    return shown[moves[0] if moves else "next"]


def test_a_cpu_move_due_at_once_is_played_in_the_same_input(db_engine: Engine,
                                                             clock: FakeClock) -> None:
    """Without a thinking delay, the CPUs' replies to a press are played in the press's own
    transaction: the person is on turn again when the press returns, nothing is left due,
    and the chat gets one view of the table for the press and both replies."""
    h = Harness(db_engine, clock, cpu_delay=0)
    table_id = new_private_game(h)
    assert h.service.due() == []
    for _ in range(8):
        table = h.table(table_id)
        if table.fsm_state == "finished":
            break
        moves, views = len(h.moves(table_id)), max_outbox_id(h)
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        after = h.table(table_id)
        assert h.service.due() == []
        state = h.state(table_id)
        assert state.phase == S.PAYOUT or after.fsm_state == "finished" or state.to_act == 0
        new_moves = h.moves(table_id)[moves:]
        assert new_moves[0].actor in ("player", "system")
        assert [m.seq for m in new_moves] == list(range(table.version + 1, after.version + 1))
        slot_rows = [r for r in rows_since(h, views) if r.slot == f"t{table_id}"]
        assert len(slot_rows) == 1, "one view for the press and the replies it caused"


def test_chained_cpu_moves_are_the_moves_the_deadlines_would_play(
        tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same table seed, same presses: CPU moves played on within the press give the same
    move log and state as the same moves fired one by one from their deadlines."""
    from chatbot.service.core import play as core_play

    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(1234))

    def play(name: str) -> tuple[list[tuple], str | None]:
        engine = make_engine(f"sqlite:///{tmp_path}/{name}.db")
        migrate(engine)
        h = Harness(engine, clock, cpu_delay=0)
        table_id = new_private_game(h, opponents=3)
        for _ in range(12):
            h.run_deadlines(table_id, kinds=("cpu",))
            if h.table(table_id).fsm_state == "finished":
                break
            assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        h.run_deadlines(table_id, kinds=("cpu",))
        log = [(m.seq, m.seat_no, m.actor, m.code) for m in h.moves(table_id)]
        return log, h.table(table_id).state_json

    chained = play("chained")
    monkeypatch.setattr(core_play, "CHAIN_LIMIT", 0)
    one_by_one = play("one_by_one")
    assert sum(1 for m in chained[0] if m[2] == "cpu") >= 6
    assert chained == one_by_one


def test_cpu_moves_played_on_stop_at_the_limit(db_engine: Engine, clock: FakeClock,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An input plays on at most ``cpu.CHAIN_LIMIT`` CPU moves; the rest stays a due deadline
    for the scheduler, so a table of CPUs alone never holds one transaction for long."""
    from chatbot.service.core import play as core_play

    monkeypatch.setattr(core_play, "CHAIN_LIMIT", 1)
    h = Harness(db_engine, clock, cpu_delay=0)
    table_id = new_private_game(h, opponents=3)
    h.run_deadlines(table_id, kinds=("cpu",))
    for _ in range(10):
        moves = len(h.moves(table_id))
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            assert [m.actor for m in h.moves(table_id)[moves:]] == ["player", "cpu"]
            assert h.service.due() == [(table_id, table.version)]
            return
        h.run_deadlines(table_id, kinds=("cpu",))
    raise AssertionError("no press was followed by CPU turns")


def test_a_cpu_that_must_think_is_not_played_on_within_an_input(db_engine: Engine,
                                                                clock: FakeClock) -> None:
    """An Experte decides outside any transaction, so its reply is left to the deadline."""
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02)
    table_id = h.command(private(ALICE), ALICE, "new", "schwimmen 1 experte").table_id
    assert table_id
    for _ in range(10):
        h.run_deadlines(table_id, kinds=("cpu",))
        assert h.press(private(ALICE), ALICE, _first_move(h, table_id)).changed
        table = h.table(table_id)
        if table.deadline_kind == "cpu":
            assert h.service.due() == [(table_id, table.version)]
            assert h.moves(table_id)[-1].actor in ("player", "system")
            return
    raise AssertionError("no press was followed by the Experte's turn")


def test_private_view_shows_the_own_hand(h: Harness) -> None:
    table_id = new_private_game(h)
    until_human_moves(h, table_id)
    state = h.state(table_id)
    view = [m for m in h.messages(private(ALICE)) if m.rows][-1]
    hand_line = next(line for line in view.text.splitlines() if "Deine Karten" in line)
    assert card_symbols(hand_line) == {c.symbol for c in state.hands[0]}
    middle = {c.symbol for c in state.middle}
    assert middle <= card_symbols(view.text)
    # nothing else but what the public move log names (cards swapped in the open)
    logged: set[str] = set()
    for event in h.table(table_id).log or []:
        for key in ("give", "take"):
            value = (event.get("data") or {}).get(key) or []
            for code in [value] if isinstance(value, str) else value:
                logged.add(code)
    logged = {c.symbol for c in S.DECK if c.code in logged}
    assert card_symbols(view.everything()) <= card_symbols(hand_line) | middle | logged


def test_new_private_game_replaces_an_unfinished_one_only_when_confirmed(h: Harness) -> None:
    """Issue 17, item 4: a running game was silently replaced (an old menu ended a Run Fast
    match at hand 3 of 4); now the player is asked, and "keep playing" changes nothing."""
    first = new_private_game(h)
    version = h.table(first).version
    out = h.command(private(ALICE), ALICE, "new", "runfast 2 anfaenger hands=8")
    assert out.ok and out.table_id is None
    asked = h.messages(private(ALICE))[-1]
    assert asked.text == "Hier läuft noch ein Spiel (Schwimmen). Beenden und " \
        "Run Fast (Pao De Kuai) neu beginnen?"
    (yes, ok), (no, keep) = asked.rows[0]
    assert (yes, no) == ("Ja, neu beginnen", "Nein, weiterspielen")
    assert h.press(private(ALICE), ALICE, keep).ok
    assert h.messages(private(ALICE))[-1].text == "Gut – das Spiel läuft weiter."
    assert h.table(first).fsm_state != "abandoned" and h.table(first).version == version
    out = h.press(private(ALICE), ALICE, ok)
    assert out.ok and out.table_id and out.table_id != first
    assert h.table(first).fsm_state == "abandoned"
    second = h.table(out.table_id)
    assert second.game == "runfast" and second.options["engine"] == {"hands": 8}
    assert len(h.seats(second.id)) == 3
