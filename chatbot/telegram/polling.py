"""Long polling that confirms an update to Telegram only once it has been handled.

Fetching the next batch of updates (``getUpdates`` with a higher offset) confirms the earlier
ones, and Telegram forgets them. python-telegram-bot's Updater fetches on as soon as a batch is
queued, so a crash while updates are being handled would lose them. Here the bot's
``get_updates`` first waits until every update of the earlier batches has been handled (its
input committed, or its handlers through), at most ``HANDLE_TIMEOUT`` seconds; the update
processor tells the bot when an update's handlers are done, and a handler may say so earlier
(a button press once it is committed, before it is answered). A crash at any moment thus loses
no update; at worst one is delivered again, and the service's update log makes the repeat
change nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import ExtBot, SimpleUpdateProcessor

from ..runtime.leadership import Election
from .lifecycle import bot_lock, running

if TYPE_CHECKING:
    from .app import TelegramBot

log = logging.getLogger(__name__)
HANDLE_TIMEOUT = 30.0  # longest wait for earlier updates before fetching (and confirming) more


class ConfirmingBot(ExtBot):
    """``ExtBot`` whose ``get_updates`` waits until the updates it fetched before have been
    handled (see the module docstring)."""

    __slots__ = ("_unhandled", "_idle", "_newest", "_last_poll")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unhandled: set[int] = set()  # ids of updates fetched and not yet handled
        self._idle = asyncio.Event()  # set while none is
        self._newest: tuple[int, float] | None = None  # newest update id fetched, and when
        self._last_poll: float | None = None  # time.monotonic() of the last getUpdates answer

    @property
    def newest(self) -> tuple[int, float] | None:
        """The newest update id fetched so far, and the (wall clock) time it was fetched."""
        return self._newest

    def poll_age(self) -> float | None:
        """Seconds since the last ``getUpdates`` answered (None: this process never polled)."""
        return None if self._last_poll is None else time.monotonic() - self._last_poll

    def handled(self, update_id: int) -> None:
        """The update is handled: it may be confirmed to Telegram (repeats are harmless)."""
        self._unhandled.discard(update_id)
        if not self._unhandled:
            self._idle.set()

    async def _earlier_handled(self) -> None:
        if not self._unhandled:
            return
        try:
            await asyncio.wait_for(self._idle.wait(), HANDLE_TIMEOUT)
        except TimeoutError:
            log.warning("updates %s still unhandled after %.0f s; fetching on",
                        sorted(self._unhandled), HANDLE_TIMEOUT)
            self._unhandled.clear()
            self._idle.set()

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """``Bot.get_updates``, once every update fetched before has been handled."""
        await self._earlier_handled()
        updates = await super().get_updates(*args, **kwargs)
        self._last_poll = time.monotonic()
        if updates:
            self._unhandled.update(update.update_id for update in updates)
            self._idle.clear()
            self._newest = (max(update.update_id for update in updates), time.time())
        return updates


class ConfirmingUpdateProcessor(SimpleUpdateProcessor):
    """PTB's concurrent update processing, telling the bot when each update's handlers are
    done (also when they failed: a poison update must not hold polling up)."""

    __slots__ = ("_bot",)

    def __init__(self, bot: ConfirmingBot, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._bot = bot

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await coroutine
        finally:
            if isinstance(update, Update):
                self._bot.handled(update.update_id)


async def serve_polling(bot: TelegramBot, allowed_updates: list[str]) -> None:
    """Long polling until SIGTERM/SIGINT, by exactly one of the processes sharing the
    database: the leader (``storage.leader``) polls; the others deliver the outbox and fire
    deadlines, and one of them polls within seconds when the leader is gone."""
    updater = bot.app.updater
    assert updater is not None

    async def elected() -> None:
        await updater.start_polling(allowed_updates=allowed_updates, poll_interval=0.0,
                                    timeout=10)

    async def deposed() -> None:
        if updater.running:
            await updater.stop()

    polling_bot = bot.app.bot

    def poll_age() -> float | None:
        if not election.leading or not isinstance(polling_bot, ConfirmingBot):
            return None
        return polling_bot.poll_age()

    election = Election(bot_lock(bot, "poll"), "telegram-poll", elected, deposed)
    async with running(bot, last_poll_age=poll_age) as stop:
        election.start()
        try:
            await stop.wait()
        finally:
            await election.stop()
