"""The cases of the Telegram benchmark (``bench/telegram.py``): waves of presses
(``run_case``), a steady load at a given rate (``steady_case``), the SQL statements per update
(``--count-sql``) and the service alone without Telegram (``service_only``).
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.telegram_harness import (
    PG_SERVER,
    _answered,
    _cpu_all,
    _latencies,
    _pick,
    _running_bots,
    _table_message,
    _twice,
    _wait,
)


def run_case(label: str, command: list[str], env: dict[str, str], tables: int, waves: int,
             setup: str, fake_http: str = "aiohttp", processes: int = 0,
             pg_server: str = PG_SERVER) -> dict[str, float]:
    """Start a fake server and a bot; play ``waves`` presses on ``tables`` chats.
    ``processes``: that many bot processes in webhook mode (see ``_running_bots``) on a
    PostgreSQL database of ``pg_server``, whose statistics are read there."""
    rng = random.Random(7)
    chats = list(range(10_001, 10_001 + tables))
    with _running_bots(command, env, chats, setup, fake_http, "echo" in label,
                       processes) as (fake, procs):
        lat_all: list[float] = []
        start_mark = fake.last_seq()
        db_start = _pg_stats(env["DATABASE_URL"], pg_server) if processes else None
        cpu_start = _cpu_all(procs)
        busy = 0.0
        handled = 0
        for _ in range(waves):
            current = {c: _table_message(fake, c) for c in chats}
            presses = [(c, m["message_id"], _pick(m, rng)) for c, m in current.items() if m]
            presses = [p for p in presses if p[2]]
            mark = fake.last_seq()
            with ThreadPoolExecutor(8) as pool:
                uids = set(pool.map(lambda p: fake.press(p[0], p[0], p[1], p[2],
                                                          check_data=False), presses))

            expected = len(uids)

            def all_answered(n=expected, mark=mark) -> bool:
                # one control request per poll, so the harness does not load the server
                if processes:  # (a query answered twice counts once)
                    return _answered(fake, mark) >= n
                return len(fake.calls("answerCallbackQuery", since=mark)) >= n

            _wait(all_answered, 120, "answers", every=0.25, fatal=not processes)
            time.sleep(1.0)  # let CPU replies and edits settle before the next wave
            lat, first, last = _latencies(fake, uids, webhook=bool(processes))
            lat_all += lat
            busy += max(0.0, last - first)
            handled += len(uids)
        cpu = _cpu_all(procs) - cpu_start
        twice = _twice(fake, start_mark) if processes else {}
        messages = sum(1 for c in fake.calls(since=start_mark)
                       if c["method"] in ("sendMessage", "editMessageText"))
        if db_start is not None:
            time.sleep(1.0)  # (PostgreSQL publishes its statistics about once a second)
            db_end = _pg_stats(env["DATABASE_URL"], pg_server)
            twice["commits"] = (db_end[0] - db_start[0]) / max(1, handled)
            twice["wal_kb"] = (db_end[1] - db_start[1]) / 1024 / max(1, handled)
            twice["connections"] = max(db_start[2], db_end[2]) / max(1, processes)
            twice["messages"] = messages / max(1, handled)
    lat_ms = sorted(x * 1000 for x in lat_all) or [float("nan")]
    p50 = statistics.median(lat_ms)
    p99 = lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.99))]
    rate = handled / busy if busy else float("nan")
    cpu_ms = cpu / handled * 1000 if handled else float("nan")
    print(f"{label:28s} {rate:8.0f} updates/s   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   "
          f"CPU {cpu_ms:5.1f} ms/update   ({handled} updates, {tables} tables)")
    return {"rate": rate, "p50": p50, "p99": p99, "cpu_ms": cpu_ms, "updates": handled,
            "unanswered": handled - len(lat_all), **twice}


# buttons the load generators leave alone: they are no moves (a "💡 Tip" or the review asks the
# Experte to think, a second of CPU each: load of another kind than the presses measured)
NOT_MOVES = ["back", "cards", "tip", "review"]


class _Control:
    """Keep-alive control calls to the fake server (urllib opens a connection per call, which
    would make the load generator, not the bot, the limit)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def call(self, name: str, body: dict) -> Any:
        self.conn.request("POST", f"/control/{name}", body=json.dumps(body).encode(),
                          headers={"Content-Type": "application/json"})
        payload = json.loads(self.conn.getresponse().read())
        if not payload.get("ok"):
            raise RuntimeError(f"control {name}: {payload}")
        return payload["result"]


