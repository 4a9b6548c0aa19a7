"""Run ``stammtisch`` with SQLAlchemy event listeners that count SQL statements and commits.

    python bench/sqlcount.py telegram          (SQL_COUNT_FILE=/path/counts.json)

The counts live in the bench, not in the product: the listeners are attached to SQLAlchemy's
``Engine`` class (documented events ``before_cursor_execute`` and ``commit``) before the bot
starts, and a daemon thread writes ``{"statements": …, "selects": …, "commits": …}`` to
``SQL_COUNT_FILE`` every 0.2 s (with each statement's first 90 characters as ``q:…``), where ``bench/telegram.py --count-sql`` reads them at the start
and the end of a measured window.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter

from sqlalchemy import event
from sqlalchemy.engine import Engine

COUNTS: Counter[str] = Counter()


@event.listens_for(Engine, "before_cursor_execute")
def _statement(conn, cursor, statement, parameters, context, executemany) -> None:
    COUNTS["statements"] += 1
    verb = statement.lstrip().split(None, 1)[0].lower() if statement.strip() else "?"
    COUNTS[verb + "s"] += 1
    COUNTS["q:" + " ".join(statement.split())[:90]] += 1  # by shape (``--sql-shapes``)


@event.listens_for(Engine, "commit")
def _commit(conn) -> None:
    COUNTS["commits"] += 1


def _writer(path: str) -> None:
    while True:
        tmp = path + ".tmp"
        with open(tmp, "w") as out:
            json.dump(dict(COUNTS), out)
        os.replace(tmp, path)
        time.sleep(0.2)


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))  # (bench/engine.py would shadow engine/)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    path = os.environ.get("SQL_COUNT_FILE")
    if path:
        threading.Thread(target=_writer, args=(path,), daemon=True).start()
    from chatbot.cli import main as cli_main

    sys.exit(cli_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
