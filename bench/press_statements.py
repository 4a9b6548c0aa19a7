"""The SQL statements one button press costs in the service (no Telegram, no outbox delivery).

    python bench/press_statements.py [--presses 5] [--show]

A private Schwimmen table against one Anfänger on a fresh SQLite file; each press is a legal
move of the person (the CPU's answer is chained into the same transaction). Counts the
statements SQLAlchemy sends per press (an event listener on ``Engine``, here in the bench) by
verb; ``--show`` prints them. Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402

import engine as rules  # noqa: E402
from chatbot.service import ChatRef, Service, Settings, UserRef  # noqa: E402
from storage.db import make_engine, migrate  # noqa: E402

SENT: list[str] = []


@event.listens_for(Engine, "before_cursor_execute")
def _sent(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
    SENT.append(" ".join(statement.split()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=5)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = make_engine(f"sqlite:///{tmp}/press.db")
        migrate(db)
        service = Service(db, Settings(cpu_delay=0))
        chat, user = ChatRef("telegram", "1001", "private"), UserRef("1001", "P", language="de")
        service.command(chat, user, "new", "schwimmen 1 anfaenger")
        counts: list[Counter[str]] = []
        for i in range(args.presses):
            table = service.unfinished_tables("telegram", "1001")[0]
            game = rules.GAMES[table.game]
            state = game.from_json(table.state_json)
            code = "next" if game.phase(state) == "payout" else game.legal_actions(state)[0].code
            SENT.clear()
            service.press(chat, user, f"v1:{table.id}:{table.version}:{code}", f"k{i}")
            counts.append(Counter(s.split(None, 1)[0].upper() for s in SENT))
            print(f"press {i + 1} ({code}): {len(SENT)} statements "
                  + ", ".join(f"{v} {k}" for k, v in sorted(counts[-1].items())))
            if args.show:
                for s in SENT:
                    print("   ", s[:160])
        n = len(counts)
        total = sum((c for c in counts), Counter())
        print(f"per press: {sum(total.values()) / n:.1f} statements, "
              + ", ".join(f"{total[k] / n:.1f} {k}" for k in sorted(total)))


if __name__ == "__main__":
    main()
