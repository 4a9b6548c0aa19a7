"""One active Matrix process per account (issue 16, item 3): of the processes sharing a
database, the one holding the account's leader lock runs the bot; another waits and takes
over within seconds when the first stops. (The bots here are stand-ins with the two methods
``run_as_leader`` uses; the lock, the database and the timing are real.)"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from sqlalchemy.engine import Engine

from chatbot.matrix.standby import run_as_leader
from chatbot.runtime.config import load
from storage.db import make_engine
from tests.conftest import engine_url


@dataclass
class StandIn:
    """A Matrix bot that runs until stopped and notes when it ran."""

    service: object
    name: str
    log: list[str]
    stopped: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        self.log.append(f"{self.name} runs")
        await self.stopped.wait()
        self.log.append(f"{self.name} stops")

    def stop(self) -> None:
        self.stopped.set()


@dataclass
class _Service:
    engine: Engine


@pytest.mark.postgres
def test_a_second_matrix_process_stands_by_and_takes_over(pg_engine: Engine) -> None:
    cfg = load(None)
    other = make_engine(engine_url(pg_engine))

    async def scenario() -> list[str]:
        log: list[str] = []
        first = StandIn(_Service(pg_engine), "first", log)
        second = StandIn(_Service(other), "second", log)
        stop_first, stop_second = asyncio.Event(), asyncio.Event()
        a = asyncio.create_task(run_as_leader(first, cfg, stop_first))  # type: ignore[arg-type]
        await asyncio.sleep(0.5)
        b = asyncio.create_task(run_as_leader(second, cfg, stop_second))  # type: ignore[arg-type]
        await asyncio.sleep(2.5)
        assert log == ["first runs"], "the second process must wait"
        stop_first.set()
        first.stop()  # SIGTERM on the first process
        await asyncio.wait_for(a, 10)
        for _ in range(50):  # it tries the lock every second
            if "second runs" in log:
                break
            await asyncio.sleep(0.1)
        stop_second.set()
        second.stop()
        await asyncio.wait_for(b, 10)
        return log

    try:
        assert asyncio.run(scenario()) == ["first runs", "first stops", "second runs",
                                           "second stops"]
    finally:
        other.dispose()


def test_on_sqlite_the_matrix_process_runs_at_once(sqlite_engine: Engine) -> None:
    cfg = load(None)

    async def scenario() -> list[str]:
        log: list[str] = []
        bot = StandIn(_Service(sqlite_engine), "only", log)
        stopping = asyncio.Event()
        task = asyncio.create_task(run_as_leader(bot, cfg, stopping))  # type: ignore[arg-type]
        await asyncio.sleep(0.3)
        stopping.set()
        bot.stop()
        await asyncio.wait_for(task, 10)
        return log

    assert asyncio.run(scenario()) == ["only runs", "only stops"]
