"""The bot's Bot API client: a python-telegram-bot ``BaseRequest`` on aiohttp.

Why aiohttp and not PTB's own ``HTTPXRequest``: under the bot's concurrency httpcore's
connection pool re-examines every queued request against every connection (and polls each
connection's socket) whenever a request starts or ends, so its cost per call grows with the
number of calls under way. Measured on this project's 2-core machine: PTB's ``HTTPXRequest``
spent 1.1-1.7 ms of CPU per call alone and 5 ms with 64 under way, against aiohttp's 0.3-0.5 ms;
in the bot at 300 updates/s httpcore's ``_assign_requests_to_connections`` took half of the
process's CPU, whatever the pool size (8, 32, 256) or keep-alive limit.

What this client guarantees:

* TLS is verified against the system's CA store (``ssl.create_default_context()``, made when
  the client starts, so ``SSL_CERT_FILE``/``SSL_CERT_DIR`` point it at other CAs), or against
  an ``ssl_context`` passed in.
* An HTTP proxy from the environment (``HTTPS_PROXY``/``HTTP_PROXY``, ``NO_PROXY``; looked up
  once per origin with the standard library, ``user:password@`` in the URL for proxy
  authentication) carries the calls; HTTPS goes through it with ``CONNECT``. (aiohttp's own
  ``trust_env`` looks the environment and ``.netrc`` up again on two worker threads for every
  request: 0.7 ms of CPU per call.)
* A request is sent at most once: aiohttp never re-sends a POST, and every Bot API call is a
  POST. A connection the server closed after its last answer is not reused: aiohttp's pool
  checks a connection's state when it hands it out, and one turn of the event loop before each
  request lets asyncio take note of a close that has already arrived.
* No objects are built for answers nothing reads: the answer to a successful edit
  (``UNREAD_ANSWERS``) is handed to PTB as ``true`` — what the Bot API itself answers for an
  inline message's edit, and one of the edit methods' documented results — instead of the
  edited message, which PTB would decode and turn into a ``Message`` (0.1–0.2 ms of CPU a
  call) that the sender throws away. PTB has no documented switch for this:
  ``Bot.do_api_request`` is meant for methods the ``Bot`` lacks and warns for the others.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import logging
import os
import ssl
import urllib.request
from typing import Any
from urllib.parse import unquote, urlsplit

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from ..runtime import metrics

log = logging.getLogger(__name__)
CLIENTS = ("aiohttp", "httpx")  # TELEGRAM_HTTP_CLIENT; the first is the default
_JSON = {"Content-Type": "application/json"}
Timeout = object  # a number of seconds, None (no limit), or ``BaseRequest.DEFAULT_NONE``
# methods whose successful answer (the edited message) the bot never reads
UNREAD_ANSWERS = frozenset({"editMessageText", "editMessageReplyMarkup", "editMessageCaption"})
_TRUE = b'{"ok":true,"result":true}'


@functools.lru_cache(maxsize=64)
def _timeout(connect: float | None, pool: float | None, read: float | None,
             write: float | None) -> aiohttp.ClientTimeout:
    """aiohttp's timeouts for PTB's four (made once per combination)."""
    return aiohttp.ClientTimeout(
        total=None,
        connect=None if connect is None or pool is None else connect + pool,
        sock_connect=connect,
        sock_read=None if read is None else read + (write or 0.0))


Proxy = tuple[str | None, dict[str, str] | None]  # a proxy URL and the headers it wants


def env_proxy(origin: str) -> Proxy:
    """The proxy the environment names for ``origin`` (``scheme://host[:port]``; from
    ``HTTPS_PROXY``, ``HTTP_PROXY``, minding ``NO_PROXY``), its credentials as a
    ``Proxy-Authorization`` header; ``(None, None)`` for none."""
    parts = urlsplit(origin)
    if not parts.hostname or urllib.request.proxy_bypass(parts.hostname):
        return None, None
    found = urllib.request.getproxies().get(parts.scheme)
    if not found:
        return None, None
    proxy = urlsplit(found if "://" in found else f"http://{found}")
    if proxy.username is None:
        return proxy.geturl(), None
    netloc = proxy.netloc.rsplit("@", 1)[1]
    pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
    return proxy._replace(netloc=netloc).geturl(), {
        "Proxy-Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}


class AiohttpRequest(BaseRequest):
    """``BaseRequest`` over one ``aiohttp.ClientSession`` with a bounded connection pool (see
    the module docstring for TLS, proxies and keep-alive)."""

    def __init__(self, connection_pool_size: int = 256, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0,
                 ssl_context: ssl.SSLContext | None = None,
                 unread_answers: frozenset[str] = UNREAD_ANSWERS) -> None:
        self._pool_size = connection_pool_size
        self._unread = unread_answers
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._ssl_context = ssl_context
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[str, Proxy] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            tls = self._ssl_context or ssl.create_default_context()
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0,
                                               ssl=tls),
                headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _proxy(self, url: str) -> Proxy:
        """The proxy for ``url``'s origin (the environment is read once per origin)."""
        origin = "/".join(url.split("/", 3)[:3])
        found = self._proxies.get(origin)
        if found is None:
            found = self._proxies[origin] = env_proxy(origin)
        return found

    @staticmethod
    def _pick(value: Timeout, default: float | None) -> float | None:
        if value is BaseRequest.DEFAULT_NONE:
            return default
        return value  # type: ignore[return-value]

    @staticmethod
    def _body(request_data: RequestData | None) -> tuple[Any, dict[str, str] | None]:
        """The request's body: one JSON document (the Bot API takes application/json), or a
        multipart form when it carries files."""
        if request_data is None:
            return None, None
        files = request_data.multipart_data
        if not files:
            body = json.dumps(request_data.parameters, ensure_ascii=False).encode()
            return body, _JSON
        form = aiohttp.FormData()
        for name, value in request_data.json_parameters.items():
            form.add_field(name, value)
        for name, part in files.items():
            filename, content, mimetype = part  # type: ignore[misc]
            form.add_field(name, content, filename=filename, content_type=mimetype)
        return form, None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        write_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        connect_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        pool_timeout: Timeout = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See :meth:`BaseRequest.do_request`."""
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        # aiohttp has no separate write timeout: the read timeout starts once the request is
        # written, so writing is bounded by the connect timeout plus the write timeout here.
        timeout = _timeout(self._pick(connect_timeout, self._connect_timeout),
                           self._pick(pool_timeout, self._pool_timeout),
                           self._pick(read_timeout, self._read_timeout),
                           self._pick(write_timeout, self._write_timeout))
        data, headers = self._body(request_data)
        proxy, proxy_headers = self._proxy(url)
        await asyncio.sleep(0)  # a close that has arrived is noted before a connection is taken
        try:
            async with self._session.request(method, url, data=data, headers=headers,
                                             timeout=timeout, proxy=proxy,
                                             proxy_headers=proxy_headers) as resp:
                answer = resp.status, await resp.read()
        except (TimeoutError, asyncio.TimeoutError) as err:  # noqa: UP041 (aiohttp raises either)
            metrics.observe_call(url.rsplit("/", 1)[-1], "network")
            raise TimedOut from err
        except aiohttp.ClientError as err:
            metrics.observe_call(url.rsplit("/", 1)[-1], "network")
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err
        name = url.rsplit("/", 1)[-1]
        metrics.observe_call(name, answer[0])
        if answer[0] == 200 and name in self._unread:
            return 200, _TRUE  # (the edited message nobody reads: see the module's docstring)
        return answer


def http_client() -> str:
    """``TELEGRAM_HTTP_CLIENT``: ``aiohttp`` (the default, ``AiohttpRequest``) or ``httpx``
    (python-telegram-bot's own ``HTTPXRequest``); anything else, such as the retired ``lean``,
    means the default (with a warning)."""
    name = os.environ.get("TELEGRAM_HTTP_CLIENT", CLIENTS[0]).strip().lower()
    if name in CLIENTS:
        return name
    log.warning("TELEGRAM_HTTP_CLIENT=%s is not (or no longer) a client; using %s",
                name, CLIENTS[0])
    return CLIENTS[0]


def make_requests(client: str, pool_size: int) -> tuple[BaseRequest, BaseRequest]:
    """The request objects of ``client`` for the Bot API calls (``pool_size`` at once) and
    for long polling (one)."""
    if client == "httpx":
        from telegram.request import HTTPXRequest

        return HTTPXRequest(pool_size), HTTPXRequest(1)
    return AiohttpRequest(pool_size), AiohttpRequest(1)
