"""The league's weeks: at Monday 00:00 (the league's zone) the scheduled step ``league.weeks``
opens each game's new week, once — the insert of its ``league_week`` row is the claim, so a
second process or a restart racing for it finds the row and does nothing; in the same
transaction the week before is closed (its people's final points, ranks and moves written)
and the new week's divisions are placed (``placing``). A week's first counted daily deal of a
person not yet in the league puts them into its lowest division (``GameFinished``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from storage.models import DailyEntry, LeagueMember, LeagueWeek, Rating, StatsHidden

from ...presenters import PRESENTERS
from ..core.api import Settings
from ..core.events import GameFinished
from ..core.registry import Parts, Registry
from ..core.transaction import Ctx
from . import placing, standings, weeks

log = logging.getLogger(__name__)


def step(parts: Parts, platform: str) -> int:
    """The scheduled step ``league.weeks``: open the running week of each game that has none
    yet (each once, whichever process comes first); how many it opened."""
    now = parts.clock()
    week = weeks.running(parts.settings, now)
    with parts.tx.read() as session:
        have = set(session.exec(select(LeagueWeek.game).where(
            LeagueWeek.week == week.isoformat())).all())
    return sum(open_week(parts, game, week) for game in PRESENTERS if game not in have)


def open_week(parts: Parts, game: str, week: date) -> bool:
    """Claim a game's week and, in the same transaction, close the week before and place the
    week's people; ``False``: another process (or an earlier run) did."""
    try:
        with parts.tx.tx() as session:
            now = parts.clock()
            if not _claim(session, game, week, now):
                return False
            carried = close_before(session, parts.registry, game, week, now)
            place(session, parts.registry, parts.settings, game, week, carried, now)
    except Exception:
        log.exception("league %s %s: opening the week failed", game, week)
        return False
    return True


def _claim(session: Session, game: str, week: date, now: datetime) -> bool:
    insert = sqlite_insert if session.get_bind().dialect.name == "sqlite" else pg_insert
    claimed = session.execute(insert(LeagueWeek).values(
        game=game, week=week.isoformat(), divisions=0, opened_at=now)
        .on_conflict_do_nothing(index_elements=["game", "week"])
        .returning(LeagueWeek.id)).first()  # type: ignore[attr-defined]
    return claimed is not None


# ---------------------------------------------------------------------------------- closing


def close_before(session: Session, registry: Registry, game: str, week: date,
                 now: datetime) -> list[tuple[list[int], dict[int, int]]] | None:
    """Close the game's weeks before ``week`` still open (the last of them is the week
    before): their final points, ranks and moves. Returns, from the last, the people the
    moves lead to per division (top first, each best first) with their idle weeks; ``None``
    when the league had no week before (its first week)."""
    older = list(session.exec(select(LeagueWeek).where(
        LeagueWeek.game == game, LeagueWeek.week < week.isoformat(),
        col(LeagueWeek.closed_at).is_(None)).order_by(col(LeagueWeek.week))
        .with_for_update()).all())
    carried = None
    for row in older:
        carried = _close(session, registry, row, now)
    if carried is None and session.exec(select(LeagueWeek.id).where(
            LeagueWeek.game == game, LeagueWeek.week < week.isoformat())).first() is not None:
        carried = []  # (its weeks were closed before: nobody carried)
    return carried


def _close(session: Session, registry: Registry, row: LeagueWeek, now: datetime
           ) -> list[tuple[list[int], dict[int, int]]]:
    week = date.fromisoformat(row.week)
    rows = standings.members(session, row.game, week)
    gone = standings.hidden(session)
    count = max([row.divisions, 1, *(m.division for m in rows)])
    known = {m.player_id for m in rows}
    for pid in standings.score_ids(session, registry, row.game, weeks.days_of(week)):
        if pid not in known and pid not in gone:  # (finished as the week was opened)
            member = LeagueMember(game=row.game, week=row.week, player_id=pid,
                                  division=count, joined_at=now)
            session.add(member)
            rows.append(member)
    session.flush()
    away = standings.holidays(session, week)
    rows = [m for m in rows if m.player_id not in gone] + \
        [_left(m) for m in rows if m.player_id in gone]
    kept = [m for m in rows if m.moved != placing.LEFT]
    per = standings.week_points(session, registry, row.game, week, {
        m.player_id: m.division for m in kept if m.player_id not in away}, weeks.DAYS)
    by_id = {m.player_id: m for m in kept}
    heading: list[tuple[int, int, int, int]] = []  # (target, from, place there, person)
    idle: dict[int, int] = {}
    for division in range(1, count + 1):
        ordered = placing.order(standings.entries(
            [m for m in kept if m.division == division], away, per))
        rank, moved = placing.ranks(ordered), placing.moves(ordered, division, count)
        for place, entry in enumerate(ordered):
            member = by_id[entry.player_id]
            member.points, member.rank = entry.points, rank[entry.player_id]
            member.days = per.get(entry.player_id, [None] * weeks.DAYS)
            idle[entry.player_id] = member.idle if entry.holiday else \
                0 if entry.played else member.idle + 1
            member.moved = moved[entry.player_id]
            if idle[entry.player_id] >= placing.IDLE_WEEKS:
                member.moved = placing.LEFT
                continue
            heading.append((placing.target(division, member.moved), division, place,
                            entry.player_id))
    row.closed_at, row.divisions = now, count
    groups: list[list[int]] = [[] for _ in range(count)]
    for to, _from, _place, pid in sorted(heading):
        groups[to - 1].append(pid)
    return [(g, {p: idle[p] for p in g}) for g in groups]


