"""Fixtures for the Matrix end-to-end tests: one Synapse per session, a bot process per test.

* ``synapse`` – a real Synapse homeserver on 127.0.0.1 (session-scoped: it starts once). When
  Synapse or matrix-nio is missing, or Synapse does not start, the tests are skipped – or fail,
  with the reason, when ``CI=true``.
* ``matrix`` – per test: a fresh bot account and database, ``people(n)`` for fresh player
  accounts, ``start_bot(**env)`` for bot processes (stopped after the test; their logs are
  attached to a failed test's report).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .harness import BotProcess, Db, bot_env

_BOTS = pytest.StashKey[list]()
_SYNAPSE = pytest.StashKey[Any]()


def _unavailable(message: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    try:
        import nio  # noqa: F401
        import synapse as _synapse  # noqa: F401
    except ImportError as exc:
        _unavailable(f"the Matrix tests need matrix-synapse and matrix-nio "
                     f"(pip install -e '.[test]'): {exc}")
    from .synapse import Synapse

    # Synapse commits every event to SQLite: in memory (/dev/shm) that costs no disk syncs.
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        home = Path(tempfile.mkdtemp(prefix="stammtisch-synapse-", dir=shm))
    else:
        home = tmp_path_factory.mktemp("synapse")
    server = Synapse(home)
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - any failure to start means no homeserver
        server.stop()
        _unavailable(f"Synapse did not start: {exc}")
    yield server
    server.stop()
    if home.parent == shm:
        shutil.rmtree(home, ignore_errors=True)


@dataclass
class MatrixWorld:
    """One test's bot account, database and people on the shared homeserver."""

    synapse: Any
    tmp: Path
    tag: str
    bot_id: str = ""
    bot_password: str = "bot-password"
    bot_token: str = ""  # the registration's login (for MATRIX_ACCESS_TOKEN)
    db_url: str = ""
    bots: list[BotProcess] = field(default_factory=list)

    def __post_init__(self) -> None:
        account = self.synapse.register(f"stammtisch{self.tag}", self.bot_password)
        self.bot_id, self.bot_token = account["user_id"], account["access_token"]
        self.db_url = f"sqlite:///{self.tmp / 'bot.db'}"
        (self.tmp / "bot-cwd").mkdir(exist_ok=True)

    def start_bot(self, **env: Any) -> BotProcess:
        bot = BotProcess(bot_env(self.synapse.url, self.bot_id, self.bot_password,
                                 self.db_url, self.tmp / "matrix-store", **env),
                         self.tmp / "bot-cwd", self.tmp / "bot.log")
        self.bots.append(bot)
        return bot.start()

    def account(self, name: str) -> tuple[str, str]:
        password = f"{name}-pw"
        user_id = self.synapse.register(f"{name}{self.tag}", password)["user_id"]
        return user_id, password

    def db(self) -> Db:
        return Db(self.db_url)


@pytest.fixture
def matrix(synapse: Any, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MatrixWorld]:
    world = MatrixWorld(synapse, tmp_path, uuid.uuid4().hex[:6])
    request.node.stash[_BOTS] = world.bots
    request.node.stash[_SYNAPSE] = synapse
    yield world
    for bot in world.bots:
        bot.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and report.when in ("setup", "call"):
        bots = item.stash.get(_BOTS, [])
        if bots:
            report.sections.append(("bot log", bots[-1].log()[-20000:]))
        server = item.stash.get(_SYNAPSE, None)
        if server is not None:
            report.sections.append(("synapse log", server.logs()[-6000:]))
