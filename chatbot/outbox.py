"""Delivering the outbox: pending views in order, slots edited in place, failures retried.

A platform adapter supplies ``send`` (post a new message, return its id), ``edit`` (change a
message; "not modified" counts as success) and ``delete``. This module decides what to do with
each row: superseded views of the same slot are dropped, unchanged ones are skipped, failed
ones are retried with backoff, and the slot's message id is remembered in the database.

A row with an ``action`` shows no view but acts on its slot's message: ``delete`` it (a turn
reminder once the turn is played; the slot is forgotten), ``pin`` it (``pinned`` in the slot
row: ``False`` once the platform refused) or ``unpin`` it. A transport without ``pin``/``unpin``
(Matrix, the console) refuses pinning. Action rows neither supersede a slot's views nor are
superseded by them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import bindparam, case, delete, func, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.db import aware, read_only, utcnow, write_lock
from storage.models import MessageSlot, Outbox

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 60  # with growing backoff: about half an hour of failures before giving up


class MessageGone(Exception):
    """The message to edit no longer exists: post the view anew."""


class Permanent(Exception):
    """Delivery can never succeed (e.g. the user blocked the bot): give the row up."""


class Retry(Exception):
    """Try again later (rate limit, network, server error)."""

    def __init__(self, after: float = 1.0, reason: str = "") -> None:
        super().__init__(reason or f"retry after {after}s")
        self.after = after


@dataclass
class Item:
    """One outbox row as the transport sees it."""

    id: int
    chat: str
    slot: str | None
    repost: bool
    text: str
    rows: list[list[list[str]]]
    message_id: str | None  # the slot's current message, if any
    unchanged: bool
    text_hash: str | None = None  # of text and rows, for slot items (computed once)
    fresh: bool = False  # post anew at the bottom even if unchanged (a command's answer)
    action: str | None = None  # delete | pin | unpin the slot's message (no view)
    reply_to: str | None = None  # the message it answers ("<id>" or "<thread root> <id>")


class Transport(Protocol):
    def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str: ...
    def edit(self, chat: str, message_id: str, text: str, rows: list[list[list[str]]]) -> None: ...
    def delete(self, chat: str, message_id: str) -> None: ...


ACTIONS = ("delete", "pin", "unpin")


class CannotPin(Permanent):
    """The bot may not pin messages in this chat (or the platform has no pins)."""


def content_hash(text: str, rows: list) -> str:
    return hashlib.sha256((text + repr(rows)).encode()).hexdigest()[:32]


OUTBOX = Outbox.__table__  # type: ignore[attr-defined]
_SLOT = MessageSlot.__table__  # type: ignore[attr-defined]
PER_CHAT = 20  # rows of one chat a pass looks at: a flooded chat never hides the others
# The oldest pending rows, at most PER_CHAT of each chat (in order within a chat).
_QUEUE = core_select(
    OUTBOX.c.id, OUTBOX.c.chat_external_id, OUTBOX.c.slot, OUTBOX.c.repost,
    OUTBOX.c.fresh, OUTBOX.c.text, OUTBOX.c.buttons, OUTBOX.c.not_before, OUTBOX.c.action,
    OUTBOX.c.reply_to,
    func.row_number().over(partition_by=OUTBOX.c.chat_external_id,
                           order_by=OUTBOX.c.id).label("place"),
).where(OUTBOX.c.platform == bindparam("platform"), OUTBOX.c.status == "pending").subquery()
_PENDING = (core_select(_QUEUE.c.id, _QUEUE.c.chat_external_id, _QUEUE.c.slot, _QUEUE.c.repost,
                        _QUEUE.c.fresh,
                        _QUEUE.c.text, _QUEUE.c.buttons, _QUEUE.c.not_before,
                        _QUEUE.c.action, _QUEUE.c.reply_to)
            .where(_QUEUE.c.place <= bindparam("per_chat"))
            .order_by(_QUEUE.c.id).limit(bindparam("limit")))
_SLOTS = core_select(_SLOT.c.chat_external_id, _SLOT.c.slot, _SLOT.c.message_id,
                _SLOT.c.text_hash).where(
    _SLOT.c.platform == bindparam("platform"),
    _SLOT.c.chat_external_id.in_(bindparam("chats", expanding=True)))
DROP_ROWS = update(OUTBOX).where(OUTBOX.c.id.in_(bindparam("ids", expanding=True)),
                                  OUTBOX.c.status == "pending").values(status="dropped")
_SENT = update(OUTBOX).where(OUTBOX.c.id == bindparam("row_id")).values(
    status="sent", sent_at=bindparam("sent_at"), message_id=bindparam("message_id"))
_SLOT_UPSERT: dict[str, Any] = {}
_FORGET_SLOT = delete(_SLOT).where(
    _SLOT.c.platform == bindparam("s_platform"), _SLOT.c.chat_external_id == bindparam("s_chat"),
    _SLOT.c.slot == bindparam("s_slot"), _SLOT.c.message_id == bindparam("s_message_id"))
_PIN_REFUSED = update(_SLOT).where(
    _SLOT.c.platform == bindparam("s_platform"), _SLOT.c.chat_external_id == bindparam("s_chat"),
    _SLOT.c.slot == bindparam("s_slot")).values(pinned=False)


def slot_effects(conn: Any, platform: str, item: Item, error: Exception | None) -> None:
    """What an action row's outcome changes in its slot: a deleted message (or one that could
    not be deleted for good) is forgotten; a refused pin is remembered."""
    if item.action == "delete" and item.message_id is not None \
            and (error is None or isinstance(error, Permanent)):
        conn.execute(_FORGET_SLOT, {"s_platform": platform, "s_chat": item.chat,
                                    "s_slot": item.slot, "s_message_id": item.message_id})
    elif item.action == "pin" and isinstance(error, Permanent):
        conn.execute(_PIN_REFUSED, {"s_platform": platform, "s_chat": item.chat,
                                    "s_slot": item.slot})


def slot_upsert(dialect: str) -> Any:
    """Insert a slot's message, or point the existing slot at it (one statement)."""
    stmt = _SLOT_UPSERT.get(dialect)
    if stmt is None:
        ins = sqlite_insert if dialect == "sqlite" else pg_insert
        base = ins(_SLOT).values(platform=bindparam("platform"), chat_external_id=bindparam("chat"),
                                 slot=bindparam("slot"), message_id=bindparam("message_id"),
                                 text_hash=bindparam("text_hash"),
                                 updated_at=bindparam("updated_at"))
        stmt = base.on_conflict_do_update(
            index_elements=["platform", "chat_external_id", "slot"],
            set_={"message_id": base.excluded.message_id, "text_hash": base.excluded.text_hash,
                  "updated_at": base.excluded.updated_at,
                  # a new message is not pinned (the old one's pin went with it)
                  "pinned": case((_SLOT.c.message_id == base.excluded.message_id,
                                  _SLOT.c.pinned), else_=None)})
        _SLOT_UPSERT[dialect] = stmt
    return stmt


