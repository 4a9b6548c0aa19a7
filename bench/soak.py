"""Soak benchmark: thousands of complete games through the service, on one SQLite file, with
retention running as in production; prints the database size, the process's memory and the
time per input at checkpoints from the start to the end (they should stay flat: nothing grows
with history).

    python bench/soak.py [--private 10000] [--group 1000] [--checkpoints 10]

Private games: one person against an Anfänger (Schwimmen, two seats); group games: two people
and a CPU filling the third seat, turn clock on. The simulated clock moves ten minutes per
game, so the retention policy (3 days of update ids, 1 day of delivered messages, 30 days of
move logs) is reached within the run. Moves are picked at random from the legal ones; the
outbox is delivered to a transport that only records message ids. Prints figures only.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import engine  # noqa: E402
from chatbot.delivery import OutboxStore, deliver  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402
from storage.models import GameTable  # noqa: E402

GAME = "schwimmen"
PER_GAME = timedelta(minutes=10)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Sink:
    """A transport that delivers nowhere (message ids only)."""

    ids = itertools.count(1)

    def send(self, chat: str, text: str, rows: list) -> str:
        return str(next(self.ids))

    def edit(self, chat: str, message_id: str, text: str, rows: list) -> None:
        return None

    def delete(self, chat: str, message_id: str) -> None:
        return None


class Soak:
    def __init__(self, path: Path, seed: int) -> None:
        self.path = path
        self.db = make_engine(f"sqlite:///{path}")
        migrate(self.db)
        self.clock = Clock()
        self.service = Service(self.db, Settings(cpu_delay=0, next_round_delay=5,
                                                 group_timeout=60), clock=self.clock)
        self.outbox = OutboxStore(self.db, "telegram", clock=self.clock)
        self.sink = Sink()
        self.rng = random.Random(seed)
        self.updates = itertools.count(1)
        self.times: list[float] = []  # seconds per input since the last checkpoint
        self.inputs = 0

    # ------------------------------------------------------------------ inputs
    def _timed(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = fn(*args, update_key=str(next(self.updates)), **kwargs)
        self.times.append(time.perf_counter() - t0)
        self.inputs += 1
        return out

    def _deliver(self) -> None:
        while items := self.outbox.pending(limit=500, now=self.clock() + timedelta(days=1)):
            for item in items:
                deliver(self.outbox, item, self.sink)

    def _table(self, table_id: int) -> GameTable:
        table = self.service.table(table_id)
        assert table is not None
        return table

    def _play(self, table_id: int, people: dict[int, tuple[ChatRef, UserRef]]) -> None:
        """Play a table to its end: people press random legal moves, deadlines fire."""
        game = engine.GAMES[GAME]
        for _ in range(5000):
            table = self._table(table_id)
            if table.fsm_state in ("finished", "abandoned"):
                return
            if table.next_deadline is not None and table.deadline_kind in ("cpu", "next"):
                self.clock.now = max(self.clock.now, table.next_deadline)
                self.service.fire_due(table_id, table.version)
                continue
            state = game.from_json(table.state_json)
            seat = game.to_act(state)
            if game.phase(state) == "payout" or seat not in people:
                if table.next_deadline is not None:  # a reminder or timeout
                    self.clock.now = max(self.clock.now, table.next_deadline)
                    self.service.fire_due(table_id, table.version)
                    continue
                chat, user = people[0]
                code = "next"
            else:
                chat, user = people[seat]
                code = self.rng.choice(game.legal_actions(state)).code
            self._timed(self.service.press, chat, user, f"v1:{table_id}:{table.version}:{code}")
        raise RuntimeError(f"table {table_id} did not finish")

    def private_game(self, n: int) -> None:
        user = UserRef(f"p{n % 500}", f"Person {n % 500}")
        chat = ChatRef("telegram", user.external_id, "private")
        out = self._timed(self.service.command, chat, user, "new", f"{GAME} 1 anfaenger")
        assert out.table_id, out
        self._play(out.table_id, {0: (chat, user)})

    def group_game(self, n: int) -> None:
        group = ChatRef("telegram", f"-100{n % 50}", "group", "Soak")
        a = UserRef(f"g{n % 97}", "Anna")
        b = UserRef(f"h{n % 89}", "Bert")
        for user in (a, b):
            self._timed(self.service.command, ChatRef("telegram", user.external_id),
                        user, "start")
        out = self._timed(self.service.command, group, a, "new", GAME)
        assert out.table_id, out
        table_id = out.table_id
        for user, code in ((b, "join"), (a, "fill"), (a, "start")):
            version = self._table(table_id).version
            assert self._timed(self.service.press, group, user,
                               f"v1:{table_id}:{version}:{code}").changed
        seats = {s: (ChatRef("telegram", u.external_id), u) for s, u in enumerate((a, b))}
        self._play(table_id, seats)

    # ------------------------------------------------------------------ figures
    def checkpoint(self, games: int) -> None:
        self._deliver()
        self.service.sweep_old(every=0)
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*"))
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        ms = sorted(t * 1000 for t in self.times) or [0.0]
        print(f"{games:7d} games {self.inputs:8d} inputs  db {size / 2**20:7.1f} MiB  "
              f"rss {rss / 2**20:6.1f} MiB  per input mean {statistics.fmean(ms):5.2f} ms "
              f"p50 {ms[len(ms) // 2]:5.2f} p99 {ms[int(len(ms) * 0.99)]:6.2f} ms  "
              f"(day {(self.clock() - datetime(2030, 1, 1, tzinfo=UTC)).days})", flush=True)
        self.times = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--private", type=int, default=10_000)
    parser.add_argument("--group", type=int, default=1_000)
    parser.add_argument("--checkpoints", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    total = args.private + args.group
    every = max(1, total // args.checkpoints)
    with tempfile.TemporaryDirectory() as tmp:
        soak = Soak(Path(tmp) / "soak.db", args.seed)
        print(f"{args.private} private and {args.group} group games of {GAME}, "
              f"SQLite, retention as in production")
        group_every = max(1, total // max(1, args.group))
        done = 0
        started = time.perf_counter()
        for n in range(total):
            if n % group_every == 0 and n // group_every < args.group:
                soak.group_game(n)
            else:
                soak.private_game(n)
            soak.clock.now += PER_GAME
            soak._deliver()  # as the outbox sender would, meanwhile
            done += 1
            if done % every == 0 or done == total:
                soak.checkpoint(done)
        print(f"{done} games, {soak.inputs} inputs in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
