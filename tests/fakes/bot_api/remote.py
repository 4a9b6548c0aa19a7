"""The fake in another process: ``RemoteFakeBotApi`` (the control API over HTTP) and
``FakeBotApiProcess`` (starts ``python -m tests.fakes.telegram_api``).
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.fakes.bot_api.waiting import _WaitMixin

_PROJECT_ROOT = Path(__file__).resolve().parents[3]

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

    def make_forum(self, chat_id: int, title: str | None = None) -> dict:
        return self._req("make_forum", body={"chat_id": chat_id, "title": title})

    def create_topic(self, chat_id: int, name: str, user_id: int | None = None) -> int:
        return self._req("create_topic", body={"chat_id": chat_id, "name": name,
                                               "user_id": user_id})

    def close_topic(self, chat_id: int, thread: int, user_id: int | None = None) -> None:
        self._req("close_topic", body={"chat_id": chat_id, "thread": thread,
                                       "user_id": user_id})

    def reopen_topic(self, chat_id: int, thread: int, user_id: int | None = None) -> None:
        self._req("reopen_topic", body={"chat_id": chat_id, "thread": thread,
                                        "user_id": user_id})

    def edit_topic(self, chat_id: int, thread: int, name: str,
                   user_id: int | None = None) -> None:
        self._req("edit_topic", body={"chat_id": chat_id, "thread": thread, "name": name,
                                      "user_id": user_id})

    def delete_topic(self, chat_id: int, thread: int) -> None:
        self._req("delete_topic", body={"chat_id": chat_id, "thread": thread})

    def topics(self, chat_id: int) -> dict[int, dict]:
        return {int(t): v for t, v in self._req("topics", {"chat_id": chat_id}).items()}

    def answer_poll(self, user_id: int, poll_id: str, option_ids: list[int],
                    **kwargs: Any) -> int:
        body = {"user_id": user_id, "poll_id": poll_id, "option_ids": option_ids, **kwargs}
        return self._req("answer_poll", body=body)["update_id"]

    def poll(self, poll_id: str) -> dict | None:
        return self._req("poll", {"poll_id": poll_id})

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
