"""bench/telegram.py runs end to end at a small scale (a real bot process, the fake Bot API
server, SQLite): the waves and the steady load produce figures for every update sent."""

from __future__ import annotations

import math
from pathlib import Path

from bench import telegram as bench

COMMON = {"CPU_DELAY": "0", "TELEGRAM_CHAT_INTERVAL": "0", "LOG_LEVEL": "WARNING",
          "TELEGRAM_GLOBAL_PER_SECOND": "100000", "TELEGRAM_GROUP_PER_MINUTE": "100000"}
SETUP = "/new schwimmen 1 anfaenger"


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
