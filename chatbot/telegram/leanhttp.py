"""A small keep-alive HTTP/1.1 client for the Bot API, and a python-telegram-bot backend on it.

Every button press costs the bot two Bot API calls (the answer and the edit of the table
message) and a share of a ``getUpdates``. aiohttp's client spends about 200 µs of CPU on each
(request and response objects, header multidicts, timers, tracing hooks); this client writes
the request in one piece on a pooled connection and reads the answer with a few byte
searches, about a quarter of that. It does only what the Bot API needs: requests with a
body, answers with ``Content-Length`` or chunked bodies (or one that ends with the
connection), HTTP and HTTPS, connect/read/pool timeouts. Multipart uploads and proxies go to
aiohttp (``LeanRequest`` hands them over).

A request is never sent twice: a pooled connection the server has closed is noticed before
the request is written (and another one taken); a connection that fails after the write
raises ``NetworkError`` and the caller (the outbox) decides.
"""

from __future__ import annotations

import asyncio
import ssl as ssl_module
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from .request import AiohttpRequest, PooledRequest

MAX_HEAD = 64 * 1024  # bytes of status line and headers we accept
MAX_BODY = 64 * 1024 * 1024


class ProtocolError(Exception):
    """The server's answer is not HTTP/1.1 as this client reads it."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection: one request at a time, its answer parsed as it arrives."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.closed = False
        self.reusable = True
        self._status = 0
        self._length: int | None = None  # body length; None: chunked or until EOF
        self._chunked = False
        self._head_done = False
        self._body = bytearray()

    # asyncio.Protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():
            # bytes nobody asked for: the connection is out of step, never reuse it
            self.reusable = False
            self.close()
            return
        self.buffer += data
        try:
            self._parse()
        except ProtocolError as exc:
            self._fail(exc)

    def eof_received(self) -> bool | None:
        self.reusable = False
        return None  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if self._head_done and self._length is None and not self._chunked:
            # a body that ends with the connection
            self._finish(bytes(self.buffer))
            return
        waiter.set_exception(ConnectionResetError(
            f"connection closed before the answer was complete ({exc or 'EOF'})"))

    # the exchange -------------------------------------------------------------------------
    def start(self, request: bytes) -> asyncio.Future[tuple[int, bytes]]:
        """Write one request; the future resolves to (status, body)."""
        assert self.transport is not None
        self.buffer.clear()
        self._body.clear()
        self._status, self._length, self._chunked, self._head_done = 0, None, False, False
        self.waiter = self.loop.create_future()
        self.transport.write(request)
        return self.waiter

    def close(self) -> None:
        self.reusable = False
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        self.reusable = False
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)
        self.close()

    def _finish(self, body: bytes) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result((self._status, body))
        self.waiter = None

    def _parse(self) -> None:
        buf = self.buffer
        if not self._head_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise ProtocolError("response head too long")
                return
            self._read_head(bytes(buf[:end]))
            del buf[:end + 4]
            if 100 <= self._status < 200:  # an interim answer: the real one follows
                self._head_done = False
                self._parse()
                return
        if self._chunked:
            self._parse_chunks()
        elif self._length is not None:
            if len(buf) >= self._length:
                body = bytes(buf[:self._length])
                if len(buf) > self._length:  # more than the answer: out of step
                    self.reusable = False
                buf.clear()
                self._finish(body)
        elif len(buf) > MAX_BODY:
            raise ProtocolError("response body too long")

    def _read_head(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        self._status = int(parts[1])
        self._head_done = True
        self._length, self._chunked = None, False
        keep_alive = parts[0] == b"HTTP/1.1"
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise ProtocolError(f"bad header line: {line[:80]!r}")
            name = name.strip().lower()
            value = value.strip()
            if name == b"content-length":
                if not value.isdigit() or int(value) > MAX_BODY:
                    raise ProtocolError(f"bad Content-Length: {value[:20]!r}")
                self._length = int(value)
            elif name == b"transfer-encoding":
                self._chunked = value.lower().endswith(b"chunked")
            elif name == b"connection":
                tokens = value.lower()
                if b"close" in tokens:
                    keep_alive = False
                elif b"keep-alive" in tokens:
                    keep_alive = True
        if self._chunked:
            self._length = None
        if self._status in (204, 304) or 100 <= self._status < 200:
            self._length, self._chunked = 0, False  # no body, whatever the headers say
        if not keep_alive or (self._length is None and not self._chunked):
            self.reusable = False

    def _parse_chunks(self) -> None:
        buf = self.buffer
        while True:
            line_end = buf.find(b"\r\n")
            if line_end < 0:
                if len(buf) > MAX_HEAD:
                    raise ProtocolError("chunk size line too long")
                return
            size_text = bytes(buf[:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"bad chunk size: {size_text[:20]!r}") from None
            if size == 0:  # the last chunk, then (ignored) trailers and an empty line
                trailer_end = buf.find(b"\r\n\r\n", line_end)
                if trailer_end < 0 and buf[line_end:line_end + 4] != b"\r\n\r\n":
                    return
                rest = trailer_end + 4 if trailer_end >= 0 else line_end + 4
                if len(buf) > rest:
                    self.reusable = False
                buf.clear()
                self._finish(bytes(self._body))
                return
            if len(self._body) + size > MAX_BODY:
                raise ProtocolError("response body too long")
            start = line_end + 2
            if len(buf) < start + size + 2:
                return
            if buf[start + size:start + size + 2] != b"\r\n":
                raise ProtocolError("chunk not followed by CRLF")
            self._body += buf[start:start + size]
            del buf[:start + size + 2]


class LeanHttpClient:
    """Pooled keep-alive connections per (scheme, host, port); ``limit`` open at most. A
    connection idle for longer than ``idle_seconds`` is closed rather than reused (servers
    close idle ones, and a request written into a connection the server is closing fails)."""

    def __init__(self, limit: int = 256, user_agent: str = "stammtisch",
                 ssl_context: ssl_module.SSLContext | None = None,
                 idle_seconds: float = 15.0) -> None:
        self.limit = limit
        self.user_agent = user_agent
        self.ssl_context = ssl_context
        self.idle_seconds = idle_seconds
        self._idle: dict[tuple[str, str, int], deque[tuple[float, _Connection]]] = {}
        self._live: set[_Connection] = set()
        self._connecting = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed = False

    @property
    def open_connections(self) -> int:
        return len(self._live) + self._connecting

    async def request(self, method: str, url: str, body: bytes | None,
                      headers: dict[str, str] | None = None, *,
                      connect_timeout: float | None = None, read_timeout: float | None = None,
                      pool_timeout: float | None = None) -> tuple[int, bytes]:
        """Send one request; (status, body). Raises ``OSError``, ``TimeoutError`` or
        ``ProtocolError``; a connection goes back to the pool only after a clean answer."""
        if self._closed:
            raise RuntimeError("this LeanHttpClient is closed")
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"unsupported URL: {url!r}")
        port = parts.port or (443 if scheme == "https" else 80)
        key = (scheme, parts.hostname, port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rsplit("@", 1)[-1]
        head = [f"{method} {target} HTTP/1.1", f"Host: {host}", f"User-Agent: {self.user_agent}",
                "Accept: application/json", "Connection: keep-alive"]
        for name, value in (headers or {}).items():
            head.append(f"{name}: {value}")
        payload = body or b""
        if body is not None or method not in ("GET", "HEAD"):
            head.append(f"Content-Length: {len(payload)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload
        conn = await self._acquire(key, connect_timeout, pool_timeout)
        loop = conn.loop
        try:
            waiter = conn.start(data)
            timer = None if read_timeout is None else loop.call_later(
                read_timeout, _expire, waiter)
            try:
                status, answer = await waiter
            finally:
                if timer is not None:
                    timer.cancel()
        except BaseException:
            self._discard(conn)
            raise
        self._release(key, conn)
        return status, answer

    async def _acquire(self, key: tuple[str, str, int], connect_timeout: float | None,
                       pool_timeout: float | None) -> _Connection:
        loop = asyncio.get_running_loop()
        deadline = None if pool_timeout is None else loop.time() + pool_timeout
        while True:
            idle = self._idle.get(key)
            while idle:
                since, conn = idle.pop()
                if loop.time() - since <= self.idle_seconds and _usable(conn):
                    return conn
                self._discard(conn)
            if self.open_connections < self.limit:
                break
            await self._wait_for_slot(loop, deadline)
        self._connecting += 1
        try:
            conn = await self._connect(key, connect_timeout)
        finally:
            self._connecting -= 1
        self._live.add(conn)
        return conn

    async def _wait_for_slot(self, loop: asyncio.AbstractEventLoop,
                             deadline: float | None) -> None:
        slot: asyncio.Future[None] = loop.create_future()
        self._waiters.append(slot)
        timer = None if deadline is None else loop.call_at(deadline, _expire, slot)
        try:
            await slot
        except TimeoutError:
            raise TimeoutError("no free connection in the pool") from None
        finally:
            if timer is not None:
                timer.cancel()
            if slot in self._waiters:
                self._waiters.remove(slot)

    def _wake_one(self) -> None:
        while self._waiters:
            slot = self._waiters.popleft()
            if not slot.done():
                slot.set_result(None)
                return

    async def _connect(self, key: tuple[str, str, int],
                       connect_timeout: float | None) -> _Connection:
        scheme, host, port = key
        loop = asyncio.get_running_loop()
        ssl: Any = None
        if scheme == "https":
            if self.ssl_context is None:  # the system's CAs, loaded once
                self.ssl_context = ssl_module.create_default_context()
            ssl = self.ssl_context
        coro = loop.create_connection(lambda: _Connection(loop), host, port, ssl=ssl,
                                      server_hostname=host if ssl else None)
        _transport, conn = await (coro if connect_timeout is None
                                  else asyncio.wait_for(coro, connect_timeout))
        return conn

    def _release(self, key: tuple[str, str, int], conn: _Connection) -> None:
        if self._closed or not _usable(conn):
            self._discard(conn)
            return
        self._idle.setdefault(key, deque()).append((conn.loop.time(), conn))
        self._wake_one()

    def _discard(self, conn: _Connection) -> None:
        conn.close()
        if conn in self._live:
            self._live.discard(conn)
            self._wake_one()

    async def close(self) -> None:
        """Close every idle connection; requests still under way finish on theirs."""
        self._closed = True
        for idle in self._idle.values():
            while idle:
                self._discard(idle.pop()[1])
        while self._waiters:
            slot = self._waiters.popleft()
            if not slot.done():
                slot.set_exception(RuntimeError("this LeanHttpClient is closed"))
        await asyncio.sleep(0)


def _usable(conn: _Connection) -> bool:
    return (not conn.closed and conn.reusable and conn.transport is not None
            and not conn.transport.is_closing())


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class LeanRequest(PooledRequest):
    """python-telegram-bot's ``BaseRequest`` on ``LeanHttpClient`` (JSON bodies); requests
    with files go through aiohttp."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client: LeanHttpClient | None = None
        self._files: Any = None  # an AiohttpRequest, made for the first upload

    async def initialize(self) -> None:
        if self._client is None:
            self._client = LeanHttpClient(self._pool_size, user_agent=self.USER_AGENT)

    async def shutdown(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()
        files, self._files = self._files, None
        if files is not None:
            await files.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See :meth:`BaseRequest.do_request`."""
        if self._client is None:
            raise RuntimeError("This LeanRequest is not initialized!")
        if request_data is not None and request_data.multipart_data:
            return await self._upload(url, method, request_data, read_timeout, write_timeout,
                                      connect_timeout, pool_timeout)
        read = self._pick(read_timeout, self._read_timeout)
        write = self._pick(write_timeout, self._write_timeout)
        body: bytes | None = None
        headers = None
        if request_data is not None:
            body = self.json_body(request_data)
            headers = {"Content-Type": "application/json"}
        try:
            return await self._client.request(
                method, url, body, headers,
                connect_timeout=self._pick(connect_timeout, self._connect_timeout),
                # as with aiohttp: writing a small body is bounded by the read timeout too
                read_timeout=None if read is None else read + (write or 0.0),
                pool_timeout=self._pick(pool_timeout, self._pool_timeout))
        except TimeoutError as err:
            raise TimedOut from err
        except (OSError, ProtocolError) as err:
            raise NetworkError(f"{err.__class__.__name__}: {err}") from err

    async def _upload(self, url: str, method: str, request_data: RequestData,
                      *timeouts: ODVInput[float]) -> tuple[int, bytes]:
        if self._files is None:
            self._files = AiohttpRequest(4, self._read_timeout, self._write_timeout,
                                         self._connect_timeout, self._pool_timeout)
            await self._files.initialize()
        return await self._files.do_request(url, method, request_data, *timeouts)
