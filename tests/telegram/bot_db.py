"""The bot's database as the Telegram end-to-end tests read it: plain SQL on the SQLite file or
PostgreSQL (``Db``), and a table replayed from its stored moves (``replay``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from engine import GAMES
from storage.db import database_url

# ------------------------------------------------------------------------------ the database


def as_utc(value: Any) -> datetime:
    """A time read with plain SQL (SQLite gives text, PostgreSQL an aware datetime)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime), value
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Db:
    """Read-only plain-SQL access to the bot's database (no models: no coupling, no locks)."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = create_engine(database_url(url), poolclass=NullPool)

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(text(sql), params)]

    def table(self, table_id: int) -> dict[str, Any]:
        rows = self.rows("SELECT * FROM game_table WHERE id = :t", t=table_id)
        assert rows, f"no table {table_id}"
        return rows[0]

    def moves(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM move WHERE table_id = :t ORDER BY seq", t=table_id)

    def seats(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM seat WHERE table_id = :t ORDER BY seat_no", t=table_id)

    def outbox(self, chat: int | None = None) -> list[dict[str, Any]]:
        if chat is None:
            return self.rows("SELECT * FROM outbox ORDER BY id")
        return self.rows("SELECT * FROM outbox WHERE chat_external_id = :c ORDER BY id",
                         c=str(chat))

    def result(self, table_id: int) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM result WHERE table_id = :t", t=table_id)
        return rows[0] if rows else None

    def dispose(self) -> None:
        self.engine.dispose()


def loads(value: Any) -> Any:
    """A JSON column read with plain SQL (SQLite gives text, PostgreSQL the value)."""
    return json.loads(value) if isinstance(value, str) else value


def replay(db: Db, table_id: int) -> Callable[[datetime], Any]:
    """``state_at(when)``: the table's engine state after every move logged at or before
    ``when`` (the table's seed and move log, replayed with the engine)."""
    table = db.table(table_id)
    game = GAMES[table["game"]]
    options = loads(table["options"])
    n = len(db.seats(table_id))
    states = [(datetime.min.replace(tzinfo=UTC),
               game.new_game(n, (options or {}).get("engine") or {}, int(table["seed"])))]
    for move in db.moves(table_id):
        state, _ = game.apply(states[-1][1], move["code"])
        states.append((as_utc(move["at"]), state))

    def state_at(when: datetime) -> Any:
        found = states[0][1]
        for at, state in states:
            if at <= when:
                found = state
            else:
                break
        return found

    return state_at
