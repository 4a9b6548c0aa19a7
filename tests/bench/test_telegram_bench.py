"""bench/telegram.py runs end to end at a small scale (a real bot process, the fake Bot API
server, SQLite): the waves and the steady load produce figures for every update sent; and its
``--processes`` comparison (several bot processes on one PostgreSQL database, webhook mode)
prints its table."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bench import telegram as bench

COMMON = {"CPU_DELAY": "0", "TELEGRAM_CHAT_INTERVAL": "0", "LOG_LEVEL": "WARNING",
          "TELEGRAM_GLOBAL_PER_SECOND": "100000", "TELEGRAM_GROUP_PER_MINUTE": "100000"}
SETUP = "/new schwimmen 1 anfaenger"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"


def test_waves_and_steady_load_give_figures(tmp_path: Path) -> None:
    command = [bench._bin("stammtisch"), "telegram"]
    env = {**COMMON, "DATABASE_URL": f"sqlite:///{tmp_path / 'waves.db'}"}
    waves = bench.run_case("small waves", command, env, tables=4, waves=2, setup=SETUP)
    assert waves["rate"] > 0 and 0 < waves["p50"] <= waves["p99"]
    assert waves["cpu_ms"] > 0 and not math.isnan(waves["cpu_ms"])
    env = {**COMMON, "DATABASE_URL": f"sqlite:///{tmp_path / 'steady.db'}"}
    steady = bench.steady_case("small steady", command, env, tables=4, rate=20.0, seconds=2.0,
                               setup=SETUP, senders=2)
    assert steady["rate"] > 5 and 0 < steady["p50"] <= steady["p99"]


@pytest.fixture
def pg_server(monkeypatch: pytest.MonkeyPatch) -> str:
    """The PostgreSQL server of the tests (as tests/telegram/conftest.py finds it), for the
    bench to make its databases on; skipped when unreachable, a failure on CI."""
    import psycopg

    server = (os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL_TEST")
              or DEFAULT_PG)
    conninfo = make_url(server).set(drivername="postgresql").render_as_string(
        hide_password=False)
    try:
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # no server here
        message = f"PostgreSQL unreachable at {server}: {type(exc).__name__}: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    monkeypatch.setattr(bench, "PG_SERVER", conninfo)
    return conninfo


@pytest.mark.postgres
@pytest.mark.timeout(120)
def test_processes_comparison_prints_its_table(pg_server: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--processes", "1", "2", "--tables", "3", "--waves", "2", "--rates", "10",
                "--steady-seconds", "1.5"])
    out = capsys.readouterr().out
    table = out[out.index("CPU vs 1"):].splitlines()[1:]
    rows = [line.split() for line in table if line.strip()]
    assert [(r[0], r[1]) for r in rows] == [("1", "waves"), ("1", "steady"),
                                            ("2", "waves"), ("2", "steady")]
    for r in rows:
        figures = r[2:] if r[1] == "waves" else r[3:]  # ("steady 10/s" is two words)
        rate, p50, p99, cpu_ms, ratio, updates, unanswered = map(float, figures[:7])
        assert rate > 0 and 0 < p50 <= p99 and cpu_ms > 0 and ratio > 0
        assert updates > 0 and unanswered == 0
