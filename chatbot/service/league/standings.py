"""A league week's standings as plain data (a chat text or a page renders them): each
division's lines — rank, person, points, their points per day, holiday, where they move — and
the groups' table.

The points come from the daily deal's counted tries, which the solo room offers under the hook
``daily.scores`` (the rooms do not import each other): every day, the members of a division who
finished that day's deal of the game are ranked as the daily ranking ranks them (place, then
score, then time; ties share a rank); the best gets as many points as the division had players
that day, each rank below one less (``n − rank + 1``); a day not played scores 0. People on
holiday score nothing and take no part in the day's ranking. A running week is read live; a
closed one as its end wrote it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

from sqlmodel import Session, col, select

from storage.models import (
    Chat,
    ChatMember,
    LeagueHoliday,
    LeagueMember,
    LeagueWeek,
    Player,
    StatsHidden,
)

from ..core.api import Settings
from ..core.ranking import ranked
from ..core.registry import Registry
from . import placing, weeks

SCORES = "daily.scores"  # the solo room's hook: a day's finished counted tries
TEAM_BEST = 3  # a group's week: the points of its best members, summed


class DailyScore(Protocol):
    """A finished counted try of a day's deal, as the solo room reads it."""

    player_id: int
    game: str

    def key(self) -> Any: ...


@dataclass(frozen=True)
class Line:
    """A person's line in a division's table."""

    rank: int | None  # None: on holiday
    player_id: int
    name: str
    points: int
    days: tuple[int | None, ...]  # points per day of the week (None: not played)
    holiday: bool
    mark: str  # placing.UP / DOWN (a running week: if it ended now), HOLIDAY, or ""


@dataclass(frozen=True)
class Board:
    """A division of a game's league in a week."""

    game: str
    week: date
    days: tuple[date, ...]
    begun: int  # days of the week begun (7 once it is over)
    division: int
    divisions: int
    closed: bool
    lines: tuple[Line, ...]

    def line_of(self, player_id: int) -> Line | None:
        return next((line for line in self.lines if line.player_id == player_id), None)


@dataclass(frozen=True)
class Team:
    """A group's line in the groups' table: the points of its best members."""

    rank: int
    chat_id: int
    title: str
    points: int
    best: tuple[str, ...]  # the names whose points count


# ---------------------------------------------------------------------------------- points


def day_scores(session: Session, registry: Registry, day: date, game: str
               ) -> list[DailyScore]:
    """The finished counted tries of a day's deal of a game (everybody's)."""
    found: list[DailyScore] = []
    for scores in registry.hooks(SCORES):
        found += scores(session, day.isoformat(), None, game)
    return found


def day_points(scores: Iterable[DailyScore], division_of: dict[int, int]) -> dict[int, int]:
    """A day's points: per division, ``n − rank + 1`` for its ``n`` players of the day."""
    by_division: dict[int, list[DailyScore]] = defaultdict(list)
    for score in scores:
        if score.player_id in division_of:
            by_division[division_of[score.player_id]].append(score)
    out: dict[int, int] = {}
    for rows in by_division.values():
        rows.sort(key=lambda s: s.key())
        out.update({s.player_id: len(rows) - rank + 1 for rank, s in ranked(rows, key=lambda s:
                                                                              s.key())})
    return out


def week_points(session: Session, registry: Registry, game: str, week: date,
                division_of: dict[int, int], begun: int) -> dict[int, list[int | None]]:
    """Each person's points per day of the week (the days begun so far)."""
    per: dict[int, list[int | None]] = {p: [None] * weeks.DAYS for p in division_of}
    for i, day in enumerate(weeks.days_of(week)[:begun]):
        for pid, points in day_points(day_scores(session, registry, day, game),
                                      division_of).items():
            per[pid][i] = points
    return per


def score_ids(session: Session, registry: Registry, game: str, days: Sequence[date]
              ) -> list[int]:
    """Who finished a counted deal of the game on one of these days (in order of first
    seen)."""
    seen: dict[int, None] = {}
    for day in days:
        seen.update({s.player_id: None for s in day_scores(session, registry, day, game)})
    return list(seen)


# ---------------------------------------------------------------------------------- reading


def hidden(session: Session) -> set[int]:
    """People who asked not to be listed (``/stats hide``): in no league."""
    return set(session.exec(select(StatsHidden.player_id)).all())


