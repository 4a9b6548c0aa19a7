"""The Mini App's real server (``chatbot.webapp.server.mounted``) on 127.0.0.1, on a free
port, in a thread with its own event loop (for the browser tests and bench/webapp_page.py)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

from chatbot.service import Service


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(service: Service, token: str, max_age: float = 3600,
          prepare: Any = None) -> Iterator[str]:
    """Serve the page and its API (``prepare``: the adapter's prepared inline messages, for
    the page's invitations); yields the base URL ``http://127.0.0.1:<port>``."""
    from aiohttp import web

    from chatbot.webapp.server import mounted

    port = free_port()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def up() -> None:
        runner = web.AppRunner(mounted(service, token, max_age=max_age, prepare=prepare),
                               shutdown_timeout=0.5)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        holder["runner"] = runner

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(up())
        except BaseException as exc:  # reported to the caller below
            holder["error"] = exc
            return
        finally:
            ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="webapp-server", daemon=True)
    thread.start()
    ready.wait(10)
    if "error" in holder:
        raise holder["error"]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        async def down() -> None:
            await holder["runner"].cleanup()
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in rest:  # e.g. an event stream still waiting for a change
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(down(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