def steady_case(label: str, command: list[str], env: dict[str, str], tables: int,
                rate: float, seconds: float, setup: str,
                fake_http: str = "aiohttp", senders: int = 4,
                processes: int = 0, profile: str | None = None) -> dict[str, float]:
    """Open-loop load: presses at ``rate`` per second in all, round robin over ``tables``
    chats, for ``seconds``; ``senders`` threads share the chats and the rate (one thread
    alone cannot offer more than about a hundred presses a second). Unlike the waves (100
    updates at once, so the last waits behind 99), this is the latency an update sees at a
    steady rate — what a bot in production faces. ``processes``: see ``run_case``.
    ``profile``: record the (first) bot with ``py-spy`` meanwhile, collapsed stacks to that
    file (its CPU figure then includes what the sampling costs the bot)."""
    chats = list(range(30_001, 30_001 + tables))
    with _running_bots(command, env, chats, setup, fake_http, "echo" in label,
                       processes=processes) as (fake, procs):
        mark = fake.last_seq()
        cpu_start = _cpu_all(procs)
        sql_start = _sql_counts(env)
        start = time.perf_counter() + 0.2
        spy = _py_spy(procs[0].pid, seconds, profile) if profile else None
        uids = offer(fake.url, chats, rate, seconds, senders, start)
        if spy is not None:
            spy.wait(60)
        elapsed = time.perf_counter() - start
        if processes:
            _wait(lambda: _answered(fake, mark) >= len(uids), 120, "answers", every=0.25,
                  fatal=False)
        else:
            _wait(lambda: len(fake.calls("answerCallbackQuery", since=mark)) >= len(uids), 120,
                  "answers", every=0.25)
        cpu_ms = (_cpu_all(procs) - cpu_start) / max(1, len(uids)) * 1000
        sql = _sql_per_update(env, sql_start, len(uids))
        lat, _first, _last = _latencies(fake, uids, webhook=bool(processes))
        # a press on buttons the bot has not yet replaced (the table moved on) is refused
        refused = sum(1 for c in fake.calls("answerCallbackQuery", since=mark)
                      if c["params"].get("text"))
        twice = _twice(fake, mark) if processes else {}
    lat_ms = sorted(x * 1000 for x in lat) or [float("nan")]
    p50 = statistics.median(lat_ms)
    p90 = lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.90))]
    p99 = lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.99))]
    print(f"{label:28s} {len(uids) / elapsed:8.0f} updates/s offered   p50 {p50:6.1f} ms   "
          f"p90 {p90:6.1f} ms   p99 {p99:6.1f} ms   CPU {cpu_ms:4.2f} ms/update   "
          f"({len(uids)} updates, {tables} tables, "
          f"{100 * refused / max(1, len(uids)):.0f} % refused as stale)")
    if sql:
        print(f"{'':28s} SQL per update: " + ", ".join(f"{k} {v:.2f}" for k, v in sql.items()
                                                          if not k.startswith("q:")))
    return {"rate": len(uids) / elapsed, "p50": p50, "p99": p99, "cpu_ms": cpu_ms,
            "updates": len(uids), "unanswered": len(uids) - len(lat),
            "refused": refused / max(1, len(uids)), **twice, **sql}


def offer(url: str, chats: list[int], rate: float, seconds: float, senders: int = 4,
          start: float | None = None) -> set[int]:
    """Press a move button (as ``_pick`` chooses; a finished game is played again) at ``rate``
    presses a second in all, round robin over ``chats``, for ``seconds`` from ``start``;
    ``senders`` threads share the chats and the rate. The update ids pressed."""
    start = time.perf_counter() + 0.2 if start is None else start

    def sender(index: int) -> list[int]:
        control = _Control(url)
        mine = chats[index::senders]
        every = senders / rate
        sent: list[int] = []
        k = 0
        while (now := time.perf_counter()) < start + seconds:
            due = start + index / rate + k * every
            if now < due:
                time.sleep(due - now)
            chat = mine[k % len(mine)]
            k += 1
            uid = control.call("press_newest", {
                "chat_id": chat, "user_id": chat, "prefix": "v1:", "skip_prefix": "v1:0:",
                "skip_suffixes": NOT_MOVES, "prefer_suffix": ":next",
                "seed": k * senders + index})["update_id"]
            if uid is not None:
                sent.append(uid)
        return sent

    with ThreadPoolExecutor(senders) as pool:
        return {u for part in pool.map(sender, range(min(senders, len(chats))))
                for u in part}


