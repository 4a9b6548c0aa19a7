"""One active Matrix process per account; the others stand by.

A Matrix account's device keeps its encryption sessions in one crypto store, and one sync
stream feeds it: two processes syncing (and encrypting) as the same device would tear both
apart. So of the processes sharing a database, the one the account's leader election
(``chatbot.runtime.leadership.Election`` over ``storage.leader``) elects logs in, syncs and
delivers; the others wait and the first to get the lock takes over within seconds when the
leader goes (it needs the same crypto store, e.g. a shared volume). A leader that loses the
lock (its database connection broke) stops at once. Every process serves ``/metrics`` and
``/healthz`` when ``METRICS_PORT`` is set.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from storage.leader import LeaderLock

from ..runtime.health import Health, bound_port, health_settings_from_env, start_health_server
from ..runtime.leadership import Election

if TYPE_CHECKING:
    from ..runtime.config import Config
    from .app import MatrixBot

log = logging.getLogger(__name__)
ROLE = "matrix-sync"
CHECK_EVERY = 1.0


async def run_as_leader(bot: MatrixBot, cfg: Config, stopping: asyncio.Event) -> None:
    """Take part in the account's election; once elected run the bot until it stops, is
    stopped (``stopping``) or loses the lock."""
    engine = bot.service.engine
    lock = LeaderLock(engine, f"matrix:sync:{cfg.matrix_user or ''}@{cfg.matrix_homeserver}")
    runs: list[asyncio.Task[None]] = []
    ended = asyncio.Event()

    async def elected() -> None:
        run = asyncio.create_task(bot.run(), name="matrix-bot")
        run.add_done_callback(lambda _task: ended.set())
        runs.append(run)

    async def deposed() -> None:
        if not stopping.is_set() and not ended.is_set():
            log.error("lost the Matrix leader lock: stopping (another process takes over)")
        bot.stop()

    health = None
    settings = health_settings_from_env()
    if settings is not None:
        health = await start_health_server(Health(engine, "matrix"), *settings)
        log.info("metrics and health on %s:%s", settings[0], bound_port(health))
    election = Election(lock, ROLE, elected, deposed, interval=CHECK_EVERY)
    election.start()
    try:
        waits = [asyncio.create_task(stopping.wait()), asyncio.create_task(ended.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        if runs:
            await runs[0]  # (stopped by the caller, or by ``deposed``; its error surfaces)
    finally:
        await election.stop()
        if health is not None:
            await health.cleanup()
