"""What the Matrix adapter reads and keeps in the database (never only in the process).

* ``key_value``: the sync token, the first start, rooms that were invited as direct chats.
* ``outbox`` + ``message_slot``: what a number or a reaction in a room presses — the buttons of
  the newest view delivered to that room, or of the view a message shows.
* ``chat``/``player``: a room's kind and language, a user's direct room.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.models import Chat, KeyValue, MessageSlot, Outbox, Player

PLATFORM = "matrix"
_RECENT = 50  # sent rows looked at to find the newest view of a room


def _key(*parts: str) -> str:
    """A key_value key of at most 128 characters (long ids are hashed)."""
    key = "matrix:" + ":".join(parts)
    if len(key) <= 128:
        return key
    return "matrix:h:" + hashlib.sha256(key.encode()).hexdigest()


class MatrixStore:
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
    def chat(self, room_id: str) -> tuple[str, str | None] | None:
        """(kind, language) of a room the service knows."""
        with Session(self.engine) as session:
            chat = session.exec(select(Chat).where(Chat.platform == PLATFORM,
                                                   Chat.external_id == room_id)).first()
            return (chat.kind, chat.language) if chat else None

    def private_chat(self, user_id: str) -> str | None:
        """The direct room the service sends this user's private views to."""
        with Session(self.engine) as session:
            player = session.exec(select(Player).where(Player.platform == PLATFORM,
                                                       Player.external_id == user_id)).first()
            return player.private_chat_id if player else None

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
    def newest_buttons(self, room_id: str) -> list[tuple[str, str]] | None:
        """The buttons of the newest view delivered to a room (``None``: no view yet).

        A view is a message with buttons or with a slot (a table or menu message); plain
        announcements in between do not hide the view above them.
        """
        with Session(self.engine) as session:
            rows = session.exec(select(Outbox).where(
                Outbox.platform == PLATFORM, Outbox.chat_external_id == room_id,
                Outbox.status == "sent").order_by(col(Outbox.id).desc()).limit(_RECENT)).all()
            for row in rows:
                if row.slot or row.buttons:
                    return _flat(row.buttons)
        return None

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


def _flat(buttons: Any) -> list[tuple[str, str]]:
    if isinstance(buttons, str):
        buttons = json.loads(buttons)
    return [(str(b[0]), str(b[1])) for row in buttons or [] for b in row]
