"""The hot path's figures of issue 39 in one run: the bot beside the bare echo bot.

    python bench/hotpath.py [--rates 100 300 500] [--pg-rates 100] [--repeat 3]
                            [--seconds 15] [--count-sql] [--profile DIR] [--profile-rate 300]
                            [--profile-db sqlite|postgres]

For each repeat, each database and rate: ``stammtisch telegram`` at a steady rate (100 private
Schwimmen tables, ``bench/telegram_cases.steady_case``), then at once the bare
python-telegram-bot echo bot (``bench/baseline/echo_bot.py``) at the same rate, on PTB's default
client and on the bot's aiohttp client — back to back in the same minutes, so that the ratios
hold on a busy machine where the absolute figures move. ``--count-sql`` runs the bot under
``bench/sqlcount.py`` (statements and commits per update); ``--profile DIR`` records the bot with
py-spy once more at ``--profile-rate`` on ``--profile-db`` (SQLite) and prints where its CPU goes. Prints figures
only; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.telegram import _drop_pg, _pg_database  # noqa: E402
from bench.telegram_cases import steady_case  # noqa: E402
from bench.telegram_harness import _bin  # noqa: E402

COMMON = {"CPU_DELAY": "0", "TELEGRAM_CHAT_INTERVAL": "0", "LOG_LEVEL": "WARNING",
          "INPUT_RATE": "off", "TELEGRAM_GLOBAL_PER_SECOND": "100000",
          "TELEGRAM_GROUP_PER_MINUTE": "100000"}
ECHO = [sys.executable, str(ROOT / "bench" / "baseline" / "echo_bot.py")]
# where a sample's time goes, by the file of a frame on its stack (paths as py-spy shortens
# them; the first kind found on the stack wins, so what the ORM calls down counts for it)
KINDS = (("SQLAlchemy/SQLModel", ("sqlalchemy/", "sqlmodel/")),
         ("sqlite3/psycopg", ("sqlite3/", "psycopg/")),
         ("engine + fsm", ("engine/", "fsm/", "transitions/")),
         ("views + i18n", ("chatbot/presenters/", "chatbot/views", "chatbot/i18n", "gettext")),
         ("storage (WAL checkpoint thread)", ("storage/",)),
         ("json", ("json/",)),
         ("python-telegram-bot", ("telegram/",)),
         ("aiohttp", ("aiohttp/", "yarl/", "multidict/")),
         ("chatbot (our own code)", ("chatbot/",)),
         ("asyncio + selectors", ("asyncio/", "selectors.py")))


def bot_case(db: str, rate: float, seconds: float, count_sql: bool,
             profile: str | None = None) -> dict[str, Any]:
    """The bot at a steady ``rate`` on a fresh database (``sqlite`` or ``postgres``)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [_bin("stammtisch"), "telegram"]
        env = {**COMMON}
        if count_sql:
            command = [sys.executable, str(ROOT / "bench" / "sqlcount.py"), "telegram"]
            env["SQL_COUNT_FILE"] = f"{tmp}/sql.json"
        pg = None
        if db == "sqlite":
            env["DATABASE_URL"] = f"sqlite:///{tmp}/steady.db"
        else:
            env["DATABASE_URL"], pg = _pg_database()
        try:
            return steady_case(f"bot {rate:.0f}/s ({db})", command, env, 100, rate, seconds,
                               "/new schwimmen 1 anfaenger", profile=profile)
        finally:
            if pg:
                _drop_pg(pg)


def echo_case(client: str, rate: float, seconds: float) -> dict[str, Any]:
    """The bare echo bot at a steady ``rate`` (``client``: ``httpx`` is PTB's default)."""
    env = {**COMMON, "ECHO_HTTP_CLIENT": client}
    return steady_case(f"echo {rate:.0f}/s ({client})", ECHO, env, 100, rate, seconds, "/start")


def print_shapes(rows: list[tuple[str, float, int, dict[str, Any], Any]],
                 top: int = 14) -> None:
    """The statements per update by shape (their first 90 characters), the first run of each
    case: where the count comes from."""
    for db, rate, run, bot, _ in rows:
        if run:
            continue
        shapes = sorted(((v, k[2:]) for k, v in bot.items() if k.startswith("q:")), reverse=True)
        print(f"\n{db} {rate:.0f}/s: statements per update by shape")
        for per_update, shape in shapes[:top]:
            print(f"  {per_update:5.2f}  {shape}")


