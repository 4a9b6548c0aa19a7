"""Stats and leaderboards: ``/stats`` (a person's games, wins, win rate, per game, per CPU
level, longest winning streak, skill rating per game; ``/stats hide`` / ``/stats show``) and
``/top`` (a group's leaderboard per game).

Everything is built from the stored results (``result``, written by ``play.finish``). Two
derived tables make the commands fast however many results there are: ``stat_entry`` (one row
per person and result: game, chat, private or not, CPU level, won) and ``rating`` (OpenSkill's
μ and σ per game of every person and every CPU level). They are brought up to date lazily: the
commands first read the results not read yet (``catch_up``), in order of their id, under the
lock of the one ``stats_cursor`` row. A result id below the highest one read that is not there
yet (on PostgreSQL a transaction may commit after a later one) is remembered as a hole and read
when it appears; after ``HOLE_SECONDS`` it is given up (a rolled-back insert leaves a gap).

The rating shown is ``1000 + 25 × (μ − 3σ)`` (OpenSkill's ordinal, a cautious estimate): a
newcomer starts at 1000, a steady player climbs towards 1500, the strongest reach about 2000.
Ranks in a game: its places where the game has them (climbing), else the winners ahead of all
the others (who tie). CPU players are rated too, one rating per level and game, so a win
against the Experte counts for more than one against the Anfänger.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import bindparam, case, delete, func, insert, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from storage.models import (
    Chat,
    GameTable,
    Player,
    Rating,
    Result,
    Seat,
    StatEntry,
    StatsCursor,
    StatsHidden,
)

from ..i18n import N_, register, tr
from ..presenters import PRESENTERS
from . import outgoing
from .api import Outcome, UserRef
from .transaction import Ctx

BATCH = 1000  # results read per query while catching up
INLINE = 500  # results a command reads at most (the periodic catch-up reads the rest)
PERIODIC = 200  # results one periodic catch-up reads (a short transaction every sweep)
HOLE_SECONDS = 600.0  # a missing result id is looked for this long
MAX_HOLES = 1000
LEVELS = ("anfaenger", "normal", "experte")  # weakest first
TOP_ALL = 5  # people per game in ``/top``
TOP_ONE = 10  # people in ``/top <game>``
HIDE_WORDS = ("hide", "verbergen", "ausblenden", "aus", "off")
SHOW_WORDS = ("show", "zeigen", "einblenden", "an", "on")

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
                  GameTable.chat_id, GameTable.is_private).join(
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


# ---------------------------------------------------------------------------------- reading


def _plural(lang: str, key: str, n: int) -> str:
    return tr(lang, f"{key}_1" if n == 1 else f"{key}_n", n=n)


def _pct(lang: str, wins: int, games: int) -> str:
    return tr(lang, "st.pct", p=round(100 * wins / games) if games else 0)


def _record(lang: str, games: int, wins: int) -> str:
    return tr(lang, "st.record", games=_plural(lang, "st.games", games),
              wins=_plural(lang, "st.wins", wins), pct=_pct(lang, wins, games))


def _game_name(game: str, lang: str) -> str:
    p = PRESENTERS.get(game)
    return p.name(lang) if p is not None else game


def best_streak(won: Iterable[bool]) -> int:
    """The longest run of consecutive wins."""
    best = run = 0
    for w in won:
        run = run + 1 if w else 0
        best = max(best, run)
    return best


def player_stats(session: Session, player_id: int) -> dict[str, Any]:
    """A person's numbers: total, per game (with the rating), per CPU level (private games),
    longest winning streak."""
    rows = session.execute(
        select(StatEntry.game, StatEntry.is_private, StatEntry.cpu_level, StatEntry.won)
        .where(StatEntry.player_id == player_id).order_by(col(StatEntry.result_id))).all()
    per_game: dict[str, list[int]] = {}
    per_level: dict[str, list[int]] = {}
    for r in rows:
        g = per_game.setdefault(r.game, [0, 0])
        g[0] += 1
        g[1] += bool(r.won)
        if r.is_private and r.cpu_level:
            lv = per_level.setdefault(r.cpu_level, [0, 0])
            lv[0] += 1
            lv[1] += bool(r.won)
    ratings = {r.game: shown_rating(r.mu, r.sigma) for r in session.execute(
        select(Rating.game, Rating.mu, Rating.sigma).where(Rating.player_id == player_id))}
    return {"games": len(rows), "wins": sum(bool(r.won) for r in rows),
            "streak": best_streak(bool(r.won) for r in rows),
            "per_game": {g: (n, w, ratings.get(g)) for g, (n, w) in per_game.items()},
            "per_level": {lv: (n, w) for lv, (n, w) in per_level.items()}}


def stats_text(lang: str, name: str, numbers: dict[str, Any], hidden: bool) -> str:
    if not numbers["games"]:
        return tr(lang, "st.none")
    lines = [tr(lang, "st.title", name=name),
             tr(lang, "st.total", record=_record(lang, numbers["games"], numbers["wins"])),
             tr(lang, "st.streak", wins=_plural(lang, "st.wins", numbers["streak"])),
             "", tr(lang, "st.by_game")]
    order = [g for g in PRESENTERS if g in numbers["per_game"]] + sorted(
        g for g in numbers["per_game"] if g not in PRESENTERS)
    for g in order:
        n, w, rating = numbers["per_game"][g]
        lines.append(tr(lang, "st.game_line", game=_game_name(g, lang),
                        record=_record(lang, n, w), rating=rating))
    if numbers["per_level"]:
        lines += ["", tr(lang, "st.by_level")]
        for lv in sorted(numbers["per_level"],
                         key=lambda v: LEVELS.index(v) if v in LEVELS else 9):
            n, w = numbers["per_level"][lv]
            lines.append(tr(lang, "st.level_line", level=tr(lang, f"level_{lv}"),
                            record=_record(lang, n, w)))
    lines += ["", tr(lang, "st.hidden" if hidden else "st.listed")]
    return "\n".join(lines)


def leaderboard(session: Session, chat_id: int, game: str | None = None,
                limit: int = TOP_ALL) -> dict[str, list[tuple[str, int, int, int]]]:
    """Per game played in the chat: (name, rating, wins, games) of the people listed, best
    first; people who asked not to be listed are left out."""
    query = (select(StatEntry.game, StatEntry.player_id, func.count().label("n"),
                    func.sum(case((col(StatEntry.won), 1), else_=0)).label("w"))
             .where(StatEntry.chat_id == chat_id)
             .group_by(col(StatEntry.game), col(StatEntry.player_id)))
    if game is not None:
        query = query.where(StatEntry.game == game)
    counts = session.execute(query).all()
    ids = sorted({r.player_id for r in counts})
    if not ids:
        return {}
    hidden = set(session.exec(select(StatsHidden.player_id)
                              .where(col(StatsHidden.player_id).in_(ids))).all())
    names = {p.id: p.name or p.username or "?" for p in session.execute(
        select(Player.id, Player.name, Player.username).where(col(Player.id).in_(ids)))}
    ratings = {(r.game, r.player_id): shown_rating(r.mu, r.sigma) for r in session.execute(
        select(Rating.game, Rating.player_id, Rating.mu, Rating.sigma)
        .where(col(Rating.player_id).in_(ids)))}
    boards: dict[str, list[tuple[str, int, int, int]]] = {}
    for r in counts:
        if r.player_id in hidden:
            continue
        boards.setdefault(r.game, []).append(
            (names.get(r.player_id, "?"), ratings.get((r.game, r.player_id), 1000),
             int(r.w or 0), int(r.n)))
    for rows in boards.values():
        rows.sort(key=lambda t: (-t[1], -t[2], t[0].lower()))
        del rows[limit:]
    return boards


def top_text(lang: str, boards: dict[str, list[tuple[str, int, int, int]]]) -> str:
    if not boards:
        return tr(lang, "st.top_none")
    lines = [tr(lang, "st.top_title")]
    order = [g for g in PRESENTERS if g in boards] + sorted(
        g for g in boards if g not in PRESENTERS)
    for g in order:
        lines += ["", _game_name(g, lang)]
        for i, (name, rating, wins, games) in enumerate(boards[g], 1):
            lines.append(tr(lang, "st.top_line", rank=i, name=name, rating=rating,
                            wins=_plural(lang, "st.wins", wins),
                            games=_plural(lang, "st.in_games", games)))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- commands


def _is_hidden(session: Session, player_id: int) -> bool:
    return session.get(StatsHidden, player_id) is not None


def stats(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/stats``: the person's numbers; ``/stats hide`` / ``/stats show``: the leaderboards
    leave them out, or list them again."""
    word = args.lower().split()[0] if args.strip() else ""
    assert player.id is not None
    if word in HIDE_WORDS:
        if not _is_hidden(ctx.session, player.id):
            ctx.session.add(StatsHidden(player_id=player.id, since=ctx.now))
            ctx.session.flush()
        outgoing.say(ctx, chat, tr(ctx.lang, "st.now_hidden"))
        return Outcome(None)
    if word in SHOW_WORDS:
        ctx.session.execute(delete(StatsHidden).where(
            col(StatsHidden.player_id) == player.id))
        outgoing.say(ctx, chat, tr(ctx.lang, "st.now_listed"))
        return Outcome(None)
    catch_up(ctx.session, ctx.now.timestamp(), INLINE)
    text = stats_text(ctx.lang, player.name or player.username or "?",
                      player_stats(ctx.session, player.id),
                      _is_hidden(ctx.session, player.id))
    outgoing.say(ctx, chat, text)
    return Outcome(None)


