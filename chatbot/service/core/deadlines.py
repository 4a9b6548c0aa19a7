"""Firing a table's deadlines: every table's next deadline lives in its row (set by
``turn_clock``: a reminder, the timeout, a CPU move, the next round, a rematch's end, a
lobby's end, and the kinds the features declare, e.g. a pause's end); this finds the due ones
and claims each once, in a transaction that locks the row and checks its version, however
many processes or restarts race for it. What a kind does is declared in the registry
(``Feature.deadlines``); a CPU's move (``cpu``, ``timeout``) is the core's own, because it may
think first."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import col, select

from storage.models import GameTable

from ...runtime import metrics
from . import cpu, languages, play, records
from .ahead import ThoughtAhead
from .api import Refusal
from .registry import Parts

log = logging.getLogger(__name__)
CPU_KINDS = ("cpu", "timeout")  # a CPU's move (a person's timed-out turn: its stand-in)


class _PlanFirst(Exception):
    """Leave the claim: a slow CPU level decides first, outside the transaction."""


class Deadlines:
    """Finds due deadlines and fires them, once."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.tx, self.settings, self.decisions = parts.tx, parts.settings, parts.decisions
        self.clock = parts.clock
        self.ahead = ThoughtAhead(self._decide)

    def due(self, now: datetime | None = None, limit: int = 100) -> list[tuple[int, int]]:
        """Tables whose deadline has passed: (table id, version) to claim with ``fire``."""
        now = now or self.clock()
        with self.tx.read() as session:
            rows = session.exec(select(GameTable.id, GameTable.version).where(
                col(GameTable.next_deadline).is_not(None), col(GameTable.next_deadline) <= now)
                .order_by(col(GameTable.next_deadline)).limit(limit)).all()
        return [(r[0], r[1]) for r in rows]  # type: ignore[misc]

    def upcoming(self, limit: int = 1000) -> list[tuple[int, int, datetime]]:
        """Upcoming deadlines (table id, version, when), soonest first: for arming jobs."""
        with self.tx.read() as session:
            rows = session.exec(select(GameTable.id, GameTable.version, GameTable.next_deadline)
                                .where(col(GameTable.next_deadline).is_not(None))
                                .order_by(col(GameTable.next_deadline)).limit(limit)).all()
        return [(r[0], r[1], r[2]) for r in rows]  # type: ignore[misc]

    def fire(self, table_id: int, version: int, *, may_think: bool = True,
             planned: str | None = None) -> bool | None:
        """Claim and run a table's deadline. Runs once: a stale or early claim does nothing.

        A CPU level that thinks against a clock (Experte) decides before the claim, outside any
        transaction (it may think for a second; no table or database lock is held meanwhile);
        the claim then checks that the table is still at the version the move was decided for.
        The quick levels decide inside the claim, which saves reading the table twice.
        ``may_think=False``: where such thinking must not run (an event loop), return ``None``
        instead, having changed nothing; the caller fires again where it may, or decides with
        ``plan`` elsewhere and fires here with the move as ``planned``.
        """
        plan_first = planned is None
        while True:
            try:
                with self.tx.tx() as session:
                    table = records.lock_table(session, table_id)
                    now = self.clock()
                    if (table is None or table.version != version or table.next_deadline is None
                            or table.next_deadline > now):
                        return False
                    seats = records.seats(session, table)
                    kind = table.deadline_kind
                    if kind in CPU_KINDS and plan_first and cpu.thinks_long(table, seats):
                        raise _PlanFirst
                    chat = records.get_chat(session, table.chat_id)
                    ctx = self.parts.ctx(session, chat.platform if chat else "?",
                                         languages.language_of(chat, self.settings, session),
                                         now=now)
                    if kind in CPU_KINDS:
                        play.cpu_turn(ctx, table, seats, timed_out=kind == "timeout",
                                      planned=planned)
                    elif kind in self.parts.registry.deadlines:
                        self.parts.registry.deadlines[kind](ctx, table, seats)
                    else:
                        table.next_deadline = None
            except _PlanFirst:
                plan_first = False
                ready, planned = self.ahead.take(table_id, version, wait=False)
                if ready:  # thought during the visible delay: no thinking here
                    continue
                if not may_think:
                    return None
                try:
                    planned = self.plan(table_id, version)
                except Exception:
                    log.exception("table %s: CPU decision failed", table_id)
                continue
            except Refusal as exc:
                log.warning("table %s: deadline refused: %s", table_id, exc.text)
                return False
            except Exception:
                log.exception("table %s: deadline failed", table_id)
                return False
            self.parts.notify(ctx)
            metrics.observe_deadline(kind)
            return True

    def think_ahead(self, table_id: int, version: int) -> None:
        """Start deciding the CPU move the table waits for (its visible delay, ``ahead``)."""
        self.ahead.start(table_id, version)

    def plan(self, table_id: int, version: int) -> str | None:
        """Decide a due CPU move without locking anything (``None`` if none is due): the
        thinking half of ``fire``, for a caller that thinks on one thread and claims on
        another (``fire(..., planned=…)`` checks the version again). A decision thought ahead
        for this version is waited for instead of thinking again."""
        ready, move = self.ahead.take(table_id, version, wait=True)
        return move if ready else self._decide(table_id, version)

    def _decide(self, table_id: int, version: int) -> str | None:
        """The CPU move the table at ``version`` waits for (``None``: it waits for none). The
        thinking runs after the read transaction ended: a snapshot held for a second per
        thinking table would keep SQLite's checkpoints from resetting the write-ahead log."""
        with self.tx.read() as session:
            table = session.get(GameTable, table_id)
            if (table is None or table.version != version or table.next_deadline is None
                    or table.deadline_kind not in CPU_KINDS):
                return None
            seats = records.seats(session, table)
        return self.decisions.decide(table, seats, records.model(table, seats))

