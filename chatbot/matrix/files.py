"""Files to Matrix: an outbox ``document`` row uploaded to the content repository and posted as
an ``m.file`` message (matrix-nio's ``AsyncClient.upload``, then ``room_send``). In an
encrypted room the file is encrypted before it leaves (``upload(..., encrypt=True)``, as nio
documents it) and the message names it under ``file`` with the key to decrypt it; elsewhere
under ``url``. A mix-in of ``MatrixTransport``, whose event plumbing it uses."""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING, Any

import aiohttp
from nio import AsyncClient, ErrorResponse, UploadResponse

from ..delivery import Retry

MIMETYPE = "application/json"  # what the bot sends as files (``/meinedaten``)
_NETWORK = (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError, OSError)


class FileSending:
    """``document``: a file into a room (the transport's ``_event`` sends the message)."""

    client: AsyncClient
    if TYPE_CHECKING:  # (the transport's)
        txn: str

        async def _event(self, room: str, event_type: str, content: dict[str, Any],
                         txn: str) -> str: ...

        def _raise(self, room: str, resp: ErrorResponse) -> None: ...

    async def document(self, chat: str, name: str, data: bytes) -> str:
        """Upload the file (encrypted in an encrypted room) and post it as ``m.file``."""
        info = self.client.rooms.get(chat)
        encrypted = bool(info is not None and info.encrypted)
        try:
            resp, keys = await self.client.upload(
                io.BytesIO(data), content_type=MIMETYPE, filename=name, encrypt=encrypted,
                filesize=len(data))
        except _NETWORK as exc:
            raise Retry(2.0, f"upload: {exc!r}") from exc
        if not isinstance(resp, UploadResponse):
            self._raise(chat, resp)
            raise AssertionError("unreachable")
        content: dict[str, Any] = {"msgtype": "m.file", "body": name, "filename": name,
                                   "info": {"mimetype": MIMETYPE, "size": len(data)}}
        if encrypted and keys is not None:
            content["file"] = {"url": resp.content_uri, **keys}  # (key, iv, hashes, v)
        else:
            content["url"] = resp.content_uri
        return await self._event(chat, "m.room.message", content, f"{self.txn}.f")
