"""Button presses that arrive together share SQLite transactions.

Under load a ``getUpdates`` answer holds many presses, and PTB starts their handlers one after
the other in the same turn of the event loop. Each handler hands its press to ``PressBatch``;
the first one schedules a flush for the end of that turn (``call_soon``), so the flush sees
them all. They go through ``Service.press_many`` in parts of ``PRESS_BATCH`` (each press in a
savepoint: a refused or failing press changes nothing, the others still count; one commit per
part), and each handler gets its press's outcome as soon as its part is committed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import buttons
from ..service import ChatRef, Outcome, PressInput, Service, UserRef

PRESS_BATCH = 16  # presses sharing one SQLite transaction (a bigger batch goes in parts)


class PressBatch:
    """Collects the presses of one loop turn and runs them through the service together
    (on the event loop: for SQLite, where an input's transaction is cheaper than a hand-off
    to a thread)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self._waiting: list[tuple[PressInput, asyncio.Future[Outcome]]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    async def press(self, chat_ref: ChatRef, user: UserRef, data: buttons.Press | str,
                    update_key: str) -> Outcome:
        """The press's outcome once it is committed; raises what the service raised for it."""
        loop = asyncio.get_running_loop()
        if not self._waiting:
            loop.call_soon(self._flush)
        future: asyncio.Future[Outcome] = loop.create_future()
        self._waiting.append((PressInput(chat_ref, user, data, update_key), future))
        return await future

    def _flush(self) -> None:
        batch, self._waiting = self._waiting, []
        task = asyncio.get_running_loop().create_task(self._run(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: list[tuple[PressInput, asyncio.Future[Outcome]]]) -> None:
        for start in range(0, len(batch), PRESS_BATCH):
            if start:
                await asyncio.sleep(0)  # the previous part's presses are answered first
            part = batch[start:start + PRESS_BATCH]
            outcomes: list[Outcome | BaseException]
            try:
                outcomes = self.service.press_many([press for press, _ in part])
            except Exception as exc:  # the commit failed: none of them counted
                outcomes = [exc] * len(part)
            for (_press, future), outcome in zip(part, outcomes, strict=True):
                if future.done():  # its handler was cancelled (shutting down)
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