class OutboxStore:
    """Reads and updates outbox rows and message slots for one platform."""

    def __init__(self, engine: Engine, platform: str, clock=utcnow) -> None:
        self.engine, self.platform, self.clock = engine, platform, clock
        self._reader = read_only(engine)
        self.write_lock = write_lock(engine)

    def pending(self, limit: int = 200, now: datetime | None = None) -> list[Item]:
        """Rows due now, oldest first, at most ``PER_CHAT`` of a chat (so one chat's backlog
        never holds the others back); older views of a slot are dropped for the newest."""
        now = now or self.clock()
        with self._reader.connect() as conn, conn.begin():
            rows = conn.execute(_PENDING, {"platform": self.platform, "limit": limit,
                                           "per_chat": PER_CHAT}).all()
            waiting: set[str] = set()  # chats with an earlier row not due yet: keep order
            due_rows = []
            for r in rows:
                if r.chat_external_id in waiting:
                    continue
                if aware(r.not_before) > now:
                    waiting.add(r.chat_external_id)
                    continue
                due_rows.append(r)
            newest: dict[tuple[str, str], int] = {}
            for r in due_rows:
                if r.slot and not r.action:
                    newest[(r.chat_external_id, r.slot)] = r.id
            slots: dict[tuple[str, str], Any] = {}
            if any(r.slot for r in due_rows):
                chats = sorted({r.chat_external_id for r in due_rows if r.slot})
                for s in conn.execute(_SLOTS, {"platform": self.platform, "chats": chats}):
                    slots[(s.chat_external_id, s.slot)] = s
        items: list[Item] = []
        dropped: list[int] = []
        for r in due_rows:
            if r.slot and not r.action and newest[(r.chat_external_id, r.slot)] != r.id:
                dropped.append(r.id)
                continue
            slot = slots.get((r.chat_external_id, r.slot)) if r.slot else None
            buttons = r.buttons or []
            digest = content_hash(r.text, buttons) if r.slot else None
            items.append(Item(
                id=r.id, chat=r.chat_external_id, slot=r.slot, repost=r.repost, fresh=r.fresh,
                text=r.text, rows=buttons,
                message_id=slot.message_id if slot else None,
                unchanged=bool(slot and slot.text_hash == digest), text_hash=digest,
                action=r.action, reply_to=r.reply_to))
        if dropped:
            with self.write_lock, self.engine.begin() as conn:
                conn.execute(DROP_ROWS, {"ids": dropped})
        return items

    def done(self, item: Item, message_id: str | None) -> None:
        self.done_many([(item, message_id)])

    def message_moved(self, item: Item) -> None:
        """An action row meets the message its slot shows by the time it goes (a view before
        it in the same pass may have posted the slot anew)."""
        if item.action and item.slot:
            with self._reader.connect() as conn:
                found = conn.execute(core_select(_SLOT.c.message_id).where(
                    _SLOT.c.platform == self.platform, _SLOT.c.chat_external_id == item.chat,
                    _SLOT.c.slot == item.slot)).scalar()
            item.message_id = found

    def done_many(self, delivered: list[tuple[Item, str | None]]) -> None:
        """Record delivered items (and their slots' messages) in one transaction."""
        if not delivered:
            return
        now = self.clock()
        with self.write_lock, self.engine.begin() as conn:
            upsert = slot_upsert(conn.dialect.name)
            for item, message_id in delivered:
                found = conn.execute(_SENT, {"row_id": item.id, "sent_at": now,
                                             "message_id": message_id}).rowcount
                if found and item.action:
                    slot_effects(conn, self.platform, item, None)
                if not found or not item.slot or message_id is None or item.action:
                    continue
                conn.execute(upsert, {
                    "platform": self.platform, "chat": item.chat, "slot": item.slot,
                    "message_id": message_id, "text_hash": item.text_hash or content_hash(item.text, item.rows),
                    "updated_at": now})

    def failed(self, item: Item, error: str, retry_after: float | None,
               status: str = "failed") -> None:
        """A delivery that did not work: tried again later (``retry_after``), or given up
        with ``status`` ("dropped" for what does not apply here, e.g. a pin where the bot may
        not pin)."""
        with self.write_lock, Session(self.engine) as session, session.begin():
            row = session.get(Outbox, item.id)
            if row is None:
                return
            row.attempts += 1
            row.error = error[:500]
            if retry_after is None or row.attempts >= MAX_ATTEMPTS:
                row.status = status
                if item.action:
                    slot_effects(session.connection(), self.platform, item, Permanent(error))
            else:
                backoff = max(retry_after, min(30.0, float(row.attempts)))
                row.not_before = self.clock() + timedelta(seconds=backoff)
            session.add(row)

    def forget_slots(self, chat: str) -> None:
        """Forget which messages show the slots of a chat (its screen was cleared)."""
        with self.write_lock, Session(self.engine) as session, session.begin():
            for slot in session.exec(select(MessageSlot).where(
                    MessageSlot.platform == self.platform,
                    MessageSlot.chat_external_id == chat)).all():
                session.delete(slot)

    def sent_since(self, since: datetime) -> list[tuple[str, datetime]]:
        """(chat, when) of the rows delivered since then (rate limits across restarts)."""
        with Session(self._reader) as session:
            rows = session.exec(select(Outbox.chat_external_id, Outbox.sent_at).where(
                Outbox.platform == self.platform, Outbox.status == "sent",
                col(Outbox.sent_at) >= since)).all()
        return [(chat, aware(at)) for chat, at in rows if at is not None]

    def next_due(self) -> datetime | None:
        with Session(self._reader) as session:
            return session.exec(select(Outbox.not_before).where(
                Outbox.platform == self.platform, Outbox.status == "pending")
                .order_by(col(Outbox.not_before)).limit(1)).first()


