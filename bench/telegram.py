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
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.telegram_api import FakeBotApiProcess  # noqa: E402

TOKEN = "123456:BENCH"
PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def _table_message(fake, chat: int) -> dict | None:
    msgs = [m for m in fake.messages(chat) if not m.get("deleted") and m.get("reply_markup")]
    for m in reversed(msgs):
        datas = [b.get("callback_data", "") for row in m["reply_markup"]["inline_keyboard"]
                 for b in row]
        if any(d.startswith("v1:") and not d.startswith("v1:0:") for d in datas):
            return m
    return None


def _pick(message: dict, rng: random.Random) -> str | None:
    datas = [b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
             for b in row]
    moves = [d for d in datas if d.rsplit(":", 1)[-1] not in ("again", "back", "cards")]
    nxt = [d for d in moves if d.endswith(":next")]
    if nxt:
        return nxt[0]
    return rng.choice(moves) if moves else None


def _latencies(fake, uids: set[int],
               webhook: bool = False) -> tuple[list[float], float, float]:
    """Per-update latency (s), and the wave's first delivery / last answer times. ``webhook``:
    an update counts as delivered when the POST that the bot accepted began."""
    delivered: dict[int, float] = {}
    qid_to_uid: dict[str, int] = {}
    if webhook:
        for hook in fake.webhook_deliveries():
            uid = hook["update_id"]
            if hook["error"] is None and uid in uids and uid not in delivered:
                delivered[uid] = hook["started"]
                if "callback_query_id" in hook:
                    qid_to_uid[hook["callback_query_id"]] = uid
    for call in [] if webhook else fake.calls("getUpdates"):
        for upd in (call.get("response") or {}).get("result") or []:
            uid = upd["update_id"]
            if uid in uids and uid not in delivered:
                delivered[uid] = call["time"]
                if "callback_query" in upd:
                    qid_to_uid[upd["callback_query"]["id"]] = uid
    answered: dict[int, float] = {}
    for call in fake.calls("answerCallbackQuery"):
        uid = qid_to_uid.get(str(call["params"].get("callback_query_id")))
        if uid is not None and uid not in answered:
            answered[uid] = call["time"]
    lat = [answered[u] - delivered[u] for u in answered if u in delivered]
    first = min(delivered.values()) if delivered else 0.0
    last = max(answered.values()) if answered else 0.0
    return lat, first, last


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_all(procs: list[subprocess.Popen]) -> float:
    return sum(_cpu_seconds(p.pid) for p in procs)


def _wait(pred, timeout: float, what: str, every: float = 0.05, fatal: bool = True) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(every)
    if fatal:
        raise SystemExit(f"timed out waiting for {what}")
    print(f"  (timed out waiting for {what}; going on)")
    return False


def _free_ports(count: int) -> list[int]:
    socks = [socket.socket() for _ in range(count)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextmanager
def _running_bot(command: list[str], env: dict[str, str], chats: list[int], setup: str,
                 fake_http: str, echo: bool = False) -> Iterator[tuple[Any, subprocess.Popen]]:
    """A fake Bot API server and a bot process against it, with ``setup`` sent in every chat
    and a table message (with buttons) shown in each; the bot is stopped afterwards.
    ``echo``: the bare echo bot, which registers no commands."""
    with _running_bots(command, env, chats, setup, fake_http, echo) as (fake, procs):
        yield fake, procs[0]


@contextmanager
def _running_bots(command: list[str], env: dict[str, str], chats: list[int], setup: str,
                  fake_http: str, echo: bool = False,
                  processes: int = 0) -> Iterator[tuple[Any, list[subprocess.Popen]]]:
    """``_running_bot``; with ``processes`` > 0 that many bot processes in webhook mode, each
    on a port of its own, the fake server delivering to them round robin (a reverse proxy's
    part); the URL they register is the proxy's (nobody listens there)."""
    fake_args = ("--max-calls", "400000", "--http", fake_http)
    with FakeBotApiProcess(token=TOKEN, args=fake_args) as fake, \
            tempfile.TemporaryDirectory() as tmp:
        full_env = {**os.environ, **env, "TELEGRAM_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.url}
        envs = [full_env]
        ports: list[int] = []
        if processes:
            proxy, *ports = _free_ports(processes + 1)
            hook = {"TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{proxy}/telegram",
                    "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
                    "TELEGRAM_WEBHOOK_SECRET": f"bench-{uuid.uuid4().hex}"}
            envs = [{**full_env, **hook, "TELEGRAM_WEBHOOK_PORT": str(port)} for port in ports]
            fake.webhook_targets([f"http://127.0.0.1:{port}/telegram" for port in ports])
        logs = [Path(tmp) / ("bot.log" if not processes else f"bot-{i + 1}.log")
                for i in range(len(envs))]
        procs: list[subprocess.Popen] = []
        try:
            for proc_env, log_path in zip(envs, logs, strict=True):
                with open(log_path, "w") as log:
                    procs.append(subprocess.Popen(command, env=proc_env, cwd=tmp,
                                                  stdout=subprocess.DEVNULL, stderr=log))

            def ready() -> bool:
                if processes:  # the webhook is registered (by one of them) and all listen
                    return bool(fake.calls("setWebhook")) and all(map(_listening, ports))
                return bool(fake.calls("getMe") and (fake.calls("setMyCommands") or echo))

            _wait(lambda: ready() or any(p.poll() is not None for p in procs), 60,
                  "the bot to start")
            for proc, log_path in zip(procs, logs, strict=True):
                if proc.poll() is not None:
                    raise SystemExit(log_path.read_text()[-3000:])
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda c: fake.send_text(c, c, setup), chats))
            _wait(lambda: all(_table_message(fake, c) for c in chats), 120, "the tables")
            yield fake, procs
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def _answered(fake, mark: int) -> int:
    """Callback queries answered since ``mark`` (each once, however often answered)."""
    return len({str(c["params"].get("callback_query_id"))
                for c in fake.calls("answerCallbackQuery", since=mark)})


