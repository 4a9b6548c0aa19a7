"""The Matrix adapter: a matrix-nio client whose room events become service calls.

* Rooms are chats (``ChatRef.external_id`` = room id): a direct room with exactly the bot and one
  person is ``private``, every other room a ``group``. Users are their Matrix ids.
* Text: ``!commands`` (German and English), a number presses that button of the newest view in
  the room, a reaction on a view message presses the button it stands for.
* Private views go to the player's direct room (the bot opens one when a group player has
  none); hidden cards never go to a group room.
* A restart neither replays nor misses events: the sync token is stored in the database after
  each handled batch, every event id is handled once (the service's processed updates), gaps
  in a room's timeline are back-filled, and history from before the bot joined is ignored.
* The outbox (the service's views) and the deadlines live in the database; a sender task
  delivers the one, a timer task fires the other (and sweeps for overdue ones).
* As people expect of a participant: a display name and avatar, read receipts for what the
  bot handled, a typing notice while a CPU thinks, and the direct rooms it opens listed in its
  ``m.direct`` account data (``profile.py``, ``rooms.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nio import (
    AsyncClient,
    MegolmEvent,
    MessageDirection,
    ReactionEvent,
    RoomMemberEvent,
    RoomMessagesResponse,
    RoomMessageText,
    SyncResponse,
)
from nio.crypto import ENCRYPTION_ENABLED
from sqlalchemy.exc import OperationalError

from ..delivery import OutboxStore
from ..i18n import tr
from ..runtime.config import Config
from ..runtime.heap import freeze_startup_heap
from ..service import Change, Service
from .inputs import InputsMixin
from .login import LoginMixin, private_store  # noqa: F401  (private_store: kept importable here)
from .memory import PLATFORM, MatrixMemory
from .profile import ProfileMixin
from .rooms import RoomsMixin
from .sender import _NETWORK, MatrixSender, MatrixTransport
from .timers import Deadlines

log = logging.getLogger(__name__)
THINKING_AT_ONCE = 8  # presses waiting at once for the coach's or a skip's thinking
SWEEP_SECONDS = 2.0
SYNC_TIMEOUT_MS = 30_000
UNDECRYPTED_KEEP_SECONDS = 60.0  # how long an event that cannot be decrypted is retried
UNDECRYPTED_TELL_SECONDS = 600.0  # at most one "could not decrypt" notice per room this often
_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])[♣♠♥♦]")


@dataclass
class _Undecrypted:
    room_id: str
    event: MegolmEvent
    since: float


class MatrixBot(LoginMixin, InputsMixin, RoomsMixin, ProfileMixin):
    """One bot account on one homeserver, wired into the service."""

    def __init__(self, cfg: Config, service: Service) -> None:
        if not cfg.matrix_homeserver:
            raise SystemExit("MATRIX_HOMESERVER is not set")
        if not cfg.matrix_access_token and not (cfg.matrix_user and cfg.matrix_password):
            raise SystemExit("set MATRIX_USER and MATRIX_PASSWORD, or MATRIX_ACCESS_TOKEN")
        self.e2e = bool(cfg.matrix_encryption and ENCRYPTION_ENABLED)
        if self.e2e and (not cfg.matrix_store_key or cfg.matrix_store_key == "DEFAULT_KEY"):
            raise SystemExit("set MATRIX_STORE_KEY: the key the device's encryption keys are "
                             "stored with (e.g. `openssl rand -hex 32`; keep it with the store)")
        self.cfg, self.service = cfg, service
        self.memory = MatrixMemory(service.engine)
        self.outbox = OutboxStore(service.engine, PLATFORM, clock=service.clock)
        self.store_path = Path(cfg.matrix_store_path)
        self.client: AsyncClient | None = None
        self.user_id = ""
        self.sender: MatrixSender | None = None
        self.deadlines = Deadlines(service, thinking=self._cpu_thinks)
        # presses that think first (the coach, ⏩) wait for it here, not in asyncio's default
        # pool that the sweeps and the rest share (the thinking itself: the service's pool)
        self.thinkers = ThreadPoolExecutor(THINKING_AT_ONCE, thread_name_prefix="stammtisch-think")
        self.direct_lock = asyncio.Lock()  # one change of the m.direct account data at a time
        self.loop: asyncio.AbstractEventLoop | None = None
        self.first_start_ms = 0
        self.undecrypted: list[_Undecrypted] = []
        self.undecrypted_told: dict[str, float] = {}  # room → when it was told (monotonic)
        self._stop = asyncio.Event()
        service.listeners.append(self._on_commit)

    # ------------------------------------------------------------------ lifecycle
    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        backoff = 1.0
        while True:  # the homeserver may not be up yet
            try:
                await self.login()
                break
            except _NETWORK as exc:
                log.warning("homeserver not reachable (%r); retrying in %.0fs", exc, backoff)
                if self.client is not None:
                    await self.client.close()
                    self.client = None
                await self._sleep(backoff)
                if self._stop.is_set():
                    return
                backoff = min(30.0, backoff * 2)
        assert self.client is not None
        install = await asyncio.to_thread(self.memory.get, "install")
        if install is None:
            install = os.urandom(4).hex()
            await asyncio.to_thread(self.memory.put, install, "install")
        transport = MatrixTransport(self.client, install, on_forbidden=self._forbidden,
                                    reactions=self.cfg.matrix_reactions)
        self.sender = MatrixSender(self.outbox, transport, self.cfg.matrix_send_interval)
        self.sender.start()
        self.deadlines.start()
        freeze_startup_heap()
        try:
            await self._set_profile()
            await self._sync_loop()
        finally:
            await self.sender.stop()
            await self.deadlines.stop()
            await self.client.close()
            self.thinkers.shutdown(wait=False, cancel_futures=True)
            log.info("matrix bot stopped")

    def stop(self) -> None:
        self._stop.set()

    def _on_commit(self, changes: list[Change]) -> None:
        """Called on a worker thread after each commit: wake the sender, arm deadlines."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if self.sender is not None:
            loop.call_soon_threadsafe(self.sender.wake.set)
        if changes:
            loop.call_soon_threadsafe(self.deadlines.arm, changes)

    def _forbidden(self, room_id: str) -> None:
        """We may no longer write to a room: private views go elsewhere (or nowhere)."""
        self.service.forget_private_chat(PLATFORM, room_id)

    # ------------------------------------------------------------------ syncing
    def _filter(self) -> dict[str, Any]:
        return {"room": {"timeline": {"limit": max(1, self.cfg.matrix_sync_limit)},
                         "state": {"lazy_load_members": False}},
                "presence": {"not_types": ["*"]}}

    async def _sync_loop(self) -> None:
        assert self.client is not None and self.sender is not None
        token = await asyncio.to_thread(self.memory.get, self.user_id, "next_batch")
        first = await asyncio.to_thread(self.memory.get, self.user_id, "first_start")
        if first is None:
            first = str(int(time.time() * 1000))
            await asyncio.to_thread(self.memory.put, first, self.user_id, "first_start")
        self.first_start_ms = int(first)
        full_state, backoff, failures = True, 1.0, 0
        while not self._stop.is_set():
            sync = asyncio.ensure_future(self.client.sync(
                timeout=0 if full_state else SYNC_TIMEOUT_MS, since=token,
                full_state=full_state or None, sync_filter=self._filter()))
            stopper = asyncio.ensure_future(self._stop.wait())
            done, _ = await asyncio.wait({sync, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if sync not in done:
                sync.cancel()
                with contextlib.suppress(BaseException):
                    await sync
                break
            stopper.cancel()
            try:
                resp = sync.result()
            except _NETWORK as exc:
                log.warning("sync failed (%r); retrying in %.0fs", exc, backoff)
                await self._sleep(backoff)
                backoff = min(30.0, backoff * 2)
                continue
            if not isinstance(resp, SyncResponse):
                if getattr(resp, "status_code", None) == "M_UNKNOWN_TOKEN":
                    with contextlib.suppress(OSError):
                        self._credentials_file().unlink()
                    raise SystemExit("the homeserver no longer accepts the bot's access token; "
                                     "start it again to log in anew")
                after = (getattr(resp, "retry_after_ms", None) or 0) / 1000
                log.warning("sync refused: %s; retrying", resp)
                await self._sleep(max(after, backoff))
                backoff = min(30.0, backoff * 2)
                continue
            backoff = 1.0
            await self._crypto_housekeeping()
            if full_state:
                # The rooms are known now: deliver what the last run left in the outbox before
                # reading new input, so that a reply refers to the view that is on screen.
                self.sender.ready.set()
                await self._drain()
            try:
                if token is None:
                    # The very first sync of this bot: what is there is history. Accept invites.
                    await self._handle_invites(resp)
                    log.info("first sync: history before the bot's start is ignored")
                else:
                    await self._handle(resp, token)
            except Exception as exc:
                # Not stored: the same batch comes again (events handled already are skipped
                # by their ids). A batch that keeps failing is given up after a few tries.
                failures += 1
                if failures < 5:
                    log.warning("handling a sync failed (%r); fetching it again", exc)
                    await self._sleep(backoff)
                    backoff = min(30.0, backoff * 2)
                    continue
                log.exception("handling a sync failed %d times; going on", failures)
            failures = 0
            token = resp.next_batch
            await asyncio.to_thread(self.memory.put, token, self.user_id, "next_batch")
            if full_state:
                full_state = False
                log.info("matrix bot %s ready", self.user_id)

    async def _drain(self, timeout: float = 15.0) -> None:
        assert self.sender is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stop.is_set():
            if not await asyncio.to_thread(self.memory.rooms_with_due_views):
                return
            self.sender.wake.set()
            await asyncio.sleep(0.05)
        log.warning("outbox not drained after %.0fs; going on", timeout)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)

    async def _crypto_housekeeping(self) -> None:
        client = self.client
        if not self.e2e or client is None:
            return
        try:
            if client.should_upload_keys:
                await client.keys_upload()
            if client.should_query_keys:
                await client.keys_query()
            if client.should_claim_keys:
                await client.keys_claim(client.get_users_for_key_claiming())
            await client.send_to_device_messages()
        except _NETWORK as exc:
            log.warning("key exchange failed: %r", exc)

    # ------------------------------------------------------------------ a sync batch
    async def _handle(self, resp: SyncResponse, since: str) -> None:
        await self._handle_invites(resp)
        for room_id, info in resp.rooms.join.items():
            events = list(info.timeline.events)
            if (info.timeline.limited and info.timeline.prev_batch
                    and self._own_join_index(events) is None):
                events = await self._backfill(room_id, info.timeline.prev_batch, since) + events
            joined_at = self._own_join_index(events)
            if joined_at is not None:
                # Newly joined: what comes before our join is the room's history.
                events = events[joined_at + 1:]
                await self._greet(room_id)
            read = None
            for event in events:
                try:
                    if await self._on_event(room_id, event):
                        read = event.event_id
                except (OperationalError, *_NETWORK):
                    raise  # passing trouble: the whole batch is fetched again
                except Exception:
                    log.exception("event %s in %s failed", getattr(event, "event_id", "?"),
                                  room_id)
            if read is not None:
                await self._receipt(room_id, read)
        for room_id in resp.rooms.leave:
            log.info("left room %s", room_id)
            await asyncio.to_thread(self.service.forget_private_chat, PLATFORM, room_id)
        await self._retry_undecrypted()

    def _own_join_index(self, events: list[Any]) -> int | None:
        for i, event in enumerate(events):
            if (isinstance(event, RoomMemberEvent) and event.state_key == self.user_id
                    and event.membership == "join" and event.prev_membership != "join"):
                return i
        return None

    async def _backfill(self, room_id: str, prev_batch: str, since: str) -> list[Any]:
        """A gap in the timeline (more events than one sync returns): fetch what is between
        the last sync and this one, oldest first."""
        assert self.client is not None
        found: list[Any] = []
        start = prev_batch
        for _ in range(20):
            resp = await self.client.room_messages(room_id, start=start, end=since,
                                                   direction=MessageDirection.back, limit=100)
            if not isinstance(resp, RoomMessagesResponse) or not resp.chunk:
                break
            found.extend(resp.chunk)
            if not resp.end or resp.end == start:
                break
            start = resp.end
        found.reverse()
        decrypted = []
        for event in found:
            if isinstance(event, MegolmEvent):
                with contextlib.suppress(Exception):
                    event = self.client.decrypt_event(event)
            decrypted.append(event)
        log.info("back-filled %d events in %s", len(decrypted), room_id)
        return decrypted

    # ------------------------------------------------------------------ one event
    async def _on_event(self, room_id: str, event: Any) -> bool:
        """Handle one event of a room; ``True`` when it was a person's input (text or a
        reaction) that the bot handled: its read receipt follows."""
        sender = getattr(event, "sender", None)
        if sender is None or sender == self.user_id:
            return False  # our own echo
        if getattr(event, "server_timestamp", 0) and event.server_timestamp < self.first_start_ms:
            return False  # older than the bot
        if isinstance(event, RoomMemberEvent):
            await self._on_member(room_id, event)
            return False
        if isinstance(event, MegolmEvent):
            log.warning("event %s in %s: cannot decrypt yet (session %s)", event.event_id,
                        room_id, event.session_id)
            self.undecrypted.append(_Undecrypted(room_id, event, time.monotonic()))
            with contextlib.suppress(Exception):
                await self.client.request_room_key(event)  # type: ignore[union-attr]
            return False
        if isinstance(event, ReactionEvent):
            log.info("event %s in %s from %s: reaction", event.event_id, room_id, sender)
            await self._on_reaction(room_id, event)
            return True
        if isinstance(event, RoomMessageText):
            relates = (event.source.get("content") or {}).get("m.relates_to") or {}
            if relates.get("rel_type") == "m.replace":  # "13" corrected to "3"
                log.info("event %s in %s from %s: edit", event.event_id, room_id, sender)
                await self._on_edit(room_id, event)
                return True
            log.info("event %s in %s from %s: text", event.event_id, room_id, sender)
            started = time.monotonic()
            await self._on_text(room_id, event)
            log.debug("event %s handled in %.0f ms", event.event_id,
                      (time.monotonic() - started) * 1000)
            return True
        return False

    async def _retry_undecrypted(self, now: float | None = None) -> None:
        """Try the events that could not be decrypted again; after a minute give up on them,
        and tell each room so once (``now``: monotonic time, the present unless given)."""
        if not self.undecrypted or self.client is None:
            return
        now = time.monotonic() if now is None else now
        keep: list[_Undecrypted] = []
        given_up: dict[str, str] = {}  # room → a sender of an event given up there
        for item in self.undecrypted:
            try:
                event = self.client.decrypt_event(item.event)
            except Exception:
                event = None
            if event is not None and not isinstance(event, MegolmEvent):
                event.room_id = item.room_id
                log.info("event %s decrypted late", item.event.event_id)
                if await self._on_event(item.room_id, event):
                    await self._receipt(item.room_id, event.event_id)
            elif now - item.since < UNDECRYPTED_KEEP_SECONDS:
                keep.append(item)
            else:
                log.warning("event %s in %s: gave up decrypting", item.event.event_id,
                            item.room_id)
                given_up.setdefault(item.room_id, item.event.sender)
        self.undecrypted = keep
        self.undecrypted_told = {room: at for room, at in self.undecrypted_told.items()
                                 if now - at < UNDECRYPTED_TELL_SECONDS}
        for room_id, sender in given_up.items():
            if room_id in self.undecrypted_told:
                continue  # (told a moment ago: "some of your messages" covers these)
            self.undecrypted_told[room_id] = now
            chat_ref, _user = await self._refs(room_id, sender)
            await self._say(chat_ref, tr(await self._lang(room_id), "mx.undecryptable"))
