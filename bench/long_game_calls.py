"""Bot API calls a 12-hour-clock group game of Schwimmen costs per move (issue 37), group and
private apart. The fake Bot API (in this process) records every call; the bot runs as its
own process (``stammtisch telegram``) on a fresh SQLite file, on the simulated clock of the
tests (``STAMMTISCH_CLOCK_FILE``, ``tests/simclock.py``). Alice and Bob open the table by
typing ``/new schwimmen clock=12h`` and play ``--moves`` of their moves:

- ``at once``: the person on turn moves from their private view right away (no reminder is
  due yet);
- ``at the reminder``: the clock jumps to each reminder (a quarter of the clock left, or the
  end of the person's quiet hours) and the person moves from the reminder's buttons.

Counted: every call from the game's start to its last move except ``getUpdates``, by chat
(group: a negative chat id; private: positive; ``answerCallbackQuery`` apart), divided by the
moves made (people's, CPUs' and stand-ins').

    python bench/long_game_calls.py [--moves 30] [--pythonpath DIR]

``--pythonpath DIR`` runs the bot from another checkout (e.g. ``git archive`` of an older
commit with the clock's plumbing, ``chatbot/runtime/simclock.py``, added), for a
before/after comparison with the same harness.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.telegram_api import FakeBotApi  # noqa: E402
from tests.simclock import SimClock  # noqa: E402
from tests.telegram.bot_db import Db  # noqa: E402
from tests.telegram.bot_process import TOKEN, BotProcess, bot_env  # noqa: E402
from tests.telegram.long_game import (  # noqa: E402
    ALICE,
    BOB,
    GROUP,
    LongTable,
    answer,
    berlin,
    deadline,
    sent,
)


def play(fake: FakeBotApi, t: LongTable, clock: SimClock, moves: int,
         at_reminder: bool) -> None:
    """The people's ``moves`` moves (a stand-in never plays: nobody lets the clock run out)."""
    made = 0
    while made < moves and t.row()["fsm_state"] not in ("finished", "abandoned"):
        row = t.row()
        kind, due = row["deadline_kind"], deadline(row)
        if kind in ("cpu", "next") or due is None:
            t.wait_change(row)
        elif at_reminder and kind in ("remind", "nudge"):
            mark = fake.last_seq()
            clock.set(due + timedelta(seconds=1))
            t.wait_change(row)
            fake.wait_for(lambda m=mark: [u for u in (ALICE, BOB) if sent(fake, u, m, "⏰")],
                          60, message="the reminder")
        else:
            answer(t)
            made += 1


def measure(moves: int, at_reminder: bool, pythonpath: str | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeBotApi(TOKEN) as fake:
        url = f"sqlite:///{Path(tmp) / 'bot.db'}"
        clock = SimClock(Path(tmp) / "clock", berlin(0, 13))
        env = bot_env(fake, url, **clock.env(), **({"PYTHONPATH": pythonpath}
                                                   if pythonpath else {}))
        bot = BotProcess(env, Path(tmp), Path(tmp) / "bot.log").start(fake)
        db = Db(url)
        try:
            t = LongTable(fake, db).open("12h")
            since = fake.last_seq()
            play(fake, t, clock, moves, at_reminder)
            fake.wait_for(lambda: not db.rows(
                "SELECT id FROM outbox WHERE status = 'pending'"), 60, message="delivery")
            made = len(db.moves(t.table_id))
            calls = [c for c in fake.calls(since=since) if c["method"] != "getUpdates"]
        finally:
            db.dispose()
            bot.stop()
    where: Counter[str] = Counter()
    for c in calls:
        chat = c["params"].get("chat_id")
        where["answers" if chat is None else "group" if int(chat) < 0 else "private"] += 1
    methods = Counter(c["method"] for c in calls)
    print(f"  {made} moves, calls by method: {dict(methods)}")
    return {k: where[k] / made for k in ("group", "private", "answers")} | {"moves": made}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--pythonpath", default=None)
    args = parser.parse_args()
    print(f"bot from {args.pythonpath or ROOT}, group {GROUP}")
    for at_reminder in (False, True):
        label = "at the reminder" if at_reminder else "at once"
        f = measure(args.moves, at_reminder, args.pythonpath)
        print(f"{label}: per move group {f['group']:.2f}, private {f['private']:.2f}, "
              f"answers {f['answers']:.2f}, together {f['group'] + f['private']:.2f} "
              f"(+ answers {f['group'] + f['private'] + f['answers']:.2f})")


if __name__ == "__main__":
    main()
