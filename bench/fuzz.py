"""Fuzzing, as figures: random inputs through the service, every check after every input.

    python bench/fuzz.py [--inputs 100000] [--db sqlite|postgres|both] [--seed 1]

The driver is ``tests/fuzzing.py`` (the same one ``tests/chatbot/test_fuzz.py`` runs under
hypothesis): five people in two groups and their private chats, all four games, commands with
random arguments, valid / stale / forged / truncated / foreign button presses, repeated update
keys and deadlines fired on a fake clock. After every input it checks that nothing raised, that
every move was made by the seat on turn (and a person's move by the person who pressed), the
tables' invariants (cards, coins and points conserved), that no hidden card showed in a group
or in someone else's private chat, and that refused inputs changed nothing.

Prints, for each database: inputs and inputs/s, the inputs of each kind and how many were
refused, deadlines fired, moves by actor, games finished, exceptions and violations (with the
first few reported in full). Known bugs the driver tolerates are counted on their own line.
Asserts nothing. PostgreSQL: a fresh database on ``TEST_DATABASE_URL`` (default the local
test server), dropped afterwards.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from storage.db import database_url, make_engine, migrate  # noqa: E402
from tests.fuzzing import Fuzzer  # noqa: E402

PG_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def inputs_of(counts: Counter[str]) -> int:
    return sum(n for k, n in counts.items() if k.startswith("input "))


def fuzz(url: str, label: str, inputs: int, seed: int) -> None:
    engine = make_engine(url)
    migrate(engine)
    fuzzer = Fuzzer(engine, seed, tag="b", strict=False)
    print(f"--- {label}: {inputs} inputs, seed {seed}", flush=True)
    started = time.perf_counter()
    cpu = time.process_time()
    every, report = max(1, inputs // 10), max(1, inputs // 10)
    try:
        while (done := inputs_of(fuzzer.counts)) < inputs:
            fuzzer.step()
            if done >= report:
                report += every
                print(f"  {done:7d} inputs  {done / (time.perf_counter() - started):6.0f}/s  "
                      f"violations {sum(n for k, n in fuzzer.counts.items() if k.startswith('violation'))}",
                      flush=True)
    finally:
        fuzzer.close()
        engine.dispose()
    seconds = time.perf_counter() - started
    c = fuzzer.counts
    done = inputs_of(c)
    kinds = sorted(k[6:] for k in c if k.startswith("input "))
    print(f"{label}: {done} inputs in {seconds:.0f} s = {done / seconds:.0f} inputs/s "
          f"({(time.process_time() - cpu) / done * 1000:.2f} ms CPU per input, checks included)")
    print("  inputs:   " + ", ".join(f"{k} {c['input ' + k]} ({c['refused ' + k]} refused)"
                                     if c["refused " + k] else f"{k} {c['input ' + k]}"
                                     for k in kinds))
    print(f"  refused:  {sum(n for k, n in c.items() if k.startswith('refused '))}")
    print("  fired:    " + ", ".join(f"{k[6:]} {n}" for k, n in sorted(c.items())
                                     if k.startswith("fired ")))
    print("  moves:    " + ", ".join(f"{k[5:]} {n}" for k, n in sorted(c.items())
                                     if k.startswith("move ")) +
          f" = {sum(n for k, n in c.items() if k.startswith('move '))}")
    print(f"  games finished: {c['finished']}")
    print(f"  exceptions: {c['exceptions']}")
    violations = {k[10:]: n for k, n in c.items() if k.startswith("violation ")}
    print(f"  violations: {sum(violations.values())}"
          + (f" ({', '.join(f'{k} {n}' for k, n in sorted(violations.items()))})"
             if violations else ""))
    known = {k[6:]: n for k, n in c.items() if k.startswith("known ") and n}
    if known:
        print("  known bugs met (tolerated, see tests/fuzzing.py KNOWN_BUGS): "
              + ", ".join(f"{k} {n}" for k, n in sorted(known.items())))
    for problem in fuzzer.problems[:3]:
        print("  " + problem.replace("\n", "\n  "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.db in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            fuzz(f"sqlite:///{Path(tmp) / 'fuzz.db'}", "SQLite", args.inputs, args.seed)
    if args.db in ("postgres", "both"):
        import psycopg

        name = f"stammtisch_fuzz_{uuid.uuid4().hex[:8]}"
        admin = database_url(PG_SERVER).replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            fuzz(f"{database_url(PG_SERVER).rsplit('/', 1)[0]}/{name}", "PostgreSQL",
                 args.inputs, args.seed)
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
