"""The Deckel: a Stammtisch evening's running score (issue 40). Every game finished in the
group while its evening runs counts: of a game of n seats the winner gets n−1 evening points,
the next n−2, …, the last 0; seats that tie share the points of the places they take
(two first of three: (2+1)/2 = 1.5 each). CPU seats take their places (and so their points)
but are not listed. After each game one short line; ``/deckel`` the whole sheet; the month's
and the quarter's tables sum the evenings' sheets.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlmodel import Session, col, select

from engine import GAMES
from storage.models import Chat, Evening, GameTable, Move, Player, Result, Seat, StatsHidden

from ...i18n import N_, register, tr
from ..core import languages, outgoing, ranking, records
from ..core.events import GameFinished
from ..core.ranking import ranked
from ..core.transaction import Ctx

register({
    "deckel.line": N_("🍺 Deckel: {sheet}"),
    "deckel.title": N_("🍺 The Deckel of this evening ({games})"),
    "deckel.games_1": N_("1 game"),
    "deckel.games_n": N_("{n} games"),
    "deckel.row": N_("{rank}. {name} · {points}"),
    "deckel.none": N_("No evening is running here. /abend plans one."),
    "deckel.empty": N_("🍺 The Deckel is still empty: no game finished this evening yet."),
})
Sheet = list[tuple[int, str, Fraction]]  # (player id, name, points), best first


def running(session: Session, chat_id: int | None) -> Evening | None:
    """The evening running in a chat, if any."""
    if chat_id is None:
        return None
    return session.exec(select(Evening).where(Evening.chat_id == chat_id,
                                              Evening.state == "running")).first()


def games_of(session: Session, evening: Evening,
             until: datetime | None = None) -> list[tuple[Result, list[Seat]]]:
    """The games finished in the evening's group while it ran, in order, with their seats."""
    if evening.started_at is None:
        return []
    end = evening.closed_at or until
    query = (select(Result, GameTable).join(GameTable, col(GameTable.id) == Result.table_id)
             .where(GameTable.chat_id == evening.chat_id, col(GameTable.is_private).is_(False),
                    col(Result.finished_at) >= evening.started_at)
             .order_by(col(Result.finished_at), col(Result.id)))
    if end is not None:
        query = query.where(col(Result.finished_at) <= end)
    out = []
    for result, table in session.exec(query).all():
        out.append((result, records.seats(session, table)))
    return out


def totals(games: Iterable[tuple[list[int], list[dict[str, Any]], list[Seat]]]
           ) -> dict[int, Fraction]:
    """Evening points per person over games (winners, standings, seats); CPUs not kept."""
    sums: dict[int, Fraction] = {}
    for winners, standings, seats in games:
        by_seat = {s.seat_no: s for s in seats}
        for seat_no, points in ranking.seat_points(winners, standings).items():
            seat = by_seat.get(seat_no)
            if seat is None or seat.is_cpu or seat.player_id is None:
                continue
            sums[seat.player_id] = sums.get(seat.player_id, Fraction(0)) + points
    return sums


def sheet(session: Session, sums: dict[int, Fraction]) -> Sheet:
    """The people with their points, best first (ties by name); people who hid their stats
    (``/stats hide``) are on no list, the Deckel included."""
    if not sums:
        return []
    ids = list(sums)
    people = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids)))}
    hidden = set(session.exec(select(StatsHidden.player_id).where(
        col(StatsHidden.player_id).in_(ids))))
    rows = [(pid, _name(people.get(pid)), pts) for pid, pts in sums.items()
            if pid not in hidden]
    rows.sort(key=lambda r: (-r[2], r[1].lower()))
    return rows


def _name(player: Player | None) -> str:
    return (player.name or player.username or "?") if player is not None else "?"


