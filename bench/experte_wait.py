"""How long a person waits for an Experte's move: thinking during the visible delay, or after it.

    python bench/experte_wait.py [--moves 40] [--delay 1.0] [--budget 0.3] [--game schwimmen]

A private table against Experte players (one; Run Fast two, the climbing game three) on a
fresh SQLite file, the real service on the real clock, the Experte thinking in the process
pool (one process per core) as in the bot. The bench is the adapter: after each of the
person's moves it waits for the table's deadline (the CPU's visible delay, ``--delay``) and
fires it the way the Telegram bot does (claim without thinking; else think on another thread,
then claim with the move). Measured per move of the person: from the press to the next
player's (an Experte's) move committed — what the person waits before that move can show.
Twice, in the same run: as the bot does it (the Experte thinks during the delay,
``chatbot/service/core/ahead.py``), and with thinking ahead switched off here (as before: the
thinking starts when the delay is over). Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine as rules  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from storage.db import aware, make_engine, migrate  # noqa: E402

OPPONENTS = {"schwimmen": 1, "scat": 1, "runfast": 2, "climbing": 3}  # Experte players


def _fire(service: Service, table_id: int, version: int) -> None:
    """As the Telegram bot fires a CPU's deadline (``chatbot.telegram.app._fire_due``)."""
    if service.fire_due(table_id, version, may_think=False) is not None:
        return
    planned = service.plan_due(table_id, version)
    service.fire_due(table_id, version, planned=planned)


def waits(moves: int, delay: float, budget: float, game_id: str, ahead: bool,
          seed: int = 1) -> list[float]:
    """Seconds from the person's press to the Experte's move, for ``moves`` Experte moves."""
    rng = random.Random(seed)
    out: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = make_engine(f"sqlite:///{tmp}/wait.db")
        migrate(db)
        service = Service(db, Settings(cpu_delay=delay, experte_budget=budget))
        if not ahead:
            service.deadlines.think_ahead = lambda table_id, version: None  # type: ignore
        chat, user = ChatRef("telegram", "1001", "private"), UserRef("1001", "P", language="de")
        game = rules.GAMES[game_id]
        i = 0
        while len(out) < moves:
            tables = service.unfinished_tables("telegram", "1001")
            if not tables:
                service.command(chat, user, "new", f"{game_id} {OPPONENTS[game_id]} experte")
                continue
            table = tables[0]
            if table.deadline_kind in ("cpu", "next"):  # (a CPU's turn from the deal)
                _sleep_until(aware(table.next_deadline))  # type: ignore[arg-type]
                _fire(service, table.id, table.version)  # type: ignore[arg-type]
                continue
            state = game.from_json(table.state_json)
            if game.phase(state) == "payout":
                code = "next"
            else:
                legal = [a.code for a in game.legal_actions(state)]
                code = rng.choice([c for c in legal if "knock" not in c] or legal)
            i += 1
            pressed = time.perf_counter()
            service.press(chat, user, f"v1:{table.id}:{table.version}:{code}", f"k{i}")
            after = service.table(table.id)
            if after is None or after.deadline_kind != "cpu":
                continue
            _sleep_until(aware(after.next_deadline))  # type: ignore[arg-type]
            _fire(service, after.id, after.version)  # type: ignore[arg-type]
            if service.table(table.id).version != after.version:  # type: ignore[union-attr]
                out.append(time.perf_counter() - pressed)
    return out


def _sleep_until(when: datetime) -> None:
    time.sleep(max(0.0, (when - datetime.now(UTC)).total_seconds()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--budget", type=float, default=0.3)
    parser.add_argument("--game", default="schwimmen", choices=sorted(rules.GAMES))
    args = parser.parse_args(argv)
    for ahead in (True, False):
        w = sorted(waits(args.moves, args.delay, args.budget, args.game, ahead))
        label = "thinks during the delay" if ahead else "thinks after the delay"
        print(f"{args.game}, delay {args.delay:g} s, budget {args.budget:g} s, {label}: "
              f"{len(w)} Experte moves, wait p50 {statistics.median(w):.2f} s, "
              f"p95 {w[int(0.95 * len(w)) - 1]:.2f} s, max {w[-1]:.2f} s, "
              f"mean {statistics.fmean(w):.2f} s", flush=True)


if __name__ == "__main__":
    main()
