"""What the Matrix adapter reads and keeps in the database (never only in the process).

* ``key_value``: the sync token, the first start, rooms that were invited as direct chats.
* ``outbox`` + ``message_slot``: what a number or a reaction in a room presses — the buttons of
  the newest view delivered to that room, or of the view a message shows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.models import KeyValue, MessageSlot, Outbox

from ..buttons import BadButton, decode

PLATFORM = "matrix"
_RECENT = 50  # sent rows looked at to find the newest view of a room


def _key(*parts: str) -> str:
    """A key_value key of at most 128 characters (long ids are hashed)."""
    key = "matrix:" + ":".join(parts)
    if len(key) <= 128:
        return key
    return "matrix:h:" + hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class LiveView:
    """A message in a room that offers choices now."""

    position: int  # where it stands in the room (the outbox row that first posted it)
    message_id: str | None
    slot: str | None
    table_id: int | None
    buttons: list[tuple[str, str]]
    thread: str | None = None  # the thread it stands in (its root), if any


class MatrixMemory:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ key/value
    def get(self, *parts: str) -> str | None:
        with Session(self.engine) as session:
            row = session.get(KeyValue, _key(*parts))
            return row.value if row else None

    def put(self, value: str, *parts: str) -> None:
        with Session(self.engine) as session, session.begin():
            key = _key(*parts)
            row = session.get(KeyValue, key)
            if row is None:
                session.add(KeyValue(key=key, value=value))
            else:
                row.value = value
                session.add(row)

    def delete(self, *parts: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(KeyValue, _key(*parts))
            if row is not None:
                session.delete(row)

    # ------------------------------------------------------------------ chats and players
    def rooms_with_due_views(self) -> set[str]:
        """Rooms with outbox rows due now (after a restart: views that may be on screen
        already, sent just before the process ended, but not recorded as sent)."""
        from storage.db import utcnow

        with Session(self.engine) as session:
            rows = session.exec(select(Outbox.chat_external_id).where(
                Outbox.platform == PLATFORM, Outbox.status == "pending",
                Outbox.not_before <= utcnow())).all()
            return set(rows)

    # ------------------------------------------------------------------ what a reply presses
    def newest_buttons(self, room_id: str,
                       thread: str | None = None) -> list[tuple[str, str]] | None:
        """The buttons of the newest view delivered to a room, in ``thread`` or outside any
        (``None``: no view yet).

        A view is a message with buttons or with a slot (a table or menu message); plain
        announcements in between do not hide the view above them.
        """
        with Session(self.engine) as session:
            rows = session.exec(select(Outbox).where(
                Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id,
                Outbox.status == "sent", col(Outbox.thread).is_not_distinct_from(thread))
                .order_by(col(Outbox.id).desc()).limit(_RECENT)).all()
            for row in rows:
                if row.slot or row.buttons:
                    return _flat(row.buttons)
        return None

    def live_views(self, room_id: str) -> list[LiveView]:
        """The messages of a room that offer choices now, the lowest on screen first."""
        with Session(self.engine) as session:
            return _live_views(session, room_id)

    def is_ours(self, room_id: str, event_id: str) -> bool:
        """Whether a message of the room was posted by the bot (a view, an answer)."""
        with Session(self.engine) as session:
            return session.exec(select(Outbox.id).where(
                Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id,
                Outbox.message_id == event_id).limit(1)).first() is not None or \
                session.exec(select(MessageSlot.id).where(
                    MessageSlot.platform == PLATFORM, MessageSlot.chat_external_id == room_id,
                    MessageSlot.message_id == event_id)).first() is not None

    def thread_of(self, room_id: str, event_id: str) -> str | None:
        """The thread a message of the bot stands in (its root), ``None`` outside any."""
        with Session(self.engine) as session:
            return session.exec(select(Outbox.thread).where(
                Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id,
                Outbox.message_id == event_id).limit(1)).first()

    def message_buttons(self, room_id: str, event_id: str) -> list[tuple[str, str]] | None:
        """The buttons a message currently shows (via its slot), ``None`` if it shows none."""
        with Session(self.engine) as session:
            slot = session.exec(select(MessageSlot).where(
                MessageSlot.platform == PLATFORM, MessageSlot.chat_external_id == room_id,
                MessageSlot.message_id == event_id)).first()
            if slot is None:
                return None
            row = session.exec(select(Outbox).where(
                Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id,
                Outbox.slot == slot.slot, Outbox.status == "sent")
                .order_by(col(Outbox.id).desc()).limit(1)).first()
            return _flat(row.buttons) if row else None


def _live_views(session: Session, room_id: str) -> list[LiveView]:
    """The messages of a room that offer choices now, the lowest on screen first: each slot's
    message with its newest view (edits do not move a message), and the newest plain
    messages with choices."""
    out: list[LiveView] = []
    where = (Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id)
    for slot in session.exec(select(MessageSlot).where(
            MessageSlot.platform == PLATFORM, MessageSlot.chat_external_id == room_id)).all():
        row = session.exec(select(Outbox).where(*where, Outbox.slot == slot.slot,
                                                Outbox.status == "sent")
                           .order_by(col(Outbox.id).desc()).limit(1)).first()
        if row is None or not row.buttons or row.message_id != slot.message_id:
            continue  # (shows no choices, or its message is not the one on screen)
        first = session.exec(select(func.min(Outbox.id)).where(
            *where, Outbox.message_id == slot.message_id)).one()
        flat = _flat(row.buttons)
        out.append(LiveView(first or 0, slot.message_id, slot.slot,
                            row.table_id or _table_of(flat), flat, row.thread))
    for row in session.exec(select(Outbox).where(
            *where, Outbox.status == "sent", col(Outbox.slot).is_(None))
            .order_by(col(Outbox.id).desc()).limit(_RECENT)).all():
        if row.buttons:
            flat = _flat(row.buttons)
            out.append(LiveView(row.id or 0, row.message_id, None,
                                row.table_id or _table_of(flat), flat, row.thread))
    return sorted(out, key=lambda v: v.position, reverse=True)


def _table_of(buttons: list[tuple[str, str]]) -> int | None:
    """The table a view's buttons belong to (table 0 is a menu)."""
    for _label, data in buttons:
        with contextlib.suppress(BadButton):
            if (table_id := decode(data).table_id) != 0:
                return table_id
    return None


def _flat(buttons: Any) -> list[tuple[str, str]]:
    if isinstance(buttons, str):
        buttons = json.loads(buttons)
    return [(str(b[0]), str(b[1])) for row in buttons or [] for b in row]
