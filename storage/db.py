"""Database engines, sessions and migrations.

SQLite in a local file by default (WAL, ``BEGIN IMMEDIATE`` for every transaction, busy
timeout); PostgreSQL when ``DATABASE_URL`` says so (rows locked with ``SELECT … FOR UPDATE``).
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

DEFAULT_URL = "sqlite:///stammtisch.db"
log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 10_000
READ_ONLY = "stammtisch_read_only"  # execution option: a transaction that only reads


def utcnow() -> datetime:
    """Now as an aware UTC datetime (the schema stores aware times)."""
    return datetime.now(UTC)


def aware(when: datetime) -> datetime:
    """A time read back without its zone (SQLite keeps none) as the UTC time it was stored as."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def database_url(url: str | None = None) -> str:
    """The URL to use: the argument, else ``DATABASE_URL``, else a SQLite file here."""
    raw = url or os.environ.get("DATABASE_URL") or DEFAULT_URL
    # Accept the common short forms and use psycopg 3 for PostgreSQL.
    if raw.startswith("postgres://"):
        raw = "postgresql://" + raw[len("postgres://"):]
    if raw.startswith("postgresql://"):
        raw = "postgresql+psycopg://" + raw[len("postgresql://"):]
    return raw


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def make_engine(url: str | None = None, *, echo: bool = False) -> Engine:
    """An engine for the URL; SQLite gets WAL, a busy timeout and ``BEGIN IMMEDIATE``."""
    resolved = database_url(url)
    parsed = make_url(resolved)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            resolved, echo=echo,
            connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            if engine in _QUIET_WRITERS:  # a background thread checkpoints instead
                cur.execute("PRAGMA wal_autocheckpoint=0")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
            # Readers (``read_only``) take a snapshot without the write lock.
            read = conn.get_execution_options().get(READ_ONLY, False)
            # (the pysqlite recipe of SQLAlchemy's SQLite dialect documentation)
            conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")

        return engine
    return create_engine(resolved, echo=echo, pool_pre_ping=True, pool_size=5, max_overflow=10)


def read_only(engine: Engine) -> Engine:
    """The engine for transactions that only read: on SQLite they begin deferred (``BEGIN``)
    and so never wait for, or block, a writer; elsewhere it is the same engine."""
    return engine.execution_options(**{READ_ONLY: True}) if is_sqlite(engine) else engine


_QUIET_WRITERS: weakref.WeakSet[Engine] = weakref.WeakSet()
_CHECKPOINTERS: weakref.WeakKeyDictionary[Engine, threading.Event] = weakref.WeakKeyDictionary()


def stop_background_checkpoints(engine: Engine) -> None:
    """Stop the engine's checkpoint thread, if it has one (its connections stay quiet)."""
    stop = _CHECKPOINTERS.pop(engine, None)
    if stop is not None:
        stop.set()


def checkpoint_in_background(engine: Engine, every: float = 1.0,
                             restart_frames: int = 16_384) -> threading.Event:
    """SQLite: take WAL checkpoints off the writers' path. By default the commit that fills
    the WAL copies it into the database file and syncs it, which now and then makes one input
    take tens of milliseconds (on an event loop, every input behind it waits too). Here the
    engine's connections stop checkpointing by themselves and a daemon thread runs a PASSIVE
    checkpoint (it never waits for readers or writers) every ``every`` seconds. Should the WAL
    still grow past ``restart_frames`` pages (writers never pausing long enough for a passive
    checkpoint to catch up), one checkpoint is taken holding the writers' lock, which lets
    SQLite start the WAL over. Call it before the engine's first connection (connections
    opened earlier keep checkpointing by themselves, which is harmless). Returns the event that
    stops the thread. Other databases: nothing to do."""
    stop = threading.Event()
    if not is_sqlite(engine):
        return stop
    _QUIET_WRITERS.add(engine)
    _CHECKPOINTERS[engine] = stop

    def checkpoint() -> int:
        # outside any transaction: on the DBAPI connection (``Engine.raw_connection``)
        conn = engine.raw_connection()
        try:
            cur = conn.cursor()
            busy, frames, done = cur.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            cur.close()
        finally:
            conn.close()
        return int(frames)

    def run() -> None:
        while not stop.wait(every):
            try:
                if checkpoint() > restart_frames:
                    with write_lock(engine):
                        checkpoint()
            except Exception:  # a busy or closed database: the next round tries again
                log.warning("WAL checkpoint failed", exc_info=True)

    threading.Thread(target=run, name="sqlite-checkpoint", daemon=True).start()
    return stop


_WRITE_LOCKS: weakref.WeakKeyDictionary[object, threading.Lock] = weakref.WeakKeyDictionary()
_WRITE_LOCKS_GUARD = threading.Lock()


def write_lock(engine: Engine) -> AbstractContextManager[object]:
    """Hold this around a write transaction. SQLite admits one writer at a time and makes the
    others poll with growing sleeps (up to 100 ms each); the threads of one process queue on
    this lock instead and start the moment it is free. Other databases: no lock."""
    if not is_sqlite(engine):
        return nullcontext()
    with _WRITE_LOCKS_GUARD:
        lock = _WRITE_LOCKS.get(engine.pool)
        if lock is None:
            lock = _WRITE_LOCKS[engine.pool] = threading.Lock()
    return lock


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: commits on success, rolls back on error."""
    with write_lock(engine), Session(engine, expire_on_commit=False) as session, \
            session.begin():
        yield session


def migrate(engine_or_url: Engine | str | None = None) -> None:
    """Bring the schema to the newest Alembic revision (the app calls this on start)."""
    from alembic import command
    from alembic.config import Config

    here = Path(__file__).resolve().parent
    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    if isinstance(engine_or_url, Engine):
        engine = engine_or_url
    else:
        engine = make_engine(engine_or_url if isinstance(engine_or_url, str) else None)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # processes starting together migrate in turn
            from .leader import lock_key

            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                         {"key": lock_key("stammtisch:migrate")})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