def evening_sums(session: Session, evening: Evening, until: datetime | None = None,
                 extra: tuple[list[int], list[dict[str, Any]], list[Seat]] | None = None
                 ) -> tuple[dict[int, Fraction], int]:
    """An evening's points per person and its number of games (``extra``: a game being
    committed now, not yet stored)."""
    games = [(list(r.winners or []), list(r.standings or []), seats)
             for r, seats in games_of(session, evening, until)]
    if extra is not None:
        games.append(extra)
    return totals(games), len(games)


def line(rows: Sheet, lang: str) -> str:
    """``🍺 Deckel: Alma 5 · Bruno 3 · Cem 1``"""
    return tr(lang, "deckel.line", sheet=" · ".join(
        f"{name} {ranking.shown(points, lang)}" for _pid, name, points in rows))


def table_text(rows: Sheet, games: int, lang: str) -> str:
    """The whole sheet: a title with the number of games, one line per person."""
    if not rows:
        return tr(lang, "deckel.empty")
    count = tr(lang, "deckel.games_1") if games == 1 else tr(lang, "deckel.games_n", n=games)
    out = [tr(lang, "deckel.title", games=count)]
    return "\n".join([*out, *rows_text(rows, lang)])


def rows_text(rows: Sheet, lang: str) -> list[str]:
    """One line per person, ranked (ties share a rank: 1., 1., 3.)."""
    return [tr(lang, "deckel.row", rank=rank, name=name, points=ranking.shown(points, lang))
            for rank, (_pid, name, points) in ranked(rows, key=lambda row: row[2])]


def game_finished(ctx: Ctx, event: GameFinished) -> None:
    """A group game finished (``GameFinished``): while an evening runs there, one short
    Deckel line."""
    table, seats, winners, standings = event.table, event.seats, event.winners, event.standings
    if table.is_private:
        return
    evening = running(ctx.session, table.chat_id)
    if evening is None or evening.started_at is None:
        return
    chat: Chat | None = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    sums, _games = evening_sums(ctx.session, evening, ctx.now, (winners, standings, seats))
    rows = sheet(ctx.session, sums)
    if rows:
        outgoing.say(ctx, chat, line(rows, languages.language(ctx, chat)))


def _standing_values(state: Any) -> tuple[int, ...] | None:
    """Each seat's running standing in a game's state, higher better (coins, lives, points)."""
    for name in ("coins", "lives", "scores"):
        values = getattr(state, name, None)
        if isinstance(values, tuple):
            return values
    return None


def comeback(session: Session, games: list[tuple[Result, list[Seat]]]
             ) -> tuple[str, str, int] | None:
    """The evening's biggest comeback, replayed from the move logs: the person who won a
    game after trailing its leader furthest (their name, the game, by how much); ``None``
    if no winner ever trailed."""
    best: tuple[str, str, int] | None = None
    hidden = set(session.exec(select(StatsHidden.player_id)))
    for result, seats in games:
        winners = list(result.winners or [])
        table = session.get(GameTable, result.table_id)
        if len(winners) != 1 or table is None:
            continue
        winner = next((s for s in seats if s.seat_no == winners[0]), None)
        if winner is None or winner.is_cpu or winner.player_id in hidden:
            continue  # (nobody who hid their stats is named as the evening's best anything)
        game = GAMES[table.game]
        state = game.new_game(len(seats), (table.options or {}).get("engine") or {},
                              table.seed)
        deficit = 0
        for move in session.exec(select(Move).where(Move.table_id == table.id)
                                 .order_by(col(Move.seq))).all():
            try:
                state, _ = game.apply(state, move.code)
            except Exception:  # (a log the engine no longer replays: no comeback named)
                break
            values = _standing_values(state)
            if values is not None and len(values) == len(seats):
                others = [v for i, v in enumerate(values) if i != winner.seat_no]
                deficit = max(deficit, max(others) - values[winner.seat_no])
        if deficit > 0 and (best is None or deficit > best[2]):
            best = (winner.name, table.game, deficit)
    return best

