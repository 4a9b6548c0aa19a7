"""CPU time per button press in the service alone (no Telegram, no HTTP, no delivery).

    python bench/press_cpu.py [--tables 50] [--waves 30] [--db sqlite|postgres] [--profile N]

``--tables`` private Schwimmen tables against one Anfänger on a fresh database; ``--waves``
rounds of one legal press per table (the CPU's answer is chained into the press's
transaction). Prints the process's CPU time per press (``time.process_time``: it holds still
on a busy machine, where wall-clock times do not); ``--profile N`` prints cProfile's N
hottest functions by own time. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine as rules  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402

PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def run(url: str, tables: int, waves: int, profile: int) -> None:
    db = make_engine(url)
    migrate(db)
    service = Service(db, Settings(cpu_delay=0, cpu_workers=0))
    rng = random.Random(5)
    chats = [ChatRef("telegram", str(20_001 + i), "private") for i in range(tables)]
    users = [UserRef(c.external_id, f"P{i}", language="de") for i, c in enumerate(chats)]
    for chat, user in zip(chats, users, strict=True):
        service.command(chat, user, "new", "schwimmen 1 anfaenger")
    spent = 0.0
    presses = 0
    prof = cProfile.Profile() if profile else None
    for wave in range(waves):
        todo = []
        for chat, user in zip(chats, users, strict=True):
            open_tables = service.unfinished_tables("telegram", chat.external_id)
            if not open_tables:
                service.command(chat, user, "new", "schwimmen 1 anfaenger")
                continue
            table = open_tables[0]
            game = rules.GAMES[table.game]
            state = game.from_json(table.state_json)
            if game.phase(state) == "payout":
                code = "next"
            elif game.to_act(state) != 0:
                continue
            else:
                code = rng.choice(game.legal_actions(state)).code
            todo.append((chat, user, f"v1:{table.id}:{table.version}:{code}"))
        if prof:
            prof.enable()
        t0 = time.process_time()
        for i, (chat, user, data) in enumerate(todo):
            service.press(chat, user, data, update_key=f"{wave}:{i}")
        spent += time.process_time() - t0
        if prof:
            prof.disable()
        presses += len(todo)
    db.dispose()
    print(f"{url.split(':')[0]:10s} {presses} presses, CPU {spent / presses * 1000:.3f} ms/press")
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(profile)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--waves", type=int, default=30)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--profile", type=int, default=0)
    args = parser.parse_args(argv)
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            run(f"sqlite:///{tmp}/press.db", args.tables, args.waves, args.profile)
        return
    import psycopg

    name = f"stammtisch_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        run(f"{PG_SERVER.rsplit('/', 1)[0]}/{name}", args.tables, args.waves, args.profile)
    finally:
        with psycopg.connect(PG_SERVER, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
