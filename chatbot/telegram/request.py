"""A python-telegram-bot request backend on aiohttp.

PTB's default backend (httpx/httpcore) spends milliseconds of CPU per call under concurrency:
its connection pool scans every connection for each request, and it probes the async library
on every lock. aiohttp's client (C parser, simple keep-alive pool) costs a fraction of that.
The bot's default is ``leanhttp`` (cheaper still); ``TELEGRAM_HTTP_CLIENT=aiohttp`` picks this
one, and ``leanhttp`` sends file uploads through it.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

_JSON = {"Content-Type": "application/json"}


@functools.lru_cache(maxsize=64)
def _timeout(connect: float | None, pool: float | None, read: float | None,
             write: float | None) -> aiohttp.ClientTimeout:
    """aiohttp's timeouts for PTB's four (made once per combination)."""
    return aiohttp.ClientTimeout(
        total=None,
        connect=None if connect is None or pool is None else connect + pool,
        sock_connect=connect,
        sock_read=None if read is None else read + (write or 0.0))


class PooledRequest(BaseRequest):
    """What the bot's request backends share: a pool size, PTB's four timeouts with their
    defaults, and the JSON body of a request without files."""

    def __init__(self, connection_pool_size: int = 256, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    @staticmethod
    def _pick(value: ODVInput[float], default: float | None) -> float | None:
        return default if isinstance(value, DefaultValue) else value

    @staticmethod
    def json_body(request_data: RequestData) -> bytes:
        """One JSON body (the Bot API takes application/json): no form encoding."""
        return json.dumps(request_data.parameters, ensure_ascii=False).encode()


class AiohttpRequest(PooledRequest):
    """``BaseRequest`` over one ``aiohttp.ClientSession`` with a bounded connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._session: aiohttp.ClientSession | None = None

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0),
                headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

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
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._pick(read_timeout, self._read_timeout)
        write = self._pick(write_timeout, self._write_timeout)
        connect = self._pick(connect_timeout, self._connect_timeout)
        pool = self._pick(pool_timeout, self._pool_timeout)
        # aiohttp has no separate write timeout: the read timeout starts once the request is
        # written, so writing is bounded by the connect timeout plus the write timeout here.
        timeout = _timeout(connect, pool, read, write)
        data: Any = None
        headers: dict[str, str] | None = None
        if request_data is not None:
            files = request_data.multipart_data
            if files:
                form = aiohttp.FormData()
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, part in files.items():
                    filename, content, mimetype = part  # type: ignore[misc]
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                data = form
            else:
                data, headers = self.json_body(request_data), _JSON
        try:
            async with self._session.request(method, url, data=data, headers=headers,
                                             timeout=timeout) as resp:
                return resp.status, await resp.read()
        except (TimeoutError, asyncio.TimeoutError) as err:  # noqa: UP041 (aiohttp raises either)
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err
