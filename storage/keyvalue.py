"""Small persisted settings of a process (the ``key_value`` table): a sync token, a mark of
the newest update a bot fetched."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from .db import write_lock
from .models import KeyValue


def get_value(engine: Engine, key: str) -> str | None:
    with Session(engine) as session:
        row = session.get(KeyValue, key)
        return row.value if row else None


def put_value(engine: Engine, key: str, value: str) -> None:
    """Insert or replace (``Session.merge``)."""
    with write_lock(engine), Session(engine) as session, session.begin():
        session.merge(KeyValue(key=key, value=value))
