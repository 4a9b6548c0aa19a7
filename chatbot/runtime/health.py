"""Each bot process's ``/metrics`` (Prometheus) and ``/healthz``, on a small aiohttp server.

``METRICS_PORT`` switches it on (unset or empty: no server; ``0``: any free port, for tests);
``METRICS_HOST`` is the address it listens on, ``127.0.0.1`` unless set (``0.0.0.0`` to be
scraped from other machines or containers). ``health_settings_from_env`` reads both.

``GET /metrics``: the default registry of ``prometheus-client`` (``chatbot.runtime.metrics``), the
outbox gauges refreshed first (one query, on a worker thread).

``GET /healthz``: 200 with ``{"ok": true, "checks": {...}}``, or 503 naming the failing checks:

* ``loop``: the event loop is responsive. A background task sleeps 0.25 s in a loop and keeps
  how late it woke (the lag); a lag over ``max_loop_lag`` in the last two seconds is unhealthy.
  A wake-up that is overdue right now counts too, so a loop that was blocked answers 503 as
  soon as it answers again.
* ``database``: ``SELECT 1`` through the engine on a worker thread answers within 3 s.
* ``poll``: where this process is the polling leader (``last_poll_age`` returns a number), the
  last ``getUpdates`` answered less than ``max_poll_age`` seconds ago.

The database work runs on two threads of the server's own, not on asyncio's default
executor: a database that hangs then ties up those two threads only. Probes that arrive while
a ``SELECT 1`` is under way share it (they wait for the same answer, up to ``DB_TIMEOUT`` from
when it started) instead of starting their own or failing; once that check has waited
``DB_TIMEOUT`` every probe fails at once instead of queueing behind it.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from sqlalchemy import text

from storage.db import read_only

from . import metrics

log = logging.getLogger(__name__)
DEFAULT_HOST = "127.0.0.1"
LAG_EVERY = 0.25  # seconds between two wake-ups of the loop-lag probe
DB_TIMEOUT = 3.0  # seconds a database check (SELECT 1, the outbox query) may take


@dataclass
class Health:
    """What ``/healthz`` checks in this process."""

    engine: sqlalchemy.engine.Engine
    platform: str
    # seconds since the leader's last getUpdates answered; None = not polling here
    last_poll_age: Callable[[], float | None] | None = None
    is_leader: Callable[[], bool] | None = None
    max_poll_age: float = 60.0
    max_loop_lag: float = 2.0


def health_settings_from_env(env: dict[str, str] | None = None) -> tuple[str, int] | None:
    """``(METRICS_HOST, METRICS_PORT)``, or ``None`` when ``METRICS_PORT`` is unset or empty
    (no server). ``METRICS_HOST`` defaults to ``127.0.0.1``. A port that is not a number from 0
    to 65535 raises ``ValueError``."""
    env = os.environ if env is None else env
    raw = (env.get("METRICS_PORT") or "").strip()
    if not raw:
        return None
    try:
        port = int(raw)
    except ValueError:
        raise ValueError(f"METRICS_PORT={raw!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"METRICS_PORT={raw!r} is not a port number (0-65535)")
    host = (env.get("METRICS_HOST") or "").strip() or DEFAULT_HOST
    return host, port


class LagProbe:
    """How late the event loop wakes a task that sleeps ``every`` seconds."""

    def __init__(self, every: float = LAG_EVERY, keep: int = 8) -> None:
        self.every = every
        self.lags: collections.deque[float] = collections.deque([0.0], maxlen=keep)
        self.due: float | None = None  # when (loop time) the next wake-up is due

    @property
    def lag(self) -> float:
        """How late the last wake-up was, in seconds."""
        return self.lags[-1]

    def current(self, now: float) -> float:
        """The lag to judge by at loop time ``now``: the worst of the last wake-ups (``keep``
        of them, two seconds by default), or more if the next one is overdue now."""
        overdue = 0.0 if self.due is None else now - self.due
        return max(max(self.lags), overdue)

    def woke(self, now: float) -> None:
        """The probe woke at loop time ``now``: note how late, and when it is due next."""
        if self.due is not None:
            self.lags.append(max(now - self.due, 0.0))
        self.due = now + self.every

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        if self.due is None:
            self.due = loop.time() + self.every
        while True:
            await asyncio.sleep(max(self.due - loop.time(), 0.0))
            self.woke(loop.time())


class _Server:
    """The handlers and their state."""

    def __init__(self, health: Health) -> None:
        self.health = health
        self.probe = LagProbe()
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2,
                                                          thread_name_prefix="health")
        self.db_check: asyncio.Future[Any] | None = None  # the last SELECT 1 started
        self.db_started = 0.0  # when (loop time) it started

    async def lifetime(self, app: web.Application) -> AsyncIterator[None]:
        """The probe runs while the server does (aiohttp's ``cleanup_ctx``)."""
        self.probe.due = asyncio.get_running_loop().time() + self.probe.every
        task = asyncio.create_task(self.probe.run(), name="health-loop-lag")
        yield
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _select_one(self) -> None:
        with read_only(self.health.engine).connect() as conn:
            conn.execute(text("SELECT 1")).scalar_one()

    def _scrape(self) -> bytes:
        try:
            metrics.observe_outbox(self.health.engine, self.health.platform)
        except Exception as exc:  # the metrics are served all the same
            log.warning("metrics: outbox backlog not read: %s", exc)
        return generate_latest(REGISTRY)

    async def metrics(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        try:
            body = await asyncio.wait_for(loop.run_in_executor(self.pool, self._scrape),
                                          DB_TIMEOUT)
        except Exception:  # (a hung database): the metrics without the outbox's
            log.warning("metrics: outbox backlog not read in %ss", DB_TIMEOUT)
            body = generate_latest(REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def database(self) -> dict[str, Any]:
        """``SELECT 1`` answers within ``DB_TIMEOUT``; a check under way is shared."""
        loop = asyncio.get_running_loop()
        if self.db_check is None or self.db_check.done():
            self.db_started = loop.time()
            self.db_check = loop.run_in_executor(self.pool, self._select_one)
        check, started = self.db_check, self.db_started
        left = started + DB_TIMEOUT - loop.time()
        try:
            if left <= 0:
                raise TimeoutError
            await asyncio.wait_for(asyncio.shield(check), left)
        except (TimeoutError, asyncio.TimeoutError):  # noqa: UP041 (the same from 3.11 on)
            return {"ok": False, "reason": f"no answer in {DB_TIMEOUT:g} s"}
        except Exception as exc:
            return {"ok": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
        return {"ok": True, "seconds": round(loop.time() - started, 4)}

    def loop(self) -> dict[str, Any]:
        lag = self.probe.current(asyncio.get_running_loop().time())
        out: dict[str, Any] = {"ok": lag <= self.health.max_loop_lag, "lag": round(lag, 4)}
        if not out["ok"]:
            out["reason"] = f"the event loop ran {lag:.2f} s late (limit "\
                            f"{self.health.max_loop_lag:g} s)"
        return out

    def poll(self) -> dict[str, Any] | None:
        if self.health.last_poll_age is None:
            return None
        try:
            age = self.health.last_poll_age()
        except Exception as exc:
            return {"ok": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
        if age is None:
            return {"ok": True, "polling": False}
        out: dict[str, Any] = {"ok": age <= self.health.max_poll_age, "polling": True,
                               "age": round(age, 3)}
        if not out["ok"]:
            out["reason"] = f"getUpdates last answered {age:.0f} s ago (limit "\
                            f"{self.health.max_poll_age:g} s)"
        return out

    async def healthz(self, request: web.Request) -> web.Response:
        checks: dict[str, Any] = {}
        try:
            checks["loop"] = self.loop()
            checks["database"] = await self.database()
            poll = self.poll()
            if poll is not None:
                checks["poll"] = poll
            if self.health.is_leader is not None:
                with contextlib.suppress(Exception):
                    checks["leader"] = {"ok": True, "held": bool(self.health.is_leader())}
        except Exception as exc:  # never raise: an unexpected failure is a failed check
            log.exception("healthz failed")
            checks["healthz"] = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
        ok = all(c["ok"] for c in checks.values())
        return web.json_response({"ok": ok, "checks": checks}, status=200 if ok else 503)


def make_app(health: Health) -> web.Application:
    """The aiohttp application serving ``/metrics`` and ``/healthz``."""
    server = _Server(health)
    app = web.Application()
    app.router.add_get("/metrics", server.metrics)
    app.router.add_get("/healthz", server.healthz)
    app.cleanup_ctx.append(server.lifetime)
    return app


async def start_health_server(health: Health, host: str, port: int) -> web.AppRunner:
    """Serve ``/metrics`` and ``/healthz`` on ``host:port`` (``0``: any free port, see
    ``bound_port``). Returns the started runner; ``await runner.cleanup()`` stops it."""
    runner = web.AppRunner(make_app(health), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    log.debug("metrics and health on http://%s:%s", host, bound_port(runner))
    return runner


def bound_port(runner: web.AppRunner) -> int:
    """The port the server listens on (the one chosen for port 0)."""
    return int(runner.addresses[0][1])


__all__ = ["Health", "LagProbe", "bound_port", "health_settings_from_env", "make_app",
           "start_health_server"]
