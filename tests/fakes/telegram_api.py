"""A fake Telegram Bot API server for tests and benchmarks (stdlib only; ``http="aiohttp"``
/ ``--http aiohttp`` serves the same fake from one asyncio loop, for throughput benchmarks).

In-process use::

    with FakeBotApi(token="123:ABC") as fake:
        bot = telegram.Bot("123:ABC", base_url=fake.base_url, base_file_url=fake.base_file_url)
        uid = fake.send_text(chat_id=42, user_id=42, text="/start")   # inject an update
        call = fake.wait_for_call("sendMessage")                      # sync code only!
        # inside the bot's event loop use: await fake.async_wait_for_call("sendMessage")
        fake.press(42, 42, call["response"]["result"]["message_id"], "join")

As a separate process::

    python -m tests.fakes.telegram_api --port 0 --token 123:ABC
    # prints "READY http://127.0.0.1:PORT" (flushed), serves until SIGTERM/SIGINT

``FakeBotApiProcess`` starts that process and ``RemoteFakeBotApi(url)`` offers the same
control API (calls, messages, send_text, press, fail, reset, wait_for, ...) over HTTP.

Bot API: requests to ``/bot<token>/<method>`` (method names case-insensitive) with GET query
parameters, ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``application/json``
bodies. String values of non-text fields are JSON-decoded (that is what python-telegram-bot
sends for ``chat_id``, ``reply_markup``, ``commands``, ...). Implemented methods: getMe, logOut,
close, getUpdates, setWebhook, deleteWebhook, getWebhookInfo, sendMessage, sendChatAction,
editMessageText, editMessageReplyMarkup, deleteMessage, deleteMessages, answerCallbackQuery,
setMyCommands, getMyCommands, deleteMyCommands, getChat, getChatMember, leaveChat,
pinChatMessage, unpinChatMessage, setMyName, setMyDescription, setMyShortDescription.

Control API: ``/control/<name>`` (JSON in, ``{"ok": true, "result": ...}`` out), see
``FakeBotApi._control``; every endpoint has a Python method of the same name.

Notes on realism:
* ``parse_mode=HTML`` is parsed into plain text + entities (UTF-16 offsets); unsupported or
  unbalanced tags give Telegram's 400 "can't parse entities" error. Markdown is stored as is.
* ``editMessageText`` without ``reply_markup`` removes the inline keyboard (as Telegram does).
* getUpdates: updates with ``update_id < offset`` are confirmed (dropped); a second concurrent
  getUpdates terminates the first one with 409 Conflict; getUpdates while a webhook is set → 409.
* When a webhook is set, pending updates are POSTed to it (with
  ``X-Telegram-Bot-Api-Secret-Token``; http:// URLs are accepted), up to setWebhook's
  ``max_connections`` (default 40, at most ``webhook_workers``) at once, the oldest first, over
  keep-alive connections. An update stays pending while it is being posted; a 2xx answer
  confirms it; anything else (refused, reset, timeout, non-2xx) sets ``last_error_date`` and
  pauses that URL for ``webhook_retry_pause`` seconds, after which the update is posted again.
  With ``max_connections=1`` and one URL the order is kept.
* ``webhook_targets([url, ...])`` stands for a reverse proxy in front of several bot processes:
  the updates for the registered webhook go round robin to these URLs instead (a failing target
  is skipped for the pause and the update goes to the next one, as a proxy with passive health
  checks does). ``webhook_deliveries()`` records every attempt with its ``target``.
* Empty getUpdates responses are not recorded in ``calls()`` (``record_empty_polls=True``
  changes that). Call sequence numbers and update ids keep increasing across ``reset()``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import email.policy
import gc
import http.client
import itertools
import json
import queue
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.parser import BytesParser
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = ["ApiError", "FakeBotApi", "FakeBotApiProcess", "RemoteFakeBotApi", "main"]

_PROJECT_ROOT = Path(__file__).resolve().parents[2]

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
FORBIDDEN_REASONS = {
    "not_started": "Forbidden: bot can't initiate conversation with a user",
    "blocked": "Forbidden: bot was blocked by the user",
    "deactivated": "Forbidden: user is deactivated",
    "kicked": "Forbidden: bot was kicked from the group chat",
    "not_member": "Forbidden: bot is not a member of the group chat",
}
_ERROR_PHRASES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
# Fields whose form values are plain strings and must never be JSON-decoded.
_STRING_FIELDS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "inline_message_id",
        "url",
        "language_code",
        "secret_token",
        "ip_address",
        "description",
        "short_description",
        "name",
        "title",
        "query",
        "emoji",
        "business_connection_id",
        "message_effect_id",
        "action",
        "custom_title",
        "question",
        "explanation",
        "first_name",
        "last_name",
        "phone_number",
        "vcard",
        "payload",
        "currency",
        "start_parameter",
        "game_short_name",
        "photo",
        "document",
        "audio",
        "video",
        "animation",
        "voice",
        "sticker",
        "file_id",
        "address",
        "foursquare_id",
        "next_offset",
        "cache_key",
    }
)
_JSONISH = re.compile(r'\s*(?:[\[{"]|-?\d|true\b|false\b|null\b)')
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,64})?(?![A-Za-z0-9_@])")
_API_PATH = re.compile(r"^/bot([^/]+)/([A-Za-z_]+)/?$")
_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_NOT_DEFAULT_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_DISCONNECT = object()  # handler result meaning: close the connection without a response


class ApiError(Exception):
    """A Bot API error answer (``{"ok": false, "error_code": ..., "description": ...}``)."""

    def __init__(self, code: int, description: str, parameters: dict | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> dict:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _u16len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _decode_value(key: str, value: Any) -> Any:
    if key in _STRING_FIELDS or not isinstance(value, str) or not _JSONISH.match(value):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _parse_multipart(content_type: str, body: bytes) -> dict[str, Any]:
    head = b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n"
    msg = BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not msg.is_multipart():
        raise ValueError("can't parse multipart/form-data body")
    out: dict[str, Any] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            out[str(name)] = {
                "filename": filename,
                "size": len(payload),
                "content_type": part.get_content_type(),
            }
        else:
            text = payload.decode(part.get_content_charset() or "utf-8", "replace")
            out[str(name)] = _decode_value(str(name), text)
    return out


def decode_params(query: str, content_type: str, body: bytes) -> tuple[dict[str, Any], str]:
    """Decode request parameters; returns (params, encoding) with encoding one of
    ``none``, ``query``, ``form``, ``multipart``, ``json``."""
    params: dict[str, Any] = {}
    encoding = "none"
    if query:
        encoding = "query"
        for key, value in parse_qsl(query, keep_blank_values=True):
            params[key] = _decode_value(key, value)
    if body and body.strip():
        mime = content_type.split(";", 1)[0].strip().lower()
        if mime == "application/json":
            try:
                data = json.loads(body)
            except ValueError as exc:
                raise ValueError("can't parse JSON object") from exc
            if not isinstance(data, dict):
                raise ValueError("JSON object expected")
            params.update({k: _decode_value(k, v) for k, v in data.items()})
            encoding = "json"
        elif mime == "multipart/form-data":
            params.update(_parse_multipart(content_type, body))
            encoding = "multipart"
        else:
            for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
                params[key] = _decode_value(key, value)
            encoding = "form"
    return params, encoding


# --------------------------------------------------------------------------------------------
# HTML parse mode

_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}


class _TelegramHtml(HTMLParser):
    def __init__(self, raw: str):
        super().__init__(convert_charrefs=True)
        self.raw = raw
        self.lines = raw.splitlines(keepends=True)
        self.parts: list[str] = []
        self.pos = 0
        self.stack: list[tuple[str, str, int, dict]] = []
        self.entities: list[dict] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return (
            len("".join(self.lines[: line - 1]).encode()) + len(self.lines[line - 1][:col].encode())
            if self.lines
            else 0
        )

    def _fail(self, msg: str):
        raise ApiError(400, f"Bad Request: can't parse entities: {msg}")

    def handle_starttag(self, tag, attrs):
        etype = _HTML_TAGS.get(tag)
        attrd = {k: (v or "") for k, v in attrs}
        if etype is None:
            self._fail(f'Unsupported start tag "{tag}" at byte offset {self._offset()}')
        if tag == "span" and attrd.get("class") != "tg-spoiler":
            self._fail(f'Tag "span" must have class "tg-spoiler" at byte offset {self._offset()}')
        self.stack.append((tag, etype, self.pos, attrd))

    def handle_endtag(self, tag):
        if not self.stack:
            self._fail(f"Unexpected end tag at byte offset {self._offset()}")
        open_tag, etype, start, attrs = self.stack.pop()
        if open_tag != tag:
            self._fail(
                f'Unmatched end tag at byte offset {self._offset()}, expected "</{open_tag}>", '
                f'found "</{tag}>"'
            )
        length = self.pos - start
        if length <= 0:
            return
        entity: dict[str, Any] = {"type": etype, "offset": start, "length": length}
        if etype == "text_link":
            if not attrs.get("href"):
                return
            entity["url"] = attrs["href"]
        elif etype == "custom_emoji":
            entity["custom_emoji_id"] = attrs.get("emoji-id", "")
        elif etype == "blockquote" and "expandable" in attrs:
            entity["type"] = "expandable_blockquote"
        self.entities.append(entity)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        self.parts.append(data)
        self.pos += _u16len(data)

    def result(self) -> tuple[str, list[dict] | None]:
        self.feed(self.raw)
        self.close()
        if self.stack:
            self._fail(f'Can\'t find end tag corresponding to start tag "{self.stack[-1][0]}"')
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), (self.entities or None)


def parse_html(raw: str) -> tuple[str, list[dict] | None]:
    """Telegram-like HTML parsing: returns (plain text, entities or None); raises ApiError."""
    return _TelegramHtml(raw).result()


def _inline(markup: Any) -> dict | None:
    """The inline keyboard of a reply_markup, or None (empty keyboards count as none)."""
    if isinstance(markup, dict):
        kb = markup.get("inline_keyboard")
        if isinstance(kb, list) and any(kb):
            return markup
    return None


def _check_markup(markup: Any) -> dict | None:
    if markup is None or markup == "":
        return None
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        kb = markup["inline_keyboard"]
        if not isinstance(kb, list) or not all(isinstance(row, list) for row in kb):
            raise ApiError(
                400,
                'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an '
                "Array of Arrays",
            )
        for row in kb:
            for button in row:
                if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                    raise ApiError(
                        400,
                        "Bad Request: can't parse inline keyboard button: "
                        'Field "text" must be of type String',
                    )
                if not any(k in button for k in _BUTTON_ACTIONS):
                    raise ApiError(
                        400,
                        "Bad Request: can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard",
                    )
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= 64:
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return markup


def _button_data(markup: Any) -> list[str]:
    kb = _inline(markup)
    if not kb:
        return []
    return [
        b["callback_data"] for row in kb["inline_keyboard"] for b in row if "callback_data" in b
    ]


@dataclass
class _Msg:
    chat_id: int
    message_id: int
    from_bot: bool
    date: int
    from_user: dict
    text: str | None = None
    entities: list | None = None
    raw_text: str | None = None
    parse_mode: str | None = None
    reply_markup: dict | None = None
    reply_to: int | None = None
    deleted: bool = False
    edit_date: int | None = None
    history: list = field(default_factory=list)
    raw: dict | None = None  # original Message JSON for injected (user) messages


@dataclass
class _Pending:
    update_id: int
    update: dict
    force: bool  # deliver even if update_id < offset (explicit ids / redelivery), once
    in_flight: bool = False  # being POSTed to a webhook right now


@dataclass
class _FailRule:
    method: str
    remaining: int
    kind: str
    retry_after: int
    description: str | None

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "remaining": self.remaining,
            "kind": self.kind,
            "retry_after": self.retry_after,
            "description": self.description,
        }

    def error(self) -> tuple[int, Any]:
        if self.kind == "disconnect":
            return 0, _DISCONNECT
        code = int(self.kind)
        if code == 429:
            desc = self.description or f"Too Many Requests: retry after {self.retry_after}"
            return 429, ApiError(429, desc, {"retry_after": self.retry_after}).body()
        desc = self.description or _ERROR_PHRASES.get(code, "Error")
        return code, ApiError(code, desc).body()


def _brief(value: Any, limit: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _format_call(c: dict) -> str:
    params = c.get("params") or {}
    resp = c.get("response")
    if isinstance(resp, dict) and resp.get("ok"):
        res = resp.get("result")
        if isinstance(res, dict) and "message_id" in res:
            out = f"ok message_id={res['message_id']}"
        elif isinstance(res, list):
            out = f"ok [{len(res)} items]"
        else:
            out = f"ok {_brief(res, 40)}"
    elif isinstance(resp, dict):
        out = f"{resp.get('error_code')} {resp.get('description')}"
    else:
        out = "disconnected"
    return f"  #{c['seq']} {c['method']} {_brief(params)} -> {out}"


# --------------------------------------------------------------------------------------------
# Waiting helpers shared by the in-process and the remote API


class _WaitMixin:
    def calls(self, method: str | None = None, since: int = 0) -> list[dict]:  # pragma: no cover
        raise NotImplementedError

    def state(self) -> dict:  # pragma: no cover
        raise NotImplementedError

    def _idle(self, seconds: float) -> None:
        time.sleep(seconds)

    def summary(self, last: int = 15) -> str:
        """Human-readable summary of the latest calls and the server state."""
        try:
            calls = self.calls()
            st = self.state()
        except Exception as exc:  # pragma: no cover - e.g. remote process died
            return f"(no summary: {exc!r})"
        lines = [f"{len(calls)} recorded calls, last {min(last, len(calls))}:"]
        lines += [_format_call(c) for c in calls[-last:]]
        lines.append(
            f"pending updates: {st['pending_update_ids']}; webhook: {st['webhook'].get('url') or '-'}; "
            f"fail rules: {st['fail_rules']}; forbidden: {st['forbidden']}"
        )
        return "\n".join(lines)

    def _timeout_error(self, timeout: float, what: str, last_exc: BaseException | None):
        extra = f" (last predicate error: {last_exc!r})" if last_exc else ""
        return AssertionError(
            f"timed out after {timeout}s waiting for {what}{extra}\n{self.summary()}"
        )

    def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        message: str | None = None,
        interval: float = 0.02,
    ) -> Any:
        """Poll ``predicate()`` (no arguments) until it returns something truthy, which is
        returned. Exceptions inside the predicate count as "not yet". On timeout raises
        AssertionError with a summary of recent calls. Do NOT use from inside the event loop
        that runs the bot (it blocks the loop) - use ``async_wait_for`` there."""
        deadline = time.monotonic() + timeout
        last_exc = None
        while True:
            try:
                result = predicate()
            except Exception as exc:
                last_exc, result = exc, None
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout_error(timeout, message or repr(predicate), last_exc)
            self._idle(min(interval, remaining))

    async def async_wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        message: str | None = None,
        interval: float = 0.01,
    ) -> Any:
        """Like ``wait_for`` but awaits ``asyncio.sleep`` between polls."""
        deadline = time.monotonic() + timeout
        last_exc = None
        while True:
            try:
                result = predicate()
            except Exception as exc:
                last_exc, result = exc, None
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout_error(timeout, message or repr(predicate), last_exc)
            await asyncio.sleep(min(interval, remaining))

    def _call_matcher(self, method: str | None, predicate, since: int):
        cursor = [since]

        def check():
            for c in self.calls(method, since=cursor[0]):
                cursor[0] = c["seq"]
                if predicate is None or predicate(c):
                    return c
            return None

        return check

    def wait_for_call(
        self,
        method: str | None,
        predicate: Callable[[dict], Any] | None = None,
        timeout: float = 10.0,
        since: int = 0,
    ) -> dict:
        """Wait for the first recorded call (seq > since) of ``method`` (None = any) for which
        ``predicate(call)`` is truthy; returns the call record."""
        what = f"a {method or 'any'} call (since seq {since})"
        return self.wait_for(self._call_matcher(method, predicate, since), timeout, message=what)

    async def async_wait_for_call(
        self,
        method: str | None,
        predicate: Callable[[dict], Any] | None = None,
        timeout: float = 10.0,
        since: int = 0,
    ) -> dict:
        what = f"a {method or 'any'} call (since seq {since})"
        return await self.async_wait_for(
            self._call_matcher(method, predicate, since), timeout, message=what
        )

    def last_seq(self) -> int:
        """Sequence number of the latest recorded call (use as ``since=``)."""
        return int(self.state()["seq"])


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


# --------------------------------------------------------------------------------------------
# The fake


class FakeBotApi(_WaitMixin):
    """In-process fake Telegram Bot API server. All methods are thread-safe."""

    def __init__(
        self,
        token: str = "123:ABC",
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        bot_first_name: str = "Stammtisch",
        bot_username: str = "stammtisch_test_bot",
        latency: float = 0.0,
        require_start: bool = False,
        record_empty_polls: bool = False,
        max_poll_timeout: float = 50.0,
        conflict_on_concurrent_polls: bool = True,
        max_calls: int | None = None,
        http: str = "threaded",
        webhook_workers: int = 16,
        webhook_retry_pause: float = 0.2,
        webhook_timeout: float = 10.0,
    ):
        if http not in ("threaded", "aiohttp"):
            raise ValueError(f"http must be 'threaded' or 'aiohttp', not {http!r}")
        self.http = http
        self.token = token
        head = token.split(":", 1)[0]
        self.bot_id = int(head) if head.isdigit() else 123
        self.host = host
        self.port = port
        self.bot_first_name = bot_first_name
        self.bot_username = bot_username
        self.latency = latency
        self.require_start = require_start
        self.record_empty_polls = record_empty_polls
        self.max_poll_timeout = max_poll_timeout
        self.conflict_on_concurrent_polls = conflict_on_concurrent_polls
        self.max_calls = max_calls  # keep only the newest N call records (benchmarks)
        self.webhook_workers = max(1, int(webhook_workers))  # most webhook POSTs at once
        self.webhook_retry_pause = float(webhook_retry_pause)  # after a failed POST to a URL
        self.webhook_timeout = float(webhook_timeout)
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        # Waiters that need not wake on every recorded call (which notifies ``_cond`` for the
        # tests' wait_for): long-polling getUpdates and the webhook sender. Every change they
        # wait for is signalled by ``_wake_waiters``.
        self._polls = threading.Condition(self._lock)
        self._hooks = threading.Condition(self._lock)
        self._next_update_id = 1
        self._seq = 0
        self._poll_gen = 0
        self._waiting_polls = 0
        self._closing = False
        self._query_counter = itertools.count(1)
        self._server: _Server | _AioServer | None = None
        self._thread: threading.Thread | None = None
        self._webhook_threads: list[threading.Thread] = []
        self._delayed: dict[object, dict] = {}  # calls sleeping in their latency now
        self._reset_state()

    def _reset_state(self) -> None:
        self._pending: list[_Pending] = []
        self._injected: dict[int, dict] = {}
        self._calls: list[dict] = []
        self._msgs: dict[int, dict[int, _Msg]] = {}
        self._next_msg_id: dict[int, int] = {}
        self._fail_rules: list[_FailRule] = []
        self._commands: dict[tuple[str, str], list] = {}
        self._chat_latency: dict[int, float] = {}  # chat id -> seconds (``set_latency``)
        self._webhook: dict[str, Any] = {}
        self._webhook_deliveries: list[dict] = []
        self._webhook_targets: list[str] | None = None
        self._target_next = 0  # round robin over the targets
        self._url_paused: dict[str, float] = {}  # URL -> monotonic time it may be tried again
        self._allowed_updates: list[str] | None = None
        self._forbidden: dict[int, str] = {}
        self._started: set[int] = set()
        self._users: dict[int, dict] = {}
        self._chats: dict[int, dict] = {}
        self._queries: dict[str, dict] = {}
        self._bot_profile: dict[str, str] = {}

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> FakeBotApi:
        if self._server is not None:
            return self
        self._closing = False
        if self.http == "aiohttp":
            self._server = _AioServer((self.host, self.port), self)
        else:
            self._server = _Server((self.host, self.port), _Handler, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="FakeBotApi-http",
            daemon=True,
        )
        self._thread.start()
        if isinstance(self._server, _AioServer):
            self._server.wait_ready()
        with self._cond:
            self._ensure_webhook_workers()
        return self

    def stop(self) -> None:
        server = self._server
        if server is None:
            return
        with self._cond:
            self._closing = True
            self._wake_waiters()
        server.shutdown()
        server.close_connections()
        server.server_close()
        deadline = time.monotonic() + 5 + self.webhook_timeout
        for thread in (self._thread, *self._webhook_threads):
            if thread is not None:
                thread.join(timeout=max(0.1, deadline - time.monotonic()))
        self._webhook_threads = []
        self._server = None

    def __enter__(self) -> FakeBotApi:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeBotApi is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """What python-telegram-bot's ``base_url`` expects (it appends the token)."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    def _idle(self, seconds: float) -> None:
        with self._cond:
            self._cond.wait(seconds)

    # ---------------------------------------------------------------- HTTP entry

    def _handle_http(self, path: str, query: str, content_type: str, body: bytes):
        if path.startswith("/control/"):
            return self._control(path[len("/control/") :].strip("/"), query, body)
        match = _API_PATH.match(path)
        if not match:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        token, method = match.groups()
        try:
            params, encoding = decode_params(query, content_type, body)
        except ValueError as exc:
            return 400, ApiError(400, f"Bad Request: {exc}").body()
        return self.call_api(method, params, token=token, encoding=encoding)

    def call_api(
        self,
        method: str,
        params: dict | None = None,
        *,
        token: str | None = None,
        encoding: str = "python",
    ) -> tuple[int, Any]:
        """Execute a Bot API method directly (no HTTP); returns (http_status, response body).
        The call is recorded like an HTTP call."""
        params = dict(params or {})
        received = time.time()
        latency = self._latency_of(params)
        canonical = _METHOD_NAMES.get(method.lower(), method)
        if latency > 0:
            key = object()
            with self._cond:
                self._delayed[key] = {"method": canonical, "params": params,
                                      "received": received}
            try:
                time.sleep(latency)
            finally:
                with self._cond:
                    self._delayed.pop(key, None)
        with self._cond:
            status, body = self._execute(canonical, params, token)
            empty_poll = canonical == "getUpdates" and status == 200 and not body["result"]
            if not empty_poll or self.record_empty_polls:
                self._seq += 1
                self._calls.append(
                    {
                        "seq": self._seq,
                        "time": time.time(),
                        "received": received,  # (before the latency)
                        "method": canonical,
                        "params": params,
                        "encoding": encoding,
                        "status": status,
                        "response": None if body is _DISCONNECT else body,
                    }
                )
                if self.max_calls is not None and len(self._calls) > self.max_calls * 2:
                    del self._calls[: len(self._calls) - self.max_calls]
            self._cond.notify_all()
        return status, body

    def _execute(self, method: str, params: dict, token: str | None) -> tuple[int, Any]:
        if token is not None and token != self.token:
            return 401, ApiError(401, "Unauthorized").body()
        handler = (
            getattr(self, f"_api_{method}", None) if method in _METHOD_NAMES.values() else None
        )
        if handler is None:
            return 404, ApiError(404, "Not Found: method not found").body()
        rule = self._take_failure(method)
        if rule is not None:
            return rule.error()
        try:
            return 200, {"ok": True, "result": handler(params)}
        except ApiError as exc:
            return exc.code, exc.body()

    def _take_failure(self, method: str) -> _FailRule | None:
        for rule in self._fail_rules:
            if rule.method.lower() == method.lower() or (
                rule.method == "*" and method != "getUpdates"
            ):
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._fail_rules.remove(rule)
                return rule
        return None

    # ---------------------------------------------------------------- object builders

    def _bot_user(self) -> dict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _register_user(
        self,
        user_id: int,
        first_name: str | None = None,
        language_code: str | None = "de",
        username: str | None = None,
    ) -> dict:
        user = self._users.get(user_id)
        if user is None:
            user = {"id": user_id, "is_bot": False, "first_name": first_name or f"User {user_id}"}
            self._users[user_id] = user
        elif first_name:
            user["first_name"] = first_name
        if language_code:
            user["language_code"] = language_code
        if username:
            user["username"] = username
        return dict(user)

    def _chat_obj(self, chat_id: int) -> dict:
        chat = self._chats.get(chat_id)
        if chat is not None:
            return dict(chat)
        if chat_id > 0:
            user = self._users.get(chat_id, {})
            chat = {
                "id": chat_id,
                "type": "private",
                "first_name": user.get("first_name", f"User {chat_id}"),
            }
            if "username" in user:
                chat["username"] = user["username"]
            return chat
        ctype = "supergroup" if chat_id <= -1_000_000_000_000 else "group"
        return {"id": chat_id, "type": ctype, "title": f"Stammtisch Test {abs(chat_id)}"}

    def _register_chat(
        self, chat_id: int, chat_type: str | None, title: str | None, user: dict
    ) -> dict:
        if chat_type is None:
            existing = self._chats.get(chat_id)
            chat_type = existing["type"] if existing else self._chat_obj(chat_id)["type"]
        if chat_type == "private":
            chat = {"id": chat_id, "type": "private", "first_name": user["first_name"]}
            if "username" in user:
                chat["username"] = user["username"]
        else:
            old_title = (self._chats.get(chat_id) or self._chat_obj(chat_id)).get("title")
            chat = {
                "id": chat_id,
                "type": chat_type,
                "title": title or old_title or f"Stammtisch Test {abs(chat_id)}",
            }
        self._chats[chat_id] = chat
        return dict(chat)

    def _message_json(self, m: _Msg, with_reply: bool = True) -> dict:
        if m.raw is not None:
            return copy.deepcopy(m.raw)
        d: dict[str, Any] = {
            "message_id": m.message_id,
            "from": dict(m.from_user),
            "chat": self._chat_obj(m.chat_id),
            "date": m.date,
        }
        if m.edit_date is not None:
            d["edit_date"] = m.edit_date
        if with_reply and m.reply_to is not None:
            replied = self._msgs.get(m.chat_id, {}).get(m.reply_to)
            if replied is not None and not replied.deleted:
                d["reply_to_message"] = self._message_json(replied, with_reply=False)
        if m.text is not None:
            d["text"] = m.text
        if m.entities:
            d["entities"] = copy.deepcopy(m.entities)
        inline = _inline(m.reply_markup)
        if inline:
            d["reply_markup"] = copy.deepcopy(inline)
        return d

    def _msg_state(self, m: _Msg) -> dict:
        return {
            "chat_id": m.chat_id,
            "message_id": m.message_id,
            "from_bot": m.from_bot,
            "text": m.text,
            "entities": copy.deepcopy(m.entities),
            "raw_text": m.raw_text,
            "parse_mode": m.parse_mode,
            "reply_markup": copy.deepcopy(m.reply_markup),
            "deleted": m.deleted,
            "edit_count": len(m.history),
            "history": copy.deepcopy(m.history),
            "date": m.date,
            "edit_date": m.edit_date,
            "reply_to_message_id": m.reply_to,
        }

    def _new_message_id(self, chat_id: int) -> int:
        mid = self._next_msg_id.get(chat_id, 1)
        self._next_msg_id[chat_id] = mid + 1
        return mid

    def _store(self, m: _Msg) -> _Msg:
        self._msgs.setdefault(m.chat_id, {})[m.message_id] = m
        self._next_msg_id[m.chat_id] = max(self._next_msg_id.get(m.chat_id, 1), m.message_id + 1)
        return m

    # ---------------------------------------------------------------- parameter helpers

    @staticmethod
    def _int_param(p: dict, key: str, missing: str) -> int:
        value = p.get(key)
        if value is None or value == "" or isinstance(value, bool):
            raise ApiError(400, missing)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f"Bad Request: invalid {key} specified") from None

    def _chat_id(self, p: dict) -> int:
        value = p.get("chat_id")
        if value is None or value == "":
            raise ApiError(400, "Bad Request: chat_id is empty")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ApiError(400, "Bad Request: chat not found") from None

    def _find_msg(self, chat_id: int, message_id: int, what: str) -> _Msg:
        m = self._msgs.get(chat_id, {}).get(message_id)
        if m is None or m.deleted:
            raise ApiError(400, f"Bad Request: message to {what} not found")
        return m

    @staticmethod
    def _text(p: dict) -> tuple[str, str | None, str, list | None]:
        raw = p.get("text")
        if raw is None or raw == "":
            raise ApiError(400, "Bad Request: message text is empty")
        raw = str(raw)
        mode = p.get("parse_mode") or None
        if mode and str(mode).lower() == "html":
            text, entities = parse_html(raw)
        else:
            text = raw
            entities = p.get("entities") or None
            if entities is not None and not isinstance(entities, list):
                raise ApiError(400, "Bad Request: can't parse entities JSON object")
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if _u16len(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        return raw, mode, text, entities

    def _check_can_send(self, chat_id: int) -> None:
        reason = self._forbidden.get(chat_id)
        if reason is not None:
            raise ApiError(403, FORBIDDEN_REASONS.get(reason, reason))
        if self.require_start and chat_id > 0 and chat_id not in self._started:
            raise ApiError(403, FORBIDDEN_REASONS["not_started"])

    # ---------------------------------------------------------------- Bot API methods

    def _api_getMe(self, p: dict) -> dict:
        me = self._bot_user()
        me.update(
            {
                "can_join_groups": True,
                "can_read_all_group_messages": False,
                "supports_inline_queries": False,
                "can_connect_to_business": False,
                "has_main_web_app": False,
            }
        )
        return me

    def _api_logOut(self, p: dict) -> bool:
        return True

    def _api_close(self, p: dict) -> bool:
        return True

    def _api_getUpdates(self, p: dict) -> list:
        if self._webhook.get("url"):
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        try:
            offset = int(p.get("offset") or 0)
            limit = max(1, min(100, int(p.get("limit") or 100)))
            timeout = max(0.0, min(float(p.get("timeout") or 0), self.max_poll_timeout))
        except (TypeError, ValueError):
            raise ApiError(400, "Bad Request: wrong parameter value") from None
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(a) for a in allowed] or None
        self._poll_gen += 1
        generation = self._poll_gen
        self._wake_waiters()  # terminates an older concurrent getUpdates
        self._confirm(offset)
        deadline = time.monotonic() + timeout
        self._waiting_polls += 1
        try:
            while True:
                ready = self._deliverable(offset, limit)
                if ready or self._closing:
                    break
                if self.conflict_on_concurrent_polls and generation != self._poll_gen:
                    raise ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make "
                        "sure that only one bot instance is running",
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._polls.wait(remaining)
        finally:
            self._waiting_polls -= 1
        for entry in ready:
            entry.force = False
        return [copy.deepcopy(e.update) for e in ready]

    def _update_allowed(self, update: dict) -> bool:
        kind = next((k for k in update if k != "update_id"), None)
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in _NOT_DEFAULT_UPDATES

    def _confirm(self, offset: int) -> None:
        if offset > 0:
            self._pending = [e for e in self._pending if e.update_id >= offset or e.force]
        elif offset < 0:
            self._pending = self._pending[offset:]

    def _deliverable(self, offset: int, limit: int) -> list[_Pending]:
        self._pending = [e for e in self._pending if self._update_allowed(e.update)]
        ready = [e for e in self._pending if offset <= 0 or e.update_id >= offset or e.force]
        return ready[:limit]

    def _api_setWebhook(self, p: dict) -> bool:
        url = str(p.get("url") or "")
        if url and not url.startswith(("http://", "https://")):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if p.get("drop_pending_updates"):
            self._pending = []
        if not url:
            self._webhook = {}
            return True
        self._webhook = {"url": url, "max_connections": int(p.get("max_connections") or 40)}
        for key in ("secret_token", "ip_address"):
            if p.get(key):
                self._webhook[key] = str(p[key])
        if isinstance(p.get("allowed_updates"), list):
            self._allowed_updates = list(p["allowed_updates"]) or None
            self._webhook["allowed_updates"] = list(p["allowed_updates"])
        if "certificate" in p:
            self._webhook["has_custom_certificate"] = True
        self._ensure_webhook_workers()
        self._wake_waiters()
        return True

    def _api_deleteWebhook(self, p: dict) -> bool:
        self._webhook = {}
        if p.get("drop_pending_updates"):
            self._pending = []
        return True

    def _api_getWebhookInfo(self, p: dict) -> dict:
        info: dict[str, Any] = {
            "url": self._webhook.get("url", ""),
            "has_custom_certificate": self._webhook.get("has_custom_certificate", False),
            "pending_update_count": len(self._pending),
        }
        for key in (
            "max_connections",
            "ip_address",
            "allowed_updates",
            "last_error_date",
            "last_error_message",
        ):
            if key in self._webhook:
                info[key] = self._webhook[key]
        return info

    def _api_sendMessage(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        raw, mode, text, entities = self._text(p)
        markup = _check_markup(p.get("reply_markup"))
        reply_to = None
        rp = p.get("reply_parameters")
        if isinstance(rp, dict) and rp.get("message_id") is not None:
            reply_to = int(rp["message_id"])
            allow_missing = bool(rp.get("allow_sending_without_reply"))
        elif p.get("reply_to_message_id") not in (None, ""):
            reply_to = int(p["reply_to_message_id"])
            allow_missing = bool(p.get("allow_sending_without_reply"))
        if reply_to is not None:
            target = self._msgs.get(chat_id, {}).get(reply_to)
            if target is None or target.deleted:
                if not allow_missing:
                    raise ApiError(400, "Bad Request: message to be replied not found")
                reply_to = None
        m = _Msg(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            from_bot=True,
            date=int(time.time()),
            from_user=self._bot_user(),
            text=text,
            entities=entities,
            raw_text=raw,
            parse_mode=mode,
            reply_markup=copy.deepcopy(markup),
            reply_to=reply_to,
        )
        self._store(m)
        return self._message_json(m)

    def _api_sendChatAction(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        if not p.get("action"):
            raise ApiError(400, "Bad Request: action is empty")
        return True

    def _edit_target(self, p: dict) -> _Msg:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        m = self._find_msg(chat_id, mid, "edit")
        if not m.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return m

    def _apply_edit(self, m: _Msg, raw, mode, text, entities, markup) -> dict:
        if (text, entities or None, _inline(markup)) == (
            m.text,
            m.entities or None,
            _inline(m.reply_markup),
        ):
            raise ApiError(400, NOT_MODIFIED)
        m.history.append(
            {
                "text": m.text,
                "entities": m.entities,
                "raw_text": m.raw_text,
                "parse_mode": m.parse_mode,
                "reply_markup": m.reply_markup,
                "edit_date": m.edit_date,
            }
        )
        m.text, m.entities, m.raw_text, m.parse_mode = text, entities, raw, mode
        m.reply_markup = copy.deepcopy(_inline(markup))
        m.edit_date = int(time.time())
        return self._message_json(m)

    def _api_editMessageText(self, p: dict) -> dict | bool:
        if p.get("inline_message_id"):
            self._text(p)
            return True
        m = self._edit_target(p)
        raw, mode, text, entities = self._text(p)
        return self._apply_edit(m, raw, mode, text, entities, _check_markup(p.get("reply_markup")))

    def _api_editMessageReplyMarkup(self, p: dict) -> dict | bool:
        markup = _check_markup(p.get("reply_markup"))
        if p.get("inline_message_id"):
            return True
        m = self._edit_target(p)
        return self._apply_edit(m, m.raw_text, m.parse_mode, m.text, m.entities, markup)

    def _api_deleteMessage(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        self._find_msg(chat_id, mid, "delete").deleted = True
        return True

    def _api_deleteMessages(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        ids = p.get("message_ids")
        if not isinstance(ids, list) or not ids:
            raise ApiError(400, "Bad Request: message identifiers are not specified")
        for mid in ids:
            m = self._msgs.get(chat_id, {}).get(int(mid))
            if m is not None:
                m.deleted = True
        return True

    def _api_answerCallbackQuery(self, p: dict) -> bool:
        qid = str(p.get("callback_query_id") or "")
        query = self._queries.get(qid)
        if query is None or query["answered"]:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        text = p.get("text")
        if text is not None and len(str(text)) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query["answered"] = True
        query["answer"] = {k: p[k] for k in ("text", "show_alert", "url", "cache_time") if k in p}
        return True

    @staticmethod
    def _scope_key(scope: Any) -> str:
        if not scope:
            return json.dumps({"type": "default"})
        if not isinstance(scope, dict) or "type" not in scope:
            raise ApiError(400, "Bad Request: can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True)

    def _api_setMyCommands(self, p: dict) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list):
            raise ApiError(400, "Bad Request: can't parse commands JSON object")
        if len(commands) > 100:
            raise ApiError(400, "Bad Request: too many commands")
        for c in commands:
            if not isinstance(c, dict) or not re.fullmatch(
                r"[a-z0-9_]{1,32}", str(c.get("command", ""))
            ):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description") or "")) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        if commands:
            self._commands[key] = [
                {"command": c["command"], "description": c["description"]} for c in commands
            ]
        else:
            self._commands.pop(key, None)
        return True

    def _api_getMyCommands(self, p: dict) -> list:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        return copy.deepcopy(self._commands.get(key, []))

    def _api_deleteMyCommands(self, p: dict) -> bool:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        self._commands.pop(key, None)
        return True

    def _api_getChat(self, p: dict) -> dict:
        chat = self._chat_obj(self._chat_id(p))
        chat.update(
            {
                "accent_color_id": 0,
                "max_reaction_count": 11,
                "accepted_gift_types": {
                    "unlimited_gifts": False,
                    "limited_gifts": False,
                    "unique_gifts": False,
                    "premium_subscription": False,
                    "gifts_from_channels": False,
                },
            }
        )
        return chat

    def _api_getChatMember(self, p: dict) -> dict:
        self._chat_id(p)
        uid = self._int_param(p, "user_id", "Bad Request: user_id is empty")
        user = (
            self._bot_user() if uid == self.bot_id else self._register_user(uid, language_code=None)
        )
        return {"status": "member", "user": user}

    def _api_leaveChat(self, p: dict) -> bool:
        self._chat_id(p)
        return True

    def _api_pinChatMessage(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        self._find_msg(chat_id, mid, "pin")
        return True

    def _api_unpinChatMessage(self, p: dict) -> bool:
        self._chat_id(p)
        return True

    def _api_setMyName(self, p: dict) -> bool:
        self._bot_profile["name"] = str(p.get("name") or "")
        return True

    def _api_setMyDescription(self, p: dict) -> bool:
        self._bot_profile["description"] = str(p.get("description") or "")
        return True

    def _api_setMyShortDescription(self, p: dict) -> bool:
        self._bot_profile["short_description"] = str(p.get("short_description") or "")
        return True

    # ---------------------------------------------------------------- webhook delivery

    def _ensure_webhook_workers(self) -> None:
        """Enough sender threads for the webhook's max_connections (call with the lock held;
        none before the first setWebhook, so polling benchmarks pay nothing for them)."""
        if self._server is None or self._closing or not self._webhook.get("url"):
            return
        want = min(self.webhook_workers, max(1, int(self._webhook.get("max_connections") or 40)))
        while len(self._webhook_threads) < want:
            thread = threading.Thread(
                target=self._webhook_worker,
                name=f"FakeBotApi-webhook-{len(self._webhook_threads) + 1}",
                daemon=True,
            )
            self._webhook_threads.append(thread)
            thread.start()

    def _take_delivery(self) -> tuple[_Pending, str] | None:
        """The oldest pending update not being posted and the URL to post it to, marked in
        flight; None when nothing may be posted now (call with the lock held)."""
        url = self._webhook.get("url")
        if not url or self._closing:
            return None
        limit = max(1, int(self._webhook.get("max_connections") or 40))
        self._pending = [e for e in self._pending if self._update_allowed(e.update)]
        if sum(1 for e in self._pending if e.in_flight) >= limit:
            return None
        entry = next((e for e in self._pending if not e.in_flight), None)
        if entry is None:
            return None
        targets = self._webhook_targets or [url]
        now = time.monotonic()
        for i in range(len(targets)):
            index = (self._target_next + i) % len(targets)
            if self._url_paused.get(targets[index], 0.0) <= now:
                self._target_next = index + 1
                entry.in_flight = True
                return entry, targets[index]
        return None  # every target is paused after a failure

    def _delivery_wait(self) -> float:
        """How long a webhook sender may sleep before something could be posted again."""
        now = time.monotonic()
        paused = [t - now for t in self._url_paused.values() if t > now]
        return max(0.001, min([0.5, *paused]))

    def _webhook_worker(self) -> None:
        conns: dict[str, http.client.HTTPConnection] = {}
        try:
            while True:
                with self._cond:
                    job = self._take_delivery()
                    while job is None:
                        if self._closing:
                            return
                        self._hooks.wait(self._delivery_wait())
                        job = self._take_delivery()
                    entry, target = job
                    url = self._webhook["url"]
                    secret = self._webhook.get("secret_token")
                    payload = json.dumps(entry.update).encode()
                started = time.time()
                try:
                    status, error = self._post_update(conns, target, payload, secret)
                except Exception as exc:  # e.g. a target URL with a bad port
                    status, error = 0, f"Connection failed: {exc!r}"
                with self._cond:
                    entry.in_flight = False
                    delivery = {
                        "time": time.time(),
                        "started": started,
                        "url": url,
                        "target": target,
                        "update_id": entry.update_id,
                        "status": status,
                        "error": error,
                    }
                    query = entry.update.get("callback_query")
                    if isinstance(query, dict) and "id" in query:
                        delivery["callback_query_id"] = str(query["id"])
                    self._webhook_deliveries.append(delivery)
                    if error is None:
                        self._pending = [e for e in self._pending if e is not entry]
                    else:
                        self._url_paused[target] = time.monotonic() + self.webhook_retry_pause
                        if self._webhook.get("url") == url:
                            self._webhook["last_error_date"] = int(time.time())
                            self._webhook["last_error_message"] = error
                    self._cond.notify_all()
                    self._hooks.notify()  # a connection is free (and maybe an update back)
        finally:
            for conn in conns.values():
                conn.close()

    def _post_update(
        self,
        conns: dict[str, http.client.HTTPConnection],
        target: str,
        payload: bytes,
        secret: str | None,
    ) -> tuple[int, str | None]:
        """POST one update over this sender's keep-alive connection to the target's host;
        returns (status, error or None). A kept connection the server has closed meanwhile
        is opened again once (the request never reached the server)."""
        parts = urlsplit(target)
        key = f"{parts.scheme}://{parts.netloc}"
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Content-Type": "application/json", "Content-Length": str(len(payload))}
        if secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret
        for attempt in (1, 2):
            conn = conns.get(key)
            reused = conn is not None
            if conn is None:
                if parts.scheme == "https":
                    conn = http.client.HTTPSConnection(
                        parts.hostname or "", parts.port, timeout=self.webhook_timeout,
                        context=ssl.create_default_context(),
                    )
                else:
                    conn = http.client.HTTPConnection(
                        parts.hostname or "", parts.port, timeout=self.webhook_timeout
                    )
                conns[key] = conn
            try:
                conn.request("POST", path, body=payload, headers=headers)
                resp = conn.getresponse()
                resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                conns.pop(key).close()
                if reused and attempt == 1:
                    continue
                return 0, f"Connection failed: {exc!r}"
            except (OSError, http.client.HTTPException) as exc:
                conns.pop(key).close()
                return 0, f"Connection failed: {exc!r}"
            if resp.will_close:
                conns.pop(key).close()
            if 200 <= resp.status < 300:
                return resp.status, None
            return resp.status, f"Wrong response from the webhook: {resp.status} {resp.reason}"
        raise AssertionError("unreachable")  # pragma: no cover

    # ---------------------------------------------------------------- control: updates

    def _enqueue(self, update: dict, update_id: int | None) -> int:
        if update_id is None:
            uid, force = self._next_update_id, False
        else:
            uid, force = int(update_id), True
        self._next_update_id = max(self._next_update_id, uid + 1)
        update = {"update_id": uid, **{k: v for k, v in update.items() if k != "update_id"}}
        self._pending.append(_Pending(uid, update, force))
        self._pending.sort(key=lambda e: e.update_id)
        self._injected[uid] = copy.deepcopy(update)
        self._wake_waiters()
        return uid

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Updates injected inside the block reach the bot together (one getUpdates answer,
        or posted to the webhook at once up to max_connections), as when several people press
        at once."""
        with self._cond:
            yield

    def _wake_waiters(self) -> None:
        """Updates, the webhook or the poll generation changed (call with the lock held)."""
        self._cond.notify_all()
        self._polls.notify_all()
        self._hooks.notify_all()

    def inject_update(self, update: dict) -> int:
        """Queue a full Update object. If it has an ``update_id`` that id is used and the update
        is delivered once even if that id was already confirmed (for duplicate-update tests);
        otherwise the next id is assigned. A contained ``message`` is added to the message
        store (``message_id``/``date`` filled in if missing). Returns the update_id."""
        update = copy.deepcopy(update)
        with self._cond:
            msg = update.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("chat"), dict) and "id" in msg["chat"]:
                chat_id = int(msg["chat"]["id"])
                if "message_id" not in msg:
                    msg["message_id"] = self._new_message_id(chat_id)
                msg.setdefault("date", int(time.time()))
                self._chats.setdefault(chat_id, dict(msg["chat"]))
                sender = msg.get("from")
                if isinstance(sender, dict) and "id" in sender:
                    self._users.setdefault(int(sender["id"]), dict(sender))
                    if chat_id == int(sender["id"]):
                        self._mark_started(chat_id)
                self._store(
                    _Msg(
                        chat_id=chat_id,
                        message_id=int(msg["message_id"]),
                        from_bot=bool((sender or {}).get("is_bot")),
                        date=int(msg["date"]),
                        from_user=dict(sender or {}),
                        text=msg.get("text"),
                        entities=msg.get("entities"),
                        raw_text=msg.get("text"),
                        raw=copy.deepcopy(msg),
                    )
                )
            return self._enqueue(update, update.get("update_id"))

    def _mark_started(self, user_id: int) -> None:
        self._started.add(user_id)
        if self._forbidden.get(user_id) in ("not_started", "blocked"):
            del self._forbidden[user_id]

    def send_text(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        chat_type: str | None = None,
        user_first_name: str | None = None,
        language_code: str | None = "de",
        username: str | None = None,
        chat_title: str | None = None,
        reply_to_message_id: int | None = None,
        update_id: int | None = None,
    ) -> int:
        """Inject a text message from a user; a leading /command gets a bot_command entity.
        chat_id > 0 → private chat (type "private"), < 0 → "group" (or "supergroup" for
        -100… ids) unless chat_type is given. Returns the update_id (the message is stored
        with the next message_id of that chat, see ``get_update``/``messages(include_user=True)``)."""
        with self._cond:
            chat_id, user_id = int(chat_id), int(user_id)
            user = self._register_user(user_id, user_first_name, language_code, username)
            chat = self._register_chat(chat_id, chat_type, chat_title, user)
            msg: dict[str, Any] = {
                "message_id": self._new_message_id(chat_id),
                "from": user,
                "chat": chat,
                "date": int(time.time()),
                "text": text,
            }
            match = _COMMAND.match(text)
            if match:
                msg["entities"] = [
                    {"type": "bot_command", "offset": 0, "length": _u16len(match.group(0))}
                ]
            if reply_to_message_id is not None:
                replied = self._msgs.get(chat_id, {}).get(int(reply_to_message_id))
                if replied is not None:
                    msg["reply_to_message"] = self._message_json(replied, with_reply=False)
            if chat["type"] == "private":
                self._mark_started(user_id)
            self._store(
                _Msg(
                    chat_id=chat_id,
                    message_id=msg["message_id"],
                    from_bot=False,
                    date=msg["date"],
                    from_user=user,
                    text=text,
                    entities=msg.get("entities"),
                    raw_text=text,
                    reply_to=reply_to_message_id,
                    raw=copy.deepcopy(msg),
                )
            )
            return self._enqueue({"message": msg}, update_id)

    def press(
        self,
        chat_id: int,
        user_id: int,
        message_id: int,
        data: str,
        *,
        check_data: bool = True,
        user_first_name: str | None = None,
        language_code: str | None = "de",
        update_id: int | None = None,
    ) -> int:
        """Inject a callback_query for pressing the button with ``data`` on the stored message.
        With check_data (default) the data must be on the message's current inline keyboard
        (else ValueError). Returns the update_id; the query id is
        ``get_update(uid)["callback_query"]["id"]``."""
        with self._cond:
            chat_id, user_id, message_id = int(chat_id), int(user_id), int(message_id)
            m = self._msgs.get(chat_id, {}).get(message_id)
            if m is None or m.deleted:
                raise ValueError(f"press: no message {message_id} in chat {chat_id}")
            if check_data and data not in _button_data(m.reply_markup):
                raise ValueError(
                    f"press: callback_data {data!r} is not on the keyboard of message "
                    f"{message_id} in chat {chat_id}: {_button_data(m.reply_markup)}"
                )
            user = self._register_user(user_id, user_first_name, language_code)
            if chat_id == user_id:
                self._mark_started(user_id)
            qid = str(4_000_000_000_000_000 + self.bot_id * 1000 + next(self._query_counter))
            query = {
                "id": qid,
                "from": user,
                "message": self._message_json(m),
                "chat_instance": str(-(8_000_000_000_000_000 + chat_id)),
                "data": data,
            }
            uid = self._enqueue({"callback_query": query}, update_id)
            self._queries[qid] = {
                "update_id": uid,
                "chat_id": chat_id,
                "message_id": message_id,
                "data": data,
                "answered": False,
                "answer": None,
            }
            return uid

    def redeliver(self, update_id: int) -> int:
        """Queue an earlier injected update again with the same update_id (a duplicate)."""
        with self._cond:
            if update_id not in self._injected:
                raise KeyError(f"unknown update_id {update_id}")
            return self._enqueue(copy.deepcopy(self._injected[update_id]), update_id)

    def get_update(self, update_id: int) -> dict | None:
        """The injected update with that id (as queued)."""
        with self._lock:
            u = self._injected.get(int(update_id))
            return copy.deepcopy(u) if u is not None else None

    def pending_updates(self) -> list[dict]:
        """Updates not yet confirmed (or delivered via webhook)."""
        with self._lock:
            return [copy.deepcopy(e.update) for e in self._pending]

    def query_answer(self, update_id: int) -> dict | None:
        """For a press() update: {"answered": bool, "answer": {text, show_alert, ...} | None}."""
        with self._lock:
            for q in self._queries.values():
                if q["update_id"] == update_id:
                    return {"answered": q["answered"], "answer": copy.deepcopy(q["answer"])}
            return None

    # ---------------------------------------------------------------- control: inspection

    def calls(self, method: str | None = None, since: int = 0) -> list[dict]:
        """Recorded calls with seq > since, in order; method filter is case-insensitive.
        Record: {seq, time, method, params, encoding, status, response}."""
        with self._lock:
            calls = self._calls
            if since > 0:
                lo = len(calls)
                while lo > 0 and calls[lo - 1]["seq"] > since:
                    lo -= 1
                calls = calls[lo:]
            if method:
                ml = method.lower()
                calls = [c for c in calls if c["method"].lower() == ml]
            return [dict(c) for c in calls]

    def messages(
        self, chat_id: int, *, include_user: bool = False, include_deleted: bool = True
    ) -> list[dict]:
        """Current state of the messages in a chat, by message_id: {chat_id, message_id,
        from_bot, text, entities, raw_text, parse_mode, reply_markup, deleted, edit_count,
        history, date, edit_date, reply_to_message_id}. Bot messages only unless include_user."""
        with self._lock:
            msgs = sorted(self._msgs.get(int(chat_id), {}).values(), key=lambda m: m.message_id)
            return [
                self._msg_state(m)
                for m in msgs
                if (include_user or m.from_bot) and (include_deleted or not m.deleted)
            ]

    def message(self, chat_id: int, message_id: int) -> dict | None:
        with self._lock:
            m = self._msgs.get(int(chat_id), {}).get(int(message_id))
            return self._msg_state(m) if m is not None else None

    def press_newest(
        self,
        chat_id: int,
        user_id: int,
        *,
        prefix: str = "",
        skip_prefix: str | None = None,
        skip_suffixes: tuple[str, ...] = (),
        prefer_suffix: str | None = None,
        seed: int = 0,
    ) -> int | None:
        """Press a button on the chat's newest bot message that has one to press (a load
        generator's one call instead of reading messages and then pressing): buttons whose
        data starts with ``prefix``, not with ``skip_prefix``, and whose last ``:`` part is
        not in ``skip_suffixes``; one ending in ``prefer_suffix`` if there is one, else one
        picked with ``seed``. Returns the update_id, or ``None`` when there is no such button."""
        import random

        with self._cond:
            for m in reversed(list(self._msgs.get(int(chat_id), {}).values())):
                if m.deleted or not m.from_bot or not m.reply_markup:
                    continue
                datas = [
                    d for d in _button_data(m.reply_markup)
                    if d.startswith(prefix) and not (skip_prefix and d.startswith(skip_prefix))
                    and d.rsplit(":", 1)[-1] not in skip_suffixes
                ]
                if not datas:
                    continue
                preferred = [d for d in datas if prefer_suffix and d.endswith(prefer_suffix)]
                data = preferred[0] if preferred else random.Random(seed).choice(datas)
                return self.press(int(chat_id), int(user_id), m.message_id, data)
            return None

    def last_message(self, chat_id: int) -> dict | None:
        """The newest non-deleted bot message in the chat."""
        msgs = self.messages(chat_id, include_deleted=False)
        return msgs[-1] if msgs else None

    def commands(self, scope: dict | None = None, language_code: str = "") -> list[dict]:
        with self._lock:
            return copy.deepcopy(
                self._commands.get((self._scope_key(scope), language_code or ""), [])
            )

    def webhook_deliveries(self) -> list[dict]:
        """Every webhook POST attempt, in the order they ended: {time (end), started, url (the
        registered webhook), target (where it went), update_id, status, error,
        callback_query_id (for callback queries)}."""
        with self._lock:
            return [dict(d) for d in self._webhook_deliveries]

    def state(self) -> dict:
        with self._lock:
            return {
                "token": self.token,
                "bot_id": self.bot_id,
                "seq": self._seq,
                "waiting_polls": self._waiting_polls,
                "polls_started": self._poll_gen,
                "next_update_id": self._next_update_id,
                "pending_update_ids": [e.update_id for e in self._pending],
                "webhook": dict(self._webhook),
                "webhook_targets": list(self._webhook_targets or []),
                "webhook_in_flight": sum(1 for e in self._pending if e.in_flight),
                "fail_rules": [r.as_dict() for r in self._fail_rules],
                "forbidden": {str(k): v for k, v in self._forbidden.items()},
                "chats": sorted(self._msgs),
                "latency": self.latency,
                "bot_profile": dict(self._bot_profile),
                "command_sets": [
                    {"scope": json.loads(s), "language_code": lc, "count": len(c)}
                    for (s, lc), c in self._commands.items()
                ],
            }

    # ---------------------------------------------------------------- control: behaviour

    def fail(
        self,
        method: str,
        count: int = 1,
        kind: str | int = "429",
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        """The next ``count`` calls of ``method`` ("*" = any method except getUpdates) fail
        without side effects. kind: "429" (with parameters.retry_after), "400", "403", "409",
        "500", "502", "503", "504" (HTTP status = error_code) or "disconnect" (connection closed
        without answer). ``description`` overrides the default text."""
        kind = str(kind)
        if kind != "disconnect" and not kind.isdigit():
            raise ValueError(f"unknown failure kind {kind!r}")
        with self._cond:
            self._fail_rules.append(
                _FailRule(method, int(count), kind, int(retry_after), description)
            )

    def forbid(self, chat_id: int, reason: str = "not_started") -> None:
        """Sends to chat_id fail with 403. reason: not_started ("bot can't initiate conversation
        with a user"), blocked, deactivated, kicked, not_member, or a full description. A private
        message/press from that user clears not_started/blocked."""
        with self._cond:
            self._forbidden[int(chat_id)] = reason

    def unforbid(self, chat_id: int) -> None:
        with self._cond:
            self._forbidden.pop(int(chat_id), None)

    def set_latency(self, seconds: float, chat_id: int | None = None) -> None:
        """Delay every Bot API call by ``seconds`` (simulated network latency); with
        ``chat_id``, only the calls naming that chat (over the latency of all calls)."""
        with self._cond:
            if chat_id is None:
                self.latency = float(seconds)
            elif seconds > 0:
                self._chat_latency[int(chat_id)] = float(seconds)
            else:
                self._chat_latency.pop(int(chat_id), None)

    def delayed(self) -> list[dict]:
        """The calls received and held by a latency now (not answered yet, not recorded):
        method, params and when they came."""
        with self._cond:
            return [dict(c) for c in self._delayed.values()]

    def _latency_of(self, params: dict) -> float:
        chat = params.get("chat_id")
        if self._chat_latency and isinstance(chat, (int, str)) and str(chat).lstrip("-").isdigit():
            return self._chat_latency.get(int(chat), self.latency)
        return self.latency

    def webhook_targets(self, urls: list[str] | None) -> None:
        """Deliver the registered webhook's updates round robin to ``urls`` instead of to the
        registered URL (a reverse proxy in front of several bot processes); None or [] ends
        that. Nothing is delivered while no webhook is set; getWebhookInfo still shows the
        registered URL."""
        if urls is not None and (
            not isinstance(urls, list)
            or not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls)
        ):
            raise ValueError("webhook_targets: a list of http(s) URLs or None expected")
        with self._cond:
            self._webhook_targets = list(urls) if urls else None
            self._target_next = 0
            self._wake_waiters()

    def reset(self) -> None:
        """Forget messages, calls, pending updates, failure rules, commands, webhook, users.
        Call seq numbers and update ids keep increasing."""
        with self._cond:
            self._reset_state()
            self._wake_waiters()

    # ---------------------------------------------------------------- control over HTTP

    def _control(self, name: str, query: str, body: bytes) -> tuple[int, dict]:
        q = dict(parse_qsl(query, keep_blank_values=True))
        try:
            data = json.loads(body) if body.strip() else {}
            if not isinstance(data, dict):
                raise ValueError("JSON object expected")
            result = self._control_dispatch(name, q, data)
        except LookupError as exc:
            if isinstance(exc, _UnknownControl):
                return 404, {"ok": False, "description": f"unknown control endpoint {name!r}"}
            return 400, {"ok": False, "description": f"{type(exc).__name__}: {exc}"}
        except (TypeError, ValueError) as exc:
            return 400, {"ok": False, "description": f"{type(exc).__name__}: {exc}"}
        return 200, {"ok": True, "result": result}

    def _control_dispatch(self, name: str, q: dict, data: dict) -> Any:
        def arg(key, default=None, conv=None):
            value = data.get(key, q.get(key, default))
            return conv(value) if (conv and value is not None) else value

        def truthy(key):
            return str(arg(key, "")).lower() in ("1", "true", "yes")

        if name == "health":
            return True
        if name == "calls":
            return self.calls(arg("method") or None, since=arg("since", 0, int))
        if name == "messages":
            return self.messages(
                arg("chat_id", conv=int),
                include_user=truthy("include_user"),
                include_deleted=not truthy("exclude_deleted"),
            )
        if name == "message":
            return self.message(arg("chat_id", conv=int), arg("message_id", conv=int))
        if name == "last_message":
            return self.last_message(arg("chat_id", conv=int))
        if name == "update":
            return {"update_id": self.inject_update(data)}
        if name == "send_text":
            kwargs = {
                k: data[k]
                for k in (
                    "chat_type",
                    "user_first_name",
                    "language_code",
                    "username",
                    "chat_title",
                    "reply_to_message_id",
                    "update_id",
                )
                if k in data
            }
            uid = self.send_text(
                int(data["chat_id"]), int(data["user_id"]), str(data["text"]), **kwargs
            )
            return {"update_id": uid, "message_id": self._injected[uid]["message"]["message_id"]}
        if name == "press_newest":
            uid = self.press_newest(
                int(data["chat_id"]),
                int(data["user_id"]),
                prefix=str(data.get("prefix", "")),
                skip_prefix=data.get("skip_prefix"),
                skip_suffixes=tuple(data.get("skip_suffixes") or ()),
                prefer_suffix=data.get("prefer_suffix"),
                seed=int(data.get("seed", 0)),
            )
            return {"update_id": uid}
        if name == "press":
            kwargs = {
                k: data[k]
                for k in ("check_data", "user_first_name", "language_code", "update_id")
                if k in data
            }
            uid = self.press(
                int(data["chat_id"]),
                int(data["user_id"]),
                int(data["message_id"]),
                str(data["data"]),
                **kwargs,
            )
            return {
                "update_id": uid,
                "callback_query_id": self._injected[uid]["callback_query"]["id"],
            }
        if name == "redeliver":
            return {"update_id": self.redeliver(int(data["update_id"]))}
        if name == "get_update":
            return self.get_update(arg("update_id", conv=int))
        if name == "updates":
            return self.pending_updates()
        if name == "query_answer":
            return self.query_answer(arg("update_id", conv=int))
        if name == "fail":
            self.fail(
                str(data.get("method", "*")),
                int(data.get("count", 1)),
                str(data.get("kind", "429")),
                int(data.get("retry_after", 1)),
                data.get("description"),
            )
            return True
        if name == "forbid":
            self.forbid(int(data["chat_id"]), str(data.get("reason", "not_started")))
            return True
        if name == "unforbid":
            self.unforbid(int(data["chat_id"]))
            return True
        if name == "latency":
            self.set_latency(float(data.get("seconds", 0)), arg("chat_id", conv=int))
            return True
        if name == "reset":
            self.reset()
            return True
        if name == "commands":
            scope = arg("scope")
            if isinstance(scope, str):
                scope = json.loads(scope) if scope else None
            return self.commands(scope, str(arg("language_code", "") or ""))
        if name == "webhook_deliveries":
            return self.webhook_deliveries()
        if name == "webhook_targets":
            urls = data.get("urls")
            self.webhook_targets(list(urls) if urls is not None else None)
            return True
        if name == "state":
            return self.state()
        raise _UnknownControl(name)


class _UnknownControl(LookupError):
    pass


_METHOD_NAMES = {name[5:].lower(): name[5:] for name in dir(FakeBotApi) if name.startswith("_api_")}


# --------------------------------------------------------------------------------------------
# Remote control (fake running as a separate process)


class RemoteFakeBotApi(_WaitMixin):
    """The FakeBotApi control API over HTTP, for a fake server in another process."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.token = token
        self.http_timeout = timeout

    @property
    def base_url(self) -> str:
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    def _req(self, name: str, query: dict | None = None, body: Any = None) -> Any:
        url = f"{self.url}/control/{name}"
        query = {k: v for k, v in (query or {}).items() if v is not None}
        if query:
            url += "?" + urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            url,
            data=data,
            method="GET" if body is None else "POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.http_timeout) as resp:
                payload = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            payload = json.loads(exc.read() or b"{}")
            raise RuntimeError(
                f"control {name} failed: {payload.get('description', exc)}"
            ) from None
        return payload["result"]

    def calls(self, method: str | None = None, since: int = 0) -> list[dict]:
        return self._req("calls", {"method": method, "since": since or None})

    def messages(
        self, chat_id: int, *, include_user: bool = False, include_deleted: bool = True
    ) -> list[dict]:
        return self._req(
            "messages",
            {
                "chat_id": chat_id,
                "include_user": int(include_user),
                "exclude_deleted": int(not include_deleted),
            },
        )

    def message(self, chat_id: int, message_id: int) -> dict | None:
        return self._req("message", {"chat_id": chat_id, "message_id": message_id})

    def last_message(self, chat_id: int) -> dict | None:
        return self._req("last_message", {"chat_id": chat_id})

    def inject_update(self, update: dict) -> int:
        return self._req("update", body=update)["update_id"]

    def send_text(self, chat_id: int, user_id: int, text: str, **kwargs: Any) -> int:
        return self._req(
            "send_text", body={"chat_id": chat_id, "user_id": user_id, "text": text, **kwargs}
        )["update_id"]

    def press(self, chat_id: int, user_id: int, message_id: int, data: str, **kwargs: Any) -> int:
        return self._req(
            "press",
            body={
                "chat_id": chat_id,
                "user_id": user_id,
                "message_id": message_id,
                "data": data,
                **kwargs,
            },
        )["update_id"]

    def press_newest(self, chat_id: int, user_id: int, **kwargs: Any) -> int | None:
        body = {"chat_id": chat_id, "user_id": user_id, **kwargs}
        return self._req("press_newest", body=body)["update_id"]

    def redeliver(self, update_id: int) -> int:
        return self._req("redeliver", body={"update_id": update_id})["update_id"]

    def get_update(self, update_id: int) -> dict | None:
        return self._req("get_update", {"update_id": update_id})

    def pending_updates(self) -> list[dict]:
        return self._req("updates")

    def query_answer(self, update_id: int) -> dict | None:
        return self._req("query_answer", {"update_id": update_id})

    def fail(
        self,
        method: str,
        count: int = 1,
        kind: str | int = "429",
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        self._req(
            "fail",
            body={
                "method": method,
                "count": count,
                "kind": str(kind),
                "retry_after": retry_after,
                "description": description,
            },
        )

    def forbid(self, chat_id: int, reason: str = "not_started") -> None:
        self._req("forbid", body={"chat_id": chat_id, "reason": reason})

    def unforbid(self, chat_id: int) -> None:
        self._req("unforbid", body={"chat_id": chat_id})

    def set_latency(self, seconds: float, chat_id: int | None = None) -> None:
        self._req("latency", body={"seconds": seconds, "chat_id": chat_id})

    def reset(self) -> None:
        self._req("reset", body={})

    def commands(self, scope: dict | None = None, language_code: str = "") -> list[dict]:
        return self._req(
            "commands",
            {"scope": json.dumps(scope) if scope else None, "language_code": language_code or None},
        )

    def webhook_deliveries(self) -> list[dict]:
        return self._req("webhook_deliveries")

    def webhook_targets(self, urls: list[str] | None) -> None:
        self._req("webhook_targets", body={"urls": urls})

    def state(self) -> dict:
        return self._req("state")


class FakeBotApiProcess(RemoteFakeBotApi):
    """Runs ``python -m tests.fakes.telegram_api`` as a subprocess; context manager."""

    def __init__(
        self,
        token: str = "123:ABC",
        *,
        port: int = 0,
        args: tuple[str, ...] = (),
        startup_timeout: float = 20.0,
    ):
        super().__init__("http://127.0.0.1:0", token)
        self.port = port
        self.args = tuple(args)
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None

    def start(self) -> FakeBotApiProcess:
        cmd = [
            sys.executable,
            "-m",
            "tests.fakes.telegram_api",
            "--port",
            str(self.port),
            "--token",
            str(self.token),
            *self.args,
        ]
        self.proc = subprocess.Popen(cmd, cwd=_PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
        lines: queue.Queue[str] = queue.Queue()
        stdout = self.proc.stdout
        assert stdout is not None
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=self.startup_timeout)
        except queue.Empty:
            line = ""
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"fake Telegram API process did not start (got {line!r})")
        self.url = line.split()[1].rstrip("/")
        return self

    def stop(self) -> int | None:
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        return proc.returncode

    def __enter__(self) -> FakeBotApiProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------
# Standalone entry point


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Fake Telegram Bot API server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--token", default="123:ABC")
    ap.add_argument("--first-name", default="Stammtisch")
    ap.add_argument("--username", default="stammtisch_test_bot")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds added to every API call")
    ap.add_argument(
        "--require-start",
        action="store_true",
        help="private chats need a message from the user before the bot can send",
    )
    ap.add_argument("--record-empty-polls", action="store_true")
    ap.add_argument(
        "--max-calls",
        type=int,
        default=None,
        help="keep only about the newest N call records (long benchmarks)",
    )
    ap.add_argument(
        "--http",
        choices=("threaded", "aiohttp"),
        default="threaded",
        help="HTTP front end: stdlib threads (default) or one asyncio loop (benchmarks)",
    )
    ap.add_argument(
        "--webhook-retry-pause",
        type=float,
        default=0.2,
        help="seconds a webhook URL rests after a failed POST before it is tried again",
    )
    args = ap.parse_args(argv)
    fake = FakeBotApi(
        args.token,
        host=args.host,
        port=args.port,
        bot_first_name=args.first_name,
        bot_username=args.username,
        latency=args.latency,
        require_start=args.require_start,
        record_empty_polls=args.record_empty_polls,
        max_calls=args.max_calls,
        http=args.http,
        webhook_retry_pause=args.webhook_retry_pause,
    )
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    fake.start()
    print(f"READY {fake.url}", flush=True)
    try:
        while not stop.wait(0.5):
            # The call records pile up; a full GC collection walking all of them stalls the
            # server for a long moment, and updates reach the bot in one lump afterwards.
            # Freezing what exists (O(1)) keeps collections to the newest objects.
            gc.freeze()
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
