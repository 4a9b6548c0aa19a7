"""The outbox and message-slot tables as delivery reads and writes them: the one pending query,
the one row → ``Item`` mapping, which rows are due and which views are superseded, the one
backoff, and the statements that keep a slot pointed at its message."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Select, String, and_, bindparam, case, cast, delete, func, literal, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from storage.db import aware
from storage.models import MessageSlot, Outbox

from .items import THREAD, TOPIC, Item, Permanent, content_hash

MAX_ATTEMPTS = 60  # with growing backoff: about half an hour of failures before giving up
PER_CHAT = 20  # rows of one chat a pass looks at: a flooded chat never hides the others
OUTBOX = Outbox.__table__  # type: ignore[attr-defined]
SLOT = MessageSlot.__table__  # type: ignore[attr-defined]
TOPIC_SLOT = SLOT.alias("topic")  # a table's private topic in the row's chat (``pt<table>``)


def backoff(tries: int, retry_after: float) -> float:
    """Seconds before the next try of a row that failed ``tries`` times: a second more per
    try up to 30, and at least what the platform asked for (a 429's ``retry_after``)."""
    return max(retry_after, min(30.0, float(tries)))


def _pending(of_chats: bool) -> Select:
    """The oldest pending rows of a platform (``of_chats``: of the chats given), at most
    ``per_chat`` of each chat, in order, with the message that shows each one's slot now and
    the private topic of its table in its chat, if one was opened (``topic``)."""
    ranked = core_select(
        OUTBOX.c.id, OUTBOX.c.chat_external_id, OUTBOX.c.slot, OUTBOX.c.repost,
        OUTBOX.c.fresh, OUTBOX.c.text, OUTBOX.c.buttons, OUTBOX.c.not_before, OUTBOX.c.action,
        OUTBOX.c.reply_to, OUTBOX.c.thread, OUTBOX.c.table_id,
        func.row_number().over(partition_by=OUTBOX.c.chat_external_id,
                               order_by=OUTBOX.c.id).label("place"),
    ).where(OUTBOX.c.platform == bindparam("platform"), OUTBOX.c.status == "pending")
    if of_chats:
        ranked = ranked.where(OUTBOX.c.chat_external_id.in_(bindparam("chats", expanding=True)))
    queue = ranked.subquery()
    query = (core_select(*(c for c in queue.c if c.name != "place"),
                         SLOT.c.message_id, SLOT.c.text_hash,
                         TOPIC_SLOT.c.message_id.label("topic"))
             .select_from(queue.outerjoin(SLOT, and_(
                 SLOT.c.platform == bindparam("platform"),
                 SLOT.c.chat_external_id == queue.c.chat_external_id,
                 SLOT.c.slot == queue.c.slot)).outerjoin(TOPIC_SLOT, and_(
                 TOPIC_SLOT.c.platform == bindparam("platform"),
                 TOPIC_SLOT.c.chat_external_id == queue.c.chat_external_id,
                 TOPIC_SLOT.c.slot == literal(TOPIC) + cast(queue.c.table_id, String))))
             .where(queue.c.place <= bindparam("per_chat")).order_by(queue.c.id))
    return query if of_chats else query.limit(bindparam("limit"))


PENDING = _pending(of_chats=False)  # params: platform, per_chat, limit
PENDING_OF_CHATS = _pending(of_chats=True)  # params: platform, per_chat, chats


def to_item(r: Any) -> Item:
    """An item from a row of the pending query."""
    buttons = r.buttons or []
    digest = content_hash(r.text, buttons) if r.slot else None
    message_id = r.message_id if r.slot else None
    topic = f"{TOPIC}{r.table_id}" if r.table_id is not None and r.thread is None \
        and r.topic is None and r.action != THREAD else None  # (opened in this pass, maybe)
    return Item(id=r.id, chat=r.chat_external_id, slot=r.slot, repost=r.repost, fresh=r.fresh,
                text=r.text, rows=buttons, message_id=message_id,
                unchanged=bool(r.slot and message_id is not None and r.text_hash == digest),
                text_hash=digest, action=r.action, reply_to=r.reply_to,
                thread=r.thread or r.topic, topic=topic)


def due(rows: Iterable[Any], now: datetime) -> tuple[list[Any], list[float]]:
    """The rows due now, in order; a chat's row not due yet holds its later rows back (order
    kept). Also the seconds until each held-back chat's first row is due."""
    held: set[str] = set()
    out: list[Any] = []
    waits: list[float] = []
    for r in rows:
        if r.chat_external_id in held:
            continue
        if aware(r.not_before) > now:
            waits.append((aware(r.not_before) - now).total_seconds())
            held.add(r.chat_external_id)
            continue
        out.append(r)
    return out, waits


def superseded(rows: Iterable[Any]) -> set[int]:
    """Ids of views replaced by a newer view of the same slot among ``rows`` (action rows
    neither supersede views nor are superseded)."""
    rows = [r for r in rows if r.slot and not r.action]
    newest = {(r.chat_external_id, r.slot): r.id for r in rows}
    return {r.id for r in rows if newest[(r.chat_external_id, r.slot)] != r.id}


DROP_ROWS = update(OUTBOX).where(OUTBOX.c.id.in_(bindparam("ids", expanding=True)),
                                  OUTBOX.c.status == "pending").values(status="dropped")
_SLOT_UPSERT: dict[str, Any] = {}
_FORGET_SLOT = delete(SLOT).where(
    SLOT.c.platform == bindparam("s_platform"), SLOT.c.chat_external_id == bindparam("s_chat"),
    SLOT.c.slot == bindparam("s_slot"), SLOT.c.message_id == bindparam("s_message_id"))
_PIN_REFUSED = update(SLOT).where(
    SLOT.c.platform == bindparam("s_platform"), SLOT.c.chat_external_id == bindparam("s_chat"),
    SLOT.c.slot == bindparam("s_slot")).values(pinned=False)


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
        base = ins(SLOT).values(platform=bindparam("platform"), chat_external_id=bindparam("chat"),
                                slot=bindparam("slot"), message_id=bindparam("message_id"),
                                text_hash=bindparam("text_hash"),
                                updated_at=bindparam("updated_at"))
        stmt = base.on_conflict_do_update(
            index_elements=["platform", "chat_external_id", "slot"],
            set_={"message_id": base.excluded.message_id, "text_hash": base.excluded.text_hash,
                  "updated_at": base.excluded.updated_at,
                  # a new message is not pinned (the old one's pin went with it)
                  "pinned": case((SLOT.c.message_id == base.excluded.message_id,
                                  SLOT.c.pinned), else_=None)})
        _SLOT_UPSERT[dialect] = stmt
    return stmt


def slot_row(platform: str, item: Item, message_id: str, now: datetime) -> dict[str, Any]:
    """The parameters of ``slot_upsert`` for a view delivered as ``message_id``."""
    return {"platform": platform, "chat": item.chat, "slot": item.slot,
            "message_id": message_id,
            "text_hash": item.text_hash or content_hash(item.text, item.rows),
            "updated_at": now}