def _py_spy(pid: int, seconds: float, out: str) -> subprocess.Popen:
    """``py-spy record`` on ``pid`` for ``seconds`` (100 samples a second, without pausing the
    process: ``--nonblocking``; only the thread holding the interpreter lock: ``--gil``, so
    that threads waiting on the database or a queue do not count as work), collapsed stacks
    into ``out``."""
    spy = str(Path(sys.executable).parent / "py-spy")
    return subprocess.Popen([spy, "record", "--pid", str(pid), "--duration",
                             str(max(1, int(seconds))), "--rate", "100", "--nonblocking", "--gil",
                             "--format", "raw", "--output", out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _sql_counts(env: dict[str, str]) -> dict[str, int]:
    """The bot's statement and commit counts so far (``bench/sqlcount.py``), or {}."""
    path = env.get("SQL_COUNT_FILE")
    if not path:
        return {}
    time.sleep(0.5)  # (the bot writes them every 0.2 s)
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def _sql_per_update(env: dict[str, str], start: dict[str, int], updates: int) -> dict[str, float]:
    """Statements (all, and by verb) and commits per update since ``start``."""
    end = _sql_counts(env)
    keys = ("statements", "selects", "inserts", "updates", "deletes", "commits",
            *(k for k in end if k.startswith("q:")))
    return {k: (end.get(k, 0) - start.get(k, 0)) / max(1, updates) for k in keys if end}


def service_only(url: str, tables: int, waves: int, label: str) -> None:
    """The same workload straight into the service, without Telegram, HTTP or PTB: what one
    process can decide and commit per second (each press plus the CPU reply it causes)."""
    import engine
    from chatbot.service import ChatRef, Service, Settings, UserRef
    from storage.db import make_engine, migrate

    db = make_engine(url)
    migrate(db)
    service = Service(db, Settings(cpu_delay=0))
    rng = random.Random(5)
    chats = [ChatRef("telegram", str(20_001 + i), "private") for i in range(tables)]
    users = [UserRef(c.external_id, f"P{i}") for i, c in enumerate(chats)]
    for chat, user in zip(chats, users, strict=True):
        service.command(chat, user, "new", "schwimmen 1 anfaenger")
    lat: list[float] = []
    busy = 0.0
    handled = 0
    for wave in range(waves):
        todo = []
        for chat, user in zip(chats, users, strict=True):
            tables_now = service.unfinished_tables("telegram", chat.external_id)
            if not tables_now:  # the game is over
                continue
            table = tables_now[0]
            game = engine.GAMES[table.game]
            state = game.from_json(table.state_json)
            if game.phase(state) == "payout":
                code = "next"
            elif game.to_act(state) != 0:
                continue
            else:
                code = rng.choice(game.legal_actions(state)).code
            todo.append((chat, user, f"v1:{table.id}:{table.version}:{code}"))
        start = time.perf_counter()
        for i, (chat, user, data) in enumerate(todo):
            t0 = time.perf_counter()
            service.press(chat, user, data, update_key=f"{wave}:{i}")
            lat.append(time.perf_counter() - t0)
        for table_id, version in service.due():
            service.fire_due(table_id, version)
        busy += time.perf_counter() - start
        handled += len(todo)
    db.dispose()
    ms = sorted(x * 1000 for x in lat)
    print(f"{label:28s} {handled / busy:8.0f} presses/s   p50 {statistics.median(ms):6.1f} ms   "
          f"p99 {ms[int(len(ms) * 0.99)]:6.1f} ms   (service alone, CPU replies included)")


def _pg_stats(url: str, server: str) -> tuple[int, int, int]:
    """The database's commits so far, the server's WAL position (bytes) and the database's
    open connections (asked on ``server``)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(server, autocommit=True) as conn:
        commits, wal, connections = conn.execute(
            "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = %s), "
            "pg_current_wal_lsn() - '0/0'::pg_lsn, "
            "(SELECT count(*) FROM pg_stat_activity WHERE datname = %s)", (name, name)).fetchone()
    return int(commits or 0), int(wal), int(connections)