def _twice(fake, mark: int) -> dict[str, int]:
    """Calls since ``mark`` that look like work done twice: answers to a query already
    answered, and edits refused as not modified or of a message no longer there."""
    seen: set[str] = set()
    answers = 0
    for call in fake.calls("answerCallbackQuery", since=mark):
        qid = str(call["params"].get("callback_query_id"))
        answers += qid in seen
        seen.add(qid)
    edits = sum(1 for call in fake.calls(None, since=mark)
                if call["method"].startswith("editMessage") and call["status"] == 400
                and any(text in str((call["response"] or {}).get("description"))
                        for text in ("not modified", "not found")))
    return {"dup_answers": answers, "failed_edits": edits}


def run_case(label: str, command: list[str], env: dict[str, str], tables: int, waves: int,
             setup: str, fake_http: str = "aiohttp", processes: int = 0) -> dict[str, float]:
    """Start a fake server and a bot; play ``waves`` presses on ``tables`` chats.
    ``processes``: that many bot processes in webhook mode (see ``_running_bots``)."""
    rng = random.Random(7)
    chats = list(range(10_001, 10_001 + tables))
    with _running_bots(command, env, chats, setup, fake_http, "echo" in label,
                       processes) as (fake, procs):
        lat_all: list[float] = []
        start_mark = fake.last_seq()
        db_start = _pg_stats(env["DATABASE_URL"]) if processes else None
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
            db_end = _pg_stats(env["DATABASE_URL"])
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
                processes: int = 0) -> dict[str, float]:
    """Open-loop load: presses at ``rate`` per second in all, round robin over ``tables``
    chats, for ``seconds``; ``senders`` threads share the chats and the rate (one thread
    alone cannot offer more than about a hundred presses a second). Unlike the waves (100
    updates at once, so the last waits behind 99), this is the latency an update sees at a
    steady rate — what a bot in production faces. ``processes``: see ``run_case``."""
    chats = list(range(30_001, 30_001 + tables))
    with _running_bots(command, env, chats, setup, fake_http,
                       processes=processes) as (fake, procs):
        mark = fake.last_seq()
        cpu_start = _cpu_all(procs)
        sql_start = _sql_counts(env)
        start = time.perf_counter() + 0.2

        def sender(index: int) -> list[int]:
            control = _Control(fake.url)
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
                # a move button as _pick chooses; a finished game is played again, so that
                # every table stays active however long the run
                uid = control.call("press_newest", {
                    "chat_id": chat, "user_id": chat, "prefix": "v1:", "skip_prefix": "v1:0:",
                    "skip_suffixes": ["back", "cards"], "prefer_suffix": ":next",
                    "seed": k * senders + index})["update_id"]
                if uid is not None:
                    sent.append(uid)
            return sent

        with ThreadPoolExecutor(senders) as pool:
            uids = {u for part in pool.map(sender, range(senders)) for u in part}
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
        print(f"{'':28s} SQL per update: " + ", ".join(f"{k} {v:.2f}" for k, v in sql.items()))
    return {"rate": len(uids) / elapsed, "p50": p50, "p99": p99, "cpu_ms": cpu_ms,
            "updates": len(uids), "unanswered": len(uids) - len(lat), **twice, **sql}


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
    keys = ("statements", "selects", "inserts", "updates", "deletes", "commits")
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


def _pg_stats(url: str) -> tuple[int, int, int]:
    """The database's commits so far, the server's WAL position (bytes) and the database's
    open connections."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        commits, wal, connections = conn.execute(
            "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = %s), "
            "pg_current_wal_lsn() - '0/0'::pg_lsn, "
            "(SELECT count(*) FROM pg_stat_activity WHERE datname = %s)", (name, name)).fetchone()
    return int(commits or 0), int(wal), int(connections)


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
                                      processes=n)
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
