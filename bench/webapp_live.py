"""The Mini App's live views, measured: the time from a move made in the chat to the open
page receiving the new view (p50/p99), and what each connected page costs the server
(memory, CPU) with many pages open.

    python bench/webapp_live.py [--db sqlite|postgresql] [--pages 1000] [--moves 200]
                                [--per-table 5] [--idle 30]

Latency: pages are open on the event stream (``/webapp/api/events``) while moves are pressed
through ``Service.press``, as the chat's buttons are. On SQLite the server runs in this
process (one process per database file); on PostgreSQL in a process of its own, so each move
reaches it by NOTIFY/LISTEN — the path between several processes. Cost: a server process
of its own, ``--pages`` streams opened from here, ``--per-table`` of them on each private
table by its player (5 is the most one person may open); its resident memory and CPU time
(from /proc) before, with the pages open and idle for a while, and (PostgreSQL) per move
while they are open. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chatbot.buttons import encode  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from chatbot.webapp.initdata import sign  # noqa: E402
from chatbot.webapp.server import mounted  # noqa: E402
from engine import GAMES  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402

TOKEN = "123456:BENCH-token"
PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
_SERVER = """
import sys
from aiohttp import web
from chatbot.service import Service, Settings
from chatbot.webapp.server import mounted
from storage.db import make_engine
service = Service(make_engine(sys.argv[1]), Settings(cpu_delay=0))
web.run_app(mounted(service, sys.argv[2]), host="127.0.0.1", port=int(sys.argv[3]),
            print=None, access_log=None)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _init(user: int) -> str:
    return sign({"auth_date": str(int(time.time())),
                 "user": json.dumps({"id": user, "first_name": f"P{user}"})}, TOKEN)


def _database(kind: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    from sqlalchemy import create_engine, text

    name = f"bench_webapp_{os.getpid()}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return PG_URL.rsplit("/", 1)[0] + "/" + name


def _tables(service: Service, n: int) -> list[tuple[int, int]]:
    """``n`` private Scat games against two CPUs (a move is always legal to press):
    (user, table)."""
    out = []
    for user in range(1000, 1000 + n):
        chat = ChatRef("telegram", str(user), "private")
        assert service.command(chat, UserRef(str(user), f"P{user}"), "new",
                               "scat 2 anfänger").ok
        out.append((user, service.unfinished_tables("telegram", str(user))[0].id))
    return out


def _chat_move(service: Service, user: int, table_id: int, rng: random.Random) -> int | None:
    """Press a legal move of the person as the chat would; the table's version after it
    (``None``: nothing to press)."""
    table = service.table(table_id)
    game = GAMES[table.game]  # type: ignore[union-attr]
    state = game.from_json(table.state_json)  # type: ignore[union-attr,arg-type]
    if game.to_act(state) != 0:
        legal = [] if table.fsm_state != "payout" else ["next"]  # type: ignore[union-attr]
    else:
        legal = [a.code for a in game.legal_actions(state) if a.code != "knock"]
    if not legal:
        return None
    data = encode(table_id, table.version, rng.choice(legal))  # type: ignore[union-attr,arg-type]
    if not service.press(ChatRef("telegram", str(user), "private"),
                         UserRef(str(user), f"P{user}"), data, None).ok:
        return None
    return service.table(table_id).version  # type: ignore[union-attr]


async def _stream(session: aiohttp.ClientSession, base: str, user: int, table_id: int,
                  got: asyncio.Queue | None, ready: asyncio.Event | None = None) -> None:
    url = f"{base}/webapp/api/events?t={table_id}&initData={quote(_init(user), safe='')}"
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=None)) as resp:
        event = None
        async for raw in resp.content:
            line = raw.decode()
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "view":
                if ready is not None and not ready.is_set():
                    ready.set()
                elif got is not None:
                    await got.put((time.perf_counter(), json.loads(line[5:])["version"]))


async def _up(base: str) -> None:
    """Wait for the server process to answer."""
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            try:
                async with session.get(f"{base}/webapp/") as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit("the server did not come up")


