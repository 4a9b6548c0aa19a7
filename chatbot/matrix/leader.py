"""One active Matrix process per account; the others stand by.

A Matrix account's device keeps its encryption sessions in one crypto store, and one sync
stream feeds it: two processes syncing (and encrypting) as the same device would tear both
apart. So of the processes sharing a database, the one holding the account's leader lock
(``storage.leader``) logs in, syncs and delivers; the others wait and the first to get the
lock takes over within seconds when the leader goes (it needs the same crypto store, e.g. a
shared volume). A leader that loses the lock (its database connection broke) stops at once.
Every process serves ``/metrics`` and ``/healthz`` when ``METRICS_PORT`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from storage.leader import LeaderLock

from .. import metrics
from ..health import Health, bound_port, health_settings_from_env, start_health_server

if TYPE_CHECKING:
    from ..config import Config
    from .app import MatrixBot

log = logging.getLogger(__name__)
ROLE = "matrix-sync"
CHECK_EVERY = 1.0


async def run_as_leader(bot: MatrixBot, cfg: Config, stopping: asyncio.Event) -> None:
    """Wait for the account's leader lock, then run the bot until it stops or loses it."""
    engine = bot.service.engine
    lock = LeaderLock(engine, f"matrix:sync:{cfg.matrix_user or ''}@{cfg.matrix_homeserver}")
    metrics.set_leader(ROLE, False)
    health = None
    settings = health_settings_from_env()
    if settings is not None:
        health = await start_health_server(Health(engine, "matrix"), *settings)
        log.info("metrics and health on %s:%s", settings[0], bound_port(health))
    try:
        waiting_logged = False
        while not stopping.is_set():
            if await asyncio.to_thread(lock.try_acquire):
                break
            if not waiting_logged:
                log.info("another process runs this Matrix account; standing by")
                waiting_logged = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), CHECK_EVERY)
        if stopping.is_set():
            return
        metrics.set_leader(ROLE, True)
        watch = asyncio.create_task(_watch(bot, lock, stopping))
        try:
            await bot.run()
        finally:
            watch.cancel()
            metrics.set_leader(ROLE, False)
            await asyncio.to_thread(lock.release)
    finally:
        if health is not None:
            await health.cleanup()


async def _watch(bot: MatrixBot, lock: LeaderLock, stopping: asyncio.Event) -> None:
    while not stopping.is_set():
        await asyncio.sleep(CHECK_EVERY)
        if not await asyncio.to_thread(lock.still_held):
            log.error("lost the Matrix leader lock: stopping (another process takes over)")
            bot.stop()
            return
