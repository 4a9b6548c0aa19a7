"""How fast ``/stats`` and ``/top`` are with many stored results, on SQLite and PostgreSQL.

    python bench/stats.py                      # 100,000 results, SQLite file and PostgreSQL
    python bench/stats.py --results 20000 --sqlite-only
    python bench/stats.py --pg postgresql://postgres@127.0.0.1:5432/test

Fills a fresh database (a temporary SQLite file; a PostgreSQL database of its own, created and
dropped on the server of ``--pg``) with generated finished games: ``--players`` people in
``--groups`` groups, group games among a group's members (sometimes with CPU seats) and private
games against the CPU at the three levels, all four games. Then prints the catch-up (the first
``/stats`` reads at most ``INLINE`` results into ``stat_entry`` and ``rating``; the periodic
``Service.catch_up_stats`` of the adapters' sweep reads the rest, ``PERIODIC`` at a time: its
longest call is how long it holds the write lock), and the median and p95
of the ``/stats`` and ``/top`` commands through the service (the whole input: its transaction,
the reading of results not read yet, the queries, the answer in the outbox), with one new result
stored before each command (so each one reads one result as it would in use).

``generate`` is also used by the tests (``tests/chatbot/test_stats.py``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, insert, select, text  # noqa: E402
from sqlalchemy.engine import Engine, make_url  # noqa: E402

from storage.db import make_engine, migrate  # noqa: E402
from storage.models import Chat, GameTable, Player, Result, Seat  # noqa: E402

SEATS = {"schwimmen": (2, 4), "scat": (2, 5), "runfast": (3, 3), "climbing": (4, 4)}
LEVELS = ("anfaenger", "normal", "experte")
START = datetime(2030, 1, 1, tzinfo=UTC)
PLATFORM = "bench"


def _next_id(conn: Any, model: Any) -> int:
    return (conn.execute(select(func.max(model.id))).scalar() or 0) + 1


def generate(engine: Engine, results: int, players: int = 300, groups: int = 30,
             seed: int = 1, private_share: float = 0.4, platform: str = PLATFORM,
             among: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store ``results`` finished games (chats, players, tables, seats, results) among new
    people and groups, or those ``among`` (what an earlier call returned). Returns the ids:
    ``players`` (ids), ``groups`` (chat ids), ``private`` (player id → chat id), ``pool``
    (group chat id → its members)."""
    rnd = random.Random(seed)
    with engine.begin() as conn:
        chat0, player0 = _next_id(conn, Chat), _next_id(conn, Player)
        table0, seat0, result0 = (_next_id(conn, GameTable), _next_id(conn, Seat),
                                  _next_id(conn, Result))
        tag = uuid.uuid4().hex[:6] if among is None else among["tag"]
        chats, people = [], []
        if among is not None:
            groups, players = len(among["groups"]), len(among["players"])
            chat0, player0 = among["groups"][0], among["players"][0]
        for g in range(groups):
            chats.append({"id": chat0 + g, "platform": platform, "external_id": f"g{tag}-{g}",
                          "kind": "group", "title": f"Gruppe {g}", "created_at": START})
        private: dict[int, int] = {}
        for p in range(players):
            pid, cid = player0 + p, chat0 + groups + p
            chats.append({"id": cid, "platform": platform, "external_id": f"p{tag}-{p}",
                          "kind": "private", "title": None, "created_at": START})
            people.append({"id": pid, "platform": platform, "external_id": f"u{tag}-{p}",
                           "name": f"Person {p}", "private_chat_id": f"p{tag}-{p}",
                           "created_at": START})
            private[pid] = cid
        if among is None:
            conn.execute(insert(Chat.__table__), chats)  # type: ignore[attr-defined]
            conn.execute(insert(Player.__table__), people)  # type: ignore[attr-defined]
            pool = {chat0 + g: rnd.sample(range(player0, player0 + players), min(15, players))
                    for g in range(groups)}
        else:
            private, pool = among["private"], among["pool"]
        tables: list[dict[str, Any]] = []
        seats: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        seat_id = seat0

        def flush() -> None:
            for model, batch in ((GameTable, tables), (Seat, seats), (Result, rows)):
                if batch:
                    conn.execute(insert(model.__table__), batch)  # type: ignore[attr-defined]
                    batch.clear()

        for i in range(results):
            tid, at = table0 + i, START + timedelta(minutes=i)
            game = rnd.choice(list(SEATS))
            lo, hi = SEATS[game]
            n = rnd.randint(lo, hi)
            if rnd.random() < private_share:
                pid = rnd.randrange(player0, player0 + players)
                chat_id, is_private = private[pid], True
                level = rnd.choice(LEVELS)
                who = [(pid, None)] + [(None, level)] * (n - 1)
            else:
                chat_id = rnd.randrange(chat0, chat0 + groups)
                is_private = False
                humans = rnd.randint(min(2, n), n)
                who = [(p, None) for p in rnd.sample(pool[chat_id], humans)]
                who += [(None, "normal")] * (n - humans)
            tables.append({"id": tid, "chat_id": chat_id, "game": game, "options": {},
                           "fsm_state": "finished", "seed": i, "version": 10,
                           "is_private": is_private, "turn_timeout": 0, "reminded": False,
                           "log": [], "created_at": at, "updated_at": at, "finished_at": at})
            for s, (pid, level) in enumerate(who):
                seats.append({"id": seat_id, "table_id": tid, "seat_no": s, "player_id": pid,
                              "name": "CPU" if pid is None else f"P{pid}",
                              "is_cpu": pid is None, "cpu_level": level, "away": False,
                              "timeouts": 0, "ui": {}})
                seat_id += 1
            order = list(range(n))
            rnd.shuffle(order)
            standings = [{"seat": s, "name": "", "place": order.index(s) + 1}
                         if game == "climbing" else {"seat": s, "name": ""} for s in range(n)]
            rows.append({"id": result0 + i, "table_id": tid, "game": game,
                         "winners": [order[0]], "standings": standings, "rounds": 3,
                         "finished_at": at})
            if len(rows) >= 5000:
                flush()
        flush()
        if engine.dialect.name == "postgresql":  # the ids were given: move the sequences on
            for name in ("chat", "player", "game_table", "seat", "result"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                  f"(SELECT max(id) FROM {name}))"))
    return {"players": list(range(player0, player0 + players)),
            "groups": list(range(chat0, chat0 + groups)), "private": private,
            "platform": platform, "tag": tag, "pool": pool}


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(engine: Engine, label: str, results: int, commands: int) -> None:
    from chatbot.service import ChatRef, Service, Settings, UserRef
    from chatbot.service.stats import ratings as R

    migrate(engine)
    t = time.perf_counter()
    made = generate(engine, results)
    print(f"{label}: {results:,} results stored in {time.perf_counter() - t:.1f} s")
    service = Service(engine, Settings(cpu_delay=0, default_language="de"))
    tag, people, groups = made["tag"], made["players"], made["groups"]
    player0 = people[0]

    def user(pid: int) -> UserRef:
        return UserRef(f"u{tag}-{pid - player0}", f"Person {pid - player0}", language="de")

    def private(pid: int) -> ChatRef:
        return ChatRef(PLATFORM, f"p{tag}-{pid - player0}", "private")

    t = time.perf_counter()
    service.command(private(people[0]), user(people[0]), "stats", "", "first")
    print(f"{label}: first /stats (reads at most {R.INLINE} of them) "
          f"{(time.perf_counter() - t) * 1000:.0f} ms")
    steps: list[float] = []
    while True:  # what the adapters' periodic sweep does, until the backlog is read
        t = time.perf_counter()
        if not service.catch_up_stats():
            break
        steps.append(time.perf_counter() - t)
    print(f"{label}: the rest read by {len(steps)} periodic catch-ups of {R.PERIODIC} results: "
          f"longest {max(steps, default=0) * 1000:.0f} ms (the write lock's longest hold), "
          f"{sum(steps):.1f} s in all")
    rnd = random.Random(7)
    timings: dict[str, list[float]] = {"stats": [], "top": []}
    for i in range(commands):
        generate(engine, 1, seed=1000 + i, among=made)
        pid = rnd.choice(people)
        for name in ("stats", "top"):
            chat = private(pid) if name == "stats" else ChatRef(
                PLATFORM, f"g{tag}-{rnd.randrange(len(groups))}", "group")
            t = time.perf_counter()
            service.command(chat, user(pid), name, "", f"{name}-{i}")
            timings[name].append((time.perf_counter() - t) * 1000)
    for name, values in timings.items():
        print(f"{label}: /{name} p50 {statistics.median(values):.1f} ms, "
              f"p95 {_pct(values, 0.95):.1f} ms ({commands} commands)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--commands", type=int, default=50)
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--sqlite-only", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/stats.db")
        try:
            run(engine, "SQLite", args.results, args.commands)
        finally:
            engine.dispose()
    if args.sqlite_only:
        return 0
    import psycopg

    admin = make_url(make_engine(args.pg).url).set(drivername="postgresql")
    conninfo = admin.render_as_string(hide_password=False)
    name = f"stammtisch_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        engine = make_engine(admin.set(database=name).render_as_string(hide_password=False))
        try:
            run(engine, "PostgreSQL", args.results, args.commands)
        finally:
            engine.dispose()
    finally:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    sys.exit(main())
