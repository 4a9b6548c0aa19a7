"""Storage: migrations, schema = models, SQLite locking, PostgreSQL row locks, constraints, URLs."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, select

import storage.models  # noqa: F401  (registers the tables)
from chatbot.service import Service
from chatbot.service.core.records import lock_table
from storage.db import DEFAULT_URL, database_url, make_engine, migrate, transaction, utcnow
from storage.models import Chat, GameTable, KeyValue, Move, ProcessedUpdate

TABLES = {"chat", "player", "game_table", "seat", "move", "result", "processed_update",
          "outbox", "message_slot", "key_value"}
MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"


def head_revision() -> str:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@pytest.fixture
def empty_url(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database with no schema at all, on SQLite or PostgreSQL."""
    if db_kind == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    return request.getfixturevalue("empty_pg_url")


def _chat_and_table(session: Session) -> GameTable:
    now = utcnow()
    chat = Chat(platform="test", external_id="c1", created_at=now)
    session.add(chat)
    session.flush()
    table = GameTable(chat_id=chat.id, game="schwimmen", seed=1, created_at=now, updated_at=now)
    session.add(table)
    session.flush()
    return table


# ---------------------------------------------------------------------------------- migrations


def test_migrations_run_on_an_empty_database_and_are_idempotent(empty_url: str) -> None:
    engine = make_engine(empty_url)
    try:
        assert not TABLES & set(sa.inspect(engine).get_table_names())
        migrate(engine)
        assert set(sa.inspect(engine).get_table_names()) >= TABLES
        assert current_revision(engine) == head_revision()
        migrate(engine)  # a second run changes nothing and does not fail
        assert current_revision(engine) == head_revision()
        with engine.connect() as conn:
            versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).all()
        assert versions == [(head_revision(),)]
    finally:
        engine.dispose()


def test_migrate_accepts_a_url(empty_url: str) -> None:
    migrate(empty_url)
    engine = make_engine(empty_url)
    try:
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_alembic_head_matches_the_models(db_engine: Engine) -> None:
    with db_engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == [], f"models and migrations differ; add a migration: {diff}"


# ---------------------------------------------------------------------------------- SQLite locking


def test_sqlite_uses_wal_and_a_busy_timeout(sqlite_engine: Engine) -> None:
    with sqlite_engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_sqlite_transactions_begin_immediate(sqlite_engine: Engine) -> None:
    """A transaction holds the write lock from its start, before it has written anything."""
    path = make_url(str(sqlite_engine.url)).database
    with transaction(sqlite_engine) as session:
        session.exec(select(KeyValue)).all()  # a read only: BEGIN DEFERRED would take no lock
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        finally:
            other.close()


def _increment(engine: Engine, key: str, times: int, errors: list[BaseException],
               barrier: threading.Barrier) -> None:
    try:
        barrier.wait()
        for _ in range(times):
            with transaction(engine) as session:
                row = session.get(KeyValue, key)
                assert row is not None
                row.value = str(int(row.value) + 1)
                session.add(row)
    except BaseException as exc:  # reported by the test
        errors.append(exc)


def test_sqlite_concurrent_writers_serialize(sqlite_engine: Engine) -> None:
    with transaction(sqlite_engine) as session:
        session.add(KeyValue(key="counter", value="0"))
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=_increment,
                                args=(sqlite_engine, "counter", 50, errors, barrier))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Session(sqlite_engine) as session:
        assert session.get(KeyValue, "counter").value == "100"  # type: ignore[union-attr]


def test_table_lock_serializes_concurrent_writers(db_engine: Engine) -> None:
    """The service's table lock (FOR UPDATE / BEGIN IMMEDIATE) makes read-modify-write safe."""
    with transaction(db_engine) as session:
        table_id = _chat_and_table(session).id
    service = Service(db_engine)
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def bump() -> None:
        try:
            barrier.wait()
            for _ in range(50):
                with service.tx.tx() as session:  # writes the changed row before commit
                    table = lock_table(session, table_id)  # type: ignore[arg-type]
                    assert table is not None
                    table.version += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=bump) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with Session(db_engine) as session:
        assert session.get(GameTable, table_id).version == 100  # type: ignore[union-attr]


@pytest.mark.postgres
def test_postgres_table_lock_is_select_for_update(pg_engine: Engine) -> None:
    """The service's table lock is a row lock: while it is held, another transaction cannot
    lock the same row (``FOR UPDATE NOWAIT`` fails at once)."""
    with transaction(pg_engine) as session:
        table_id = _chat_and_table(session).id
    with transaction(pg_engine) as session:
        assert lock_table(session, table_id) is not None  # type: ignore[arg-type]
        with pg_engine.connect() as other, pytest.raises(sa.exc.OperationalError,
                                                         match="could not obtain lock"):
            other.execute(sa.text("SELECT id FROM game_table WHERE id = :id FOR UPDATE NOWAIT"),
                          {"id": table_id})
    with pg_engine.connect() as other:  # released with the transaction
        assert other.execute(sa.text(
            "SELECT id FROM game_table WHERE id = :id FOR UPDATE NOWAIT"),
            {"id": table_id}).scalar() == table_id


