"""``Worker``: the loop behind every background task of the bots (the Telegram sender, the
Matrix sender, the Matrix deadlines): run a step, sleep until the time it asks for or until
woken, again until stopped."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable

Step = Callable[[], Awaitable[float]]


class Worker:
    """An asyncio task that runs ``step`` whenever woken (``wake.set()``) and when the
    seconds it returned have passed (at most ``longest``, at least ``shortest``).

    ``setup`` runs once before the first step. A step that raises is logged on ``log`` as
    "``what`` failed" and followed by ``on_error()`` seconds of rest. ``at_once``: a step
    returning 0 or less is followed by the next at once (its pass could not take everything).
    ``gather``: woken, wait that much more, so that what arrives together goes in one step.
    """

    def __init__(self, name: str, step: Step, log: logging.Logger, *, what: str = "pass",
                 setup: Callable[[], Awaitable[None]] | None = None,
                 longest: float = math.inf, shortest: float = 0.01, gather: float = 0.0,
                 at_once: bool = False, stop_timeout: float = 10.0,
                 on_error: Callable[[], float] = lambda: 1.0) -> None:
        self.name, self.step, self.log, self.what = name, step, log, what
        self.setup = setup
        self.longest, self.shortest, self.gather = longest, shortest, gather
        self.at_once, self.stop_timeout, self.on_error = at_once, stop_timeout, on_error
        self.wake = asyncio.Event()
        self.stopping = False
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        """Stop after the current step (cancelled if it takes over ``stop_timeout``)."""
        self.stopping = True
        self.wake.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=self.stop_timeout)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()

    async def _run(self) -> None:
        if self.setup is not None:
            await self.setup()
        while not self.stopping:
            try:
                delay = await self.step()
            except Exception:
                self.log.exception("%s failed", self.what)
                delay = self.on_error()
            if delay <= 0 and self.at_once:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(),
                                       timeout=max(self.shortest, min(delay, self.longest)))
            if self.wake.is_set() and self.gather > 0 and not self.stopping:
                await asyncio.sleep(self.gather)
            self.wake.clear()
