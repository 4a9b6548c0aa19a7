"""Prebuilt Core statements run straight on the DBAPI cursor of a SQLAlchemy connection.

The service's hot path runs a handful of fixed statements per input. SQLAlchemy Core spends
most of a statement's time around the driver call (execution context, parameter processing,
result wrapping, events). Here each statement is compiled once per dialect and set of
parameter names, with its bind and result processors looked up once; an execution is then the
parameters in order, one ``cursor.execute`` and the rows as dicts. Same SQL, same types, same
transaction (the cursor belongs to the connection's DBAPI connection). Statements that need
SQLAlchemy at execution time (expanding ``IN`` lists, Python-side column defaults) run through
Core as before, so callers need not care.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Plan:
    sql: str
    names: tuple[str, ...]  # bind names in placeholder order (positional) or all (named)
    positional: bool
    binds: tuple[tuple[str, Processor, Any], ...]  # name, processor, value when not given
    columns: tuple[str, ...]  # result keys ('' for DML without RETURNING)
    processed: tuple[tuple[str, Callable[[Any], Any]], ...]  # result keys with a processor


_PLANS: dict[tuple[int, str, tuple[str, ...]], _Plan | None] = {}
_KEEP: dict[int, Executable] = {}  # keeps planned statements alive (their ids are keys)
_GUARD = threading.Lock()
_REQUIRED = object()


def _plan(conn: Connection, stmt: Executable, keys: tuple[str, ...],
          returning: bool = False) -> _Plan | None:
    """The statement compiled for this connection's dialect with these parameter names, or
    ``None`` when it needs Core at execution time. ``returning``: an INSERT whose RETURNING
    gives one plain column."""
    dialect = conn.dialect
    cache_key = (id(stmt), dialect.name, keys, returning)
    try:
        return _PLANS[cache_key]
    except KeyError:
        pass
    compiled: Any = stmt.compile(dialect=dialect, column_keys=list(keys))  # type: ignore[attr-defined]
    result_columns = compiled._result_columns
    plain = "__[POSTCOMPILE" not in compiled.string and not compiled.insert_prefetch \
        and not compiled.update_prefetch \
        and dialect.paramstyle in ("qmark", "pyformat", "named", "format")
    if returning:
        plain = plain and len(result_columns) == 1
    else:
        plain = plain and not getattr(compiled, "effective_returning", None)
    plan: _Plan | None = None
    if plain:
        positional = dialect.paramstyle in ("qmark", "format")
        names = tuple(compiled.positiontup) if positional else tuple(compiled.binds)
        processors = compiled._bind_processors
        binds = tuple((name, processors.get(name), _REQUIRED if compiled.binds[name].required
                       else compiled.binds[name].effective_value) for name in names)
        processors = tuple((c[0], c[3]._cached_result_processor(dialect, None))
                           for c in result_columns)
        plan = _Plan(compiled.string, names, positional, binds,
                     tuple(c[0] for c in result_columns),
                     tuple((key, proc) for key, proc in processors if proc is not None))
    with _GUARD:
        _PLANS[cache_key] = plan
        _KEEP[id(stmt)] = stmt
    return plan


def _args(plan: _Plan, params: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
    values = []
    for name, proc, default in plan.binds:
        value = params.get(name, default)
        if value is _REQUIRED:  # as Core: a bind parameter without a value is an error
            raise KeyError(f"a value is required for bind parameter {name!r}")
        values.append(value if proc is None else proc(value))
    return values if plan.positional else dict(zip(plan.names, values, strict=True))


def _rows(plan: _Plan, cursor: Any) -> list[dict[str, Any]]:
    columns, processed = plan.columns, plan.processed
    rows = [dict(zip(columns, raw, strict=True)) for raw in cursor.fetchall()]
    if processed:
        for row in rows:
            for key, proc in processed:
                row[key] = proc(row[key])
    return rows


def fetch_all(conn: Connection, stmt: Executable, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The statement's rows as dicts (result processing as Core does it)."""
    plan = _plan(conn, stmt, ())
    if plan is None:
        return [dict(r) for r in conn.execute(stmt, dict(params)).mappings()]
    cursor = conn.connection.cursor()
    try:
        cursor.execute(plan.sql, _args(plan, params))
        return _rows(plan, cursor)
    finally:
        cursor.close()


def fetch_one(conn: Connection, stmt: Executable, params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first row as a dict, or ``None``."""
    rows = fetch_all(conn, stmt, params)
    return rows[0] if rows else None


def scalar(conn: Connection, stmt: Executable, params: Mapping[str, Any]) -> Any:
    """The first column of the first row, or ``None``."""
    row = fetch_one(conn, stmt, params)
    return None if row is None else next(iter(row.values()))


def insert_returning(conn: Connection, stmt: Executable, values: Mapping[str, Any]) -> Any:
    """``INSERT … RETURNING <one column>`` with these column values: the returned value, or
    ``None`` when no row came back (``ON CONFLICT DO NOTHING``)."""
    keys = tuple(sorted(values))
    plan = _plan(conn, stmt, keys, returning=True)
    if plan is None:
        return conn.execute(stmt, dict(values)).scalar()
    cursor = conn.connection.cursor()
    try:
        cursor.execute(plan.sql, _args(plan, values))
        rows = _rows(plan, cursor)
    finally:
        cursor.close()
    return next(iter(rows[0].values())) if rows else None


def run(conn: Connection, stmt: Executable, params: Mapping[str, Any]) -> int:
    """An UPDATE/DELETE: the number of rows it matched."""
    plan = _plan(conn, stmt, ())
    if plan is None:
        return conn.execute(stmt, dict(params)).rowcount
    cursor = conn.connection.cursor()
    try:
        cursor.execute(plan.sql, _args(plan, params))
        return cursor.rowcount  # type: ignore[no-any-return]
    finally:
        cursor.close()


def insert_many(conn: Connection, stmt: Executable, rows: Iterable[Mapping[str, Any]]) -> None:
    """A plain INSERT of rows that all name the same columns (else through Core)."""
    rows = list(rows)
    if not rows:
        return
    keys = tuple(sorted(rows[0]))
    plan = None if any(tuple(sorted(r)) != keys for r in rows) else _plan(conn, stmt, keys)
    if plan is None:
        conn.execute(stmt, [dict(r) for r in rows])
        return
    cursor = conn.connection.cursor()
    try:
        cursor.executemany(plan.sql, [_args(plan, r) for r in rows])
    finally:
        cursor.close()
