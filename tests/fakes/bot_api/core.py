"""``FakeBotApi``: the in-process fake's state, lifecycle (start/stop), HTTP entry and call
recording; the Bot API methods, webhook delivery and the control API are its mix-ins.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from tests.fakes.bot_api.control import _Control
from tests.fakes.bot_api.documents import _Documents
from tests.fakes.bot_api.forums import _Forums
from tests.fakes.bot_api.groups import _Groups
from tests.fakes.bot_api.inline import _Inline
from tests.fakes.bot_api.methods import _BotMethods
from tests.fakes.bot_api.objects import _Objects
from tests.fakes.bot_api.polls import _Polls
from tests.fakes.bot_api.records import _FailRule, _Msg, _Pending
from tests.fakes.bot_api.servers import _AioServer, _Handler, _Server
from tests.fakes.bot_api.updates import _UpdateControl
from tests.fakes.bot_api.waiting import _WaitMixin
from tests.fakes.bot_api.webhooks import _WebhookDelivery
from tests.fakes.bot_api.wire import _API_PATH, _DISCONNECT, ApiError, decode_params

# --------------------------------------------------------------------------------------------
# The fake


class FakeBotApi(_Objects, _BotMethods, _Forums, _Groups, _Polls, _Documents, _Inline,
                 _WebhookDelivery, _UpdateControl, _Control, _WaitMixin):
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
        self._topics: dict[int, dict[int, dict]] = {}  # forum chat -> thread id -> its state
        self._queries: dict[str, dict] = {}
        self._bot_profile: dict[str, str] = {}
        self._poll_objs: dict[str, dict] = {}  # poll id -> chat, message, poll, votes
        self._files: dict[str, dict] = {}  # file id -> the file sent, with its bytes
        self._statuses: dict[tuple[int, int], str] = {}  # (chat, user) -> getChatMember status
        self._rights: dict[tuple[int, int], set[str]] = {}  # (chat, admin) -> rights granted
        self._migrated: dict[int, int] = {}  # upgraded basic group -> its supergroup
        self._inline_st: dict | None = None  # inline queries and messages (``_Inline``)

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


_METHOD_NAMES = {name[5:].lower(): name[5:] for name in dir(FakeBotApi) if name.startswith("_api_")}
