"""The Matrix bot's turn clock: fires the service's deadlines on time, and runs what the
service's tick says is due (overdue deadlines, every feature's scheduled steps) every couple of
seconds (the Telegram bot uses python-telegram-bot's job queue for the same)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from storage.db import aware

from ..delivery import Worker
from ..service import Change, Service

log = logging.getLogger(__name__)
PLATFORM = "matrix"
SWEEP_SECONDS = 2.0
# ``thinking(table_id, version)``: held while a deadline fires (the Matrix bot shows that a CPU
# is thinking: a typing notice in the table's room)
Thinking = Callable[[int, int], contextlib.AbstractAsyncContextManager[None]]


class Deadlines:
    """Fires the service's deadlines on time (armed after each commit) and sweeps for overdue
    ones every couple of seconds (after a restart, or a missed wake-up)."""

    def __init__(self, service: Service, sweep: float = SWEEP_SECONDS,
                 thinking: Thinking | None = None) -> None:
        self.service, self.sweep, self.thinking = service, sweep, thinking
        self.armed: dict[int, tuple[int, datetime]] = {}
        self._next_sweep = 0.0
        self.worker = Worker("matrix-deadlines", self._step, log, what="deadline pass",
                             setup=self._arm_upcoming, shortest=0.005, on_error=self._wait)
        self.wake = self.worker.wake

    def arm(self, changes: list[Change]) -> None:
        for change in changes:
            if change.deadline is None:
                self.armed.pop(change.table_id, None)
            else:
                self.armed[change.table_id] = (change.version, change.deadline)
        self.wake.set()

    def start(self) -> None:
        self.worker.start()

    async def stop(self) -> None:
        await self.worker.stop()

    async def _arm_upcoming(self) -> None:
        """Arm the deadlines already in the database (after a restart)."""
        upcoming = await asyncio.to_thread(self.service.next_deadlines)
        self.arm([Change(t, v, when) for t, v, when in upcoming])

    async def _step(self) -> float:
        """Fire the armed deadlines that are due, and sweep when it is time; returns the
        seconds until the next thing to do."""
        now = self.service.clock()
        due = [(t, v) for t, (v, when) in self.armed.items() if aware(when) <= now]
        for table_id, version in due:
            if self.armed.get(table_id, (None,))[0] == version:
                self.armed.pop(table_id, None)
            await self._fire(table_id, version)
        if time.monotonic() >= self._next_sweep:
            self._next_sweep = time.monotonic() + self.sweep
            for due in await asyncio.to_thread(self.service.tick, PLATFORM):  # what is due
                if due.step is None:
                    await self._fire(due.table_id, due.version)  # type: ignore[arg-type]
                else:
                    await asyncio.to_thread(self.service.run_step, due.step, PLATFORM)
        return self._wait()

    def _wait(self) -> float:
        """Seconds until the soonest armed deadline or the next sweep."""
        wait = self.sweep
        if self.armed:
            soonest = min(aware(w) for _v, w in self.armed.values())
            wait = min(wait, max(0.0, (soonest - self.service.clock()).total_seconds()))
        return min(wait, max(0.0, self._next_sweep - time.monotonic()))

    async def _fire(self, table_id: int, version: int) -> None:
        if self.thinking is None:
            await asyncio.to_thread(self.service.fire_due, table_id, version)
            return
        async with self.thinking(table_id, version):
            await asyncio.to_thread(self.service.fire_due, table_id, version)


