"""An outbox row's id is never used twice, on SQLite as on PostgreSQL: the Matrix sender sends
a row's events under transaction ids made of it, and Synapse takes an event sent again under a
known transaction id for the old one (it answers with the old event and shows nothing new)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import delete, func, insert, inspect, select, text
from sqlalchemy.engine import Engine

from storage.db import make_engine, migrate
from storage.models import Outbox

MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"

T = Outbox.__table__  # type: ignore[attr-defined]
NOW = datetime(2030, 1, 7, 12, 0, tzinfo=UTC)


def _row(chat: str) -> dict:
    return {"platform": "matrix", "chat_external_id": chat, "text": "hallo", "buttons": [],
            "status": "pending", "attempts": 0, "not_before": NOW, "created_at": NOW}


def test_the_newest_rows_deleted_their_ids_are_not_used_again(db_engine: Engine) -> None:
    with db_engine.begin() as conn:
        conn.execute(insert(T), [_row("!dm"), _row("!dm"), _row("!group")])
        newest = conn.execute(select(T.c.id).order_by(T.c.id.desc())).scalars().first()
        conn.execute(delete(T).where(T.c.chat_external_id == "!dm"))  # (a person forgotten)
        conn.execute(delete(T).where(T.c.id == newest))
        conn.execute(insert(T), [_row("!dm")])
        again = conn.execute(select(T.c.id).order_by(T.c.id.desc())).scalars().first()
    assert again > newest


def test_an_older_database_keeps_its_rows_and_uses_no_id_twice(tmp_path: Path) -> None:
    """Migration 0020 rebuilds an SQLite outbox with ``AUTOINCREMENT``: its rows and indexes
    stay, and after it an id of a deleted newest row is not given again."""
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0019")
        with engine.begin() as conn:
            conn.execute(insert(T), [_row("!dm"), _row("!dm"), _row("!group")])
        migrate(engine)
        with engine.begin() as conn:
            sql = conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'outbox'")
                               ).scalar()
            assert conn.execute(select(T.c.id, T.c.chat_external_id).order_by(T.c.id)
                                ).all() == [(1, "!dm"), (2, "!dm"), (3, "!group")]
            conn.execute(delete(T).where(T.c.id == 3))
            conn.execute(insert(T), [_row("!group")])
            assert conn.execute(select(func.max(T.c.id))).scalar() == 4
        assert "AUTOINCREMENT" in (sql or "")
        names = {ix["name"] for ix in inspect(engine).get_indexes("outbox")}
        assert {"ix_outbox_pending", "ix_outbox_chat", "ix_outbox_created"} <= names
    finally:
        engine.dispose()
