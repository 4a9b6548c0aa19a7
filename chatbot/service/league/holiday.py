"""``/liga urlaub``: the holiday protection. Once a calendar month a person in the league may
keep their place for a week: in every game's league they are neither moved down nor up that
week and score nothing. It protects the running week if they have not played a counted daily
deal in it yet, else the next week (no taking it after a bad start); the month is the
protected week's Monday's."""

from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import col, select

from storage.models import Chat, DailyEntry, LeagueHoliday, LeagueMember, Player

from ...i18n import N_, register, tr
from ..core import outgoing
from ..core.api import Outcome, Refusal
from ..core.transaction import Ctx
from . import weeks

register({
    "lg.holiday_ok": N_("🏖 Holiday protection for the week {span}: you keep your division in "
                        "every league and score nothing that week."),
    "lg.holiday_next": N_("🏖 You played this week already, so the holiday protection is for "
                          "next week, {span}: you keep your division in every league and score "
                          "nothing then."),
    "lg.holiday_taken": N_("You took your holiday protection this month already (week {span}): "
                           "once a month."),
    "lg.holiday_none": N_("You are in no league this week: there is nothing to protect."),
})


def take(ctx: Ctx, chat: Chat, player: Player) -> Outcome:
    """Take the holiday protection for the running week (or the next, see the module)."""
    session, pid = ctx.session, player.id
    this = weeks.running(ctx.settings, ctx.now)
    if session.exec(select(LeagueMember.id).where(
            LeagueMember.player_id == pid, LeagueMember.week == this.isoformat())).first() \
            is None:
        raise Refusal(tr(ctx.lang, "lg.holiday_none"), alert=False)
    sunday = this + timedelta(days=weeks.DAYS - 1)
    played = session.exec(select(DailyEntry.id).where(
        DailyEntry.player_id == pid, col(DailyEntry.counted).is_(True),
        DailyEntry.day >= this.isoformat(), DailyEntry.day <= sunday.isoformat())).first()
    week = this if played is None else this + timedelta(days=weeks.DAYS)
    taken = session.exec(select(LeagueHoliday.week).where(
        LeagueHoliday.player_id == pid,
        col(LeagueHoliday.week).startswith(week.isoformat()[:7]))).first()
    if taken is not None:
        raise Refusal(tr(ctx.lang, "lg.holiday_taken",
                         span=weeks.span(date.fromisoformat(taken))), alert=False)
    session.add(LeagueHoliday(player_id=pid, week=week.isoformat(), taken_at=ctx.now))  # type: ignore[arg-type]
    outgoing.say(ctx, chat, tr(ctx.lang, "lg.holiday_ok" if played is None else "lg.holiday_next",
                               span=weeks.span(week)), fresh=True)
    return Outcome(None, changed=True)
