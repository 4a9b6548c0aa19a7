"""Leaving a room (an outbox ``leave`` row: a room opened for one game, ``!duell``, once the
game is over): ``room_leave``, with Matrix's errors mapped as the transport maps them. A
mix-in of ``MatrixTransport``."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import aiohttp
from nio import AsyncClient, ErrorResponse

from ..delivery import Retry

_NETWORK = (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError, OSError)


class RoomLeaving:
    """``leave``: the bot leaves a room (the room and its history stay with its people)."""

    client: AsyncClient
    if TYPE_CHECKING:  # (the transport's)
        def _raise(self, room: str, resp: ErrorResponse) -> None: ...

    async def leave(self, chat: str) -> None:
        try:
            resp = await self.client.room_leave(chat)
        except _NETWORK as exc:
            raise Retry(2.0, f"leave: {exc!r}") from exc
        if isinstance(resp, ErrorResponse):
            self._raise(chat, resp)