def _proc(pid: int) -> tuple[float, float]:
    """(resident MB, CPU seconds) of a process."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss, (int(fields[11]) + int(fields[12])) / ticks


async def latency(url: str, moves: int) -> list[float]:
    """Milliseconds from pressing a chat move to the page receiving its view."""
    service = Service(make_engine(url), Settings(cpu_delay=0))
    tables = _tables(service, 10)
    runner = None
    proc = None
    port = _free_port()
    if url.startswith("sqlite"):
        from aiohttp import web

        runner = web.AppRunner(mounted(service, TOKEN))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
    else:
        proc = subprocess.Popen([sys.executable, "-c", _SERVER, url, TOKEN, str(port)])
    base = f"http://127.0.0.1:{port}"
    await _up(base)
    rng = random.Random(1)
    samples: list[float] = []
    try:
        async with aiohttp.ClientSession() as session:
            for user, table_id in tables:
                queue: asyncio.Queue = asyncio.Queue()
                ready = asyncio.Event()
                task = asyncio.create_task(_stream(session, base, user, table_id, queue, ready))
                await asyncio.wait_for(ready.wait(), 30)
                for _ in range(moves // len(tables)):
                    start = time.perf_counter()
                    version = await asyncio.to_thread(_chat_move, service, user, table_id, rng)
                    if version is None:
                        break
                    while True:  # the view of this move (or a later one)
                        arrived, seen = await asyncio.wait_for(queue.get(), 30)
                        if seen >= version:
                            break
                    samples.append((arrived - start) * 1000)
                task.cancel()
    finally:
        if runner is not None:
            await runner.cleanup()
        if proc is not None:
            proc.terminate()
            proc.wait()
    return samples


async def cost(url: str, pages: int, idle: float, moves: int, per_table: int
               ) -> dict[str, float]:
    """What ``pages`` open pages, ``per_table`` on each table, cost a server process of
    its own."""
    service = Service(make_engine(url), Settings(cpu_delay=0))
    tables = _tables(service, max(1, pages // per_table))
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, url, TOKEN, str(port)])
    base = f"http://127.0.0.1:{port}"
    out: dict[str, float] = {}
    try:
        await _up(base)
        async with aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0)) as session:
            await session.get(f"{base}/webapp/")  # (imports and first request done)
            rss0, cpu0 = _proc(proc.pid)
            tasks, readies = [], []
            for i in range(pages):
                user, table_id = tables[i % len(tables)]
                ready = asyncio.Event()
                readies.append(ready)
                tasks.append(asyncio.create_task(_stream(session, base, user, table_id, None,
                                                         ready)))
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 300)
            rss1, cpu1 = _proc(proc.pid)
            await asyncio.sleep(idle)
            rss2, cpu2 = _proc(proc.pid)
            out.update(rss_before_mb=rss0, rss_open_mb=rss1, kb_per_page=(rss1 - rss0) * 1024
                       / pages, cpu_ms_per_page_open=(cpu1 - cpu0) * 1000 / pages,
                       idle_cpu_ms_per_page_min=(cpu2 - cpu1) * 1000 / pages * 60 / idle)
            if not url.startswith("sqlite") and moves:
                rng = random.Random(2)
                done = 0
                for i in range(moves):
                    user, table_id = tables[i % len(tables)]
                    done += await asyncio.to_thread(_chat_move, service, user, table_id, rng) is not None
                await asyncio.sleep(2)
                rss3, cpu3 = _proc(proc.pid)
                views = done * pages / len(tables)
                out.update(moves=done, cpu_ms_per_move=(cpu3 - cpu2 - 2 * (cpu2 - cpu1) / idle)
                           * 1000 / max(done, 1),
                           cpu_ms_per_view=(cpu3 - cpu2) * 1000 / max(views, 1))
            for task in tasks:
                task.cancel()
    finally:
        proc.terminate()
        proc.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--idle", type=float, default=30.0)
    ap.add_argument("--per-table", type=int, default=5,
                    help="pages open on each table (by its player)")
    args = ap.parse_args()
    url = _database(args.db)
    migrate(make_engine(url))
    samples = asyncio.run(latency(url, args.moves))
    q = statistics.quantiles(samples, n=100, method="inclusive")
    print(f"{args.db}: move in the chat → view at the page: n={len(samples)} "
          f"p50 {q[49]:.1f} ms, p99 {q[98]:.1f} ms, max {max(samples):.1f} ms")
    figures = asyncio.run(cost(url, args.pages, args.idle, args.moves, args.per_table))
    print(f"{args.db}: {args.pages} open pages: " + ", ".join(
        f"{k} {v:.2f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
