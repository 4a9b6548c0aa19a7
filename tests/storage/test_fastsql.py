"""storage.fastsql runs the hot path's statements on the DBAPI cursor: the rows, types and
effects must be exactly what SQLAlchemy Core gives, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from chatbot import service as svc
from chatbot.service import ChatRef, Service, Settings, UserRef
from storage import fastsql

_SELECTS = [
    (svc._CHAT_BY_REF, lambda ids: {"platform": "telegram", "external_id": "501"}),
    (svc._CHAT_BY_ID, lambda ids: {"id": ids["chat"]}),
    (svc._PLAYER_BY_REF, lambda ids: {"platform": "telegram", "external_id": "501"}),
    (svc._PLAYER_BY_ID, lambda ids: {"id": ids["player"]}),
    (svc._LOCK_TABLE, lambda ids: {"table_id": ids["table"]}),
    (svc._TABLE_BY_ID, lambda ids: {"id": ids["table"]}),
    (svc._SEATS, lambda ids: {"table_id": ids["table"]}),
    (svc._OPEN_TABLE, lambda ids: {"chat_id": ids["chat"]}),  # an IN list: through Core
]


def _game(engine: Engine) -> dict[str, int]:
    """A private Schwimmen table with two CPU opponents and a move played."""
    service = Service(engine, Settings(cpu_delay=0))
    chat, user = ChatRef("telegram", "501", "private"), UserRef("501", "Ada", "ada", "de")
    service.command(chat, user, "new", "schwimmen 2 normal")
    table = service.unfinished_tables("telegram", "501")[0]
    with engine.connect() as conn:
        chat_id = conn.execute(sa.text("SELECT id FROM chat")).scalar_one()
        player_id = conn.execute(sa.text("SELECT id FROM player")).scalar_one()
    return {"chat": chat_id, "player": player_id, "table": table.id}


@pytest.mark.parametrize("index", range(len(_SELECTS)))
def test_fast_selects_give_the_rows_core_gives(db_engine: Engine, index: int) -> None:
    ids = _game(db_engine)
    stmt, params = _SELECTS[index]
    with db_engine.connect() as conn, conn.begin():
        core = [dict(r) for r in conn.execute(stmt, params(ids)).mappings()]
        fast = fastsql.fetch_all(conn, stmt, params(ids))
    assert core, "the statement finds rows"
    assert fast == core
    # the same Python types (datetimes, booleans, parsed JSON), not just equal values
    assert [{k: type(v) for k, v in r.items()} for r in fast] == \
        [{k: type(v) for k, v in r.items()} for r in core]


def test_fast_update_and_insert_round_trip(db_engine: Engine) -> None:
    ids = _game(db_engine)
    when = datetime(2026, 11, 30, 12, 0, 1, 234567, tzinfo=UTC)
    stmt = svc._update_statement(svc._TABLE_TABLE, ("deadline_kind", "next_deadline",
                                                    "reminded", "options"))
    with db_engine.connect() as conn, conn.begin():
        matched = fastsql.run(conn, stmt, {
            "_id": ids["table"], "v_deadline_kind": "remind", "v_next_deadline": when,
            "v_reminded": True, "v_options": {"stake": 3, "names": ["Ä", "ö"]}})
        assert matched == 1
        row = conn.execute(svc._TABLE_BY_ID, {"id": ids["table"]}).mappings().one()
        assert (row["deadline_kind"], row["next_deadline"], row["reminded"], row["options"]) == \
            ("remind", when, True, {"stake": 3, "names": ["Ä", "ö"]})
        assert fastsql.run(conn, stmt, {
            "_id": 10**9, "v_deadline_kind": None, "v_next_deadline": None,
            "v_reminded": False, "v_options": {}}) == 0
        outbox = sa.insert(svc._OUTBOX_TABLE)
        rows = [{"platform": "telegram", "chat_external_id": "501", "table_id": ids["table"],
                 "slot": None, "repost": bool(i), "text": f"Zeile {i} – ✓",
                 "buttons": [[["A", "v1:1:1:a"]]], "status": "pending", "attempts": 0,
                 "not_before": when, "created_at": when, "sent_at": None, "error": None}
                for i in range(3)]
        fastsql.insert_many(conn, outbox, rows)
        back = conn.execute(sa.select(svc._OUTBOX_TABLE).where(
            svc._OUTBOX_TABLE.c.text.like("Zeile %")).order_by(svc._OUTBOX_TABLE.c.id)).mappings()
        got = [{k: r[k] for k in rows[0]} for r in back]
    assert got == rows


def test_fast_insert_returning_and_on_conflict(db_engine: Engine) -> None:
    _game(db_engine)
    stmt = svc._seen_statement(db_engine.dialect.name)
    values = {"platform": "telegram", "update_key": "u-77", "at": datetime(2026, 1, 1, tzinfo=UTC)}
    with db_engine.connect() as conn, conn.begin():
        first = fastsql.insert_returning(conn, stmt, values)
        again = fastsql.insert_returning(conn, stmt, values)
    assert isinstance(first, int)
    assert again is None  # ON CONFLICT DO NOTHING returns no row


def test_a_missing_parameter_is_an_error_as_in_core(db_engine: Engine) -> None:
    with db_engine.connect() as conn, conn.begin(), pytest.raises(KeyError, match="table_id"):
        fastsql.fetch_all(conn, svc._SEATS, {})
