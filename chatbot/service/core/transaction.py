"""One input's transaction: a SQLModel session that holds the table lock, the rows the input
queues for insertion (outbox, move log, results), and the update-id check that makes a
repeated update change nothing.

Inside ``Service.press_many`` several inputs share one database transaction, each in a
SAVEPOINT of its own (the session joins the batch's connection with
``join_transaction_mode="create_savepoint"``, as SQLAlchemy documents for external
transactions): a refused or failing input changes nothing, the others still count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import Insert, bindparam, insert, inspect, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, SQLModel

from storage.db import read_only, write_lock
from storage.models import GameTable, ProcessedUpdate

from .api import Settings

if TYPE_CHECKING:
    from .cpu import Decisions
    from .events import Event
    from .registry import Registry

_QUEUED = "stammtisch_queued"  # Session.info key: rows to insert before commit, per model
_TOUCHED = "stammtisch_touched"  # Session.info key: the tables the input changed, by id
_LAST = "stammtisch_last"  # Session.info key: rows to insert after the queued ones, per model
# Told to every process on PostgreSQL when (and only if) the transaction commits: the live
# pages of the Mini App (chatbot/webapp/live.py) listen on this channel.
_NOTIFY = text("SELECT pg_notify('stammtisch_tables', :ids)")
_NOTIFY_IDS = 500  # table ids per notification (a payload stays far below 8000 bytes)


@dataclass
class Ctx:
    """One input being handled: its session, language, time and the tables it changed."""

    session: Session
    platform: str
    lang: str
    now: datetime
    settings: Settings
    decisions: Decisions
    registry: Registry  # the features: their events, hooks and deadlines
    touched: dict[int, GameTable] = field(default_factory=dict)
    # tables left waiting for a CPU that thinks against a clock: it thinks during its visible
    # delay once the input has committed (``ahead``)
    think_ahead: set[int] = field(default_factory=set)
    chained: int = 0  # CPU moves played on in this input (see ``play.chain``)
    # the language of each chat's messages, resolved once per input (``outgoing.language``)
    langs: dict[tuple[str, str], str] = field(default_factory=dict)
    # where the input was written: its chat's external id and topic or thread (answers in
    # that chat go to that topic; a table's messages go to the table's own)
    input_chat: str | None = None
    thread: str | None = None
    thread_name: str | None = None  # that topic's or thread's name, if the adapter knows it
    # the input's message as an answer names it (``"<id>"`` or ``"<thread root> <id>"``): a
    # command's answers in its chat reply to it (``outgoing.say``); ``None``: no reply
    answer_to: str | None = None
    # what a button's ``think`` thought before the input's transaction, outside it (a ⏩
    # skip's play-out, the coach's advice); ``None``: nothing was (the handler thinks itself)
    plan: Any = None

    def publish(self, event: Event) -> None:
        """Tell the features what happened (``events``), inside this transaction."""
        self.registry.bus.publish(self, event)

    def touch(self, table: GameTable) -> None:
        self.touched[table.id] = table  # type: ignore[index]
        self.session.info.setdefault(_TOUCHED, {})[table.id] = table

    def coalesce_views(self, model: type[SQLModel]) -> None:
        """Of the queued rows of ``model`` (the outbox) keep, per chat and slot, only the
        newest view (a run of many moves in one input shows its end, not every step)."""
        queued = self.session.info.get(_QUEUED, {}).get(model)
        if not queued:
            return
        newest = {(r["chat_external_id"], r["slot"]): i for i, r in enumerate(queued)
                  if r.get("slot") and not r.get("action")}
        queued[:] = [r for i, r in enumerate(queued) if not r.get("slot") or r.get("action")
                     or newest[(r["chat_external_id"], r["slot"])] == i]

    def queued(self, model: type[SQLModel]) -> list[dict[str, Any]]:
        """The rows of ``model`` queued so far in this input (not yet inserted)."""
        return list(self.session.info.get(_QUEUED, {}).get(model, []))

    def drop_queued(self, model: type[SQLModel], drop: Callable[[dict[str, Any]], bool]) -> int:
        """Take back the rows of ``model`` queued in this input that ``drop`` picks (they are
        not inserted: e.g. the views of a chat about to be forgotten). Returns how many."""
        queued = self.session.info.get(_QUEUED, {}).get(model)
        if not queued:
            return 0
        kept = [r for r in queued if not drop(r)]
        dropped = len(queued) - len(kept)
        queued[:] = kept
        return dropped

    def queue(self, model: type[SQLModel], row: dict[str, Any]) -> None:
        """Insert a row (outbox, move log, result) with the input's other rows of its kind
        at commit: one bulk INSERT per model, in the order they were queued."""
        self.session.info.setdefault(_QUEUED, {}).setdefault(model, []).append(row)

    def queue_last(self, model: type[SQLModel], row: dict[str, Any]) -> None:
        """``queue``, but after every row of its kind this input queues, also later ones
        (an outbox row that leaves a chat once its last view went out)."""
        self.session.info.setdefault(_LAST, {}).setdefault(model, []).append(row)


def _write_tables(session: Session, tables: Iterable[GameTable]) -> None:
    """Write the changed table rows with a Core ``UPDATE`` of the changed columns (the ones
    the ORM would write: set, and with a changed value in their history) and take them out of the
    session (``Session.expunge``), so that the unit of work has nothing to do for them at
    the commit: for one row it costs several times the statement it ends up sending."""
    for table in tables:
        state = inspect(table)
        if state.session is not session or not state.modified or state.key is None:
            continue
        unmodified, attrs = state.unmodified, state.attrs
        values = {key: getattr(table, key) for key in _TABLE_COLUMNS
                  if key not in unmodified and attrs[key].history.has_changes()}
        if values:
            session.connection().execute(_UPDATE_TABLE, {"b_id": table.id, **values})
        session.expunge(table)


def _write_queued(session: Session) -> None:
    """Write the changed tables (``_write_tables``), then insert the queued rows: a Core
    ``INSERT`` per table on the session's connection with all its rows (executemany;
    SQLAlchemy's compiled cache keeps the statement); the ORM flushes its own changes at
    the commit; on PostgreSQL then notify the changed tables."""
    queued = session.info.pop(_QUEUED, None)
    for model, rows in session.info.pop(_LAST, {}).items():
        queued = queued or {}
        queued.setdefault(model, []).extend(rows)
    touched = session.info.pop(_TOUCHED, None)
    if touched:
        _write_tables(session, touched.values())
    if queued:
        conn = session.connection()
        for model, rows in queued.items():
            if rows:  # (all of a model's rows may have been taken back: ``drop_queued``)
                conn.execute(_insert(model), rows)
    if touched and session.get_bind().dialect.name == "postgresql":
        ids = sorted(touched)
        conn = session.connection()
        for i in range(0, len(ids), _NOTIFY_IDS):
            conn.execute(_NOTIFY, {"ids": ",".join(map(str, ids[i:i + _NOTIFY_IDS]))})


_TABLE = GameTable.__table__  # type: ignore[attr-defined]
_TABLE_COLUMNS = tuple(c.key for c in _TABLE.c if c.key != "id")
_UPDATE_TABLE = update(_TABLE).where(_TABLE.c.id == bindparam("b_id"))  # SET: the values given


@cache
def _insert(model: type[SQLModel]) -> Insert:
    return insert(model.__table__)  # type: ignore[attr-defined]


@dataclass
class _Batch:
    """Inputs sharing one transaction (``Service.press_many``)."""

    conn: Connection
    touched: dict[int, GameTable] = field(default_factory=dict)  # told after the commit
    think_ahead: set[int] = field(default_factory=set)  # (``Ctx.think_ahead``)


class Transactions:
    """Opens the inputs' transactions on one engine (on SQLite one writer at a time)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.reader = read_only(engine)
        self.write_lock = write_lock(engine)
        self._local = threading.local()  # .batch: the ``_Batch`` this thread's inputs join
        seen = sqlite_insert if engine.dialect.name == "sqlite" else pg_insert
        table = ProcessedUpdate.__table__  # type: ignore[attr-defined]
        self._seen = seen(table).on_conflict_do_nothing(
            index_elements=["platform", "update_key"]).returning(table.c.id)

    @contextmanager
    def tx(self) -> Iterator[Session]:
        """One input's transaction: commits on success (queued rows inserted first), rolls
        back on any exception. Inside a batch it is a savepoint of the batch's transaction."""
        batch: _Batch | None = getattr(self._local, "batch", None)
        if batch is not None:
            with Session(bind=batch.conn, join_transaction_mode="create_savepoint",
                         expire_on_commit=False) as session, session.begin():
                yield session
                _write_queued(session)
            return
        with self.write_lock, Session(self.engine, expire_on_commit=False) as session, \
                session.begin():
            yield session
            _write_queued(session)

    def read(self) -> Session:
        """A read-only session (on SQLite a deferred transaction: it takes no write lock)."""
        return Session(self.reader, expire_on_commit=False)

    @property
    def batch(self) -> _Batch | None:
        return getattr(self._local, "batch", None)

    @contextmanager
    def batched(self) -> Iterator[_Batch]:
        """One transaction for the inputs this thread runs meanwhile (committed at the end)."""
        with self.write_lock, self.engine.connect() as conn, conn.begin():
            batch = self._local.batch = _Batch(conn)
            try:
                yield batch
            finally:
                self._local.batch = None

    def seen(self, session: Session, platform: str, update_key: str | None,
             now: datetime) -> bool:
        """Record an update id; ``True`` if it was handled before (one statement:
        ``INSERT … ON CONFLICT DO NOTHING RETURNING id``)."""
        if not update_key:
            return False
        row = session.connection().execute(self._seen, {
            "platform": platform, "update_key": update_key, "at": now}).first()
        return row is None
