"""Shared test fixtures: real databases, a fake clock, a service factory, a recording transport.

Databases:

* ``sqlite_engine`` – a migrated SQLite file under ``tmp_path`` (WAL, ``BEGIN IMMEDIATE``).
* ``pg_engine`` – a migrated PostgreSQL database of its own for each test (created with
  ``CREATE DATABASE`` on the server of ``TEST_DATABASE_URL`` and dropped afterwards). When the
  server cannot be reached the test is skipped – or fails when ``CI=true``.
* ``db_engine`` – parametrized: runs a test once on SQLite and once on PostgreSQL.

Chat plumbing: ``FakeClock`` (call it for the time, ``advance`` it instead of sleeping),
``make_service`` (a ``Service`` on that clock), ``RecordingTransport`` (records send/edit/delete
and keeps what each chat shows) and ``Postman`` (delivers the outbox into a transport).
Cards in texts: ``card_symbols`` and ``joker_codes`` (from ``tests/card_text.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine, make_url

from chatbot.delivery import MessageGone, OutboxStore, deliver
from chatbot.service import Service, Settings
from storage.db import database_url, make_engine, migrate
from tests.card_text import card_symbols as card_symbols  # (tests import it from here)
from tests.card_text import joker_codes as joker_codes

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
PLATFORM = "test"
EPOCH = datetime(2030, 1, 7, 12, 0, 0, tzinfo=UTC)


# ---------------------------------------------------------------------------------- databases


def pg_url() -> str:
    """The PostgreSQL server used by the tests (SQLAlchemy URL with psycopg)."""
    raw = (os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL_TEST")
           or DEFAULT_PG_URL)
    return database_url(raw)


def _url_for_db(name: str) -> str:
    return make_url(pg_url()).set(database=name).render_as_string(hide_password=False)


def _admin_conninfo() -> str:
    """A psycopg conninfo string for the server's test database (for CREATE/DROP DATABASE)."""
    return make_url(pg_url()).set(drivername="postgresql").render_as_string(hide_password=False)


_pg_status: dict[str, str | None] = {}


