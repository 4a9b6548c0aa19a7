"""Telegram throughput benchmark: one real bot process against the fake Bot API server.

    python bench/telegram.py [--tables 100] [--waves 10] [--skip-postgres]
    python bench/telegram.py --processes 1 2 3 [--tables 100] [--waves 10] [--rates 200]

For each database (SQLite file, PostgreSQL) it starts ``stammtisch telegram`` against the fake
server (a separate process), opens ``--tables`` private Schwimmen tables, then presses a move
button on every table in waves. It reports updates handled per second (from the moment the bot
fetched a wave's first update to its last answered button press, CPU replies included) and the
p50/p99 time from an update being handed to the bot (getUpdates) to the bot's first API call for
it (answerCallbackQuery), and the bot process's CPU time per update during the waves (a figure
that holds still on a busy machine). The same harness runs a bare python-telegram-bot echo bot
(``bench/baseline/echo_bot.py``) as the baseline and prints our throughput as a ratio of it. The
fake server runs on its asyncio front end (``--fake-http aiohttp``, the default) so that neither
bot is capped by the harness. Prints figures only; asserts nothing.

``--processes 1 2 3`` compares instead 1, 2, 3 bot processes sharing one PostgreSQL database
(a fresh one per case) in webhook mode: every process serves its own webhook port, and the fake
server delivers Telegram's updates round robin to them (``webhook_targets``, standing for a
reverse proxy in front of them). The same waves (and a steady load per ``--rates``) are played;
latency runs from the POST that delivered an update to the answer of its button press, and the
CPU time is summed over all the processes. A table at the end gives every figure per process
count with the CPU per update as a ratio of the smallest count's, and counts the calls that look
like work done twice: a second answerCallbackQuery for one query, and edits refused as "not
modified" or of a message no longer there.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.telegram_cases import run_case, service_only, steady_case  # noqa: E402
from bench.telegram_harness import _bin  # noqa: E402

# This script holds the command line, the PostgreSQL databases of the cases and the
# ``--processes`` comparison; bench/telegram_harness.py starts the fake server and the bot
# processes and measures, bench/telegram_cases.py holds the cases (waves, steady load, the
# service alone).


PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_database() -> tuple[str, str]:
    import psycopg

    name = f"stammtisch_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_SERVER.rsplit("/", 1)[0]
    return f"{base}/{name}", name


def _drop_pg(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def compare_processes(counts: list[int], tables: int, waves: int, rates: list[float],
                      seconds: float, env: dict[str, str], setup: str,
                      fake_http: str = "aiohttp") -> list[dict[str, Any]]:
    """For each process count: the waves (and a steady load at each of ``rates``) against that
    many bot processes in webhook mode on a fresh PostgreSQL database; prints a table."""
    command = [_bin("stammtisch"), "telegram"]
    rows: list[dict[str, Any]] = []
    for n in counts:
        cases = [("waves", None), *((f"steady {rate:.0f}/s", rate) for rate in rates)]
        for case, rate in cases:
            url, name = _pg_database()
            label = f"{n} process{'es' if n != 1 else ''}, {case}"
            try:
                case_env = {**env, "DATABASE_URL": url}
                if rate is None:
                    result = run_case(label, command, case_env, tables, waves, setup, fake_http,
                                      processes=n, pg_server=PG_SERVER)
                else:
                    result = steady_case(label, command, case_env, tables, rate, seconds, setup,
                                         fake_http, senders=min(4, tables), processes=n)
            finally:
                _drop_pg(name)
            rows.append({"processes": n, "case": case, **result})
    print()
    print(f"{'processes':>9s}  {'case':14s} {'updates/s':>9s} {'p50 ms':>7s} {'p99 ms':>7s} "
          f"{'CPU ms/upd':>10s} {'CPU vs ' + str(min(counts)):>9s} {'updates':>7s} "
          f"{'unanswered':>10s} {'dup answers':>11s} {'failed edits':>12s} "
          f"{'msgs/upd':>8s} {'commits/upd':>11s} {'WAL kB/upd':>10s} {'conns/proc':>10s}")
    for row in rows:
        base = next(r for r in rows if r["case"] == row["case"]
                    and r["processes"] == min(counts))
        ratio = row["cpu_ms"] / base["cpu_ms"] if base["cpu_ms"] else float("nan")
        print(f"{row['processes']:9d}  {row['case']:14s} {row['rate']:9.0f} {row['p50']:7.1f} "
              f"{row['p99']:7.1f} {row['cpu_ms']:10.2f} {ratio:9.2f} {row['updates']:7d} "
              f"{row['unanswered']:10d} {row['dup_answers']:11d} {row['failed_edits']:12d} "
              f"{row.get('messages', float('nan')):8.2f} {row.get('commits', float('nan')):11.2f} "
              f"{row.get('wal_kb', float('nan')):10.1f} {row.get('connections', float('nan')):10.1f}")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--waves", type=int, default=10)
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument("--fake-http", choices=("aiohttp", "threaded"), default="aiohttp",
                        help="front end of the fake Bot API server (default: aiohttp)")
    parser.add_argument("--rates", type=float, nargs="*", default=[],
                        help="also a steady load at these updates/s (SQLite; 20 s each)")
    parser.add_argument("--steady-seconds", type=float, default=20.0)
    parser.add_argument("--only-steady", action="store_true",
                        help="run only the steady-load cases")
    parser.add_argument("--count-sql", action="store_true",
                        help="steady cases: run the bot under bench/sqlcount.py and print SQL "
                             "statements and commits per update")
    parser.add_argument("--http-client", choices=("aiohttp", "httpx"), default="aiohttp",
                        help="the bot's Bot API client (TELEGRAM_HTTP_CLIENT; default: aiohttp)")
    parser.add_argument("--processes", type=int, nargs="+", default=None, metavar="N",
                        help="compare N bot processes in webhook mode on one PostgreSQL "
                             "database (the waves, and --rates), nothing else")
    args = parser.parse_args(argv)
    common = {"CPU_DELAY": "0", "TELEGRAM_CHAT_INTERVAL": "0", "LOG_LEVEL": "WARNING",
              "INPUT_RATE": "off",  # each simulated player presses 5 times a second
              "TELEGRAM_GLOBAL_PER_SECOND": "100000", "TELEGRAM_GROUP_PER_MINUTE": "100000",
              "TELEGRAM_HTTP_CLIENT": args.http_client}
    setup = "/new schwimmen 1 anfaenger"
    if args.processes:
        print(f"{args.tables} active private Schwimmen tables, {args.waves} waves of one button "
              f"press per table (and a steady load at {args.rates or 'no'} updates/s), "
              f"against {', '.join(map(str, args.processes))} bot processes sharing one "
              f"PostgreSQL database, webhook updates spread round robin")
        compare_processes(args.processes, args.tables, args.waves, args.rates,
                          args.steady_seconds, common, setup, args.fake_http)
        return
    print(f"{args.tables} active private Schwimmen tables, {args.waves} waves of one button "
          f"press per table; the fake Bot API server runs as its own process")
    results = {}
    for rate in args.rates:
        with tempfile.TemporaryDirectory() as tmp:
            bot = [_bin("stammtisch"), "telegram"]
            env = {**common, "DATABASE_URL": f"sqlite:///{tmp}/steady.db"}
            if args.count_sql:
                bot = [sys.executable, str(ROOT / "bench" / "sqlcount.py"), "telegram"]
                env["SQL_COUNT_FILE"] = f"{tmp}/sql.json"
            steady_case(f"steady {rate:.0f}/s (SQLite)", bot, env, args.tables,
                        rate, args.steady_seconds, setup, args.fake_http)
    if args.only_steady:
        return
    with tempfile.TemporaryDirectory() as tmp:
        service_only(f"sqlite:///{tmp}/alone.db", args.tables, args.waves, "service (SQLite)")
    if not args.skip_postgres:
        url, name = _pg_database()
        try:
            service_only(url, args.tables, args.waves, "service (PostgreSQL)")
        finally:
            _drop_pg(name)
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = run_case(
            "stammtisch (SQLite)", [_bin("stammtisch"), "telegram"],
            {**common, "DATABASE_URL": f"sqlite:///{tmp}/bench.db"}, args.tables, args.waves,
            setup, args.fake_http)
    if not args.skip_postgres:
        url, name = _pg_database()
        try:
            results["postgres"] = run_case(
                "stammtisch (PostgreSQL)", [_bin("stammtisch"), "telegram"],
                {**common, "DATABASE_URL": url}, args.tables, args.waves, setup,
                args.fake_http)
        finally:
            _drop_pg(name)
    results["echo"] = run_case(
        "bare PTB echo bot (baseline)", [sys.executable, str(ROOT / "bench" / "baseline" / "echo_bot.py")],
        common, args.tables, args.waves, "/start", args.fake_http)
    for key in ("sqlite", "postgres"):
        if key in results:
            ratio = results[key]["rate"] / results["echo"]["rate"]
            cpu_ratio = results["echo"]["cpu_ms"] / results[key]["cpu_ms"]
            print(f"ratio {key} / echo baseline: {ratio:.2f} (updates/s), "
                  f"{cpu_ratio:.2f} (CPU per update)")


if __name__ == "__main__":
    main()
