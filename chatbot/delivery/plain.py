"""``OutboxStore``: one platform's outbox read and recorded by a single process (the console,
the benches, the Matrix bot): the due items, and the outcome of each delivery."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, update
from sqlalchemy import select as core_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.db import read_only, utcnow, write_lock
from storage.models import MessageSlot, Outbox

from .items import THREAD, Item, Permanent
from .rows import (
    DROP_ROWS,
    MAX_ATTEMPTS,
    OUTBOX,
    PENDING,
    PER_CHAT,
    SLOT,
    backoff,
    due,
    slot_effects,
    slot_row,
    slot_upsert,
    superseded,
    to_item,
)

_SENT = update(OUTBOX).where(OUTBOX.c.id == bindparam("row_id")).values(
    status="sent", sent_at=bindparam("sent_at"), message_id=bindparam("message_id"))


class OutboxStore:
    """Reads and updates outbox rows and message slots for one platform."""

    def __init__(self, engine: Engine, platform: str, clock=utcnow) -> None:  # type: ignore[no-untyped-def]
        self.engine, self.platform, self.clock = engine, platform, clock
        self._reader = read_only(engine)
        self.write_lock = write_lock(engine)
        self._opened: dict[tuple[str, str], str] = {}  # (chat, slot) → a thread it opened

    def pending(self, limit: int = 200, now: datetime | None = None) -> list[Item]:
        """Rows due now, oldest first, at most ``PER_CHAT`` of a chat (so one chat's backlog
        never holds the others back); older views of a slot are dropped for the newest."""
        now = now or self.clock()
        self._opened.clear()  # (the rows read now know the topics opened before)
        with self._reader.connect() as conn, conn.begin():
            rows, _waits = due(conn.execute(PENDING, {
                "platform": self.platform, "limit": limit, "per_chat": PER_CHAT}).all(), now)
        dropped = superseded(rows)
        if dropped:
            with self.write_lock, self.engine.begin() as conn:
                conn.execute(DROP_ROWS, {"ids": sorted(dropped)})
        return [to_item(r) for r in rows if r.id not in dropped]

    def message_moved(self, item: Item) -> None:
        """An action row meets the message its slot shows by the time it goes (a view before
        it in the same pass may have posted the slot anew); a row whose private topic was
        opened since it was read goes into it."""
        if item.topic and (item.chat, item.topic) in self._opened:
            item.goes_to(self._opened[(item.chat, item.topic)])
        if item.action and item.slot:
            with self._reader.connect() as conn:
                item.shows(conn.execute(core_select(SLOT.c.message_id).where(
                    SLOT.c.platform == self.platform, SLOT.c.chat_external_id == item.chat,
                    SLOT.c.slot == item.slot)).scalar())

    def done(self, item: Item, message_id: str | None) -> None:
        """Record a delivered item (and its slot's message)."""
        now = self.clock()
        with self.write_lock, self.engine.begin() as conn:
            found = conn.execute(_SENT, {"row_id": item.id, "sent_at": now,
                                         "message_id": message_id}).rowcount
            if found and item.action:
                slot_effects(conn, self.platform, item, None)
            if found and item.action == THREAD and item.slot and message_id is not None:
                self._opened[(item.chat, item.slot)] = message_id
            if found and item.slot and message_id is not None and item.action in (None, THREAD):
                conn.execute(slot_upsert(conn.dialect.name),
                             slot_row(self.platform, item, message_id, now))

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
                row.not_before = self.clock() + timedelta(
                    seconds=backoff(row.attempts, retry_after))
            session.add(row)

    def forget_slots(self, chat: str) -> None:
        """Forget which messages show the slots of a chat (its screen was cleared)."""
        with self.write_lock, Session(self.engine) as session, session.begin():
            for slot in session.exec(select(MessageSlot).where(
                    MessageSlot.platform == self.platform,
                    MessageSlot.chat_external_id == chat)).all():
                session.delete(slot)

    def next_due(self) -> datetime | None:
        """When the platform's next pending row is due (``None``: nothing pending)."""
        with Session(self._reader) as session:
            return session.exec(select(Outbox.not_before).where(
                Outbox.platform == self.platform, Outbox.status == "pending")
                .order_by(col(Outbox.not_before)).limit(1)).first()
