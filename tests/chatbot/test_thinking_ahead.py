"""An Experte thinks during its visible delay (issue 49: "thinking during the CPU's visible
delay"): the decision starts when the commit leaves the table waiting for it, and the deadline
plays it without thinking again — only for the version it was thought for, once, and a restart
in between simply decides again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from chatbot.service.core import cpu
from chatbot.service.core.ahead import ThoughtAhead
from storage.db import aware
from tests.chatbot.service.harness import ALICE, Harness, experte_table, private, until_a_cpu_turn
from tests.conftest import FakeClock

DELAY = 2.0  # the CPU's visible delay, in seconds of the simulated clock


class Decided:
    """Every decision a service's CPUs made (on whichever thread), and the moves."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.moves: list[str] = []
        self.threads: list[str] = []
        real = cpu.Decisions.decide

        def spy(decisions: cpu.Decisions, *args: Any) -> str:
            move = real(decisions, *args)
            self.threads.append(threading.current_thread().name)
            self.moves.append(move)
            return move
        monkeypatch.setattr(cpu.Decisions, "decide", spy)

    def wait_for(self, count: int, seconds: float = 30.0) -> None:
        """Until ``count`` decisions were made (they run on threads of their own)."""
        ends = time.monotonic() + seconds
        while len(self.moves) < count:
            assert time.monotonic() < ends, f"{len(self.moves)} decisions, not {count}"
            time.sleep(0.01)


@pytest.mark.parametrize("workers", [1, 0], ids=["pool", "threads"])
def test_the_experte_thinks_during_its_visible_delay(db_engine: Engine, clock: FakeClock,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     workers: int) -> None:
    decided = Decided(monkeypatch)
    h = Harness(db_engine, clock, cpu_delay=DELAY, experte_budget=0.02, cpu_workers=workers)
    table_id = experte_table(h)
    table = until_a_cpu_turn(h, table_id)
    assert clock() < aware(table.next_deadline)  # not due yet
    decided.wait_for(1)  # thought at once, while the clock stands still
    assert decided.threads[0].startswith("stammtisch-ahead")
    before = len(h.moves(table_id))
    # the event loop's claim (``may_think=False``) plays the ready move without thinking
    clock.set(table.next_deadline)
    assert h.service.fire_due(table_id, table.version, may_think=False) is True
    h.step()
    new = h.moves(table_id)[before:]
    assert new[0].actor == "cpu" and new[0].code == decided.moves[0]
    assert h.service.fire_due(table_id, table.version) is False  # once
    assert len(h.moves(table_id)) == before + len(new)
    assert len([t for t in decided.threads if t.startswith("stammtisch-ahead")]) >= 1


def test_a_decision_thought_ahead_is_waited_for_not_thought_twice(
        db_engine: Engine, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline comes while the Experte is still thinking ahead: the thinking half of the
    claim (``plan_due``, a thread of its own) waits for that decision."""
    decided = Decided(monkeypatch)
    h = Harness(db_engine, clock, cpu_delay=DELAY, experte_budget=0.3, cpu_workers=0)
    table_id = experte_table(h)
    table = until_a_cpu_turn(h, table_id)
    clock.set(table.next_deadline)
    planned = h.service.plan_due(table_id, table.version)  # (while the other one thinks)
    assert planned is not None
    decided.wait_for(1)
    assert decided.moves == [planned] and decided.threads[0].startswith("stammtisch-ahead")
    assert h.service.fire_due(table_id, table.version, planned=planned) is True


def test_after_a_restart_the_experte_decides_again(db_engine: Engine, clock: FakeClock,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What was thought ahead lives in one process only: a new process (a restart) fires the
    deadline by deciding itself, and the move counts once."""
    decided = Decided(monkeypatch)
    h = Harness(db_engine, clock, cpu_delay=DELAY, experte_budget=0.02, cpu_workers=0)
    table_id = experte_table(h)
    table = until_a_cpu_turn(h, table_id)
    decided.wait_for(1)
    after_restart = Harness(db_engine, clock, cpu_delay=DELAY, experte_budget=0.02,
                            cpu_workers=0)
    before = len(after_restart.moves(table_id))
    clock.set(table.next_deadline)
    assert after_restart.fire(table_id, table.version) is True
    assert len(decided.moves) == 2  # decided again, on the firing thread
    assert not decided.threads[1].startswith("stammtisch-ahead")
    assert after_restart.moves(table_id)[before].actor == "cpu"
    assert h.service.fire_due(table_id, table.version, may_think=False) is False  # stale


def test_a_normal_cpu_does_not_think_ahead(db_engine: Engine, clock: FakeClock,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels that decide at once do so inside the claim, as before."""
    decided = Decided(monkeypatch)
    h = Harness(db_engine, clock, cpu_delay=DELAY, cpu_workers=0)
    out = h.command(private(ALICE), ALICE, "new", "schwimmen 2 normal")
    assert out.table_id
    table = until_a_cpu_turn(h, out.table_id)
    time.sleep(0.05)
    assert decided.moves == []
    clock.set(table.next_deadline)
    assert h.service.fire_due(out.table_id, table.version, may_think=False) is True
    assert decided.threads == [threading.current_thread().name]


def _gated() -> tuple[Callable[[int, int], str | None], threading.Event, list[tuple[int, int]]]:
    gate, calls = threading.Event(), []

    def decide(table_id: int, version: int) -> str | None:
        calls.append((table_id, version))
        gate.wait(10)
        return f"move-{version}"
    return decide, gate, calls


def test_only_the_version_thought_for_is_played() -> None:
    decide, gate, calls = _gated()
    ahead = ThoughtAhead(decide)
    ahead.start(1, 5)
    ahead.start(1, 5)  # (begun already: not again)
    assert ahead.take(1, 5, wait=False) == (False, None)  # under way: stays
    assert ahead.take(1, 6, wait=True) == (False, None)  # another version
    gate.set()
    assert ahead.take(1, 5, wait=True) == (True, "move-5")
    assert ahead.take(1, 5, wait=True) == (False, None)  # taken once
    assert calls == [(1, 5)]
    ahead.shutdown()


def test_a_newer_version_replaces_the_older_decision() -> None:
    decide, gate, calls = _gated()
    ahead = ThoughtAhead(decide)
    ahead.start(1, 5)
    ahead.start(1, 6)
    gate.set()
    assert ahead.take(1, 5, wait=True) == (False, None)
    assert ahead.take(1, 6, wait=True) == (True, "move-6")
    ahead.shutdown()


def test_a_failed_decision_is_decided_again_by_the_caller() -> None:
    def decide(table_id: int, version: int) -> str | None:
        raise RuntimeError("the thinking place broke")
    ahead = ThoughtAhead(decide)
    ahead.start(2, 1)
    assert ahead.take(2, 1, wait=True) == (False, None)
    ahead.shutdown()
