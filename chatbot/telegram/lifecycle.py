"""The life of a Telegram bot process, for polling and webhook mode alike.

``running(bot)`` does what ``Application.run_polling``/``run_webhook`` do around their loop —
initialize, ``post_init``, start; at the end stop, ``post_stop``, shut down — and also serves
``/metrics`` and ``/healthz`` when ``METRICS_PORT`` is set. It yields an event that SIGTERM or
SIGINT sets. ``bot_lock(bot, role)`` is the leader lock of one role of this bot (the lock's
name holds the bot's numeric id, never the token's secret part).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from aiohttp import web

from storage.leader import LeaderLock

from ..runtime.health import Health, bound_port, health_settings_from_env, start_health_server
from ..webapp.server import mounted, settings_from_env, webapp_limits_from_env
from .inline_results import preparer

if TYPE_CHECKING:
    from .app import TelegramBot

log = logging.getLogger(__name__)


def bot_lock(bot: TelegramBot, role: str) -> LeaderLock:
    bot_id = (bot.app.bot.token or "").split(":", 1)[0]
    return LeaderLock(bot.service.engine, f"telegram:{role}:{bot_id}")


async def _start_webapp(bot: TelegramBot) -> web.AppRunner | None:
    """The Mini App's API on a port of its own, when ``WEBAPP_PORT`` is set."""
    settings = settings_from_env()
    if settings is None or not bot.app.bot.token:
        return None
    host, port, max_age = settings
    runner = web.AppRunner(mounted(bot.service, bot.app.bot.token, max_age,
                                   webapp_limits_from_env()[1], preparer(bot.app.bot)),
                           access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("Mini App API on %s:%s", host, bound_port(runner))
    return runner


@contextlib.asynccontextmanager
async def running(bot: TelegramBot,
                  last_poll_age: Callable[[], float | None] | None = None
                  ) -> AsyncIterator[asyncio.Event]:
    ptb = bot.app
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await ptb.initialize()
    health = webapp = None
    try:
        if ptb.post_init is not None:
            await ptb.post_init(ptb)
        await ptb.start()
        settings = health_settings_from_env()
        if settings is not None:
            health = await start_health_server(
                Health(bot.service.engine, "telegram", last_poll_age=last_poll_age), *settings)
            log.info("metrics and health on %s:%s", settings[0], bound_port(health))
        webapp = await _start_webapp(bot)
        yield stop
    finally:
        if webapp is not None:
            await webapp.cleanup()
        if health is not None:
            await health.cleanup()
        if ptb.updater is not None and ptb.updater.running:
            await ptb.updater.stop()
        if ptb.running:
            await ptb.stop()
        if ptb.post_stop is not None:
            await ptb.post_stop(ptb)
        await ptb.shutdown()
