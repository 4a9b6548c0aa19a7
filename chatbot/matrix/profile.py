"""What Matrix users expect of a participant (a mixin of ``MatrixBot``): a profile (display
name and avatar), read receipts for what the bot handled, and a typing notice while a CPU
thinks. All of it is cosmetic: a failure is logged and never stops the bot."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

from nio import (
    ProfileGetResponse,
    ProfileSetAvatarResponse,
    ProfileSetDisplayNameResponse,
    RoomReadMarkersResponse,
    RoomTypingResponse,
    UploadResponse,
)

from .memory import PLATFORM

log = logging.getLogger(__name__)
AVATAR = "avatar.png"  # shipped with the package (chatbot/matrix/avatar.png)
TYPING_MS = 5_000  # a typing notice ends by itself after this long (if its "stop" is lost)
CALL_SECONDS = 5.0  # how long a receipt or typing call may take before it is given up
LIMIT_TRIES = 4  # profile calls the homeserver rate-limits: tried this often


def avatar_png() -> bytes:
    return resources.files(__package__).joinpath(AVATAR).read_bytes()


class ProfileMixin:
    """Profile, read receipts and typing notices."""

    # ------------------------------------------------------------------ profile
    async def _set_profile(self) -> None:
        """On start: the display name (``MATRIX_DISPLAY_NAME``) and the avatar. Each is set
        only when it differs (a change is an event in every room the bot is in); the avatar is
        uploaded once (its mxc:// URI is kept in the database) and an avatar someone else set
        for the account is left alone."""
        client = self.client
        if client is None:
            return
        try:
            profile = await client.get_profile(self.user_id)
            if not isinstance(profile, ProfileGetResponse):
                log.warning("could not read the bot's profile: %s", profile)
                return
            name = self.cfg.matrix_display_name
            if name and profile.displayname != name:
                resp = await self._unhurried(lambda: client.set_displayname(name))
                if isinstance(resp, ProfileSetDisplayNameResponse):
                    log.info("display name set: %r", name)
                else:
                    log.warning("could not set the display name: %s", resp)
            await self._set_avatar(profile.avatar_url)
        except Exception as exc:  # noqa: BLE001 - cosmetic: the bot works without it
            log.warning("could not set the bot's profile: %r", exc)

    async def _set_avatar(self, current: str | None) -> None:
        client = self.client
        assert client is not None
        data = avatar_png()
        digest = hashlib.sha256(data).hexdigest()[:16]
        stored = await asyncio.to_thread(self.memory.get, self.user_id, "avatar")
        old_digest, _, old_mxc = (stored or "").partition(" ")
        if current and current != old_mxc:
            return  # an avatar the operator chose
        mxc = old_mxc if old_digest == digest else ""
        if not mxc:
            async def upload() -> Any:
                resp, _keys = await asyncio.wait_for(client.upload(
                    io.BytesIO(data), content_type="image/png", filename="stammtisch.png",
                    filesize=len(data)), timeout=60)
                return resp

            resp = await self._unhurried(upload)
            if not isinstance(resp, UploadResponse):
                log.warning("could not upload the avatar: %s", resp)
                return
            mxc = resp.content_uri
            await asyncio.to_thread(self.memory.put, f"{digest} {mxc}", self.user_id, "avatar")
            log.info("avatar uploaded: %s", mxc)
        if current != mxc:
            resp = await self._unhurried(lambda: client.set_avatar(mxc))
            if isinstance(resp, ProfileSetAvatarResponse):
                log.info("avatar set: %s", mxc)
            else:
                log.warning("could not set the avatar: %s", resp)

    async def _unhurried(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """A profile call that honours the homeserver's rate limit: refused with
        ``M_LIMIT_EXCEEDED``, it waits ``retry_after_ms`` and tries again; once it went
        through after such a wait, it waits as long again, so that the budget is back for
        what comes next (joining rooms, answering people)."""
        waited = 0.0
        resp: Any = None
        for _ in range(LIMIT_TRIES):
            resp = await call()
            if getattr(resp, "status_code", None) != "M_LIMIT_EXCEEDED":
                break
            waited = min(10.0, max(0.05, (getattr(resp, "retry_after_ms", None) or 1000)
                                   / 1000))
            log.info("profile update rate-limited; trying again in %.1fs", waited)
            await self._sleep(waited)
        else:
            return resp
        if waited:
            await self._sleep(waited)
        return resp

    # ------------------------------------------------------------------ receipts
    async def _receipt(self, room_id: str, event_id: str) -> None:
        """The bot has read (and handled) a room up to this event: its read receipt and read
        marker move there."""
        client = self.client
        if client is None:
            return
        try:
            resp = await asyncio.wait_for(client.room_read_markers(
                room_id, fully_read_event=event_id, read_event=event_id), CALL_SECONDS)
            if not isinstance(resp, RoomReadMarkersResponse):
                log.debug("read receipt in %s refused: %s", room_id, resp)
        except Exception as exc:  # noqa: BLE001 - cosmetic
            log.debug("read receipt in %s failed: %r", room_id, exc)

    # ------------------------------------------------------------------ typing
    @contextlib.asynccontextmanager
    async def _cpu_thinks(self, table_id: int, version: int) -> AsyncIterator[None]:
        """Held while a deadline fires: when it is a CPU move at a table in a Matrix room, the
        room shows the bot typing (one notice, sent while the move is decided, and its end)."""
        room_id = None
        with contextlib.suppress(Exception):
            room_id = await asyncio.to_thread(self.service.cpu_chat, PLATFORM, table_id,
                                              version)
        if room_id is None or self.client is None:
            yield
            return
        notice = asyncio.ensure_future(self._typing(room_id, True))
        try:
            yield
        finally:
            if await notice:
                await self._typing(room_id, False)

    async def _typing(self, room_id: str, typing: bool) -> bool:
        client = self.client
        if client is None:
            return False
        try:
            resp = await asyncio.wait_for(client.room_typing(
                room_id, typing_state=typing, timeout=TYPING_MS), CALL_SECONDS)
        except Exception as exc:  # noqa: BLE001 - cosmetic
            log.debug("typing notice in %s failed: %r", room_id, exc)
            return False
        return isinstance(resp, RoomTypingResponse)
