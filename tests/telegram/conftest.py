"""Fixtures for the Telegram end-to-end tests: the fake Bot API, databases, bot processes.

* ``fake`` – an in-process ``FakeBotApi`` (the bot reaches it over HTTP).
* ``db_url`` – parametrized: a SQLite file, and a fresh PostgreSQL database (``CREATE DATABASE``
  on the server of ``TEST_DATABASE_URL``/``DATABASE_URL_TEST`` or 127.0.0.1:5432/test; skipped
  when unreachable, failing instead when ``CI=true``). ``sqlite_url`` is the SQLite one alone.
* ``start_bot(db_url, **env)`` – starts ``stammtisch telegram`` as a separate process with fast
  settings and waits until it is ready; every process is stopped after the test (terminate,
  then kill), and the logs of all of them are attached to the report of a failed test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN, BotProcess, Db, bot_env

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
_BOTS = pytest.StashKey[list]()


def _pg_server() -> str:
    return (os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL_TEST")
            or DEFAULT_PG)


def _pg_conninfo(database: str | None = None) -> str:
    url = make_url(_pg_server()).set(drivername="postgresql")
    if database:
        url = url.set(database=database)
    return url.render_as_string(hide_password=False)


def _pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(_pg_conninfo(), autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


@pytest.fixture
def fake() -> Iterator[FakeBotApi]:
    with FakeBotApi(TOKEN) as api:
        yield api


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bot.db'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A brand-new PostgreSQL database for this test (the bot migrates it on start)."""
    try:
        _pg_admin("SELECT 1")
    except Exception as exc:  # no server here
        message = f"PostgreSQL unreachable at {_pg_server()}: {type(exc).__name__}: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    name = f"stammtisch_e2e_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    _pg_admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(_pg_server()).set(database=name).render_as_string(hide_password=False)
    finally:
        _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")


@pytest.fixture
def start_bot(fake: FakeBotApi, tmp_path: Path,
              request: pytest.FixtureRequest) -> Iterator[Callable[..., BotProcess]]:
    """``start_bot(db_url, **env)`` → a running bot process (a new one on every call)."""
    bots: list[BotProcess] = []
    request.node.stash[_BOTS] = bots
    workdir = tmp_path / "bot-cwd"
    workdir.mkdir(exist_ok=True)

    def start(url: str, **env: Any) -> BotProcess:
        bot = BotProcess(bot_env(fake, url, **env), workdir,
                         tmp_path / f"bot-{len(bots) + 1}.log")
        bots.append(bot)
        return bot.start(fake)

    yield start
    for bot in bots:
        bot.stop()


@pytest.fixture
def db_reader() -> Iterator[Callable[[str], Db]]:
    opened: list[Db] = []

    def open_db(url: str) -> Db:
        db = Db(url)
        opened.append(db)
        return db

    yield open_db
    for db in opened:
        db.dispose()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and report.when in ("setup", "call"):
        for i, bot in enumerate(item.stash.get(_BOTS, []), 1):
            report.sections.append((f"bot process {i} log ({bot.log_path.name})", bot.log()))