def _require_pg() -> None:
    """Skip (or, with ``CI=true``, fail) when the PostgreSQL server is unreachable."""
    if "error" not in _pg_status:
        import psycopg

        try:
            with psycopg.connect(_admin_conninfo(), connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _pg_status["error"] = None
        except Exception as exc:  # any failure to connect means: no PostgreSQL here
            first_line = (str(exc).strip().splitlines() or [""])[0]
            _pg_status["error"] = f"{type(exc).__name__}: {first_line}"
    error = _pg_status["error"]
    if error is not None:
        message = f"PostgreSQL unreachable at {pg_url()}: {error}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


_db_counter = itertools.count(1)


def _admin_exec(sql: str) -> None:
    import psycopg

    with psycopg.connect(_admin_conninfo(), autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


def _create_database(template: str | None = None) -> str:
    name = f"stammtisch_t_{os.getpid()}_{next(_db_counter)}_{uuid.uuid4().hex[:8]}"
    _admin_exec(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    # Tests need no durability across a server crash: commits need not wait for the disk.
    _admin_exec(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    return name


def _drop_database(name: str) -> None:
    _admin_exec(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _DatabasePool:
    """Fresh copies of the migrated template, one made ahead in the background while a test
    runs; used ones are dropped in the background too."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.maker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-create")
        self.dropper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-drop")
        self.ahead: Future[str] | None = None

    def take(self) -> str:
        ahead = self.ahead or self.maker.submit(_create_database, self.template)
        self.ahead = self.maker.submit(_create_database, self.template)
        return ahead.result()

    def give_back(self, name: str) -> None:
        self.dropper.submit(_drop_database, name)

    def close(self) -> None:
        if self.ahead is not None:
            with contextlib.suppress(Exception):  # the server went away: nothing to clean up
                self.give_back(self.ahead.result())
        self.maker.shutdown(wait=True)
        self.dropper.shutdown(wait=True)


@pytest.fixture(scope="session")
def _pg_pool() -> Iterator[_DatabasePool]:
    """A migrated template database that each test's database is copied from (fast and real)."""
    _require_pg()
    template = _create_database()
    engine = make_engine(_url_for_db(template))
    try:
        migrate(engine)
    finally:
        engine.dispose()
    pool = _DatabasePool(template)
    yield pool
    pool.close()
    _drop_database(template)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'stammtisch.db'}"


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file that each test's database starts as a copy of (fast)."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()  # the last connection checkpoints the WAL into the file
    return path


@pytest.fixture
def sqlite_engine(sqlite_url: str, _sqlite_template: Path) -> Iterator[Engine]:
    """A migrated SQLite file of this test's own (WAL, busy timeout, BEGIN IMMEDIATE)."""
    shutil.copyfile(_sqlite_template, make_url(sqlite_url).database)  # type: ignore[arg-type]
    engine = make_engine(sqlite_url)
    migrate(engine)  # already at head: checks the revision and does nothing
    yield engine
    engine.dispose()


@pytest.fixture
def pg_engine(_pg_pool: _DatabasePool) -> Iterator[Engine]:
    """A clean PostgreSQL database of this test's own, migrated; dropped afterwards."""
    name = _pg_pool.take()
    engine = make_engine(_url_for_db(name))
    try:
        migrate(engine)
        yield engine
    finally:
        engine.dispose()
        _pg_pool.give_back(name)


@pytest.fixture
def empty_pg_url() -> Iterator[str]:
    """The URL of a brand-new, empty PostgreSQL database (no schema at all)."""
    _require_pg()
    name = _create_database()
    try:
        yield _url_for_db(name)
    finally:
        _drop_database(name)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def db_engine(db_kind: str, request: pytest.FixtureRequest) -> Engine:
    """The test runs twice: on a SQLite file and on PostgreSQL."""
    return request.getfixturevalue("sqlite_engine" if db_kind == "sqlite" else "pg_engine")


def engine_url(engine: Engine) -> str:
    """The URL an engine was made from, passwords included (to open a second engine)."""
    return engine.url.render_as_string(hide_password=False)


# ---------------------------------------------------------------------------------- time


class FakeClock:
    """A clock the test moves by hand. ``clock()`` is now; ``advance`` moves it forward."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def set(self, when: datetime) -> datetime:
        """Move to ``when`` (never backwards)."""
        if when > self.now:
            self.now = when
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_service(engine: Engine, clock: FakeClock | None = None, **settings: Any) -> Service:
    """A ``Service`` on ``engine`` whose time is the fake clock (settings may be overridden)."""
    base = {"cpu_delay": 1.0, "group_timeout": 60, "next_round_delay": 5.0,
            "default_language": "de"}
    base.update(settings)
    return Service(engine, Settings(**base), clock=clock or FakeClock())


@pytest.fixture
def service(db_engine: Engine, clock: FakeClock) -> Service:
    return make_service(db_engine, clock)


# ---------------------------------------------------------------------------------- transport

Rows = list[list[list[str]]]


@dataclass
class Message:
    id: str
    text: str
    rows: Rows

    def labels(self) -> list[str]:
        return [b[0] for row in self.rows for b in row]

    def data(self) -> list[str]:
        return [b[1] for row in self.rows for b in row]

    def everything(self) -> str:
        """Text and button labels: what a reader of this message sees."""
        return "\n".join([self.text, *self.labels()])


@dataclass
class RecordingTransport:
    """A transport that records every call and keeps the messages each chat shows.

    ``fail_next(method, exc)`` makes the next call of ``send``/``edit``/``delete`` raise ``exc``.
    Editing a message that is not (or no longer) there raises ``MessageGone``, like a platform.
    """

    calls: list[tuple[Any, ...]] = field(default_factory=list)
    chats: dict[str, dict[str, Message]] = field(default_factory=dict)
    failures: list[tuple[str, Exception]] = field(default_factory=list)
    counter: int = 0
    files: dict[str, list[tuple[str, bytes]]] = field(default_factory=dict)  # chat → files sent

    def fail_next(self, method: str, exc: Exception) -> None:
        self.failures.append((method, exc))

    def _maybe_fail(self, method: str) -> None:
        for i, (m, exc) in enumerate(self.failures):
            if m == method:
                del self.failures[i]
                raise exc

    def send(self, chat: str, text: str, rows: Rows) -> str:
        self._maybe_fail("send")
        self.counter += 1
        mid = str(self.counter)
        self.calls.append(("send", chat, mid, text, rows))
        self.chats.setdefault(chat, {})[mid] = Message(mid, text, rows)
        return mid

    def edit(self, chat: str, message_id: str, text: str, rows: Rows) -> None:
        self._maybe_fail("edit")
        self.calls.append(("edit", chat, message_id, text, rows))
        shown = self.chats.get(chat, {})
        if message_id not in shown:
            raise MessageGone(message_id)
        shown[message_id] = Message(message_id, text, rows)

    def document(self, chat: str, name: str, data: bytes) -> str:
        """A file sent to a chat (an outbox ``document`` row): kept by chat, with its name."""
        self._maybe_fail("document")
        self.counter += 1
        self.calls.append(("document", chat, str(self.counter), name, len(data)))
        self.files.setdefault(chat, []).append((name, data))
        return str(self.counter)

    def delete(self, chat: str, message_id: str) -> None:
        self._maybe_fail("delete")
        self.calls.append(("delete", chat, message_id))
        self.chats.get(chat, {}).pop(message_id, None)

    # what a chat shows ------------------------------------------------------------------
    def messages(self, chat: str) -> list[Message]:
        """The messages a chat shows now, oldest first."""
        return list(self.chats.get(chat, {}).values())

    def texts(self, chat: str) -> list[str]:
        return [m.text for m in self.messages(chat)]

    def buttons(self, chat: str, table_id: int | None = None) -> list[tuple[str, str]]:
        """(label, data) of every button the chat shows, newest message last."""
        prefix = f"v1:{table_id}:" if table_id is not None else ""
        return [(b[0], b[1]) for m in self.messages(chat) for row in m.rows for b in row
                if b[1].startswith(prefix)]

    def methods(self) -> list[str]:
        return [c[0] for c in self.calls]


class Postman:
    """Delivers a platform's pending outbox rows into a transport (the adapter's job)."""

    def __init__(self, engine: Engine, transport: RecordingTransport | None = None,
                 platform: str = PLATFORM, clock: FakeClock | None = None) -> None:
        self.clock = clock or FakeClock()
        self.transport = transport or RecordingTransport()
        self.store = OutboxStore(engine, platform, clock=self.clock)

    def deliver(self) -> int:
        """Deliver everything pending now; returns how many rows were handled."""
        handled = 0
        while items := self.store.pending(now=self.clock()):
            for item in items:
                deliver(self.store, item, self.transport)
            handled += len(items)
        return handled


@pytest.fixture
def transport() -> RecordingTransport:
    return RecordingTransport()


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at once on threads (released together by a barrier); their results, or
    the exception each raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = calls[i]()
        except BaseException as exc:  # reported by the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results
