"""The evening's rules (issue 47): one evening at a time per group — a plan that would overlap
a planned or running evening, or a later evening of a series, is refused with that evening
named (``overlapping``); at most ``MAX_PLANNED`` evenings planned per group and
``MAX_PER_PERSON`` per person (a series counts once per evening stored: ``room_for``); who may
plan and call off (anybody, or the group's administrators: the group's ``organisers``
setting, ``core.organisers``); who came to a running evening (who said yes before it began,
and whoever played a game in the group while it ran: ``came``), and so who may close it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from sqlalchemy import and_, or_
from sqlmodel import Session, col, select

import fsm
from storage.models import Chat, Evening, GameTable, Player, Seat

from ...i18n import N_, register, tr
from ..core import typed_times
from ..core.api import Refusal, UserRef
from ..core.organisers import may_organise
from ..core.transaction import Ctx
from . import dates, scoresheet, steps

register({
    "ev.overlap": N_("There is an evening at that time already: {day}, {time}."),
    "ev.limit_group": N_(
        "{n} evenings are planned here already – no more. /abend absagen calls them off."),
    "ev.limit_person": N_("You have planned {n} evenings already – no more for one person."),
    "ev.organisers_only": N_("In this group only its admins plan and call off evenings."),
})
MAX_PLANNED = 4  # evenings planned in a group at a time
MAX_PER_PERSON = 2  # of them planned by one person
HORIZON = timedelta(days=371)  # how far ahead a series' evenings are compared
LIVE = ("planned", "running")


def organising(ctx: Ctx, chat: Chat, user: UserRef, alert: bool = False) -> None:
    """Refused unless the person may plan and call off evenings in the group."""
    if not may_organise(ctx.session, chat, user):
        raise Refusal(tr(ctx.lang, "ev.organisers_only"), alert=alert)


def room_for(ctx: Ctx, chat: Chat, player: Player, alert: bool = False) -> None:
    """Refused when the group or the person has as many evenings planned as they may (a
    series' running evening counts: its next one is stored when it closes)."""
    planners = ctx.session.exec(select(Evening.opener_id).where(
        Evening.chat_id == chat.id, or_(Evening.state == "planned", and_(
            Evening.state == "running", Evening.repeat != dates.ONCE)))).all()
    if len(planners) >= MAX_PLANNED:
        raise Refusal(tr(ctx.lang, "ev.limit_group", n=MAX_PLANNED), alert=alert)
    if sum(1 for p in planners if p == player.id) >= MAX_PER_PERSON:
        raise Refusal(tr(ctx.lang, "ev.limit_person", n=MAX_PER_PERSON), alert=alert)


def _starts(first: datetime, minutes: int, zone: str, repeat: str,
            until: datetime) -> Iterator[datetime]:
    """The starts of an evening and, for a series, its later evenings up to ``until``."""
    at: datetime | None = typed_times.aware(first)
    tz = typed_times.zone(zone)
    while at is not None and at <= until:
        yield at
        at = dates.following(at, minutes, tz, repeat)


def overlapping(session: Session, chat: Chat, start: datetime, minutes: int, zone: str,
                repeat: str) -> tuple[Evening, datetime] | None:
    """The group's evening (planned or running, or a later one of its series) that an evening
    starting at ``start`` (a series: any of its evenings) would overlap — less than an
    evening's length (``dates.LENGTH``) apart — with the start of the one it meets first."""
    live = session.exec(select(Evening).where(Evening.chat_id == chat.id,
                                              col(Evening.state).in_(LIVE))).all()
    if not live:
        return None
    until = max([typed_times.aware(start), *(typed_times.aware(e.starts_at) for e in live)]) + HORIZON
    mine = list(_starts(start, minutes, zone, repeat, until))
    met: list[tuple[datetime, int, Evening]] = []
    for evening in live:
        for theirs in _starts(evening.starts_at, evening.hhmm, evening.zone, evening.repeat,
                              until):
            if any(abs(theirs - at) < dates.LENGTH for at in mine):
                met.append((theirs, evening.id or 0, evening))
                break
    if not met:
        return None
    at, _id, evening = min(met, key=lambda m: (m[0], m[1]))
    return evening, at


def refuse_overlap(ctx: Ctx, chat: Chat, start: datetime, minutes: int, zone: str,
                   repeat: str, alert: bool = False) -> None:
    """Refused, the evening it meets named, when a plan would overlap one."""
    met = overlapping(ctx.session, chat, start, minutes, zone, repeat)
    if met is not None:
        day, hhmm = steps.day_label(met[1], met[0].zone, ctx.lang)
        raise Refusal(tr(ctx.lang, "ev.overlap", day=day, time=hhmm), alert=alert)


def came(session: Session, evening: Evening) -> set[int]:
    """Who came to a running evening (player ids): who had said yes when it began (the
    answers close then), and whoever played a game in the group while it ran — a game
    finished, or the one being played now."""
    people = {p.id for p in steps.answers(session, evening)["yes"] if p.id is not None}
    for _result, seats in scoresheet.games_of(session, evening):
        people |= {s.player_id for s in seats if not s.is_cpu and s.player_id is not None}
    if evening.started_at is not None:
        people |= {p for p in session.exec(select(Seat.player_id).join(
            GameTable, col(GameTable.id) == Seat.table_id).where(
            GameTable.chat_id == evening.chat_id, col(GameTable.is_private).is_(False),
            col(GameTable.fsm_state).in_(tuple(fsm.PLAYING)),
            col(GameTable.created_at) >= evening.started_at,
            col(Seat.is_cpu).is_(False))).all() if p is not None}
    return people
