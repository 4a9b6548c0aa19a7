"""Webhook delivery: sender threads POST pending updates to the webhook (or to the
``webhook_targets``), retrying after a pause; a mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import http.client
import json
import ssl
import threading
import time
from urllib.parse import urlsplit

from tests.fakes.bot_api.records import _Pending


class _WebhookDelivery:
    """Posts pending updates to the registered webhook."""

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
