"""What is due, in one place: the service's ``tick`` lists the overdue table deadlines and
every feature's scheduled steps whose time has come (the evening's steps, the daily deal's
morning post, the stats catching up, the retention sweep); the adapters run what it lists
where it belongs (a deadline through ``fire_due``, which may think first; a step on their
event loop, or on a thread when it is long housekeeping), and nothing else. A new scheduled
feature declares its ``Step`` and runs on every platform.

``Ticking`` is mixed into ``Service`` (which sets ``registry``, ``deadlines``, ``engine``,
``settings`` and ``clock``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

from storage import retention

from .api import Settings
from .registry import Registry, Step

if TYPE_CHECKING:
    from collections.abc import Callable

    from .deadlines import Deadlines

log = logging.getLogger(__name__)
SWEEP_EVERY = 3600.0  # seconds between two retention sweeps of a process
RETENTION = "retention"  # the core's housekeeping step (``basics``)


@dataclass(frozen=True)
class Due:
    """One thing ``tick`` found due: a table's deadline (``table_id``, ``version``: fire it
    with ``fire_due``) or a scheduled step (run it with ``run_step``)."""

    table_id: int | None = None
    version: int | None = None
    step: Step | None = None


class Ticking:
    """The service's deadlines and scheduled steps."""

    engine: Engine
    settings: Settings
    registry: Registry
    deadlines: Deadlines
    clock: Callable[[], datetime]
    _ran: dict[str, float]

    def tick(self, platform: str, now: datetime | None = None, limit: int = 100) -> list[Due]:
        """What is due now, in the order to run it: the overdue table deadlines (at most
        ``limit``; the adapters arm the others on time), then each scheduled step whose
        interval in this process has passed (it counts as run from now on)."""
        due = [Due(table_id=t, version=v) for t, v in self.deadlines.due(now, limit)]
        moment = time.monotonic()
        for step in self.registry.steps:
            last = self._ran.get(step.name)
            if last is None or moment - last >= step.every:
                self._ran[step.name] = moment
                due.append(Due(step=step))
        return due

    def run_step(self, step: Step | str, platform: str) -> int:
        """Run one scheduled step (by itself or its name); how many things it did. A failing
        step is logged, and tried again at its next turn."""
        if isinstance(step, str):
            step = next(s for s in self.registry.steps if s.name == step)
        try:
            return step.run(self, platform)  # type: ignore[arg-type]
        except Exception:
            log.exception("scheduled step %s failed", step.name)
            return 0

    def run_tick(self, platform: str, now: datetime | None = None) -> int:
        """Run everything due on this thread (thinking where a CPU must); how many ran."""
        done = 0
        for due in self.tick(platform, now):
            if due.step is not None:
                self.run_step(due.step, platform)
            else:
                self.fire_due(due.table_id, due.version)  # type: ignore[arg-type]
            done += 1
        return done

    # ------------------------------------------------------------------ table deadlines
    def due(self, now: datetime | None = None, limit: int = 100) -> list[tuple[int, int]]:
        """Tables whose deadline has passed: (table id, version) to claim with ``fire_due``."""
        return self.deadlines.due(now, limit)

    def next_deadlines(self, limit: int = 1000) -> list[tuple[int, int, datetime]]:
        """Upcoming deadlines (table id, version, when), soonest first: for arming jobs."""
        return self.deadlines.upcoming(limit)

    def fire_due(self, table_id: int, version: int, *, may_think: bool = True,
                 planned: str | None = None) -> bool | None:
        """Claim and run a table's deadline, once (see ``Deadlines.fire``)."""
        return self.deadlines.fire(table_id, version, may_think=may_think, planned=planned)

    def plan_due(self, table_id: int, version: int) -> str | None:
        """Decide a due CPU move without claiming it (see ``Deadlines.plan``)."""
        return self.deadlines.plan(table_id, version)

    # ------------------------------------------------------------------ housekeeping
    def sweep_old(self, every: float = SWEEP_EVERY) -> dict[str, int] | None:
        """Delete rows the retention policy no longer keeps (``storage.retention``), at most
        once per ``every`` seconds of this process (the same bookkeeping as the tick's
        ``retention`` step). Returns the counts, or ``None`` when it was not yet time."""
        moment = time.monotonic()
        last = self._ran.get(RETENTION)
        if last is not None and moment - last < every:
            return None
        self._ran[RETENTION] = moment
        return sweep_rows(self)


def sweep_rows(service: Any, platform: str = "") -> Any:
    """The retention sweep itself (the ``retention`` step): the counts of rows deleted."""
    counts = retention.sweep(service.engine, service.clock(), service.settings.retention)
    if any(counts.values()):
        log.info("retention: deleted %s", ", ".join(f"{n} {k}" for k, n in counts.items() if n))
    return counts
