"""People of the Matrix end-to-end tests: matrix-nio clients (``Person``) that log in, write,
react and read the bot's messages (``Msg``: the newest version, its numbered choices), and
groups opened and games started by them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nio import (
    AsyncClient,
    AsyncClientConfig,
    InviteMemberEvent,
    LoginResponse,
    MegolmEvent,
    ReactionEvent,
    RedactionEvent,
    RoomCreateResponse,
    RoomMessageNotice,
    RoomMessageText,
    RoomSendResponse,
    SyncResponse,
)

from tests.matrix.bot_process import _CHOICE, WAIT, wait_for

# ------------------------------------------------------------------------------ people


@dataclass
class Msg:
    """A message as a client shows it: the newest edit, its reactions, deleted or not."""

    event_id: str
    sender: str
    ts: int
    body: str
    html: str = ""
    encrypted: bool = False
    deleted: bool = False
    versions: list[str] = field(default_factory=list)
    reactions: set[str] = field(default_factory=set)
    relates: dict[str, Any] = field(default_factory=dict)  # its m.relates_to (a thread's)

    @property
    def first_line(self) -> str:
        return self.body.split("\n", 1)[0]

    def choices(self) -> list[tuple[int, str]]:
        """The numbered choices under the text: (number, label)."""
        tail = self.body.rsplit("\n\n", 1)[-1] if "\n\n" in self.body else ""
        found = []
        for line in tail.split("\n"):
            m = _CHOICE.match(line)
            if not m:
                return []
            found.append((int(m.group(1)), m.group(2)))
        return found

    def choice(self, *labels: str) -> int | None:
        """The number of the first choice whose label starts with one of ``labels``."""
        for n, label in self.choices():
            if any(label.startswith(want) for want in labels):
                return n
        return None


class Person:
    """A Matrix user as a matrix-nio client that keeps syncing in the background."""

    def __init__(self, homeserver: str, user_id: str, password: str, bot_id: str,
                 store: Path | None = None) -> None:
        self.user_id, self.password, self.bot_id = user_id, password, bot_id
        e2e = store is not None
        if store is not None:
            store.mkdir(parents=True, exist_ok=True)
        self.client = AsyncClient(homeserver, user_id, store_path=str(store) if store else "",
                                  config=AsyncClientConfig(encryption_enabled=e2e,
                                                           store_sync_tokens=False))
        self.rooms: dict[str, list[Msg]] = {}
        self.by_id: dict[str, Msg] = {}
        self.reaction_ids: dict[str, tuple[Msg, str]] = {}  # the bot's reactions
        self.undecryptable: list[str] = []
        self.ephemeral: list[tuple[str, Any]] = []  # (room, typing notice or receipts event)
        self._task: asyncio.Task | None = None

    @property
    def name(self) -> str:
        return self.user_id[1:].split(":")[0]

    async def start(self) -> Person:
        resp = await self.client.login(self.password, device_name="test")
        assert isinstance(resp, LoginResponse), resp
        self.client.add_response_callback(self._on_sync, SyncResponse)  # type: ignore[arg-type]
        # every event of a busy interval: a sync's timeline holds 10 events by default and
        # skips the older ones (a "limited" timeline) - an edit among them would be lost
        whole = {"room": {"timeline": {"limit": 500}}}
        self._task = asyncio.create_task(self.client.sync_forever(
            timeout=3000, full_state=True, sync_filter=whole, first_sync_filter=whole))
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.client.close()

    async def _on_sync(self, resp: SyncResponse) -> None:
        for room_id, info in resp.rooms.invite.items():
            if any(isinstance(e, InviteMemberEvent) and e.state_key == self.user_id
                   for e in info.invite_state):
                await self.client.join(room_id)
        for room_id, info in resp.rooms.join.items():
            for event in info.timeline.events:
                self._record(room_id, event)
            for event in info.ephemeral:
                self.ephemeral.append((room_id, event))

    def _record(self, room_id: str, event: Any) -> None:
        msgs = self.rooms.setdefault(room_id, [])
        if isinstance(event, MegolmEvent):
            self.undecryptable.append(event.event_id)
            return
        if isinstance(event, (RoomMessageText, RoomMessageNotice)):
            content = event.source.get("content") or {}
            relates = content.get("m.relates_to") or {}
            encrypted = bool(getattr(event, "decrypted", False))
            if relates.get("rel_type") == "m.replace":
                target = self.by_id.get(relates.get("event_id", ""))
                new = content.get("m.new_content") or {}
                if target is not None:
                    target.body = new.get("body", "")
                    target.html = new.get("formatted_body", "")
                    target.versions.append(target.body)
                return
            msg = Msg(event.event_id, event.sender, event.server_timestamp, event.body,
                      content.get("formatted_body", ""), encrypted, versions=[event.body],
                      relates=dict(relates))
            msgs.append(msg)
            self.by_id[msg.event_id] = msg
        elif isinstance(event, RedactionEvent):
            target = self.by_id.get(event.redacts)
            if target is not None:
                target.deleted = True
            seeded = self.reaction_ids.pop(event.redacts, None)
            if seeded is not None:  # a reaction taken back
                seeded[0].reactions.discard(seeded[1])
        elif isinstance(event, ReactionEvent):
            target = self.by_id.get(event.reacts_to)
            if target is not None and event.sender == self.bot_id:
                target.reactions.add(event.key)
                self.reaction_ids[event.event_id] = (target, event.key)

    # ------------------------------------------------------------------ reading
    def bot_messages(self, room_id: str, deleted: bool = False) -> list[Msg]:
        return [m for m in self.rooms.get(room_id, [])
                if m.sender == self.bot_id and (deleted or not m.deleted)]

    def newest(self, room_id: str, pred: Callable[[Msg], bool] = lambda m: True) -> Msg | None:
        found = [m for m in self.bot_messages(room_id) if pred(m)]
        return found[-1] if found else None

    def said(self, room_id: str, needle: str, since: int = 0) -> Msg | None:
        return next((m for m in self.bot_messages(room_id, deleted=True)[since:]
                     if needle in m.body), None)

    def count(self, room_id: str) -> int:
        return len(self.bot_messages(room_id, deleted=True))

    def direct_room(self) -> str | None:
        """The bot's direct room with this person (one with only the two of them)."""
        for room_id, room in self.client.rooms.items():
            if set(room.users) == {self.user_id, self.bot_id} and room_id in self.rooms:
                return room_id
        return None

    # ------------------------------------------------------------------ acting
    async def say(self, room_id: str, body: str, reply_to: str | None = None,
                  thread: str | None = None, fallback: str | None = None) -> str:
        """A message (``reply_to``: answering that one); in a ``thread`` as Element writes
        one there: its reply fallback names ``fallback`` (the thread's newest event) unless
        it answers ``reply_to``."""
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if reply_to:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": reply_to}}
        if thread:
            content["m.relates_to"] = {
                "rel_type": "m.thread", "event_id": thread, "is_falling_back": not reply_to,
                "m.in_reply_to": {"event_id": reply_to or fallback or thread}}
        resp = await self.client.room_send(room_id, "m.room.message", content,
                                           ignore_unverified_devices=True)
        assert isinstance(resp, RoomSendResponse), resp
        return resp.event_id

    async def react(self, room_id: str, event_id: str, key: str) -> str:
        resp = await self.client.room_send(room_id, "m.reaction", {"m.relates_to": {
            "rel_type": "m.annotation", "event_id": event_id, "key": key}},
            ignore_unverified_devices=True)
        assert isinstance(resp, RoomSendResponse), resp
        return resp.event_id

    async def create_room(self, invite: list[str], name: str | None = None,
                          direct: bool = False, encrypted: bool = False) -> str:
        initial = [{"type": "m.room.encryption", "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []
        resp = await self.client.room_create(name=name, invite=invite, is_direct=direct,
                                             initial_state=initial)
        assert isinstance(resp, RoomCreateResponse), resp
        return resp.room_id

    async def joined(self, room_id: str, user_id: str, timeout: float = WAIT) -> None:
        def probe() -> bool:
            room = self.client.rooms.get(room_id)
            return bool(room and user_id in room.users and user_id not in room.invited_users)
        await wait_for(probe, timeout, f"{user_id} to join {room_id}")


async def open_group(owner: Person, others: list[Person], name: str) -> str:
    """A group room of ``owner``, ``others`` and the bot, everybody in, the bot's greeting
    there."""
    group = await owner.create_room([owner.bot_id, *(p.user_id for p in others)], name=name)
    for p in others:
        await owner.joined(group, p.user_id)
    await owner.joined(group, owner.bot_id)
    await wait_for(lambda: owner.said(group, "Stammtisch"), WAIT, "the greeting")
    return group


async def start_group_game(owner: Person, others: list[Person], group: str,
                           game: str = "schwimmen") -> Msg:
    """``!new <game>`` by ``owner``, ``!mitmachen`` by the others, ``!starten``: the group's
    table message once a player is on turn."""
    await owner.say(group, f"!new {game}")
    table = await wait_for(lambda: owner.newest(group, lambda m: m.choice("Mitmachen")),
                           WAIT, "the lobby")
    for p in others:
        await p.say(group, "!mitmachen")
        await wait_for(lambda p=p: p.name in table.body, WAIT, f"{p.name} in the lobby")
    await owner.say(group, "!starten")
    await wait_for(lambda: "Am Zug:" in table.body, WAIT, "the game")
    return table


async def gather(*aws: Awaitable[Any]) -> list[Any]:
    return list(await asyncio.gather(*aws))
