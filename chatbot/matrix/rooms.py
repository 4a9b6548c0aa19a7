"""Rooms and people in Matrix (a mixin of ``MatrixBot``): invites and greetings, direct rooms
(opened when a player has none), who is in a room and what kind of chat it is."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
from urllib.parse import quote

from nio import (
    DirectRoomsResponse,
    InviteMemberEvent,
    JoinError,
    MatrixRoom,
    MegolmEvent,
    RoomCreateResponse,
    RoomGetEventResponse,
    RoomMemberEvent,
    RoomPreset,
    SyncResponse,
)

from ..i18n import tr
from ..service import ChatRef, UserRef
from .memory import PLATFORM
from .sender import _NETWORK

log = logging.getLogger(__name__)
# the thread (its root event) the input being handled was written in, if any
INPUT_THREAD: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "matrix_input_thread", default=None)
THREAD_NAME_CHARS = 32  # a thread is named by its first message, at most this long
_TEXTS = ("m.text", "m.notice", "m.emote")


def thread_root(content: dict) -> str | None:
    """The root of the thread a message was written in (``m.relates_to`` of ``m.thread``)."""
    relates = content.get("m.relates_to") or {}
    root = relates.get("event_id") if relates.get("rel_type") == "m.thread" else None
    return root if isinstance(root, str) and root else None


def localpart(user_id: str) -> str:
    return user_id[1:].split(":", 1)[0] if user_id.startswith("@") else user_id


def short_name(body: str, limit: int = THREAD_NAME_CHARS) -> str | None:
    """A thread's name from its first message's text: its first line that is no quote (a
    reply's fallback), at most ``limit`` characters, cut at a word with "…"."""
    line = next((" ".join(x.split()) for x in body.splitlines()
                 if x.strip() and not x.lstrip().startswith(">")), "")
    line = line.replace("[", "(").replace("]", ")")
    if len(line) <= limit:
        return line or None
    head = line[:limit - 1]
    head = head.rsplit(" ", 1)[0] if " " in head[limit // 2:] else head
    return head.rstrip(" ,.;:–-") + "…"


class RoomsMixin:
    """Invites, greetings, members, direct rooms and the refs of a room and person."""

    async def _handle_invites(self, resp: SyncResponse) -> None:
        assert self.client is not None
        for room_id, info in resp.rooms.invite.items():
            inviter, direct = None, False
            for event in info.invite_state:
                if (isinstance(event, InviteMemberEvent) and event.state_key == self.user_id
                        and event.membership == "invite"):
                    inviter = event.sender
                    direct = bool((event.content or {}).get("is_direct"))
            if inviter is not None:
                await asyncio.to_thread(self.memory.put, inviter, "inviter", room_id)
            if direct:
                await asyncio.to_thread(self.memory.put, "1", "direct", room_id)
            resp_join = await self.client.join(room_id)
            for _ in range(5):  # rate-limited: wait as the server says, and join again
                if not (isinstance(resp_join, JoinError)
                        and resp_join.status_code == "M_LIMIT_EXCEEDED"):
                    break
                await asyncio.sleep(max(0.1, (resp_join.retry_after_ms or 1000) / 1000))
                resp_join = await self.client.join(room_id)
            if isinstance(resp_join, JoinError):
                log.warning("could not join %s: %s", room_id, resp_join)
            else:
                log.info("joined %s (invited by %s%s)", room_id, inviter,
                         ", direct" if direct else "")

    async def _greet(self, room_id: str) -> None:
        """After joining a room: say hello there (a direct room becomes the inviter's private
        chat). Rooms the bot opened itself are known already and get no second greeting."""
        if await asyncio.to_thread(self.service.chat_info, PLATFORM, room_id) is not None:
            return
        inviter = await asyncio.to_thread(self.memory.get, "inviter", room_id)
        room = self.client.rooms.get(room_id) if self.client else None
        if inviter is None and room is not None:
            inviter = next((u for u in room.users if u != self.user_id), None)
        if inviter is None:
            return
        chat_ref, user = await self._refs(room_id, inviter)
        await asyncio.to_thread(self.service.command, chat_ref, user, "start", "",
                                f"join:{room_id}")
        await self._say(chat_ref, tr(await self._lang(room_id), "mx.how"))

    async def _on_member(self, room_id: str, event: RoomMemberEvent) -> None:
        if event.state_key == self.user_id:
            return
        known = await asyncio.to_thread(self.service.chat_info, PLATFORM, room_id)
        if known is None or known[0] != "private":
            return
        if event.membership in ("leave", "ban"):
            log.info("%s left the direct room %s", event.state_key, room_id)
            await asyncio.to_thread(self.service.forget_private_chat, PLATFORM, room_id)
            with contextlib.suppress(Exception):
                await self.client.room_leave(room_id)  # type: ignore[union-attr]
            # seated at a running group game: a new direct room at once, saying which table
            # it is for (the hand must be shown there on the person's turn)
            seated = await asyncio.to_thread(self.service.running_group_table, PLATFORM,
                                              event.state_key)
            if seated is not None:
                table_id, group_room = seated
                group, user = await self._refs(group_room, event.state_key)
                await self._ensure_dm(group, user, table_id)
        elif event.membership in ("join", "invite") and self._members(room_id) > 2:
            # no longer a direct room: no hidden information there any more, and a new
            # direct room for the person it belonged to
            log.info("direct room %s gained %s: now a group", room_id, event.state_key)
            people = await asyncio.to_thread(self.service.chat_no_longer_private, PLATFORM,
                                             room_id)
            for person in people:
                group, user = await self._refs(room_id, person)
                await self._ensure_dm(group, user, None)

    def _members(self, room_id: str) -> int:
        """People in a room, the bot included (joined and invited)."""
        room = self.client.rooms.get(room_id) if self.client else None
        return room.member_count if room is not None else 0

    # ------------------------------------------------------------------ direct rooms
    async def _ensure_dm(self, group: ChatRef, user: UserRef,
                         table_id: int | None) -> str | None:
        """The player's direct room; the bot opens one (and invites them) if there is none,
        and shows the table's private view there."""
        dm = await asyncio.to_thread(self.service.private_chat_of, PLATFORM,
                                           user.external_id)
        if dm is not None or self.client is None:
            return dm
        initial = []
        if self.e2e and self.cfg.matrix_encrypt_new_dms:
            initial.append({"type": "m.room.encryption", "state_key": "",
                            "content": {"algorithm": "m.megolm.v1.aes-sha2"}})
        try:
            resp = await self.client.room_create(is_direct=True, invite=[user.external_id],
                                                 preset=RoomPreset.trusted_private_chat,
                                                 initial_state=initial)
        except _NETWORK as exc:
            resp = exc  # type: ignore[assignment]
        if not isinstance(resp, RoomCreateResponse):
            log.warning("could not open a direct room with %s: %s", user.external_id, resp)
            lang = await self._lang(group.external_id)
            await self._say(group, tr(lang, "mx.dm_failed", name=user.name))
            return None
        room_id = resp.room_id
        log.info("opened direct room %s with %s", room_id, user.external_id)
        await asyncio.to_thread(self.memory.put, "1", "direct", room_id)
        dm_ref = ChatRef(PLATFORM, room_id, "private")
        await asyncio.to_thread(self.service.command, dm_ref, user, "start",
                                f"t{table_id}" if table_id else "", f"dm:{room_id}")
        await self._mark_direct(user.external_id, room_id)
        return room_id

    async def _mark_direct(self, user_id: str, room_id: str) -> None:
        """List a direct room the bot opened in its ``m.direct`` account data (``{user:
        [rooms]}``, merged with what is there), as clients do: other clients of the account
        show it as a direct chat."""
        client = self.client
        if client is None:
            return
        async with self.direct_lock:
            try:
                resp = await client.list_direct_rooms()
                if isinstance(resp, DirectRoomsResponse):
                    content = dict(resp.rooms)
                elif getattr(resp, "status_code", None) == "M_NOT_FOUND":
                    content = {}  # (none yet)
                else:
                    log.warning("could not read the bot's direct rooms: %s", resp)
                    return
                rooms = [r for r in content.get(user_id) or [] if isinstance(r, str)]
                if room_id in rooms:
                    return
                content[user_id] = [*rooms, room_id]
                path = (f"/_matrix/client/v3/user/{quote(self.user_id, safe='')}"
                        "/account_data/m.direct")
                answer = await client.send(
                    "PUT", path, json.dumps(content),
                    headers={"Authorization": f"Bearer {client.access_token}",
                             "Content-Type": "application/json"}, timeout=30)
                status = answer.status
                await answer.read()
                if status != 200:
                    log.warning("could not list %s as direct: HTTP %s", room_id, status)
            except Exception as exc:  # noqa: BLE001 - cosmetic: the room works without it
                log.warning("could not list %s as direct: %r", room_id, exc)

    # ------------------------------------------------------------------ rooms and people
    async def _lang(self, room_id: str) -> str:
        """The language the bot speaks in a room: its ``!sprache``; in a direct room its
        person's; else the default (as the service's own messages there)."""
        return await asyncio.to_thread(self.service.chat_language, PLATFORM, room_id)

    async def _refs(self, room_id: str, user_id: str) -> tuple[ChatRef, UserRef]:
        room = self.client.rooms.get(room_id) if self.client else None
        known = await asyncio.to_thread(self.service.chat_info, PLATFORM, room_id)
        if known is not None:
            kind = known[0]
            if kind == "private" and (self._members(room_id) > 2 or _open(room)):
                kind = "group"  # a third person came in (``_on_member``), or anyone may
        else:
            direct = await asyncio.to_thread(self.memory.get, "direct", room_id) == "1"
            members = room.member_count if room is not None else 0
            named = room is not None and room.is_named
            kind = "private" if members == 2 and not _open(room) and (direct or not named) \
                else "group"
        title = (room.name or room.canonical_alias) if room is not None and kind == "group" \
            else None
        name = (room.user_name(user_id) if room is not None else None) or localpart(user_id)
        admin = False
        if kind == "group" and room is not None:
            with contextlib.suppress(Exception):
                admin = room.power_levels.get_user_level(user_id) >= 50
        thread = INPUT_THREAD.get() if kind == "group" else None  # (a table lives there)
        thread_name = await self._thread_name(room_id, thread) if thread else None
        return (ChatRef(PLATFORM, room_id, kind, (title or None) and str(title)[:200], thread,
                        thread_name), UserRef(user_id, name[:64], None, None, admin))

    async def _thread_name(self, room_id: str, root: str) -> str | None:
        """A thread's name as people read it: its first message's text, shortened
        (``short_name``); where that has no text (an image) or cannot be read, "🧵" and its
        sender's name. Asked of the homeserver once, then kept in the database."""
        known = await asyncio.to_thread(self.memory.get, "thread", room_id, root)
        if known is not None or self.client is None:
            return known or None
        try:
            resp = await self.client.room_get_event(room_id, root)
        except _NETWORK:
            return None  # (asked again with the next input there)
        if not isinstance(resp, RoomGetEventResponse):
            log.info("thread root %s in %s not readable: %s", root, room_id, resp)
            return None
        event = resp.event
        if isinstance(event, MegolmEvent):
            with contextlib.suppress(Exception):
                event = self.client.decrypt_event(event)
        content = (getattr(event, "source", None) or {}).get("content") or {}
        body = content.get("body") if content.get("msgtype") in _TEXTS else None
        name = short_name(body) if isinstance(body, str) else None
        sender = getattr(event, "sender", None)
        if name is None and isinstance(sender, str):
            room = self.client.rooms.get(room_id)
            name = "🧵 " + ((room.user_name(sender) if room is not None else None)
                           or localpart(sender))[:THREAD_NAME_CHARS]
        if name:
            await asyncio.to_thread(self.memory.put, name, "thread", room_id, root)
        return name


def _open(room: MatrixRoom | None) -> bool:
    """Whether others may come into a room without an invitation (its ``m.room.join_rules``
    is public, knock, restricted …): such a room is no direct chat, even with two members."""
    return room is not None and room.join_rule not in ("invite", "private")
