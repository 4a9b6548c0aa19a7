"""Delivering the outbox: pending views in order, slots edited in place, failures retried.

A platform adapter supplies ``send`` (post a new message, return its id), ``edit`` (change a
message; "not modified" counts as success) and ``delete``. This module decides what to do with
each row: superseded views of the same slot are dropped, unchanged ones are skipped, failed
ones are retried with backoff, and the slot's message id is remembered in the database.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.db import utcnow
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


class Transport(Protocol):
    def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str: ...
    def edit(self, chat: str, message_id: str, text: str, rows: list[list[list[str]]]) -> None: ...
    def delete(self, chat: str, message_id: str) -> None: ...


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _hash(text: str, rows: list) -> str:
    return hashlib.sha256((text + repr(rows)).encode()).hexdigest()[:32]


class OutboxStore:
    """Reads and updates outbox rows and message slots for one platform."""

    def __init__(self, engine: Engine, platform: str, clock=utcnow) -> None:
        self.engine, self.platform, self.clock = engine, platform, clock

    def pending(self, limit: int = 200, now: datetime | None = None) -> list[Item]:
        """Rows due now, oldest first; older views of a slot are dropped for the newest."""
        now = now or self.clock()
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            rows = list(session.exec(select(Outbox).where(
                Outbox.platform == self.platform, Outbox.status == "pending")
                .order_by(col(Outbox.id)).limit(limit)).all())
            waiting: set[str] = set()  # chats with an earlier row not due yet: keep order
            due_rows = []
            for r in rows:
                if r.chat_external_id in waiting:
                    continue
                if _aware(r.not_before) > now:
                    waiting.add(r.chat_external_id)
                    continue
                due_rows.append(r)
            rows = due_rows
            newest: dict[tuple[str, str], int] = {}
            for r in rows:
                if r.slot:
                    newest[(r.chat_external_id, r.slot)] = r.id  # type: ignore[assignment]
            items: list[Item] = []
            for r in rows:
                if r.slot and newest[(r.chat_external_id, r.slot)] != r.id:
                    r.status = "dropped"
                    session.add(r)
                    continue
                slot = None
                if r.slot:
                    slot = session.exec(select(MessageSlot).where(
                        MessageSlot.platform == self.platform,
                        MessageSlot.chat_external_id == r.chat_external_id,
                        MessageSlot.slot == r.slot)).first()
                h = _hash(r.text, r.buttons or [])
                items.append(Item(
                    id=r.id, chat=r.chat_external_id, slot=r.slot, repost=r.repost,  # type: ignore[arg-type]
                    text=r.text, rows=r.buttons or [],
                    message_id=slot.message_id if slot else None,
                    unchanged=bool(slot and slot.text_hash == h)))
            return items

    def done(self, item: Item, message_id: str | None) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(Outbox, item.id)
            if row is None:
                return
            row.status, row.sent_at = "sent", self.clock()
            session.add(row)
            if item.slot and message_id is not None:
                slot = session.exec(select(MessageSlot).where(
                    MessageSlot.platform == self.platform,
                    MessageSlot.chat_external_id == item.chat,
                    MessageSlot.slot == item.slot)).first()
                if slot is None:
                    slot = MessageSlot(platform=self.platform, chat_external_id=item.chat,
                                       slot=item.slot, message_id=message_id,
                                       updated_at=self.clock())
                slot.message_id = message_id
                slot.text_hash = _hash(item.text, item.rows)
                slot.updated_at = self.clock()
                session.add(slot)

    def failed(self, item: Item, error: str, retry_after: float | None) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(Outbox, item.id)
            if row is None:
                return
            row.attempts += 1
            row.error = error[:500]
            if retry_after is None or row.attempts >= MAX_ATTEMPTS:
                row.status = "failed"
            else:
                backoff = max(retry_after, min(30.0, float(row.attempts)))
                row.not_before = self.clock() + timedelta(seconds=backoff)
            session.add(row)

    def forget_slots(self, chat: str) -> None:
        """Forget which messages show the slots of a chat (its screen was cleared)."""
        with Session(self.engine) as session, session.begin():
            for slot in session.exec(select(MessageSlot).where(
                    MessageSlot.platform == self.platform,
                    MessageSlot.chat_external_id == chat)).all():
                session.delete(slot)

    def next_due(self) -> datetime | None:
        with Session(self.engine) as session:
            return session.exec(select(Outbox.not_before).where(
                Outbox.platform == self.platform, Outbox.status == "pending")
                .order_by(col(Outbox.not_before)).limit(1)).first()


def plan(item: Item) -> str:
    """What delivering an item takes: ``keep`` (nothing), ``send``, ``edit`` or ``repost``."""
    if item.slot is None or item.message_id is None:
        return "send"
    if item.unchanged:
        return "keep"
    return "repost" if item.repost else "edit"


def deliver(store: OutboxStore, item: Item, transport: Transport) -> None:
    """Deliver one item through a (blocking) transport, recording the outcome."""
    action = plan(item)
    try:
        message_id = item.message_id
        if action == "send":
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
        if action == "send":
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
            except Exception:  # the old message may be gone or too old to delete
                log.info("could not delete old message %s", item.message_id)
    except (Retry, Permanent) as exc:
        return None, exc
    return message_id, None


def record(store: OutboxStore, item: Item, message_id: str | None, error: Exception | None) -> None:
    """Store the outcome of ``deliver_async``."""
    if error is None:
        store.done(item, message_id)
    elif isinstance(error, Retry):
        store.failed(item, str(error), error.after)
    else:
        log.warning("outbox %s to %s given up: %s", item.id, item.chat, error)
        store.failed(item, str(error), None)


def _quietly(fn, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except Exception:  # the old message may be gone or too old to delete
        log.info("could not delete old message %s", args[-1])
