"""Migration 0007 (issue 38): tables made before it get a token each — unguessable, distinct,
fit for a Telegram start parameter — and the chat_member table is there; on SQLite and
PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from storage.db import make_engine, migrate

MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"


@pytest.fixture
def blank_url(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if db_kind == "sqlite":
        return f"sqlite:///{tmp_path / 'blank.db'}"
    return request.getfixturevalue("empty_pg_url")


def test_tables_made_before_the_migration_get_distinct_tokens(blank_url: str) -> None:
    engine = make_engine(blank_url)
    try:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0006")
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO chat (id, platform, external_id, kind, "
                                 "created_at) VALUES (1, 'telegram', '-1', 'group', "
                                 "CURRENT_TIMESTAMP)"))
            for i in range(1, 4):
                conn.execute(sa.text(
                    "INSERT INTO game_table (id, chat_id, game, fsm_state, seed, version, "
                    "is_private, turn_timeout, reminded, created_at, updated_at) VALUES "
                    "(:id, 1, 'schwimmen', 'lobby', 1, 0, false, 0, false, "
                    "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"), {"id": i})
        migrate(engine)
        with engine.connect() as conn:
            tokens = [r[0] for r in conn.execute(sa.text("SELECT token FROM game_table"))]
            assert conn.execute(sa.text("SELECT count(*) FROM chat_member")).scalar() == 0
        assert len(tokens) == 3 and len(set(tokens)) == 3
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{22}", t) for t in tokens), tokens
    finally:
        engine.dispose()
