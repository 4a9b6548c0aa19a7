"""The Matrix bot's login (a mixin of ``MatrixBot``): a password login once, then the device
id and access token kept in the store (folder 0700, files 0600), or a given access token."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from nio import AsyncClient, AsyncClientConfig, LoginResponse, WhoamiResponse

from ..runtime.redact import add_secret
from .rooms import localpart

log = logging.getLogger(__name__)


class LoginMixin:
    """Logging in, and the login kept in the store."""

    def _client(self, user_id: str, device_id: str | None) -> AsyncClient:
        config = AsyncClientConfig(
            max_limit_exceeded=0,  # our outbox honours retry_after_ms and keeps the order
            max_timeouts=0,  # network errors come back to us: the outbox and sync retry
            request_timeout=60,
            encryption_enabled=self.e2e,
            store_sync_tokens=False,  # the sync token lives in the database
            pickle_key=self.cfg.matrix_store_key or "",
        )
        private_store(self.store_path)
        return AsyncClient(self.cfg.matrix_homeserver or "", user_id, device_id=device_id,
                           store_path=str(self.store_path), config=config)

    def _credentials_file(self) -> Path:
        return self.store_path / "credentials.json"

    def _saved_login(self) -> dict[str, str] | None:
        try:
            data = json.loads(self._credentials_file().read_text())
        except (OSError, ValueError):
            return None
        if data.get("homeserver") != self.cfg.matrix_homeserver:
            return None
        user = self.cfg.matrix_user or ""
        if user and user not in (data.get("user_id"), localpart(data.get("user_id", ""))):
            return None
        return data

    def _save_login(self, user_id: str, device_id: str, token: str) -> None:
        path = self._credentials_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"homeserver": self.cfg.matrix_homeserver, "user_id": user_id,
                       "device_id": device_id, "access_token": token}, f)

    async def login(self) -> None:
        """Log in once and keep the device: its access token, id and crypto store persist."""
        cfg = self.cfg
        if cfg.matrix_access_token:
            probe = self._client(cfg.matrix_user or "", cfg.matrix_device_id)
            probe.access_token = cfg.matrix_access_token
            try:
                who = await probe.whoami()
            finally:
                await probe.close()
            if not isinstance(who, WhoamiResponse):
                raise SystemExit(f"MATRIX_ACCESS_TOKEN was refused: {who}")
            device = cfg.matrix_device_id or who.device_id
            if not device:
                raise SystemExit("set MATRIX_DEVICE_ID for this access token")
            self.client = self._client(who.user_id, device)
            self.client.restore_login(who.user_id, device, cfg.matrix_access_token)
        else:
            saved = self._saved_login()
            if saved is not None:
                self.client = client = self._client(saved["user_id"], saved["device_id"])
                client.access_token = saved["access_token"]
                who = await client.whoami()
                if isinstance(who, WhoamiResponse):
                    client.restore_login(saved["user_id"], saved["device_id"],
                                         saved["access_token"])
                else:
                    log.warning("stored login no longer valid (%s): logging in again", who)
                    await client.close()
                    self.client = None
            if self.client is None:
                device = cfg.matrix_device_id or (saved or {}).get("device_id")
                self.client = client = self._client(cfg.matrix_user or "", device)
                resp = await client.login(cfg.matrix_password or "",
                                          device_name=cfg.matrix_device_name)
                if not isinstance(resp, LoginResponse):
                    await client.close()
                    raise SystemExit(f"Matrix login failed: {resp}")
                self._save_login(resp.user_id, resp.device_id, resp.access_token)
        assert self.client is not None
        add_secret(self.client.access_token)
        private_store(self.store_path)  # (the key database is created on login)
        self.user_id = self.client.user_id
        if self.e2e and self.client.should_upload_keys:
            await self.client.keys_upload()
        log.info("logged in as %s, device %s, encryption %s", self.user_id,
                 self.client.device_id, "on" if self.e2e else "off")


def private_store(path: Path) -> None:
    """The store holds the device's keys and login: its folder 0700 and its files 0600,
    also when they exist already with a looser mode."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    for item in path.rglob("*"):
        item.chmod(0o700 if item.is_dir() else 0o600)