def summarize(path: str, top: int = 25) -> None:
    """Print where the samples of a py-spy raw (collapsed) profile go: by kind (a sample counts
    for the first kind of ``KINDS`` found anywhere on its stack, below the service's own code
    — so 'SQLAlchemy' holds what the ORM calls down into the driver; the event loop waiting
    in epoll is idle, not work) and the hottest functions by own time."""
    frame = re.compile(r"([^;]+?) \(([^);]*?):\d+\)")
    kinds: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = frame.findall(stack)
        files = [f for _, f in frames]
        if frames and frames[-1][0] == "EpollSelector.select":  # the loop waiting: not work
            kind = "idle (the event loop waiting in epoll)"
        else:
            kind = next((name for name, marks in KINDS
                         if any(f.startswith(m) for f in files for m in marks)), "other")
        kinds[kind] += n
        if frames:
            name, file = frames[-1]
            own[f"{name} ({'/'.join(file.split('/')[-2:])})"] += n
    print(f"\nprofile {path}: {total} samples")
    for kind, n in kinds.most_common():
        print(f"  {100 * n / max(1, total):5.1f} %  {kind}")
    print("  hottest functions (own time):")
    for name, n in own.most_common(top):
        print(f"  {100 * n / max(1, total):5.1f} %  {name}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rates", type=float, nargs="*", default=[100, 300, 500])
    parser.add_argument("--pg-rates", type=float, nargs="*", default=[100])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--count-sql", action="store_true")
    parser.add_argument("--echo", nargs="*", default=["httpx", "aiohttp"])
    parser.add_argument("--httpx-max-rate", type=float, default=100,
                        help="the httpx echo bot only up to this rate (it saturates above)")
    parser.add_argument("--profile", default=None, metavar="DIR")
    parser.add_argument("--profile-rate", type=float, default=300)
    parser.add_argument("--profile-db", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args(argv)
    cases = [("sqlite", r) for r in args.rates] + [("postgres", r) for r in args.pg_rates]
    rows: list[tuple[str, float, int, dict[str, Any], dict[str, dict[str, Any]]]] = []
    for run in range(args.repeat):
        for db, rate in cases:
            bot = bot_case(db, rate, args.seconds, args.count_sql)
            echoes = {c: echo_case(c, rate, args.seconds) if c != "httpx"
                      or rate <= args.httpx_max_rate else {"cpu_ms": float("nan"),
                                                           "p99": float("nan")}
                      for c in args.echo}
            rows.append((db, rate, run, bot, echoes))
    print(f"\n{'case':16s} {'run':>3s} {'CPU ms':>7s} {'p50':>6s} {'p99':>7s} {'stale':>5s} "
          + " ".join(f"{'echo ' + c + ' CPU':>16s} {'bot/echo':>8s}" for c in args.echo)
          + f" {'echo p99':>8s} {'stmts':>6s} {'commits':>7s}")
    for db, rate, run, bot, echoes in rows:
        cells = " ".join(f"{e['cpu_ms']:16.2f} {bot['cpu_ms'] / e['cpu_ms']:8.2f}"
                         for e in echoes.values())
        first = next(iter(echoes.values()), {"p99": float("nan")})
        print(f"{db + ' ' + format(rate, '.0f') + '/s':16s} {run + 1:3d} {bot['cpu_ms']:7.2f} "
              f"{bot['p50']:6.1f} {bot['p99']:7.1f} {100 * bot['refused']:4.0f}% {cells} "
              f"{first['p99']:8.1f} {bot.get('statements', float('nan')):6.2f} "
              f"{bot.get('commits', float('nan')):7.2f}")
    if args.count_sql:
        print_shapes(rows)
    for db, rate in cases:
        mine = [r for r in rows if r[0] == db and r[1] == rate]
        for client in args.echo:
            ratios = [r[3]["cpu_ms"] / r[4][client]["cpu_ms"] for r in mine]
            print(f"{db} {rate:.0f}/s: bot CPU / echo ({client}) CPU, median of "
                  f"{len(ratios)}: {statistics.median(ratios):.2f}")
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        out = str(Path(args.profile) / f"bot-{args.profile_db}-{args.profile_rate:.0f}.txt")
        bot_case(args.profile_db, args.profile_rate, args.seconds, False, profile=out)
        summarize(out)


if __name__ == "__main__":
    main()
