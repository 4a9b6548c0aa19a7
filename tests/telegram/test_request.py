"""The bot's Bot API client (``chatbot.telegram.request.AiohttpRequest``) through
python-telegram-bot's ``Bot`` against real loopback servers: TLS is verified, a proxy from the
environment is used, a keep-alive connection the server closed is not reused, and a request is
never sent twice."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from telegram import Bot
from telegram.error import NetworkError
from telegram.request import HTTPXRequest

from chatbot.telegram.request import AiohttpRequest, http_client, make_requests

from .loopback import LoopbackProxy, ScriptedServer, self_signed, server_tls

TOKEN = "123456:TEST-token"


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy settings of the machine leak into a test."""
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, ssl.SSLContext]:
    """A self-signed certificate for 127.0.0.1 and a server context presenting it."""
    cert, key = self_signed(tmp_path)
    return cert, server_tls(cert, key)


@contextlib.asynccontextmanager
async def _bot(url: str, request: AiohttpRequest | None = None) -> AsyncIterator[Bot]:
    """A PTB ``Bot`` for the server at ``url`` on an ``AiohttpRequest``."""
    request = request or AiohttpRequest(8)
    bot = Bot(TOKEN, base_url=f"{url}/bot", request=request,
              get_updates_request=AiohttpRequest(1))
    await request.initialize()
    try:
        yield bot
    finally:
        await request.shutdown()


def _run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())  # type: ignore[arg-type]


def test_tls_is_verified(no_proxy_env: pytest.MonkeyPatch,
                         certificate: tuple[Path, ssl.SSLContext]) -> None:
    """A self-signed certificate is refused; trusted through ``SSL_CERT_FILE`` (read when the
    client starts) or an ``ssl_context``, it is accepted."""
    cert, tls = certificate

    async def scenario() -> None:
        async with ScriptedServer(lambda n: "answer", tls=tls) as server:
            async with _bot(server.url) as bot:
                with pytest.raises(NetworkError):
                    await bot.get_me()
            no_proxy_env.setenv("SSL_CERT_FILE", str(cert))
            async with _bot(server.url) as bot:
                assert (await bot.get_me()).username == "stammtisch_bot"
            no_proxy_env.delenv("SSL_CERT_FILE")
            trusted = ssl.create_default_context(cafile=str(cert))
            async with _bot(server.url, AiohttpRequest(8, ssl_context=trusted)) as bot:
                assert (await bot.get_me()).username == "stammtisch_bot"
            assert server.requests == ["POST /bot123456:TEST-token/getMe HTTP/1.1"] * 2

    _run(scenario)


def test_https_goes_through_the_proxy_of_the_environment(
        no_proxy_env: pytest.MonkeyPatch, certificate: tuple[Path, ssl.SSLContext]) -> None:
    """``HTTPS_PROXY`` (with credentials) carries HTTPS calls through a ``CONNECT`` tunnel,
    TLS still verified end to end; ``NO_PROXY`` exempts a host."""
    cert, tls = certificate
    no_proxy_env.setenv("SSL_CERT_FILE", str(cert))

    async def scenario() -> None:
        async with ScriptedServer(lambda n: "answer", tls=tls) as server, \
                LoopbackProxy() as proxy:
            target = server.url.removeprefix("https://")
            no_proxy_env.setenv("HTTPS_PROXY", proxy.url.replace("://", "://kim:geheim@"))
            async with _bot(server.url) as bot:
                await bot.get_me()
                await bot.get_me()
            assert len(proxy.heads) == 1  # one tunnel, kept alive for both calls
            assert proxy.heads[0].startswith(f"CONNECT {target} HTTP/1.1\r\n")
            credentials = base64.b64encode(b"kim:geheim").decode()
            assert f"Proxy-Authorization: Basic {credentials}" in proxy.heads[0]
            assert len(server.requests) == 2
            no_proxy_env.setenv("NO_PROXY", "127.0.0.1")
            async with _bot(server.url) as bot:
                await bot.get_me()
            assert len(proxy.heads) == 1 and len(server.requests) == 3

    _run(scenario)


def test_http_goes_through_the_proxy_of_the_environment(
        no_proxy_env: pytest.MonkeyPatch) -> None:
    """``HTTP_PROXY`` carries plain HTTP calls (e.g. to a local Bot API server)."""

    async def scenario() -> None:
        async with ScriptedServer(lambda n: "answer") as server, LoopbackProxy() as proxy:
            no_proxy_env.setenv("HTTP_PROXY", proxy.url)
            async with _bot(server.url) as bot:
                assert (await bot.get_me()).id == 1
            assert proxy.heads[0].startswith(f"POST {server.url}/bot{TOKEN}/getMe HTTP/1.1")
            assert server.requests == [f"POST {server.url}/bot{TOKEN}/getMe HTTP/1.1"]

    _run(scenario)


def test_a_connection_closed_after_its_answer_is_not_reused(
        no_proxy_env: pytest.MonkeyPatch) -> None:
    """The server says ``Connection: keep-alive`` and closes the socket right after each
    answer: all 20 calls in a row succeed, each on a new connection, each sent once."""

    async def scenario() -> None:
        async with ScriptedServer(lambda n: "answer-close") as server:
            async with _bot(server.url) as bot:
                for _ in range(20):
                    assert (await bot.get_me()).id == 1
            assert len(server.requests) == 20

    _run(scenario)


@pytest.mark.parametrize("reused", [False, True], ids=["new connection", "kept-alive connection"])
def test_a_request_that_may_have_arrived_is_never_sent_again(
        no_proxy_env: pytest.MonkeyPatch, reused: bool) -> None:
    """The server reads the request and closes without answering: the call fails with
    ``NetworkError`` and the server saw it once (on a fresh and on a kept-alive connection);
    the next call works on a new connection."""
    dropped = 2 if reused else 1

    async def scenario() -> None:
        script: Callable[[int], str] = lambda n: "drop" if n == dropped else "answer"  # noqa: E731
        async with ScriptedServer(script) as server:  # type: ignore[arg-type]
            async with _bot(server.url) as bot:
                if reused:
                    await bot.get_me()
                with pytest.raises(NetworkError):
                    await bot.send_message(7, "Tisch")
                assert [r.split()[1].rsplit("/", 1)[-1] for r in server.requests] == \
                    ["getMe"] * (dropped - 1) + ["sendMessage"]
                await bot.get_me()
            assert len(server.requests) == dropped + 1

    _run(scenario)


def test_the_client_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """``TELEGRAM_HTTP_CLIENT``: aiohttp by default, httpx on request; the retired ``lean``
    (and anything unknown) falls back to the default with a warning."""
    monkeypatch.delenv("TELEGRAM_HTTP_CLIENT", raising=False)
    assert http_client() == "aiohttp"
    monkeypatch.setenv("TELEGRAM_HTTP_CLIENT", " HTTPX ")
    assert http_client() == "httpx"
    request, polling = make_requests("httpx", 16)
    assert isinstance(request, HTTPXRequest) and isinstance(polling, HTTPXRequest)
    request, polling = make_requests("aiohttp", 16)
    assert isinstance(request, AiohttpRequest) and isinstance(polling, AiohttpRequest)
    monkeypatch.setenv("TELEGRAM_HTTP_CLIENT", "lean")
    with caplog.at_level(logging.WARNING, logger="chatbot.telegram.request"):
        assert http_client() == "aiohttp"
    assert "TELEGRAM_HTTP_CLIENT=lean" in caplog.text
