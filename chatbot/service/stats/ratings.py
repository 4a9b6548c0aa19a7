"""The derived tables behind ``/stats`` and ``/top``, brought up to date from the stored
results (``result``, written by ``play.finish``): ``stat_entry`` (one row per person and
result: game, chat, private or not, CPU level, won) and ``rating`` (OpenSkill's μ and σ per
game of every person and every CPU level).

They are brought up to date lazily: the commands first read the results not read yet
(``catch_up``), in order of their id, under the lock of the one ``stats_cursor`` row. A result
id below the highest one read that is not there yet (on PostgreSQL a transaction may commit
after a later one) is remembered as a hole and read when it appears; after ``HOLE_SECONDS`` it
is given up (a rolled-back insert leaves a gap).

The rating shown is ``1000 + 25 × (μ − 3σ)`` (OpenSkill's ordinal, a cautious estimate): a
newcomer starts at 1000, a steady player climbs towards 1500, the strongest reach about 2000.
Ranks in a game: its places where the game has them (climbing), else the winners ahead of all
the others (who tie). CPU players are rated too, one rating per level and game, so a win
against the Experte counts for more than one against the Anfänger. A practice game (the table
option ``practice``: the same cards again, a game with hints) is read but counts for nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import bindparam, insert, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from storage.models import GameTable, Rating, Result, Seat, StatEntry, StatsCursor

BATCH = 1000  # results read per query while catching up
INLINE = 500  # results a command reads at most (the periodic catch-up reads the rest)
PERIODIC = 200  # results one periodic catch-up reads (a short transaction every sweep)
HOLE_SECONDS = 600.0  # a missing result id is looked for this long
MAX_HOLES = 1000
LEVELS = ("anfaenger", "normal", "experte")  # CPU levels, weakest first

MODEL = PlackettLuce()


def shown_rating(mu: float, sigma: float) -> int:
    """The rating as people see it: 1000 + 25 × OpenSkill's ordinal (μ − 3σ)."""
    return round(1000 + 25 * (mu - 3 * sigma))


# ---------------------------------------------------------------------------------- catching up


def _lock_cursor(session: Session) -> StatsCursor:
    cursor = session.exec(select(StatsCursor).where(StatsCursor.id == 1).with_for_update()
                          ).first()
    if cursor is None:  # (the migration inserts it; a database made otherwise gets it here)
        ins = sqlite_insert if session.get_bind().dialect.name == "sqlite" else pg_insert
        session.execute(ins(StatsCursor).values(id=1, last_result_id=0, holes=[])
                        .on_conflict_do_nothing(index_elements=["id"]))
        cursor = session.exec(select(StatsCursor).where(StatsCursor.id == 1)
                              .with_for_update()).one()
    return cursor


def _ranks(winners: list[int], standings: list[dict[str, Any]], seat_nos: list[int]
           ) -> list[int]:
    """Each seat's rank (1 = best): the game's places if it has them, else winners first."""
    places = {s.get("seat"): s.get("place") for s in standings or []}
    if seat_nos and all(isinstance(places.get(n), int) for n in seat_nos):
        return [places[n] for n in seat_nos]
    return [1 if n in winners else 2 for n in seat_nos]


def _subject(seat: Any) -> str | None:
    if seat.player_id is not None and not seat.is_cpu:
        return f"p{seat.player_id}"
    if seat.is_cpu:
        return f"cpu:{seat.cpu_level or 'normal'}"
    return None