def _left(member: LeagueMember) -> LeagueMember:
    member.points, member.rank, member.moved = 0, None, placing.LEFT
    return member


# ---------------------------------------------------------------------------------- placing


def place(session: Session, registry: Registry, settings: Settings, game: str, week: date,
          carried: list[tuple[list[int], dict[int, int]]] | None, now: datetime) -> None:
    """The week's divisions: the people the last week's moves lead to, then those who played
    this week's deals already (the lowest division); a league's first week: the people who
    played the game's deal in the seven days before, by their rating (``placing.cut``)."""
    gone = standings.hidden(session)
    this_week = weeks.days_of(week)[:weeks.days_begun(settings, week, now)]
    if carried is None:
        before = [week - timedelta(days=i) for i in range(weeks.DAYS, 0, -1)]
        found = standings.score_ids(session, registry, game, [*before, *this_week])
        groups = [by_rating(session, game, [p for p in found if p not in gone])]
        idle: dict[int, int] = {}
    else:
        groups = [list(g) for g, _idle in carried]
        idle = {p: n for _g, i in carried for p, n in i.items()}
        placed = set(idle)
        new = [p for p in standings.score_ids(session, registry, game, this_week)
               if p not in placed and p not in gone]
        if new:
            groups = groups or [[]]
            groups[-1] += new
    divisions = placing.cut(groups)
    for number, people in enumerate(divisions, 1):
        for seed, pid in enumerate(people, 1):
            session.add(LeagueMember(game=game, week=week.isoformat(), player_id=pid,
                                     division=number, seed=seed, idle=idle.get(pid, 0),
                                     joined_at=now))
    row = session.exec(select(LeagueWeek).where(LeagueWeek.game == game,
                                                LeagueWeek.week == week.isoformat())).one()
    row.divisions = len(divisions)
    session.add(row)


def by_rating(session: Session, game: str, people: Sequence[int]) -> list[int]:
    """People best first by their rating in the game (μ − 3σ, as ``/stats`` shows it); those
    without one after them, in the order given."""
    if not people:
        return []
    rated = {r.player_id: r.mu - 3 * r.sigma for r in session.exec(select(Rating).where(
        Rating.game == game, col(Rating.player_id).in_(list(people)))).all()}
    position = {p: i for i, p in enumerate(people)}
    return sorted(people, key=lambda p: (p not in rated, -rated.get(p, 0.0), position[p]))


# ---------------------------------------------------------------------------------- joining


def game_finished(ctx: Ctx, event: GameFinished) -> None:
    """A counted daily deal finished: a person not yet in the game's league that week joins
    its lowest division (the week must be open; otherwise the week's opening places them)."""
    table, session = event.table, ctx.session
    options = table.options or {}
    if not options.get("daily") or options.get("practice") or not table.is_private:
        return
    person = next((s.player_id for s in event.seats if not s.is_cpu and s.player_id), None)
    if person is None or session.get(StatsHidden, person) is not None:
        return
    counted = session.exec(select(DailyEntry.counted).where(
        DailyEntry.table_id == table.id)).first()
    if not counted:
        return
    week = weeks.monday(date.fromisoformat(options["daily"])).isoformat()
    if session.exec(select(LeagueMember.id).where(
            LeagueMember.game == table.game, LeagueMember.week == week,
            LeagueMember.player_id == person)).first() is not None:
        return
    row = session.exec(select(LeagueWeek).where(  # (waits for a week being closed)
        LeagueWeek.game == table.game, LeagueWeek.week == week,
        col(LeagueWeek.closed_at).is_(None)).with_for_update(read=True)).first()
    if row is None:
        return
    lowest = session.exec(select(func.max(LeagueMember.division)).where(
        LeagueMember.game == table.game, LeagueMember.week == week)).one()
    session.add(LeagueMember(game=table.game, week=week, player_id=person,
                             division=max(row.divisions, lowest or 0, 1), joined_at=ctx.now))
