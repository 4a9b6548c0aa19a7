"""What the chat and person rows of an input cost as ORM objects, against Core ``Row``s.

    python bench/lookups.py [--rounds 20] [--per-round 500] [--db sqlite|postgres]

Every input begins by looking up its chat (locked) and its person (``records.chat_for``,
``records.player_for``: ORM objects, which the commands and settings change in place). This
times, in a write transaction like an input's, (a) the transaction alone, (b) the two
lookups as the product does them, (c) the same two ``SELECT``s as Core statements on the
SQLModel tables, read as ``Row``s — alternating in rounds, so that all three see the same
load. Prints the process's CPU time per input (``time.process_time``) and the difference;
asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import bindparam, select  # noqa: E402
from sqlmodel import Session  # noqa: E402

from chatbot.service import ChatRef, UserRef  # noqa: E402
from chatbot.service.core import records  # noqa: E402
from storage.db import make_engine, migrate, utcnow  # noqa: E402
from storage.models import Chat, Player  # noqa: E402

PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
CHAT = Chat.__table__  # type: ignore[attr-defined]
PERSON = Player.__table__  # type: ignore[attr-defined]
CORE_CHAT = select(CHAT).where(CHAT.c.platform == bindparam("platform"),
                               CHAT.c.external_id == bindparam("external_id")).with_for_update()
CORE_PERSON = select(PERSON).where(PERSON.c.platform == bindparam("platform"),
                                   PERSON.c.external_id == bindparam("external_id"))


def run(url: str, rounds: int, per_round: int) -> None:
    engine = make_engine(url)
    migrate(engine)
    now = utcnow()
    refs = [ChatRef("telegram", str(30_001 + i), "private") for i in range(50)]
    users = [UserRef(r.external_id, f"P{i}", language="de") for i, r in enumerate(refs)]
    with Session(engine) as session, session.begin():
        for ref, user in zip(refs, users, strict=True):
            records.chat_for(session, ref, now)
            records.player_for(session, "telegram", user, ref, now)

    def empty(i: int) -> None:
        with Session(engine, expire_on_commit=False) as session, session.begin():
            session.connection()

    def orm(i: int) -> None:
        ref, user = refs[i % 50], users[i % 50]
        with Session(engine, expire_on_commit=False) as session, session.begin():
            chat = records.chat_for(session, ref, now)
            person = records.player_for(session, "telegram", user, ref, now)
            assert chat.language is None and person.name == user.name

    def core(i: int) -> None:
        ref, user = refs[i % 50], users[i % 50]
        with Session(engine, expire_on_commit=False) as session, session.begin():
            conn = session.connection()
            params = {"platform": "telegram", "external_id": ref.external_id}
            chat = conn.execute(CORE_CHAT, params).first()
            person = conn.execute(CORE_PERSON, params).first()
            assert chat is not None and person is not None
            assert chat.language is None and person.name == user.name

    cases: dict[str, Callable[[int], None]] = {"transaction alone": empty, "ORM objects": orm,
                                                "Core rows": core}
    spent: dict[str, list[float]] = {name: [] for name in cases}
    for case in cases.values():  # warm the compiled cache
        for i in range(100):
            case(i)
    for _ in range(rounds):
        for name, case in cases.items():
            t0 = time.process_time()
            for i in range(per_round):
                case(i)
            spent[name].append((time.process_time() - t0) / per_round * 1e6)
    engine.dispose()
    base = statistics.median(spent["transaction alone"])
    print(f"{url.split(':')[0]}: CPU per input, median of {rounds} rounds of {per_round}")
    for name, times in spent.items():
        med = statistics.median(times)
        extra = "" if name == "transaction alone" else f"   (the two lookups: {med - base:6.1f} µs)"
        print(f"  {name:18s} {med:7.1f} µs{extra}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--per-round", type=int, default=500)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args(argv)
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            run(f"sqlite:///{tmp}/lookups.db", args.rounds, args.per_round)
        return
    import psycopg

    name = f"stammtisch_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_SERVER, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        run(f"{PG_SERVER.rsplit('/', 1)[0]}/{name}", args.rounds, args.per_round)
    finally:
        with psycopg.connect(PG_SERVER, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