def _insert_rows(conn: Any, table: Any, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(insert(table), rows)  # an executemany (pipelined by psycopg)


class _Ratings:
    """The ratings a catch-up touches, read once and written back at the end."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.rows: dict[tuple[str, str], list[Any]] = {}  # → [mu, sigma, games, id, dirty]

    def load(self, keys: Iterable[tuple[str, str]]) -> None:
        missing = {k for k in keys if k not in self.rows}
        by_game: dict[str, list[str]] = {}
        for game, subject in missing:
            by_game.setdefault(game, []).append(subject)
        for game, subjects in by_game.items():
            for row in self.session.execute(
                    select(Rating.id, Rating.subject, Rating.mu, Rating.sigma, Rating.games)
                    .where(Rating.game == game, col(Rating.subject).in_(subjects))):
                self.rows[(game, row.subject)] = [row.mu, row.sigma, row.games, row.id, False]
        for key in missing:
            if key not in self.rows:
                fresh = MODEL.rating()
                self.rows[key] = [fresh.mu, fresh.sigma, 0, None, True]

    def rate(self, game: str, subjects: list[str], ranks: list[int]) -> None:
        if len(subjects) < 2:
            return
        teams = [[MODEL.rating(mu=self.rows[(game, s)][0], sigma=self.rows[(game, s)][1])]
                 for s in subjects]
        rated = MODEL.rate(teams, ranks=ranks)
        new: dict[str, list[tuple[float, float]]] = {}
        for subject, (r,) in zip(subjects, rated, strict=True):
            new.setdefault(subject, []).append((r.mu, r.sigma))
        for subject, values in new.items():  # a CPU level seated twice: the mean of both
            row = self.rows[(game, subject)]
            row[0] = sum(v[0] for v in values) / len(values)
            row[1] = sum(v[1] for v in values) / len(values)
            row[2] += 1
            row[4] = True

    def write(self) -> None:
        inserts, updates = [], []
        for (game, subject), (mu, sigma, games, row_id, dirty) in self.rows.items():
            if not dirty:
                continue
            if row_id is None:
                player_id = int(subject[1:]) if subject.startswith("p") else None
                inserts.append({"game": game, "subject": subject, "player_id": player_id,
                                "mu": mu, "sigma": sigma, "games": games})
            else:
                updates.append({"rid": row_id, "mu": mu, "sigma": sigma, "games": games})
        conn = self.session.connection()
        table = Rating.__table__  # type: ignore[attr-defined]
        _insert_rows(conn, table, inserts)
        if updates:
            conn.execute(update(table).where(table.c.id == bindparam("rid"))
                         .values(mu=bindparam("mu"), sigma=bindparam("sigma"),
                                 games=bindparam("games")), updates)


def catch_up(session: Session, now_epoch: float | None = None,
             limit: int | None = None) -> int:
    """Read the results not read yet into ``stat_entry`` and ``rating`` (at most about
    ``limit``, in whole batches); returns how many. Runs in the caller's transaction (which
    holds the cursor row's lock): a bounded catch-up keeps that transaction short, and the
    adapters' periodic ``Service.catch_up_stats`` reads the rest."""
    now_epoch = time.time() if now_epoch is None else now_epoch
    cursor = _lock_cursor(session)
    last = cursor.last_result_id
    holes = {int(h[0]): float(h[1]) for h in cursor.holes or []
             if now_epoch - float(h[1]) < HOLE_SECONDS}
    ratings = _Ratings(session)
    conn = session.connection()
    read = select(Result.id, Result.table_id, Result.game, Result.winners, Result.standings,
                  GameTable.chat_id, GameTable.is_private, GameTable.options).join(
        GameTable, col(GameTable.id) == Result.table_id).order_by(col(Result.id))

    def take(results: list[Any]) -> None:
        nonlocal last
        seats: dict[int, list[Any]] = {}
        for s in session.execute(
                select(Seat.table_id, Seat.seat_no, Seat.player_id, Seat.is_cpu, Seat.cpu_level)
                .where(col(Seat.table_id).in_([r.table_id for r in results]))
                .order_by(col(Seat.table_id), col(Seat.seat_no))):
            seats.setdefault(s.table_id, []).append(s)
        ratings.load((r.game, subject) for r in results for s in seats.get(r.table_id, [])
                     if (subject := _subject(s)) is not None)
        entries: list[dict[str, Any]] = []
        for r in results:
            if r.id in holes:
                del holes[r.id]
            elif r.id > last:
                holes.update({i: now_epoch for i in range(last + 1, r.id)})
                last = r.id
            if (r.options or {}).get("practice"):  # a replay, a game with hints: no score
                continue
            table_seats = [s for s in seats.get(r.table_id, []) if _subject(s) is not None]
            winners = list(r.winners or [])
            ranks = _ranks(winners, r.standings, [s.seat_no for s in table_seats])
            ratings.rate(r.game, [_subject(s) for s in table_seats], ranks)  # type: ignore[misc]
            cpu = [s.cpu_level or "normal" for s in table_seats if s.is_cpu]
            level = max(cpu, key=lambda v: LEVELS.index(v) if v in LEVELS else 1) if cpu else None
            entries.extend({"result_id": r.id, "seat_no": s.seat_no, "player_id": s.player_id,
                            "game": r.game, "chat_id": r.chat_id, "is_private": r.is_private,
                            "cpu_level": level, "won": s.seat_no in winners}
                           for s in table_seats if not s.is_cpu)
        _insert_rows(conn, StatEntry.__table__, entries)  # type: ignore[attr-defined]

    done = 0
    if holes:  # (a query of their own: with an OR SQLite would not use the key's range)
        results = session.execute(read.where(col(Result.id).in_(sorted(holes)))).all()
        if results:
            take(results)
            done += len(results)
    batch = BATCH if limit is None else max(1, min(BATCH, limit))
    while limit is None or done < limit:
        results = session.execute(read.where(col(Result.id) > last).limit(batch)).all()
        if results:
            take(results)
            done += len(results)
        if len(results) < batch:
            break
    if done:
        ratings.write()
    kept = sorted(holes.items())[-MAX_HOLES:]
    if done or kept != [tuple(h) for h in cursor.holes or []]:
        cursor.last_result_id = last
        cursor.holes = [[i, t] for i, t in kept]
        session.add(cursor)
        session.flush()
    return done
