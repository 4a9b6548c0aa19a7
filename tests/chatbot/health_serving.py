"""The health server (``chatbot.runtime.health``) served on an event loop in a thread, and
asked over real HTTP (no proxy): what ``tests/chatbot/test_metrics.py`` scrapes and checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from chatbot.runtime.health import Health, bound_port, start_health_server

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Served:
    loop: asyncio.AbstractEventLoop
    port: int

    def get(self, path: str) -> tuple[int, str, str]:
        """Status, content type and body of ``GET path`` (a 503 is an answer too)."""
        try:
            with _NO_PROXY.open(f"http://127.0.0.1:{self.port}{path}", timeout=60) as resp:
                return resp.status, resp.headers["Content-Type"], resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.headers["Content-Type"], err.read().decode()

    def healthz(self) -> tuple[int, dict]:
        status, _type, body = self.get("/healthz")
        return status, json.loads(body)

    def scrape(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """The samples of ``/metrics``: (name, sorted labels) → value."""
        status, content_type, body = self.get("/metrics")
        assert status == 200 and content_type == CONTENT_TYPE_LATEST
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(body) for s in family.samples}


@contextlib.contextmanager
def serving(health: Health) -> Iterator[Served]:
    """The health server on a port of its own, on an event loop in a thread (as in the bot,
    where the loop is the adapter's)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="health-test-loop", daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(
        start_health_server(health, "127.0.0.1", 0), loop).result(30)
    try:
        port = bound_port(runner)
        assert port > 0
        yield Served(loop, port)
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
