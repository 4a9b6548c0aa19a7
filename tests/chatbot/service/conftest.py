"""Fixtures of the application service's tests: reproducible table seeds (autouse) and ``h``,
the harness on each database.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy.engine import Engine

from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock


@pytest.fixture(autouse=True)
def seeded_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Table seeds come from ``SystemRandom``; make them reproducible for these tests."""
    seeds = random.Random(31)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock)
