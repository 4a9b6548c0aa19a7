"""What the Matrix adapter reads and keeps in the database (never only in the process).

* ``key_value``: the sync token, the first start, rooms that were invited as direct chats.
* ``outbox`` + ``message_slot``: what a number or a reaction in a room presses — the buttons of
  the newest view delivered to that room, or of the view a message shows.
* ``chat``/``player``: a room's kind and language, a user's direct room.
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

from engine import GAMES
from storage.models import Chat, GameTable, KeyValue, MessageSlot, Outbox, Player, Seat

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


@dataclass(frozen=True)
class TableInfo:
    game: str
    fsm_state: str
    group: str | None  # the group room's name for a group table, else None
    on_turn: str | None  # the Matrix id of the person on turn, if a person is


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

    def table_info(self, table_id: int) -> TableInfo | None:
        """A table's game and state, its group's name, and who is on turn."""
        with Session(self.engine) as session:
            table = session.get(GameTable, table_id)
            if table is None:
                return None
            chat = session.get(Chat, table.chat_id)
            on_turn = None
            game = GAMES.get(table.game)
            if game is not None and table.state_json:
                seat_no = game.to_act(game.from_json(table.state_json))
                if seat_no is not None:
                    seat = session.exec(select(Seat).where(Seat.table_id == table_id,
                                                           Seat.seat_no == seat_no)).first()
                    person = session.get(Player, seat.player_id) \
                        if seat is not None and seat.player_id and not seat.is_cpu else None
                    on_turn = person.external_id if person is not None else None
            group = (chat.title or "") if chat is not None and chat.kind == "group" else None
            return TableInfo(table.game, table.fsm_state, group, on_turn)

    def running_group_table(self, user_id: str) -> tuple[int, str] | None:
        """A group game the person is seated at and that is not over: (table id, room)."""
        with Session(self.engine) as session:
            row = session.exec(
                select(GameTable.id, Chat.external_id)
                .join(Seat, col(Seat.table_id) == GameTable.id)
                .join(Player, col(Player.id) == Seat.player_id)
                .join(Chat, col(Chat.id) == GameTable.chat_id)
                .where(Player.platform == PLATFORM, Player.external_id == user_id,
                       col(GameTable.is_private).is_(False), Chat.kind == "group",
                       col(GameTable.fsm_state).not_in(("lobby", "finished", "abandoned")))
                .order_by(col(GameTable.id).desc())).first()
            return (int(row[0]), str(row[1])) if row else None

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

    def cpu_room(self, table_id: int, version: int) -> str | None:
        """The Matrix room of a table whose due deadline (at this version) is a CPU move or a
        move played for a person who ran out of time; ``None`` for any other deadline."""
        with Session(self.engine) as session:
            return session.exec(select(Chat.external_id).join(
                GameTable, col(GameTable.chat_id) == col(Chat.id)).where(
                GameTable.id == table_id, GameTable.version == version,
                col(GameTable.deadline_kind).in_(("cpu", "timeout")),
                Chat.platform == PLATFORM)).first()


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
                            row.table_id or _table_of(flat), flat))
    for row in session.exec(select(Outbox).where(
            *where, Outbox.status == "sent", col(Outbox.slot).is_(None))
            .order_by(col(Outbox.id).desc()).limit(_RECENT)).all():
        if row.buttons:
            flat = _flat(row.buttons)
            out.append(LiveView(row.id or 0, row.message_id, None,
                                row.table_id or _table_of(flat), flat))
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