def top(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/top`` in a group: its leaderboard per game (``/top <game>``: that game, longer)."""
    if chat.kind != "group":
        outgoing.say(ctx, chat, tr(ctx.lang, "st.top_private"))
        return Outcome(None)
    word = args.lower().split()[0] if args.strip() else ""
    game = word if word in PRESENTERS else None
    catch_up(ctx.session, ctx.now.timestamp(), INLINE)
    assert chat.id is not None
    outgoing.say(ctx, chat, top_text(ctx.lang, leaderboard(
        ctx.session, chat.id, game, TOP_ONE if game else TOP_ALL)))
    return Outcome(None)


COMMANDS = {"stats": stats, "top": top}


register({
    "st.games_1": N_("1 game"),
    "st.games_n": N_("{n} games"),
    "st.wins_1": N_("1 win"),
    "st.wins_n": N_("{n} wins"),
    "st.in_games_1": N_("in 1 game"),
    "st.in_games_n": N_("in {n} games"),
    "st.pct": N_("{p}%"),
    "st.record": N_("{games}, {wins} ({pct})"),
    "st.title": N_("📊 Stats of {name}"),
    "st.total": N_("Overall: {record}"),
    "st.streak": N_("Longest winning streak: {wins}"),
    "st.by_game": N_("By game:"),
    "st.game_line": N_("• {game}: {record} · rating {rating}"),
    "st.by_level": N_("Privately against the CPU:"),
    "st.level_line": N_("• {level}: {record}"),
    "st.listed": N_(
        "Rating: 1000 to start, more for wins against stronger players. /stats hide keeps you "
        "off the leaderboards."),
    "st.hidden": N_("You are on no leaderboard; /stats show lists you again."),
    "st.none": N_("No rated games yet. /new starts one."),
    "st.now_hidden": N_("You no longer appear on any leaderboard. /stats show lists you again."),
    "st.now_listed": N_("You appear on the leaderboards again."),
    "st.top_title": N_("🏆 This group's leaderboard"),
    "st.top_line": N_("{rank}. {name} · rating {rating} · {wins} {games}"),
    "st.top_none": N_("No rated games in this group yet."),
    "st.top_private": N_("Leaderboards are for groups: send /top there. Your own numbers: /stats."),
})
