"""Taking part in a leader election from an asyncio program (see ``storage.leader``).

``Election(lock, elected, deposed)`` tries the lock every ``interval`` seconds while another
process leads; once it leads it runs ``elected()`` and then checks every ``interval`` that the
lock's connection is still alive, running ``deposed()`` if it is not (and trying again after).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from storage.leader import LeaderLock

from . import metrics

log = logging.getLogger(__name__)


class Election:
    def __init__(self, lock: LeaderLock, role: str,
                 elected: Callable[[], Awaitable[None]],
                 deposed: Callable[[], Awaitable[None]] | None = None,
                 interval: float = 1.0) -> None:
        self.lock, self.role, self.interval = lock, role, interval
        self.elected, self.deposed = elected, deposed
        self.leading = False
        self._task: asyncio.Task | None = None
        metrics.set_leader(role, False)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"election:{self.role}")

    async def stop(self) -> None:
        """Stop taking part (leadership is given up: another process takes over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.leading and self.deposed is not None:
            with contextlib.suppress(Exception):
                await self.deposed()
        self.leading = False
        metrics.set_leader(self.role, False)
        await asyncio.to_thread(self.lock.release)

    async def _run(self) -> None:
        while True:
            try:
                if not self.leading:
                    if await asyncio.to_thread(self.lock.try_acquire):
                        self.leading = True
                        metrics.set_leader(self.role, True)
                        log.info("this process leads %s", self.role)
                        try:
                            await self.elected()
                        except Exception:  # e.g. the Bot API away: let another try
                            self.leading = False
                            metrics.set_leader(self.role, False)
                            await asyncio.to_thread(self.lock.release)
                            raise
                elif not await asyncio.to_thread(self.lock.still_held):
                    self.leading = False
                    metrics.set_leader(self.role, False)
                    log.warning("this process no longer leads %s", self.role)
                    if self.deposed is not None:
                        await self.deposed()
            except asyncio.CancelledError:
                raise
            except Exception:  # database away: try again
                log.warning("leader election for %s failed; trying again", self.role,
                            exc_info=True)
            await asyncio.sleep(self.interval)
