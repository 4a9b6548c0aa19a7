"""A chat that takes another id: a Telegram basic group upgraded to a supergroup (Telegram
sends ``migrate_to_chat_id`` into the old chat and ``migrate_from_chat_id`` into the new one,
and refuses every call naming the old id from then on).

Everything the old id names moves to the new one, once, whichever of the two service messages
comes first and however often each comes: the chat's row takes the new id (its tables,
evenings, Deckel, stats, settings and members keep pointing at it); if a message in the new
chat made a row for it already, the younger of the two rows is merged into the older (its
references moved; where both have one — a member seen in both, a setting — the older row's
kept) and goes. The
messages of the old chat cannot be edited under the new id, so the slots that point at them
are forgotten and the open tables' views are posted anew in the new chat; views still pending
for the old id go to the new one. A later call finds the old id gone and only moves what was
queued for it meanwhile (the outbox sender calls it when Telegram answers ``ChatMigrated``).

Which rows name a chat is read from the schema, not listed here: every column with a foreign
key to ``chat.id``, and every column called ``chat_id`` (``stat_entry``'s has no key).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import Column, PrimaryKeyConstraint, Table, UniqueConstraint, delete, exists, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col, select

import fsm
from storage.models import Chat, GameTable, MessageSlot, Outbox

from ..core import languages, play
from ..core.registry import Parts
from ..core.transaction import Ctx

log = logging.getLogger(__name__)
HOOK = "chat.moved"  # rooms that keep something to post anew: ``(ctx, chat)`` after a move
_CHAT: Table = Chat.__table__  # type: ignore[attr-defined]
_OUTBOX: Table = Outbox.__table__  # type: ignore[attr-defined]
_SLOT: Table = MessageSlot.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Moved:
    """What a move did: whether the chat's row moved now (``False``: it had moved before, or
    the service never knew the chat), whether a row of the new id was merged into it, the
    pending outbox rows sent on to the new id and the open tables shown anew there."""

    chat_moved: bool
    merged: bool = False
    outbox_rows: int = 0
    tables: tuple[int, ...] = ()


def chat_columns() -> list[Column]:
    """Every column of the schema that names a chat by its row id."""
    out = []
    for table in SQLModel.metadata.sorted_tables:
        if table is _CHAT:
            continue
        for column in table.columns:
            if column.name == "chat_id" or any(fk.references(_CHAT)
                                               for fk in column.foreign_keys):
                out.append(column)
    return out


def _unique_sets(column: Column) -> list[list[Column]]:
    """The column sets of ``column``'s table that must be unique and include it."""
    table = column.table
    sets = [list(c.columns) for c in table.constraints
            if isinstance(c, PrimaryKeyConstraint | UniqueConstraint)
            and c.columns.contains_column(column)]
    sets += [list(ix.columns) for ix in table.indexes
             if ix.unique and ix.columns.contains_column(column)]
    if column.unique:
        sets.append([column])
    return sets


def merge_rows(session: Session, keep: int, gone: int) -> None:
    """Point every row that names chat row ``gone`` at ``keep``; a row that would then repeat
    one of ``keep``'s (the same member, the same day's post, a second setting) is dropped."""
    for column in chat_columns():
        table = column.table
        for unique in _unique_sets(column):
            twin = table.alias()
            same = [twin.c[c.name] == table.c[c.name] for c in unique if c is not column]
            session.execute(delete(table).where(
                column == gone, exists().where(twin.c[column.name] == keep, *same)))
        session.execute(update(table).where(column == gone).values({column.name: keep}))


def _outbox_on(session: Session, platform: str, old: str, new: str) -> int:
    """The views and messages still pending for the old id go to the new one (a message they
    answered stays behind)."""
    moved = session.execute(update(_OUTBOX).where(
        _OUTBOX.c.platform == platform, _OUTBOX.c.chat_external_id == old,
        _OUTBOX.c.status == "pending").values(chat_external_id=new, reply_to=None))
    return moved.rowcount or 0  # type: ignore[attr-defined]


def _forget_slots(session: Session, platform: str, old: str) -> None:
    """The old chat's messages cannot be edited under the new id: their slots go (the next
    view of each is posted anew)."""
    session.execute(delete(_SLOT).where(_SLOT.c.platform == platform,
                                        _SLOT.c.chat_external_id == old))


def _locked(session: Session, platform: str, ids: tuple[str, str]) -> dict[str, Chat]:
    """The chat rows of both ids that exist, locked in the order of their row ids."""
    rows = session.exec(select(Chat).where(
        Chat.platform == platform, col(Chat.external_id).in_(ids))
        .order_by(col(Chat.id)).with_for_update()).all()
    return {row.external_id: row for row in rows}


def _move(parts: Parts, session: Session, platform: str, old: str, new: str,
          title: str | None) -> tuple[Moved, Ctx | None]:
    chats = _locked(session, platform, (old, new))
    chat, twin = chats.get(old), chats.get(new)
    if chat is None:  # moved before, or never known: only what was queued meanwhile
        rows = _outbox_on(session, platform, old, new)
        _forget_slots(session, platform, old)
        return Moved(False, outbox_rows=rows), None
    if twin is not None:  # a message in the new chat came first: the older row stays
        chat, twin = (chat, twin) if chat.id < twin.id else (twin, chat)  # type: ignore[operator]
        merge_rows(session, keep=chat.id, gone=twin.id)  # type: ignore[arg-type]
        chat.language = chat.language or twin.language
        session.delete(twin)
        session.flush()  # (gone before the kept row takes the new id)
    chat.external_id, chat.kind = new, "group"
    if title:
        chat.title = title[:256]
    session.flush()
    rows = _outbox_on(session, platform, old, new)
    _forget_slots(session, platform, old)
    ctx = parts.ctx(session, platform, languages.language_of(chat, parts.settings, session))
    tables = session.exec(select(GameTable).where(
        GameTable.chat_id == chat.id, col(GameTable.fsm_state).in_(fsm.OPEN),
        col(GameTable.is_private).is_(False)).order_by(col(GameTable.id))).all()
    for table in tables:
        play.show(ctx, table)
    for hook in parts.registry.hooks(HOOK):
        hook(ctx, chat)
    return Moved(True, twin is not None, rows, tuple(t.id for t in tables)), ctx  # type: ignore[misc]


def move_chat(parts: Parts, platform: str, old: str, new: str,
              title: str | None = None) -> Moved:
    """Move everything ``old`` names to ``new`` (see the module's text); safe to call again."""
    if not old or not new or old == new:
        return Moved(False)
    for attempt in range(2):
        try:
            with parts.tx.tx() as session:
                moved, ctx = _move(parts, session, platform, old, new, title)
        except IntegrityError:  # an input made the new chat's row meanwhile: merge it
            if attempt:
                raise
            continue
        if moved.chat_moved or moved.outbox_rows:
            log.info("%s chat %s moved to %s: %s", platform, old, new, moved)
        parts.notify(ctx)
        return moved
    raise AssertionError("unreachable")
