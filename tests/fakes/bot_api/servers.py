"""The HTTP front ends of the fake: a threaded stdlib server (with connection tracking) and
an aiohttp server on one asyncio loop; both hand requests to ``FakeBotApi._handle_http``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tests.fakes.bot_api.wire import _DISCONNECT

if TYPE_CHECKING:
    from tests.fakes.bot_api.core import FakeBotApi

# --------------------------------------------------------------------------------------------
# HTTP plumbing


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, handler, fake: FakeBotApi):
        self.fake = fake
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(addr, handler)

    def track(self, conn: socket.socket, add: bool) -> None:
        with self._conns_lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def close_connections(self) -> None:
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class _AioServer:
    """The same fake behind an aiohttp (asyncio) server on a thread of its own: one event
    loop with a C HTTP parser instead of a thread per connection, for throughput benchmarks.
    Calls that may wait (getUpdates long polls, simulated latency) run on worker threads."""

    def __init__(self, addr: tuple[str, int], fake: FakeBotApi):
        self.fake = fake
        self.addr = addr
        self.server_address: tuple[str, int] = addr
        self.loop = asyncio.new_event_loop()
        self._workers = ThreadPoolExecutor(max_workers=32, thread_name_prefix="FakeBotApi-poll")
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def serve_forever(self, poll_interval: float = 0.05) -> None:
        from aiohttp import web

        asyncio.set_event_loop(self.loop)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        try:
            self.loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, self.addr[0], self.addr[1], reuse_address=True)
            self.loop.run_until_complete(site.start())
            server = site._server
            assert server is not None
            self.server_address = server.sockets[0].getsockname()[:2]  # type: ignore[union-attr]
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            raise
        self._ready.set()
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(runner.cleanup())
            self.loop.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        if not self._ready.wait(timeout) or self._error is not None:
            raise RuntimeError(f"fake Bot API (aiohttp) did not start: {self._error!r}")

    async def _handle(self, request):  # type: ignore[no-untyped-def]
        from aiohttp import web

        body = await request.read()
        path = request.path
        args = (path, request.query_string, request.headers.get("Content-Type", ""), body)
        try:
            if self.fake.latency > 0 or self.fake._chat_latency or \
                    path.lower().endswith("/getupdates"):
                status, payload = await self.loop.run_in_executor(
                    self._workers, lambda: self.fake._handle_http(*args))
            else:
                status, payload = self.fake._handle_http(*args)
        except Exception as exc:  # a bug in the fake: make it visible
            traceback.print_exc()
            status, payload = 500, {
                "ok": False, "error_code": 500,
                "description": f"Internal Server Error: fake server bug: {exc!r}"}
        if payload is _DISCONNECT:
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=500)
        return web.Response(body=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                            status=status, content_type="application/json")

    def shutdown(self) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.loop.stop)

    def close_connections(self) -> None:
        """Connections are closed by the runner's cleanup."""

    def server_close(self) -> None:
        self._workers.shutdown(wait=False, cancel_futures=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeTelegramBotAPI/1.0"
    timeout = 120  # idle keep-alive connections
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid 40 ms stalls

    server: _Server

    def setup(self):
        super().setup()
        self.server.track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format, *args):  # quiet
        pass

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self):
        try:
            body = self._read_body()
        except (OSError, ValueError):
            self.close_connection = True
            return
        split = urlsplit(self.path)
        try:
            status, payload = self.server.fake._handle_http(
                split.path, split.query, self.headers.get("Content-Type", ""), body
            )
        except Exception as exc:  # a bug in the fake: make it visible
            traceback.print_exc()
            status, payload = (
                500,
                {
                    "ok": False,
                    "error_code": 500,
                    "description": f"Internal Server Error: fake server bug: {exc!r}",
                },
            )
        if payload is _DISCONNECT:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True

    do_GET = _handle
    do_POST = _handle
