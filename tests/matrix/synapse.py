"""A real Synapse homeserver on 127.0.0.1 for the Matrix tests.

SQLite, a random port, no federation, registration only by shared secret (the admin API's
HMAC registration), generous rate limits (one test narrows the bot's limit with the admin API's
``override_ratelimit`` to see ``M_LIMIT_EXCEEDED`` honoured).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECRET = "stammtisch-test-shared-secret"
SERVER_NAME = "localhost"
_RELAXED = {"per_second": 10000, "burst_count": 10000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(home: Path, port: int) -> str:
    relaxed = json.dumps(_RELAXED)
    lines = [
        f'server_name: "{SERVER_NAME}"',
        f"pid_file: {home / 'homeserver.pid'}",
        "listeners:",
        f"  - port: {port}",
        "    bind_addresses: ['127.0.0.1']",
        "    type: http",
        "    tls: false",
        "    x_forwarded: false",
        "    resources:",
        "      - names: [client]",
        "        compress: false",
        "database:",
        "  name: sqlite3",
        "  args:",
        f"    database: {home / 'homeserver.db'}",
        f"media_store_path: {home / 'media'}",
        f'registration_shared_secret: "{SECRET}"',
        "enable_registration: false",
        "report_stats: false",
        'macaroon_secret_key: "test-macaroon"',
        'form_secret: "test-form"',
        f"signing_key_path: {home / 'signing.key'}",
        "trusted_key_servers: []",
        "suppress_key_server_warning: true",
        "federation_domain_whitelist: []",
        "presence:",
        "  enabled: false",
        "url_preview_enabled: false",
        "enable_metrics: false",
        "bcrypt_rounds: 4",
        f"log_config: {home / 'log.yaml'}",
        f"rc_message: {relaxed}",
        f"rc_registration: {relaxed}",
        "rc_login:",
        f"  address: {relaxed}",
        f"  account: {relaxed}",
        f"  failed_attempts: {relaxed}",
        "rc_joins:",
        f"  local: {relaxed}",
        f"  remote: {relaxed}",
        f"rc_joins_per_room: {relaxed}",
        "rc_invites:",
        f"  per_room: {relaxed}",
        f"  per_user: {relaxed}",
        f"  per_issuer: {relaxed}",
        f"rc_room_creation: {relaxed}",
        f"rc_key_requests: {relaxed}",
        f"rc_3pid_validation: {relaxed}",
        f"rc_admin_redaction: {relaxed}",
    ]
    return "\n".join(lines) + "\n"


def _log_config(log_file: Path) -> str:
    return f"""version: 1
formatters:
  precise:
    format: '%(asctime)s - %(name)s - %(levelname)s - %(message)s'
handlers:
  file:
    class: logging.FileHandler
    formatter: precise
    filename: {log_file}
root:
  level: WARNING
  handlers: [file]
disable_existing_loggers: false
"""


@dataclass
class Synapse:
    """One running homeserver (started by ``start``, ended by ``stop``)."""

    home: Path
    port: int = 0
    proc: subprocess.Popen | None = None
    admin_token: str = ""
    _users: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.home / "synapse.log"

    def start(self, timeout: float = 90.0) -> Synapse:
        import signedjson.key

        self.home.mkdir(parents=True, exist_ok=True)
        key = signedjson.key.generate_signing_key("a_test")
        with open(self.home / "signing.key", "w") as f:
            signedjson.key.write_signing_keys(f, [key])
        self.port = free_port()
        (self.home / "log.yaml").write_text(_log_config(self.log_path))
        config = self.home / "homeserver.yaml"
        config.write_text(_config(self.home, self.port))
        out = (self.home / "stdout.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "synapse.app.homeserver", "-c", str(config)],
            cwd=self.home, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Synapse exited with {self.proc.returncode}:\n{self.logs()}")
            try:
                self.request("GET", "/_matrix/client/versions")
                break
            except (OSError, urllib.error.URLError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Synapse did not answer:\n{self.logs()}") from None
                time.sleep(0.1)
        self.admin_token = self.register("admin", "admin-pw", admin=True)["access_token"]
        return self

    def stop(self) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)

    def logs(self) -> str:
        parts = []
        for name in ("stdout.log", "synapse.log"):
            with contextlib.suppress(OSError):
                parts.append((self.home / name).read_text(errors="replace")[-8000:])
        return "\n".join(parts)

    # ------------------------------------------------------------------ HTTP
    def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                timeout: float = 30.0) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"{}")

    def register(self, user: str, password: str, admin: bool = False) -> dict[str, Any]:
        """A new account through the shared-secret registration of the admin API."""
        nonce = self.request("GET", "/_synapse/admin/v1/register")["nonce"]
        mac = hmac.new(SECRET.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), user.encode(), password.encode(),
                                 b"admin" if admin else b"notadmin"]))
        result = self.request("POST", "/_synapse/admin/v1/register", {
            "nonce": nonce, "username": user, "password": password, "admin": admin,
            "mac": mac.hexdigest()})
        self._users[result["user_id"]] = password
        return result

    def limit_messages(self, user_id: str, per_second: int, burst: int) -> None:
        """Narrow one user's message rate limit (``M_LIMIT_EXCEEDED`` comes sooner)."""
        self.request("POST", f"/_synapse/admin/v1/users/{user_id}/override_ratelimit",
                     {"messages_per_second": per_second, "burst_count": burst},
                     token=self.admin_token)

    def messages(self, room_id: str, token: str) -> list[dict[str, Any]]:
        """Every event of a room, oldest first (the client-server ``/messages`` history)."""
        from urllib.parse import quote

        events: list[dict[str, Any]] = []
        start = None
        for _ in range(1000):
            query = "dir=b&limit=500" + (f"&from={quote(start)}" if start else "")
            page = self.request("GET", f"/_matrix/client/v3/rooms/{quote(room_id)}/messages?"
                                f"{query}", token=token)
            events.extend(page.get("chunk") or [])
            end = page.get("end")
            if not end or not page.get("chunk"):
                break
            start = end
        events.reverse()
        return events
