"""Delivering the outbox to Matrix: HTML messages, edits in place (``m.replace``), reactions.
Homeservers rate-limit per user, not per room: a ``M_LIMIT_EXCEEDED`` answer pauses all
sending for its ``retry_after_ms`` (the row is retried, nothing is lost); network errors and
5xx answers are retried with backoff. Every event is sent with a transaction id derived from
its outbox row, so a send that reached the server before a crash is not duplicated when the
row is delivered again after a restart (the homeserver answers with the same event)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

import aiohttp
from nio import (
    AsyncClient,
    ErrorResponse,
    RoomContextResponse,
    RoomGetStateEventResponse,
    RoomPutStateResponse,
    RoomRedactResponse,
    RoomSendResponse,
)
from nio.exceptions import LocalProtocolError, SendRetryError

from ..delivery import (
    CannotPin,
    Item,
    OutboxStore,
    Permanent,
    Retry,
    SlotMessages,
    Worker,
    deliver_async,
    record,
)
from .files import FileSending
from .leaving import RoomLeaving
from .render import REACTIONS, choices, code_of, mentions, norm_key, reaction_for, render

log = logging.getLogger(__name__)
MSGTYPE = "m.notice"  # bots speak in notices (other bots ignore them)
_NETWORK = (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError, OSError)
_LOBBY_KEYS = frozenset(norm_key(REACTIONS[c]) for c in ("join", "start"))
_OVER_CODES = frozenset({"again", "review"})  # what a finished table still offers
BURIED_AFTER = 3  # messages below a view before the player's turn posts it anew
_SHOWN = ("m.room.message", "m.room.encrypted", "m.sticker")  # events that take a line
_TXN: contextvars.ContextVar[str] = contextvars.ContextVar("matrix_txn", default="x")
_REPLY: contextvars.ContextVar[str | None] = contextvars.ContextVar("matrix_reply", default=None)
_THREAD: contextvars.ContextVar[str | None] = contextvars.ContextVar("matrix_thread",
                                                                     default=None)


class MatrixTransport(FileSending, RoomLeaving):
    """The client-server API calls behind an outbox item, with Matrix's errors mapped (files:
    ``files.FileSending``; leaving a room: ``leaving.RoomLeaving``)."""

    def __init__(self, client: AsyncClient, install_id: str = "st",
                 on_forbidden: Callable[[str], None] | None = None,
                 reactions: bool = True) -> None:
        self.client = client
        self.install_id = install_id
        self.on_forbidden = on_forbidden
        self.reactions = reactions
        # (event id, key) → the reaction's own event id (None: not known): seeded reactions,
        # redacted again once their view no longer offers the button
        self.seeded: dict[tuple[str, str], str | None] = {}
        self.rate_limited_until = 0.0  # monotonic; the sender pauses everything until then
        self._devices: dict[str, frozenset[tuple[str, str]]] = {}
        self._keys = asyncio.Lock()  # one key query at a time
        # (room, thread root) → the bot's last event there: what a thread message names as
        # its reply fallback (the thread's newest event the bot knows of)
        self._thread_last: dict[tuple[str, str], str] = {}

    def begin(self, item: Item) -> None:
        """Transaction ids of this item's events (per asyncio task): idempotent resends."""
        _TXN.set(f"{self.install_id}.{item.id}")
        _REPLY.set(item.reply_to)
        _THREAD.set(item.thread)

    @property
    def txn(self) -> str:
        return _TXN.get()

    # ------------------------------------------------------------------ plumbing
    def _raise(self, room: str, resp: ErrorResponse) -> None:
        code = resp.status_code
        status = getattr(resp.transport_response, "status", None)
        text = f"{code or status}: {resp.message}"
        if code == "M_LIMIT_EXCEEDED" or status == 429:
            after = max(0.05, (resp.retry_after_ms or 1000) / 1000)
            self.rate_limited_until = time.monotonic() + after
            raise Retry(after, f"M_LIMIT_EXCEEDED, retry after {after:.2f}s")
        if code == "M_FORBIDDEN":
            if self.on_forbidden is not None:
                self.on_forbidden(room)
            raise Permanent(text)
        if code in ("M_UNKNOWN_TOKEN", "M_MISSING_TOKEN"):
            raise Retry(10.0, text)
        if status is None or status >= 500 or code in (None, "M_UNKNOWN"):
            raise Retry(2.0, text)
        raise Permanent(text)

    async def _before_encrypted(self, room_id: str) -> None:
        """Know every device in an encrypted room before encrypting for it; a device that
        appeared since the room key was shared gets a new room key."""
        client = self.client
        room = client.rooms.get(room_id)
        if client.olm is None or room is None or not room.encrypted:
            return
        async with self._keys:
            if client.should_query_keys:
                await client.keys_query()
        devices = frozenset((d.user_id, d.id) for user in room.users
                            for d in client.device_store.active_user_devices(user))
        if self._devices.get(room_id) not in (None, devices):
            client.invalidate_outbound_session(room_id)
        self._devices[room_id] = devices

    async def _event(self, room: str, event_type: str, content: dict[str, Any],
                     txn: str) -> str:
        try:
            await self._before_encrypted(room)
            resp = await self.client.room_send(room, event_type, content, tx_id=txn,
                                               ignore_unverified_devices=True)
        except _NETWORK as exc:
            raise Retry(2.0, f"network: {exc!r}") from exc
        except (LocalProtocolError, SendRetryError) as exc:  # room not synced yet, keys
            raise Retry(2.0, f"not ready: {exc}") from exc
        if isinstance(resp, RoomSendResponse):
            return resp.event_id
        self._raise(room, resp)
        raise AssertionError("unreachable")

    @staticmethod
    def _content(text: str, rows: list[list[list[str]]]) -> dict[str, Any]:
        body, formatted = render(text, rows)
        # who the message mentions (their clients notify them); none: nobody
        return {"msgtype": MSGTYPE, "body": body, "format": "org.matrix.custom.html",
                "formatted_body": formatted, "m.mentions": {"user_ids": mentions(text)}}

    async def _seed(self, room: str, event_id: str, rows: list[list[list[str]]]) -> None:
        """Pre-seed the reactions that stand for buttons of this view (best effort)."""
        if not self.reactions:
            return
        for i, (_label, data) in enumerate(choices(rows)):
            key = reaction_for(data)
            if key is None or (event_id, norm_key(key)) in self.seeded:
                continue
            if time.monotonic() < self.rate_limited_until:
                return
            content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": event_id,
                                        "key": key}}
            reaction: str | None = None
            try:
                reaction = await self._event(room, "m.reaction", content, f"{self.txn}.r{i}")
            except Retry as exc:
                log.info("reaction %s on %s not seeded: %s", key, event_id, exc)
                return
            except Permanent as exc:  # e.g. the same annotation exists already
                log.debug("reaction %s on %s: %s", key, event_id, exc)
            self.seeded[(event_id, norm_key(key))] = reaction

    async def _unseed(self, room: str, event_id: str, rows: list[list[list[str]]]) -> None:
        """Redact the reactions seeded on a view that will not offer them again (a finished
        table keeps no ⏭️ ✊, a running one no 👍); best effort, only those this process
        seeded."""
        offered = choices(rows)
        wanted = {norm_key(key) for _label, data in offered
                  if (key := reaction_for(data)) is not None}
        # a move's reaction (✊ ⏭️ ⏩) comes back with the next turn or round: it stays until
        # the game is over (a view with nothing but "play again", or nothing); the lobby's
        # (👍 ▶️) go as soon as the lobby is; a finished table offers only "again" (also with
        # the same cards) and the coach's review
        over = all(code_of(data).split(".")[0] in _OVER_CODES for _label, data in offered)
        for (seeded_on, key), reaction in list(self.seeded.items()):
            if seeded_on != event_id or key in wanted or not (over or key in _LOBBY_KEYS):
                continue
            if reaction is not None:
                try:
                    resp = await self.client.room_redact(room, reaction,
                                                         tx_id=f"{self.txn}.u{ord(key[0]):x}")
                except _NETWORK:
                    return
                if not isinstance(resp, RoomRedactResponse):
                    log.info("reaction %s on %s not redacted: %s", key, event_id, resp)
                    continue
            del self.seeded[(seeded_on, key)]

    # ------------------------------------------------------------------ the transport
    async def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str:
        content = self._content(text, rows)
        answered = (_REPLY.get() or "").split()
        if len(answered) == 1:  # the answer to a message: a reply to it
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": answered[0]}}
        elif len(answered) == 2:  # ... in a thread: in the thread, as a reply there
            content["m.relates_to"] = {"rel_type": "m.thread", "event_id": answered[0],
                                       "is_falling_back": False,
                                       "m.in_reply_to": {"event_id": answered[1]}}
        thread = answered[0] if len(answered) == 2 else _THREAD.get()
        if thread is not None and len(answered) != 2:  # a table's message in its thread
            content["m.relates_to"] = {
                "rel_type": "m.thread", "event_id": thread, "is_falling_back": True,
                "m.in_reply_to": {"event_id": self._thread_last.get((chat, thread), thread)}}
        event_id = await self._event(chat, "m.room.message", content, f"{self.txn}.s")
        if thread is not None:
            self._thread_last[(chat, thread)] = event_id
        await self._seed(chat, event_id, rows)
        return event_id

    async def thread(self, chat: str, name: str) -> str:
        """A new thread (an outbox ``thread`` row): its root, ``name`` in the main timeline."""
        event_id = await self._event(chat, "m.room.message", self._content(name, []), f"{self.txn}.t")
        self._thread_last[(chat, event_id)] = event_id
        return event_id

    async def edit(self, chat: str, message_id: str, text: str,
                   rows: list[list[list[str]]]) -> None:
        new = self._content(text, rows)
        content = {
            "msgtype": MSGTYPE,
            "body": "* " + new["body"],
            "format": "org.matrix.custom.html",
            "formatted_body": "* " + new["formatted_body"],
            "m.new_content": new,
            "m.relates_to": {"rel_type": "m.replace", "event_id": message_id},
        }
        await self._event(chat, "m.room.message", content, f"{self.txn}.e")
        await self._unseed(chat, message_id, rows)
        await self._seed(chat, message_id, rows)

    async def _pinned(self, room: str) -> list[str]:
        try:
            resp = await self.client.room_get_state_event(room, "m.room.pinned_events")
        except _NETWORK as exc:
            raise Retry(2.0, f"network: {exc!r}") from exc
        if isinstance(resp, RoomGetStateEventResponse):
            return [str(e) for e in (resp.content or {}).get("pinned") or []]
        if resp.status_code == "M_NOT_FOUND":
            return []
        self._raise(room, resp)
        raise AssertionError("unreachable")

    async def _set_pinned(self, room: str, pinned: list[str]) -> None:
        try:
            resp = await self.client.room_put_state(room, "m.room.pinned_events",
                                                    {"pinned": pinned})
        except _NETWORK as exc:
            raise Retry(2.0, f"network: {exc!r}") from exc
        if isinstance(resp, RoomPutStateResponse):
            return
        if resp.status_code == "M_FORBIDDEN":  # (not a room the bot may not write to)
            raise CannotPin(f"{room}: {resp.message}")
        self._raise(room, resp)

    def _may_pin(self, room: str) -> bool:
        info = self.client.rooms.get(room)
        return info is None or info.power_levels.can_user_send_state(
            self.client.user_id, "m.room.pinned_events")

    async def pin(self, chat: str, message_id: str) -> None:
        """Pin a message (``m.room.pinned_events``), the newest pin first; the room's other
        pins stay. Refused (``CannotPin``) where the bot may not change the pins."""
        if not self._may_pin(chat):
            raise CannotPin(f"{chat}: no power to pin")
        pinned = await self._pinned(chat)
        if message_id not in pinned:
            await self._set_pinned(chat, [message_id, *pinned])

    async def unpin(self, chat: str, message_id: str) -> None:
        if not self._may_pin(chat):
            raise CannotPin(f"{chat}: no power to pin")
        pinned = await self._pinned(chat)
        if message_id in pinned:
            await self._set_pinned(chat, [e for e in pinned if e != message_id])

    async def buried(self, chat: str, message_id: str, limit: int = BURIED_AFTER) -> bool:
        """Whether more than ``limit`` events (anyone's messages, edits, reactions) came after
        a message: then a view is posted anew on the player's turn, else edited in place."""
        try:
            resp = await self.client.room_context(chat, message_id, limit=2 * (limit + 1))
        except _NETWORK:
            return True
        if not isinstance(resp, RoomContextResponse):
            return True  # (gone, or not readable: post anew, as before)
        shown = [e for e in resp.events_after
                 if (src := getattr(e, "source", None) or {}).get("type") in _SHOWN
                 and ((src.get("content") or {}).get("m.relates_to") or {}).get("rel_type")
                 != "m.replace"]  # (an edit takes no new line)
        return len(shown) > limit

    async def delete(self, chat: str, message_id: str) -> None:
        try:
            resp = await self.client.room_redact(chat, message_id, tx_id=f"{self.txn}.d")
        except _NETWORK as exc:
            raise Retry(2.0, f"network: {exc!r}") from exc
        if not isinstance(resp, RoomRedactResponse):
            self._raise(chat, resp)