def plan(item: Item) -> str:
    """What delivering an item takes: ``keep`` (nothing), ``send``, ``edit`` or ``repost``;
    or its action (``delete``, ``pin``, ``unpin``; ``keep`` when the slot shows nothing)."""
    if item.action:
        return item.action if item.message_id is not None else "keep"
    if item.slot is None or item.message_id is None:
        return "send"
    if item.fresh:
        return "repost"
    if item.unchanged:
        return "keep"
    return "repost" if item.repost else "edit"


def deliver(store: OutboxStore, item: Item, transport: Transport) -> None:
    """Deliver one item through a (blocking) transport, recording the outcome."""
    store.message_moved(item)
    action = plan(item)
    try:
        message_id = item.message_id
        if action in ACTIONS:
            _act(transport, action, item)
        elif action == "send":
            message_id = transport.send(item.chat, item.text, item.rows)
        elif action == "edit":
            try:
                transport.edit(item.chat, item.message_id, item.text, item.rows)  # type: ignore[arg-type]
            except MessageGone:
                message_id = transport.send(item.chat, item.text, item.rows)
        elif action == "repost":
            message_id = transport.send(item.chat, item.text, item.rows)
            _quietly(transport.delete, item.chat, item.message_id)
    except Retry as exc:
        store.failed(item, str(exc), exc.after)
        return
    except Permanent as exc:
        log.warning("outbox %s to %s given up: %s", item.id, item.chat, exc)
        store.failed(item, str(exc), None)
        return
    store.done(item, message_id)


