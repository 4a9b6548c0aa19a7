"""Firing deadlines: every table's next deadline lives in its row (set by ``clock``: a
reminder at half time, the timeout, a CPU move, the next round, a rematch's end), and every
Stammtisch evening's next step in its row (``evening_clock``); this finds the due ones and
claims each once, in a transaction that locks the row and checks its version, however many
processes or restarts race for it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlmodel import col, select

from storage.models import Evening, GameTable

from ..runtime import metrics
from . import clock, cpu, evening_clock, lobby, outgoing, pause, play, seating, store, when
from .api import Refusal, Settings
from .transaction import Ctx, Transactions

log = logging.getLogger(__name__)


class _PlanFirst(Exception):
    """Leave the claim: a slow CPU level decides first, outside the transaction."""


class Deadlines:
    """Finds due deadlines and fires them, once."""

    def __init__(self, tx: Transactions, settings: Settings, decisions: cpu.Decisions,
                 clock: Callable[[], datetime], notify: Callable[[Ctx | None], None]) -> None:
        self.tx, self.settings, self.decisions = tx, settings, decisions
        self.clock, self.notify = clock, notify

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
                    table = store.lock_table(session, table_id)
                    now = self.clock()
                    if (table is None or table.version != version or table.next_deadline is None
                            or table.next_deadline > now):
                        return False
                    seats = store.seats(session, table)
                    kind = table.deadline_kind
                    if kind in ("cpu", "timeout") and plan_first and \
                            cpu.thinks_long(table, seats):
                        raise _PlanFirst
                    chat = store.get_chat(session, table.chat_id)
                    ctx = Ctx(session, chat.platform if chat else "?",
                              outgoing.language_of(chat, self.settings, session), now, self.settings,
                              self.decisions)
                    if kind == "remind":
                        clock.remind(ctx, table, seats)
                    elif kind == "nudge":
                        clock.nudge(ctx, table, seats)
                    elif kind in ("cpu", "timeout"):
                        play.cpu_turn(ctx, table, seats, timed_out=kind == "timeout",
                                      planned=planned)
                    elif kind == "next":
                        play.next_round(ctx, table, seats)
                    elif kind == "rematch":
                        seating.due(ctx, table, seats)
                    elif kind == "expire":
                        lobby.expire(ctx, table)
                    elif kind == "resume":
                        pause.end(ctx, table, seats)
                    else:
                        table.next_deadline = None
            except _PlanFirst:
                if not may_think:
                    return None
                plan_first = False
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
            self.notify(ctx)
            metrics.observe_deadline(kind)
            return True

    def evenings_due(self, now: datetime | None = None,
                     limit: int = 100) -> list[tuple[int, int]]:
        """Evenings whose next step is due: (evening id, version) to claim with
        ``fire_evening``."""
        now = now or self.clock()
        with self.tx.read() as session:
            rows = session.exec(select(Evening.id, Evening.version).where(
                col(Evening.due_at).is_not(None), col(Evening.due_at) <= now)
                .order_by(col(Evening.due_at)).limit(limit)).all()
        return [(r[0], r[1]) for r in rows]  # type: ignore[misc]

    def fire_evening(self, evening_id: int, version: int) -> bool:
        """Claim and run an evening's due step, once: the row locked, its version checked."""
        try:
            with self.tx.tx() as session:
                evening = session.exec(select(Evening).where(Evening.id == evening_id)
                                       .with_for_update()).first()
                now = self.clock()
                if (evening is None or evening.version != version or evening.due_at is None
                        or when.aware(evening.due_at) > now):
                    return False
                chat = store.get_chat(session, evening.chat_id)
                ctx = Ctx(session, chat.platform if chat else "?",
                          outgoing.language_of(chat, self.settings, session), now,
                          self.settings, self.decisions)
                kind = evening.due_kind
                evening_clock.fire(ctx, evening)
        except Exception:
            log.exception("evening %s: step failed", evening_id)
            return False
        self.notify(ctx)
        metrics.observe_deadline(f"evening_{kind}")
        return True

    def fire_evenings(self) -> int:
        """Fire every due evening step (the adapters' sweeps call this); how many fired."""
        return sum(self.fire_evening(e, v) for e, v in self.evenings_due())

    def plan(self, table_id: int, version: int) -> str | None:
        """Decide a due CPU move without locking anything (``None`` if none is due): the
        thinking half of ``fire``, for a caller that thinks on one thread and claims on
        another (``fire(..., planned=…)`` checks the version again). The thinking runs after
        the read transaction ended: a snapshot held for a second per thinking table would
        keep SQLite's checkpoints from resetting the write-ahead log."""
        with self.tx.read() as session:
            table = session.get(GameTable, table_id)
            if (table is None or table.version != version or table.next_deadline is None
                    or table.deadline_kind not in ("cpu", "timeout")):
                return None
            seats = store.seats(session, table)
        return self.decisions.decide(table, seats, store.model(table, seats))