def week_row(session: Session, game: str, week: date) -> LeagueWeek | None:
    return session.exec(select(LeagueWeek).where(LeagueWeek.game == game,
                                                 LeagueWeek.week == week.isoformat())).first()


def members(session: Session, game: str, week: date) -> list[LeagueMember]:
    return list(session.exec(select(LeagueMember).where(
        LeagueMember.game == game, LeagueMember.week == week.isoformat())
        .order_by(col(LeagueMember.id))).all())


def holidays(session: Session, week: date) -> set[int]:
    return set(session.exec(select(LeagueHoliday.player_id).where(
        LeagueHoliday.week == week.isoformat())).all())


def names(session: Session, ids: Iterable[int]) -> dict[int, str]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    return {p.id: p.name or p.username or "?" for p in session.exec(
        select(Player).where(col(Player.id).in_(wanted))).all()}  # type: ignore[misc]


def entries(rows: Sequence[LeagueMember], away: set[int],
            per: dict[int, list[int | None]]) -> list[placing.Entry]:
    """The order's view of a week's people, with their points per day."""
    out = []
    for m in rows:
        days = per.get(m.player_id, [])
        on_holiday = m.player_id in away
        out.append(placing.Entry(
            m.player_id, m.division, 0 if on_holiday else sum(d or 0 for d in days),
            0 if on_holiday else sum(1 for d in days if d is not None), on_holiday, m.seed,
            m.id or 0))
    return out


def boards(session: Session, registry: Registry, settings: Settings, game: str, week: date,
           now: datetime) -> list[Board]:
    """Every division of a game's league in a week, top first ([]: no such week)."""
    row = week_row(session, game, week)
    if row is None:
        return []
    gone = hidden(session)
    rows = [m for m in members(session, game, week) if m.player_id not in gone]
    away = holidays(session, week)
    closed = row.closed_at is not None
    begun = weeks.DAYS if closed else weeks.days_begun(settings, week, now)
    if closed:
        per = {m.player_id: list(m.days or [None] * weeks.DAYS) for m in rows}
    else:
        per = week_points(session, registry, game, week, {
            m.player_id: m.division for m in rows if m.player_id not in away}, begun)
    count = max([row.divisions, *(m.division for m in rows)])
    known = names(session, (m.player_id for m in rows))
    stored = {m.player_id: m.moved for m in rows}
    out = []
    for division in range(1, count + 1):
        ordered = placing.order(entries([m for m in rows if m.division == division], away, per))
        rank = placing.ranks(ordered)
        moved = {e.player_id: stored[e.player_id] or "" for e in ordered} if closed else \
            placing.moves(ordered, division, count)
        out.append(Board(game, week, tuple(weeks.days_of(week)), begun, division, count,
                         closed, tuple(Line(
                             rank[e.player_id], e.player_id, known.get(e.player_id, "?"),
                             e.points, tuple(per.get(e.player_id, [None] * weeks.DAYS)),
                             e.holiday, "" if moved[e.player_id] == placing.STAY
                             else moved[e.player_id]) for e in ordered)))
    return out


def teams(session: Session, shown: Sequence[Board], best: int = TEAM_BEST) -> list[Team]:
    """The groups' table of a week: each group with league players among its members scores
    the points of its ``best`` members, summed; ties share a rank."""
    points = {line.player_id: (line.points, line.name) for b in shown for line in b.lines
              if not line.holiday}
    if not points:
        return []
    per: dict[int, list[tuple[int, str]]] = defaultdict(list)
    titles: dict[int, str] = {}
    for chat_id, title, pid in session.exec(select(Chat.id, Chat.title, ChatMember.player_id)
                                            .join(ChatMember, col(ChatMember.chat_id) ==
                                                  Chat.id)
                                            .where(Chat.kind == "group",
                                                   col(ChatMember.player_id).in_(list(points))
                                                   )).all():
        per[chat_id].append(points[pid])  # type: ignore[index]
        titles[chat_id] = title or "?"  # type: ignore[index]
    lines = []
    for chat_id, found in per.items():
        top = sorted(found, key=lambda t: (-t[0], t[1].lower()))[:best]
        lines.append((sum(p for p, _n in top), titles[chat_id], chat_id,
                      tuple(n for _p, n in top)))
    lines.sort(key=lambda t: (-t[0], t[1].lower(), t[2]))
    return [Team(rank, chat_id, title, total, top)
            for rank, (total, title, chat_id, top) in ranked(lines, key=lambda t: t[0])]