class AsyncTransport(Protocol):
    async def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str: ...
    async def edit(self, chat: str, message_id: str, text: str,
                   rows: list[list[list[str]]]) -> None: ...
    async def delete(self, chat: str, message_id: str) -> None: ...


async def deliver_async(item: Item, transport: AsyncTransport) -> tuple[str | None, Exception | None]:
    """Deliver one item through an async transport; returns (message id, error).

    The caller records the outcome with ``OutboxStore.done``/``failed`` (off the event loop).
    """
    action = plan(item)
    message_id = item.message_id
    try:
        if action in ACTIONS:
            result = _act(transport, action, item)
            if result is not None:
                await result
        elif action == "send":
            message_id = await transport.send(item.chat, item.text, item.rows)
        elif action == "edit":
            try:
                await transport.edit(item.chat, item.message_id, item.text, item.rows)  # type: ignore[arg-type]
            except MessageGone:
                message_id = await transport.send(item.chat, item.text, item.rows)
        elif action == "repost":
            message_id = await transport.send(item.chat, item.text, item.rows)
            try:
                await transport.delete(item.chat, item.message_id)  # type: ignore[arg-type]
            except Retry as exc:  # rate limit or network: the old copy goes a little later
                _later(_delete_later(transport, item.chat, item.message_id, exc.after))  # type: ignore[arg-type]
            except Exception:  # the old message may be gone or too old to delete
                log.info("could not delete old message %s", item.message_id)
    except (Retry, Permanent) as exc:
        return None, exc
    return message_id, None


class SlotMessages:
    """The messages a pass's deliveries put in slots so far: an action row after a view of
    its slot in the same pass acts on the message that view left (the claim read the older)."""

    def __init__(self) -> None:
        self._now: dict[tuple[str, str], str] = {}

    def before(self, item: Item) -> None:
        if item.action and item.slot and (item.chat, item.slot) in self._now:
            item.message_id = self._now[(item.chat, item.slot)]

    def after(self, item: Item, message_id: str | None, error: Exception | None) -> None:
        if error is None and item.slot and not item.action and message_id is not None:
            self._now[(item.chat, item.slot)] = message_id


def _act(transport: Any, action: str, item: Item) -> Any:
    """Call the transport for an action row (a coroutine with an async transport)."""
    call = getattr(transport, action, None)
    if call is None:  # a platform without pins
        raise CannotPin(f"{action}: not supported")
    return call(item.chat, item.message_id)


DELETE_ATTEMPTS = 3  # retries of deleting a reposted view's old copy
_BACKGROUND: set[asyncio.Task] = set()


def _later(coro: Any) -> None:
    task = asyncio.get_running_loop().create_task(coro)
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _delete_later(transport: AsyncTransport, chat: str, message_id: str,
                        after: float) -> None:
    """Delete the old copy of a reposted view after a failed try (its buttons are refused as
    stale meanwhile, so this is tidiness, not safety; a restart forgets it)."""
    for _ in range(DELETE_ATTEMPTS):
        await asyncio.sleep(min(max(after, 0.0), 30.0))
        try:
            await transport.delete(chat, message_id)
            return
        except Retry as exc:
            after = exc.after
        except Exception:
            return
    log.info("gave up deleting old message %s in %s", message_id, chat)


def record(store: OutboxStore, item: Item, message_id: str | None, error: Exception | None) -> None:
    """Store the outcome of ``deliver_async``."""
    if error is None:
        store.done(item, message_id)
    elif isinstance(error, Retry):
        store.failed(item, str(error), error.after)
    elif isinstance(error, CannotPin):  # not possible here: nothing was lost
        store.failed(item, str(error), None, status="dropped")
    else:
        log.warning("outbox %s to %s given up: %s", item.id, item.chat, error)
        store.failed(item, str(error), None)


def record_all(store: OutboxStore,
               outcomes: list[tuple[Item, str | None, Exception | None]]) -> None:
    """Store the outcomes of several ``deliver_async`` calls (successes in one transaction)."""
    store.done_many([(item, message_id) for item, message_id, error in outcomes
                     if error is None])
    for item, message_id, error in outcomes:
        if error is not None:
            record(store, item, message_id, error)


def _quietly(fn, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except Exception:  # the old message may be gone or too old to delete
        log.info("could not delete old message %s", args[-1])
