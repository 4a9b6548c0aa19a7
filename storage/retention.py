"""Data that does not grow forever: what is old enough is deleted, in small batches.

- processed update ids after ``updates`` (default 3 days). Telegram starts update ids anew
  after a week without updates, so this must stay under seven days: an id kept longer could
  make a new update that reuses it look like a repeat.
- outbox rows no longer pending (sent, dropped, failed) after ``outbox`` (default 1 day).
- the move logs of finished tables after ``moves`` (default 30 days; the result row with the
  standings stays for the statistics, the table can no longer be replayed move by move).
- the stored state of finished tables after ``moves`` (their row, seats and result stay: the
  statistics are made from them);
- abandoned tables that never finished (no result) after ``moves``, with their seats and moves.
- message slots (which message shows a table) not touched for ``moves``.
- the daily deal's practice tries (not counted) and its posted morning posts after ``moves``;
  the counted tries stay: ``/stats`` counts them (one small row per person and day).
- the league's weeks (``league_week``, ``league_member``: a person's division, points and
  move per game and week) and holidays (``league_holiday``) whose week began more than
  ``league`` ago (default 13 weeks): the running and the last weeks are what ``/liga`` shows,
  the holidays of this month and the next are what the once-a-month rule reads.
- group members (``chat_member``: who may look at a group's tables in the Mini App) not seen
  in that group for ``members`` (default 30 days). The bot learns of no one leaving a group
  (nor of a group that is gone: its members are simply no longer seen), so this bounds how long
  someone who left still sees its tables; a member who writes or presses there again is
  recorded again at once, and seated people see their tables whatever this says.

``sweep`` runs the whole policy once; adapters call it about hourly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, delete, select, tuple_, update
from sqlalchemy.engine import Engine

import fsm
from storage.db import write_lock
from storage.models import (
    ChatMember,
    DailyEntry,
    DailyPost,
    GameTable,
    LeagueHoliday,
    LeagueMember,
    LeagueWeek,
    MessageSlot,
    Move,
    Outbox,
    ProcessedUpdate,
    Result,
    Seat,
)

BATCH = 2000  # rows per DELETE: a sweep never holds the write lock for long


@dataclass(frozen=True)
class Retention:
    """How long each kind of row is kept."""

    updates: timedelta = timedelta(days=3)
    outbox: timedelta = timedelta(days=1)
    moves: timedelta = timedelta(days=30)
    members: timedelta = timedelta(days=30)
    league: timedelta = timedelta(weeks=13)

    def __post_init__(self) -> None:
        if self.updates >= timedelta(days=7):
            raise ValueError("processed update ids must be kept less than 7 days "
                             "(Telegram reuses update ids after a week without updates)")


def _drain(engine: Engine, model: type, ids: Select) -> int:  # type: ignore[type-arg]
    """Delete the rows whose ids the query selects, a batch per transaction."""
    table = model.__table__  # type: ignore[attr-defined]
    done = 0
    while True:
        with write_lock(engine), engine.begin() as conn:
            batch = list(conn.execute(ids.limit(BATCH)).scalars())
            if batch:
                conn.execute(delete(table).where(table.c.id.in_(batch)))
        done += len(batch)
        if len(batch) < BATCH:
            return done


def _drain_members(engine: Engine, seen_before: datetime) -> int:
    """Delete the group members not seen since ``seen_before``, a batch per transaction (the
    rows are keyed by chat and person, not by an id)."""
    table = ChatMember.__table__  # type: ignore[attr-defined]
    key = tuple_(table.c.chat_id, table.c.player_id)
    done = 0
    while True:
        with write_lock(engine), engine.begin() as conn:
            batch = [tuple(row) for row in conn.execute(
                select(table.c.chat_id, table.c.player_id)
                .where(table.c.seen_at < seen_before).limit(BATCH))]
            if batch:
                conn.execute(delete(table).where(key.in_(batch)))
        done += len(batch)
        if len(batch) < BATCH:
            return done


def _drain_holidays(engine: Engine, before: str) -> int:
    """Delete the holidays of weeks that began before ``before`` (keyed by person and
    week, not by an id), a batch per transaction."""
    table = LeagueHoliday.__table__  # type: ignore[attr-defined]
    key = tuple_(table.c.player_id, table.c.week)
    done = 0
    while True:
        with write_lock(engine), engine.begin() as conn:
            batch = [tuple(row) for row in conn.execute(
                select(table.c.player_id, table.c.week).where(table.c.week < before)
                .limit(BATCH))]
            if batch:
                conn.execute(delete(table).where(key.in_(batch)))
        done += len(batch)
        if len(batch) < BATCH:
            return done


def _clear_states(engine: Engine, finished: Select) -> int:  # type: ignore[type-arg]
    """Drop the engine state and event log of old finished tables, a batch at a time."""
    table = GameTable.__table__  # type: ignore[attr-defined]
    done = 0
    while True:
        with write_lock(engine), engine.begin() as conn:
            batch = list(conn.execute(finished.where(table.c.state_json.is_not(None))
                                      .limit(BATCH)).scalars())
            if batch:
                conn.execute(update(table).where(table.c.id.in_(batch))
                             .values(state_json=None, log=[]))
        done += len(batch)
        if len(batch) < BATCH:
            return done


def sweep(engine: Engine, now: datetime, policy: Retention | None = None) -> dict[str, int]:
    """Delete what the policy no longer keeps; returns how many rows of each kind."""
    policy = policy or Retention()
    old_tables = now - policy.moves
    finished = select(GameTable.id).where(GameTable.fsm_state == fsm.FINISHED,
                                          GameTable.finished_at < old_tables)
    abandoned = select(GameTable.id).where(
        GameTable.fsm_state == fsm.ABANDONED, GameTable.updated_at < old_tables,
        ~select(Result.id).where(Result.table_id == GameTable.id).exists())
    counts = {
        "processed_update": _drain(engine, ProcessedUpdate, select(ProcessedUpdate.id).where(
            ProcessedUpdate.at < now - policy.updates)),
        "outbox": _drain(engine, Outbox, select(Outbox.id).where(
            Outbox.created_at < now - policy.outbox, Outbox.status != "pending")),
        "move": _drain(engine, Move, select(Move.id).where(
            Move.table_id.in_(finished.union(abandoned)))),  # type: ignore[attr-defined]
        "seat": _drain(engine, Seat, select(Seat.id).where(
            Seat.table_id.in_(abandoned))),  # type: ignore[attr-defined]
    }
    counts["game_table"] = _drain(engine, GameTable, abandoned)
    counts["game_state"] = _clear_states(engine, finished)
    counts["message_slot"] = _drain(engine, MessageSlot, select(MessageSlot.id).where(
        MessageSlot.updated_at < old_tables))
    counts["daily_entry"] = _drain(engine, DailyEntry, select(DailyEntry.id).where(
        DailyEntry.created_at < old_tables, DailyEntry.counted.is_(False)))  # type: ignore[attr-defined]
    counts["daily_post"] = _drain(engine, DailyPost, select(DailyPost.id).where(
        DailyPost.due_at < old_tables, DailyPost.posted_at.is_not(None)))  # type: ignore[union-attr]
    counts["chat_member"] = _drain_members(engine, now - policy.members)
    league = (now - policy.league).date().isoformat()  # (a week is named by its Monday)
    counts["league_member"] = _drain(engine, LeagueMember, select(LeagueMember.id).where(
        LeagueMember.week < league))
    counts["league_week"] = _drain(engine, LeagueWeek, select(LeagueWeek.id).where(
        LeagueWeek.week < league, LeagueWeek.closed_at.is_not(None)))  # type: ignore[union-attr]
    counts["league_holiday"] = _drain_holidays(engine, league)
    return counts