# ---------------------------------------------------------------------------------- constraints


def test_move_log_sequence_is_unique_per_table(db_engine: Engine) -> None:
    with transaction(db_engine) as session:
        table_id = _chat_and_table(session).id
        session.add(Move(table_id=table_id, seq=1, actor="player", code="knock", at=utcnow()))
    with pytest.raises(IntegrityError), transaction(db_engine) as session:
        session.add(Move(table_id=table_id, seq=1, actor="cpu", code="pass", at=utcnow()))
    with transaction(db_engine) as session:  # the next number is fine
        session.add(Move(table_id=table_id, seq=2, actor="cpu", code="pass", at=utcnow()))
    with Session(db_engine) as session:
        assert [m.code for m in session.exec(select(Move).order_by(Move.seq)).all()] == \
            ["knock", "pass"]


def test_processed_update_is_unique_per_platform(db_engine: Engine) -> None:
    with transaction(db_engine) as session:
        session.add(ProcessedUpdate(platform="telegram", update_key="42", at=utcnow()))
    with pytest.raises(IntegrityError), transaction(db_engine) as session:
        session.add(ProcessedUpdate(platform="telegram", update_key="42", at=utcnow()))
    with transaction(db_engine) as session:  # another platform may use the same key
        session.add(ProcessedUpdate(platform="matrix", update_key="42", at=utcnow()))
    with Session(db_engine) as session:
        assert len(session.exec(select(ProcessedUpdate)).all()) == 2


def test_a_failed_transaction_rolls_back(db_engine: Engine) -> None:
    with pytest.raises(RuntimeError), transaction(db_engine) as session:
        session.add(KeyValue(key="k", value="v"))
        session.flush()
        raise RuntimeError("boom")
    with Session(db_engine) as session:
        assert session.get(KeyValue, "k") is None


def test_datetimes_come_back_aware(db_engine: Engine) -> None:
    with transaction(db_engine) as session:
        table_id = _chat_and_table(session).id
    with Session(db_engine) as session:
        table = session.get(GameTable, table_id)
        assert table is not None and table.created_at.tzinfo is not None


# ---------------------------------------------------------------------------------- URLs


@pytest.mark.parametrize(("raw", "expected"), [
    ("postgres://u:pw@db:5432/stammtisch", "postgresql+psycopg://u:pw@db:5432/stammtisch"),
    ("postgresql://u@db/stammtisch", "postgresql+psycopg://u@db/stammtisch"),
    ("postgresql+psycopg://u@db/x", "postgresql+psycopg://u@db/x"),
    ("sqlite:///data/stammtisch.db", "sqlite:///data/stammtisch.db"),
])
def test_database_url_maps_postgres_to_psycopg(raw: str, expected: str) -> None:
    assert database_url(raw) == expected
    if expected.startswith("postgresql"):
        assert make_url(database_url(raw)).get_driver_name() == "psycopg"


def test_database_url_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url() == DEFAULT_URL
    monkeypatch.setenv("DATABASE_URL", "postgres://env@host/db")
    assert database_url() == "postgresql+psycopg://env@host/db"
    assert database_url("sqlite:///explicit.db") == "sqlite:///explicit.db"


# ---------------------------------------------------------------------------------- checkpoints


def test_sqlite_checkpoints_run_in_the_background(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With checkpoint_in_background the writers no longer checkpoint the WAL themselves
    (``wal_autocheckpoint`` 0), and the background thread keeps the WAL from growing, even
    under writers that never pause (they hold the process's write lock, as the service's)."""
    import time

    from storage.db import checkpoint_in_background, make_engine, write_lock

    engine = make_engine(f"sqlite:///{tmp_path / 'ckpt.db'}")
    stop = checkpoint_in_background(engine, every=0.02, restart_frames=100)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE blob (x TEXT)")
        payload = "x" * 4000
        for _ in range(400):  # ~5 MB of WAL frames in all, one commit each
            with write_lock(engine), engine.begin() as conn:
                conn.exec_driver_sql("INSERT INTO blob VALUES (?)", (payload,))
            time.sleep(0.001)
        wal = tmp_path / "ckpt.db-wal"
        assert wal.exists() and wal.stat().st_size < 2_000_000  # reused, not appended to
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM blob").scalar() == 400
    finally:
        stop.set()
        engine.dispose()


def test_the_telegram_service_leaves_checkpoints_to_the_thread(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``stammtisch telegram`` opens its engine with background checkpoints from the first
    connection on (migrations included), and its writers still share one write lock."""
    from chatbot.runtime.config import load
    from chatbot.runtime.wiring import build_service
    from storage.db import stop_background_checkpoints, write_lock

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'bot.db'}")
    service = build_service(load(None), background_checkpoints=True)
    try:
        with service.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        assert write_lock(service.engine) is service.tx.write_lock
    finally:
        stop_background_checkpoints(service.engine)
        service.engine.dispose()