class MatrixSender:
    """An asyncio task that delivers the outbox whenever woken, and at least every second."""

    def __init__(self, store: OutboxStore, transport: MatrixTransport,
                 interval: float = 0.0, parallel: int = 4) -> None:
        self.store, self.transport = store, transport
        self.interval = interval  # seconds between two sends (the homeserver limits too)
        self.parallel = max(1, parallel)  # rooms served at the same time
        self._gap = asyncio.Lock()
        self.ready = asyncio.Event()  # set once the first sync knows the rooms
        self.worker = Worker("matrix-outbox", self.pass_once, log, what="outbox pass",
                             setup=self.ready.wait, longest=1.0)
        self.wake = self.worker.wake
        self._last = 0.0
        self._busy: set[str] = set()  # rooms with a delivery under way
        self._settled = asyncio.Condition()

    async def settled(self, room_id: str, timeout: float = 10.0) -> None:
        """Wait until no delivery to this room is under way: a reply to a view may arrive
        before the sender has recorded that the view went out."""
        async with self._settled:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._settled.wait_for(lambda: room_id not in self._busy), timeout)

    def start(self) -> None:
        self.worker.start()

    async def stop(self) -> None:
        await self.worker.stop()

    async def pass_once(self) -> float:
        """Deliver what may go now; returns how long until something else may go.

        Rooms are served side by side (a few at a time), each room's messages in order."""
        items: list[Item] = await asyncio.to_thread(self.store.pending)
        by_room: dict[str, list[Item]] = {}
        for item in items:
            by_room.setdefault(item.chat, []).append(item)
        gate = asyncio.Semaphore(self.parallel)

        async def serve(room: str, queue: list[Item]) -> float | None:
            async with gate:
                return await self._serve_room(room, queue)

        waits = await asyncio.gather(*(serve(r, q) for r, q in by_room.items()))
        pending = [w for w in waits if w is not None]
        return min([1.0, *pending])

    async def _serve_room(self, room: str, queue: list[Item]) -> float | None:
        """Deliver one room's items in order; the wait before the next try if one failed.
        (A pin the bot may not set is refused: the table is then posted anew instead when it
        has scrolled away.)"""
        shown = SlotMessages()
        for item in queue:
            shown.before(item)
            if item.plan == "keep" and item.action:  # the slot shows nothing: done
                await asyncio.to_thread(record, self.store, item, None, None)
                continue
            if self.worker.stopping:
                return None
            pause = self.transport.rate_limited_until - time.monotonic()
            if pause > 0:
                return pause
            if item.slot is not None and item.message_id is not None and item.unchanged:
                await asyncio.to_thread(record, self.store, item, item.message_id, None)
                continue
            if item.repost and not item.fresh and not item.action and item.message_id \
                    and not await self.transport.buried(room, item.message_id):
                # the view is still in sight: edited in place (a repost is a new message and
                # a "message deleted" line, two events instead of one)
                item = dataclasses.replace(item, repost=False)
            if self.interval > 0:
                async with self._gap:
                    gap = self._last + self.interval - time.monotonic()
                    if gap > 0:
                        await asyncio.sleep(gap)
                    self._last = time.monotonic()
            self.transport.begin(item)
            self._busy.add(room)
            try:
                started = time.monotonic()
                message_id, error = await deliver_async(item, self.transport)
                shown.after(item, message_id, error)
                log.debug("outbox %s to %s: %s in %.0f ms", item.id, room,
                          error or "delivered", (time.monotonic() - started) * 1000)
                await asyncio.to_thread(record, self.store, item, message_id, error)
            finally:
                self._busy.discard(room)
                async with self._settled:
                    self._settled.notify_all()
            if isinstance(error, Retry):
                log.info("outbox %s to %s: %s", item.id, room, error)
                return error.after
        return None
