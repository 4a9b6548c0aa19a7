"""Experte decisions think in worker processes, not in the bot's interpreter (issue 39, item 4):
the decision is made in another process from the engine state's JSON form, a pool whose
worker died is replaced, and ``cpu_workers=0`` thinks on the calling thread as before."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from sqlalchemy.engine import Engine

import fsm
from chatbot.service import Settings
from chatbot.service.core import cpu
from engine import GAMES
from tests.chatbot.service.harness import (
    ALICE,
    Harness,
    experte_table,
    private,
    until_a_cpu_turn,
    until_human_moves,
)
from tests.conftest import FakeClock


def _cpu_moves(h: Harness, table_id: int) -> int:
    return sum(1 for m in h.moves(table_id) if m.actor == "cpu")


def _until_a_cpu_moved(h: Harness, table_id: int) -> None:
    """Play the person's turns (first move shown) until an Experte move was fired."""
    if not _cpu_moves(h, table_id):
        table = until_a_cpu_turn(h, table_id)
        h.clock.set(table.next_deadline)
        assert h.fire(table_id, table.version)
    assert _cpu_moves(h, table_id), "no CPU move"


def test_an_experte_decides_in_a_worker_process(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=1)
    table_id = experte_table(h)
    _until_a_cpu_moved(h, table_id)
    pool = cpu._pool(1)
    assert pool.submit(os.getpid).result() != os.getpid()  # a process of its own
    assert pool.submit(os.nice, 0).result() >= cpu.WORKER_NICENESS  # at a lower priority


def test_a_decision_travels_as_json_and_comes_back_legal() -> None:
    game = GAMES["schwimmen"]
    state = game.new_game(3, {}, 7)
    while game.to_act(state) is None:  # (a deal that ended at once)
        state = game.new_game(3, {}, 8)
    code = cpu._pool(1).submit(fsm.cpu_action_from_json, "schwimmen", game.to_json(state),
                               "experte", "7:0", 0.02, 1.0).result()
    assert code in {a.code for a in game.legal_actions(state)}


def test_a_pool_whose_worker_died_is_replaced(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=1)
    table_id = experte_table(h)
    pid = cpu._pool(1).submit(os.getpid).result()
    os.kill(pid, signal.SIGKILL)
    _until_a_cpu_moved(h, table_id)  # the decision is made all the same
    assert cpu._pool(1).submit(os.getpid).result() != pid


def test_no_workers_thinks_on_the_calling_thread(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=0)
    assert h.service.decisions.workers == 0
    table_id = experte_table(h)
    _until_a_cpu_moved(h, table_id)
    assert 0 not in cpu._POOLS
    assert h.service.decisions.load() >= 1.0


def test_a_move_thought_on_one_thread_is_claimed_on_another(db_engine: Engine,
                                                             clock: FakeClock) -> None:
    """The Telegram loop asks ``plan_due`` on a thinking thread and plays the move with
    ``fire_due(planned=…)`` where inputs run: the move counts once, as decided."""
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=1)
    table_id = experte_table(h)
    table = until_a_cpu_turn(h, table_id)
    h.clock.set(table.next_deadline)
    assert h.service.fire_due(table_id, table.version, may_think=False) is None  # it thinks
    planned = h.service.plan_due(table_id, table.version)
    assert planned is not None
    before = len(h.moves(table_id))
    assert h.service.fire_due(table_id, table.version, planned=planned) is True
    new = h.moves(table_id)[before:]
    assert new and new[0].actor == "cpu" and new[0].code == planned
    assert h.service.fire_due(table_id, table.version, planned=planned) is False  # once
    assert len(h.moves(table_id)) == len(new) + before


def test_a_planned_move_for_an_older_version_is_not_played(db_engine: Engine,
                                                            clock: FakeClock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=1)
    table_id = experte_table(h)
    table = until_a_cpu_turn(h, table_id)
    h.clock.set(table.next_deadline)
    planned = h.service.plan_due(table_id, table.version)
    assert planned is not None
    assert h.fire(table_id, table.version)  # the move was played another way meanwhile
    moves = len(h.moves(table_id))
    assert h.service.fire_due(table_id, table.version, planned=planned) is False
    assert len(h.moves(table_id)) == moves
    assert h.service.plan_due(table_id, table.version) is None  # nothing due at that version


def test_a_hint_thinks_in_the_pool_too(db_engine: Engine, clock: FakeClock,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach's "💡 Tip" thinks where the Experte's moves are thought (issue 41), with the
    same budget; the press's transaction only says the hint."""
    h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.02, cpu_workers=1)
    thought: list[str] = []
    real = cpu.Decisions._think

    def spy(self: cpu.Decisions, work: Any, args: tuple[Any, ...], seconds: Any) -> Any:
        thought.append(work.__name__)
        return real(self, work, args, seconds)
    monkeypatch.setattr(cpu.Decisions, "_think", spy)
    out = h.command(private(ALICE), ALICE, "new", "schwimmen 2 anfaenger")
    table_id = out.table_id
    assert table_id
    shown = until_human_moves(h, table_id)  # (a round that ended on the deal: dealt on)
    out = h.press(private(ALICE), ALICE, shown["tip"])
    assert out.ok, out.text
    assert thought == ["advice_from_json"]
    assert h.table(table_id).options["tip"]["code"] in shown


def test_a_review_thinks_its_positions_in_the_pool_at_once() -> None:
    """The review's positions go to the pool's workers together, each with its share of the
    budget, and come back in order, each about its own position."""
    game = GAMES["schwimmen"]
    states = [game.new_game(3, {}, seed) for seed in (7, 8, 9)]
    states = [s for s in states if game.to_act(s) is not None]
    decisions = cpu.Decisions(Settings(experte_budget=0.04, cpu_workers=1))
    positions = [(game.to_json(s), game.to_act(s), "pass") for s in states]
    advices = decisions.advise_many("schwimmen", positions, share=0.5)  # type: ignore[arg-type]
    assert len(advices) == len(states)
    for state, advice in zip(states, advices, strict=True):
        assert advice.code in {a.code for a in game.legal_actions(state)}
    assert decisions.thinking == 0
