"""The lean HTTP/1.1 client against scripted servers on loopback (plain and TLS), and its
python-telegram-bot backend against the fake Bot API server."""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import BadRequest, NetworkError, TimedOut

from chatbot.telegram.app import api_base
from chatbot.telegram.leanhttp import LeanHttpClient, LeanRequest, ProtocolError

OK = b'{"ok":true,"result":true}'


def answer(body: bytes = OK, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", *headers]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


Handler = Callable[[bytes, bytes, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """A loopback server that reads each request (head and Content-Length body) and lets a
    test's handler write whatever it likes back; counts connections."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler, self.tls = handler, tls
        self.connections = 0
        self.open = 0
        self.most_open = 0
        self.requests: list[tuple[bytes, bytes]] = []

    async def __aenter__(self) -> Server:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    def url(self, path: str = "/bot/getMe") -> str:
        return f"{'https' if self.tls else 'http'}://{'localhost' if self.tls else '127.0.0.1'}" \
               f":{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                self.requests.append((head, body))
                await self.handler(head, body, writer)
                if writer.is_closing():
                    return
        finally:
            self.open -= 1
            writer.close()


def reply(data: bytes, close: bool = False) -> Handler:
    async def handler(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        writer.write(data)
        await writer.drain()
        if close:
            writer.close()
    return handler


def run(coro: Awaitable[None]) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def test_keep_alive_reuses_one_connection_and_sends_a_json_post() -> None:
    async def scenario() -> None:
        async with Server(reply(answer())) as server:
            client = LeanHttpClient(4)
            for _ in range(3):
                status, body = await client.request(
                    "POST", server.url(), b'{"a":1}', {"Content-Type": "application/json"})
                assert (status, body) == (200, OK)
            assert server.connections == 1
            head, body = server.requests[0]
            assert head.startswith(b"POST /bot/getMe HTTP/1.1\r\n")
            assert b"Host: 127.0.0.1:" in head and b"Content-Length: 7" in head
            assert body == b'{"a":1}'
            await client.close()
    run(scenario())


def test_chunked_answer_read_byte_by_byte() -> None:
    chunked = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5;ext=1\r\n{\"ok\"\r\n14\r\n:true,\"result\":true}\r\n0\r\nX-Trailer: 1\r\n\r\n")

    async def handler(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        for i in range(len(chunked)):
            writer.write(chunked[i:i + 1])
            await writer.drain()

    async def scenario() -> None:
        async with Server(handler) as server:
            client = LeanHttpClient()
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert server.connections == 1  # a clean chunked answer keeps the connection
            await client.close()
    run(scenario())


def test_answer_that_ends_with_the_connection_and_connection_close() -> None:
    async def scenario() -> None:
        until_eof = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + OK
        async with Server(reply(until_eof, close=True)) as server:
            client = LeanHttpClient()
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert server.connections == 2  # never reused after "Connection: close"
            assert client.open_connections == 0
            await client.close()
    run(scenario())


def test_interim_100_answer_and_204_without_body() -> None:
    async def scenario() -> None:
        data = b"HTTP/1.1 100 Continue\r\n\r\n" + answer()
        async with Server(reply(data)) as server:
            client = LeanHttpClient()
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            await client.close()
        async with Server(reply(b"HTTP/1.1 204 No Content\r\n\r\n")) as server:
            client = LeanHttpClient()
            assert await client.request("POST", server.url(), b"{}") == (204, b"")
            assert await client.request("POST", server.url(), b"{}") == (204, b"")
            assert server.connections == 1
            await client.close()
    run(scenario())


def test_a_connection_the_server_closed_while_idle_is_not_used() -> None:
    async def scenario() -> None:
        async with Server(reply(answer(), close=True)) as server:  # keep-alive, then closes
            client = LeanHttpClient()
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            for _ in range(400):  # the close arrives while the connection is idle
                if all(conn.closed for idle in client._idle.values() for _t, conn in idle):
                    break
                await asyncio.sleep(0.005)
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert server.connections == 2
            await client.close()
    run(scenario())


def test_idle_connections_expire() -> None:
    async def scenario() -> None:
        async with Server(reply(answer())) as server:
            client = LeanHttpClient(idle_seconds=0.0)
            await client.request("POST", server.url(), b"{}")
            await asyncio.sleep(0.01)
            await client.request("POST", server.url(), b"{}")
            assert server.connections == 2
            await client.close()
    run(scenario())


def test_read_timeout_and_a_late_answer_do_not_poison_the_pool() -> None:
    async def slow(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        if body == b"slow":
            await asyncio.sleep(0.3)
        writer.write(answer())
        await writer.drain()

    async def scenario() -> None:
        async with Server(slow) as server:
            client = LeanHttpClient()
            with pytest.raises(TimeoutError):
                await client.request("POST", server.url(), b"slow", read_timeout=0.05)
            assert client.open_connections == 0  # the timed-out connection is closed
            assert await client.request("POST", server.url(), b"fast") == (200, OK)
            await client.close()
    run(scenario())


def test_errors_surface_as_exceptions() -> None:
    async def scenario() -> None:
        client = LeanHttpClient()
        with pytest.raises(OSError):  # nothing listens there
            await client.request("POST", "http://127.0.0.1:9/x", b"{}", connect_timeout=2)
        async with Server(reply(b"SPDY/9 nonsense\r\n\r\n")) as server:
            with pytest.raises(ProtocolError):
                await client.request("POST", server.url(), b"{}")
        half = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ok\":"
        async with Server(reply(half, close=True)) as server:
            with pytest.raises(ConnectionResetError):
                await client.request("POST", server.url(), b"{}")
        with pytest.raises(ValueError):
            await client.request("POST", "ftp://example.org/", b"{}")
        assert client.open_connections == 0
        await client.close()
    run(scenario())


def test_pool_limit_is_kept_and_a_full_pool_times_out() -> None:
    async def slowish(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.01 if body != b"hang" else 0.5)
        writer.write(answer())
        await writer.drain()

    async def scenario() -> None:
        async with Server(slowish) as server:
            client = LeanHttpClient(limit=2)
            results = await asyncio.gather(*(client.request("POST", server.url(), b"{}")
                                             for _ in range(12)))
            assert results == [(200, OK)] * 12
            assert server.most_open == 2
            one = LeanHttpClient(limit=1)
            hanging = asyncio.ensure_future(one.request("POST", server.url(), b"hang"))
            await asyncio.sleep(0.05)
            with pytest.raises(TimeoutError):
                await one.request("POST", server.url(), b"{}", pool_timeout=0.05)
            assert await hanging == (200, OK)
            assert await one.request("POST", server.url(), b"{}") == (200, OK)
            await client.close()
            await one.close()
    run(scenario())


def _tls_pair(tmp: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A self-signed certificate for ``localhost``: the server's and a client's context."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp / "cert.pem", tmp / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cafile=str(cert_file))
    return server, client


def test_https_with_certificate_checks(tmp_path: Path) -> None:
    server_ctx, client_ctx = _tls_pair(tmp_path)

    async def scenario() -> None:
        async with Server(reply(answer()), tls=server_ctx) as server:
            client = LeanHttpClient(ssl_context=client_ctx)
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert await client.request("POST", server.url(), b"{}") == (200, OK)
            assert server.connections == 1
            await client.close()
            untrusting = LeanHttpClient()  # the system's CAs do not know this certificate
            with pytest.raises(ssl.SSLError):
                await untrusting.request("POST", server.url(), b"{}")
            await untrusting.close()
    run(scenario())


def test_lean_request_backs_a_bot_against_the_fake_api(fake) -> None:  # type: ignore[no-untyped-def]
    """PTB over ``LeanRequest``: calls work, Telegram's errors keep their PTB types, network
    trouble becomes ``NetworkError``/``TimedOut``."""
    async def scenario() -> None:
        bot = Bot(fake.token, base_url=api_base(fake.url), request=LeanRequest(8),
                  get_updates_request=LeanRequest(1))
        async with bot:
            me = await bot.get_me()
            assert me.is_bot
            sent = await bot.send_message(1001, "Grüß Gott ✓")
            assert sent.text == "Grüß Gott ✓"
            with pytest.raises(BadRequest):
                await bot.edit_message_text("x", chat_id=1001, message_id=999_999)
        broken = Bot(fake.token, base_url="http://127.0.0.1:9/bot", request=LeanRequest(2))
        with pytest.raises(NetworkError):
            await broken.get_me()

        async def hang(head: bytes, body: bytes, writer: asyncio.StreamWriter) -> None:
            await asyncio.sleep(1)

        async with Server(hang) as server:
            request = LeanRequest(2, read_timeout=0.05, write_timeout=0.0)
            await request.initialize()
            with pytest.raises(TimedOut):
                await request.post(server.url())
            await request.shutdown()
    run(scenario())
