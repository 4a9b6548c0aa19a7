"""A pause of a long game (issue 37): at a table whose clock is an hour or more, a seated
person asks for a pause of 1, 3 or 7 days (``pz.<days>``, or ``/pause``); once every other
person at it has agreed (``pa.<request>``, one tap each, before the turn's clock would run
out) the clock stands still until the pause ends (a deadline, ``resume``) or anybody goes on
earlier (``pr``, "▶ Go on"). The table's row holds it all (``paused_until`` and ``pause``:
the request, then the clock as it stood), so a restart or another process goes on from it;
when the game goes on, the turn's end and its next deadline move by the time it stood still.
A move made during a pause ends it (``game_moved``, told by the core's ``TableMoved``).

The buttons mean the same whatever version of the table message showed them, so a tap does
not go stale when someone else agreed first; each press is checked against the row instead.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import fsm
from storage.db import aware
from storage.models import Chat, GameTable, Player, Seat

from ...durations import PAUSE_CLOCK, PAUSE_DAYS, pause_label, weekday_time
from ...i18n import N_, register, tr
from ..core import languages, outgoing, play, records, turn_clock
from ..core.api import Outcome, Refusal, UserRef
from ..core.events import TableMoved
from ..core.transaction import Ctx

register({
    "pause.asked": N_("⏸ {name} asks for a pause of {length}. The others: tap “✅ Pause” under "
                      "the table to agree (until {when})."),
    "pause.begins": N_("⏸ Paused until {until}: the clock stands still. “▶ Go on” goes on "
                       "earlier."),
    "pause.over": N_("▶ The pause is over: the game goes on."),
    "pause.no_clock": N_("Only a table with a clock of an hour or more can pause."),
    "pause.not_now": N_("There is no game running to pause."),
    "pause.already": N_("The table is paused already."),
    "pause.pending": N_("A pause was asked for already: tap “✅ Pause” to agree."),
    "pause.twice": N_("You agreed already."),
    "pause.own": N_("You asked for it: the others agree."),
    "pause.lapsed": N_("That request for a pause has lapsed."),
    "pause.not_paused": N_("The table isn't paused."),
    "pause.agreed": N_("✅ Agreed."),
    "pause.asked_you": N_("⏸ Asked: the others agree with one tap."),
    "pause.resumed": N_("▶ The game goes on."),
    "pause.usage": N_("/pause 1, /pause 3 or /pause 7 asks for a pause of that many days; "
                      "/pause alone agrees to one asked for; /pause off goes on."),
})
PAUSING = (fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND, fsm.PAYOUT)
_RESUME_WORDS = ("off", "aus", "end", "ende", "weiter", "resume", "go", "los")
_WEEK_WORDS = ("w", "1w", "week", "woche", "7d", "7t")


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def _time(value: object) -> datetime | None:
    return aware(datetime.fromisoformat(value)) if isinstance(value, str) else None


def people(seats: list[Seat]) -> list[Seat]:
    """The seats whose people must agree to a pause (not the CPUs, not those marked away)."""
    return [s for s in seats if not s.is_cpu and s.player_id and not s.away]


def _seat(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player) -> Seat:
    """The person's seat at a table that may pause; a short refusal otherwise."""
    if table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "table_over"))
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.turn_timeout < PAUSE_CLOCK:
        raise Refusal(tr(ctx.lang, "pause.no_clock"))
    if table.fsm_state not in PAUSING:
        raise Refusal(tr(ctx.lang, "pause.not_now"))
    return seat


def ask(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
        code: str) -> Outcome:
    """``pz.<days>``: ask for a pause (or, when one was asked already, agree to it)."""
    days = code.partition(".")[2]
    if not (days.isascii() and days.isdigit() and int(days) in PAUSE_DAYS):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    seat = _seat(ctx, table, seats, player)
    if table.paused_until is not None:
        raise Refusal(tr(ctx.lang, "pause.already"))
    request = table.pause
    lapses = _time((request or {}).get("lapses"))
    if request and (lapses is None or ctx.now < lapses):
        return _agree(ctx, table, seats, seat, request)  # (a lapsed one is asked anew)
    if not [s for s in people(seats) if s.seat_no != seat.seat_no]:
        _begin(ctx, table, seats, int(days))  # nobody else to ask
        return Outcome(tr(ctx.lang, "pause.agreed"),
                       table_id=table.id, changed=True)
    lapses = table.turn_ends_at or ctx.now + timedelta(seconds=table.turn_timeout)
    table.pause = {"n": table.version, "by": seat.seat_no, "days": int(days), "yes": [],
                   "lapses": _iso(lapses)}
    chat = records.get_chat(ctx.session, table.chat_id)
    lang = languages.language(ctx, chat)
    outgoing.announce(ctx, table, "pause.asked", name=seat.name,
                      length=pause_label(int(days), lang), when=weekday_time(lapses, lang))
    _changed(ctx, table, seats)
    return Outcome(tr(ctx.lang, "pause.asked_you"), table_id=table.id, changed=True)


def agree(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    """``pa.<request>``: agree to the pause asked for (the request's number: a tap on an
    older request's button, one that lapsed or was replaced, changes nothing)."""
    seat = _seat(ctx, table, seats, player)
    if table.paused_until is not None:
        raise Refusal(tr(ctx.lang, "pause.already"))
    request = table.pause
    if not request or str(request.get("n")) != code.partition(".")[2]:
        raise Refusal(tr(ctx.lang, "pause.lapsed"))
    return _agree(ctx, table, seats, seat, request)


def _agree(ctx: Ctx, table: GameTable, seats: list[Seat], seat: Seat,
           request: dict[str, object]) -> Outcome:
    lapses = _time(request.get("lapses"))
    if lapses is not None and ctx.now >= lapses:
        raise Refusal(tr(ctx.lang, "pause.lapsed"))
    if request.get("by") == seat.seat_no:
        raise Refusal(tr(ctx.lang, "pause.own"))
    yes = list(request.get("yes") or [])  # type: ignore[call-overload]
    if seat.seat_no in yes:
        raise Refusal(tr(ctx.lang, "pause.twice"))
    yes.append(seat.seat_no)
    if {s.seat_no for s in people(seats)} <= {*yes, request.get("by")}:
        _begin(ctx, table, seats, int(request["days"]))  # type: ignore[call-overload]
    else:
        table.pause = {**request, "yes": yes}  # (a new value: the ORM sees the change)
        _changed(ctx, table, seats)
    return Outcome(tr(ctx.lang, "pause.agreed"), table_id=table.id, changed=True)


def _begin(ctx: Ctx, table: GameTable, seats: list[Seat], days: int) -> None:
    """Everybody agreed: the clock stands still (as it stood is kept) until the pause ends."""
    until = ctx.now + timedelta(days=days)
    table.pause = {"days": days, "since": _iso(ctx.now), "kind": table.deadline_kind,
                   "due": _iso(table.next_deadline), "ends": _iso(table.turn_ends_at)}
    table.paused_until = until
    table.deadline_kind, table.next_deadline = "resume", until
    chat = records.get_chat(ctx.session, table.chat_id)
    outgoing.announce(ctx, table, "pause.begins", until=weekday_time(
        until, languages.language(ctx, chat), with_date=days >= 7))
    _changed(ctx, table, seats)


def resume(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
           code: str) -> Outcome:
    """``pr``: "▶ Go on" before the pause's end."""
    _seat(ctx, table, seats, player)
    if table.paused_until is None:
        raise Refusal(tr(ctx.lang, "pause.not_paused"))
    end(ctx, table, seats)
    return Outcome(tr(ctx.lang, "pause.resumed"), table_id=table.id, changed=True)


def end(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """The pause is over (its deadline, or "▶ Go on"): the turn's end and the next deadline
    move on by the time the clock stood still."""
    kept = table.pause or {}
    since = _time(kept.get("since")) or ctx.now
    shift = max(ctx.now - since, timedelta(0))
    due, ends = _time(kept.get("due")), _time(kept.get("ends"))
    kind = kept.get("kind") if due is not None else None
    table.paused_until, table.pause = None, None
    turn_clock.after_pause(ctx, table, seats, kind if isinstance(kind, str) else None,
                      due + shift if due is not None else None,
                      ends + shift if ends is not None else None)
    outgoing.announce(ctx, table, "pause.over")
    records.bump(ctx, table)
    play.show(ctx, table, seats)  # (the person on turn: their view at the bottom again)


def _changed(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    records.bump(ctx, table)
    play.show(ctx, table, seats, repost=False)


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/pause [1|3|7]`` asks for a pause (or agrees to the one asked for); ``/pause off``
    goes on: at the table of the topic or thread it was typed in."""
    table_id = records.open_table(ctx.session, chat, ctx.thread)
    table = records.lock_table(ctx.session, table_id) if table_id is not None else None
    if table is None:
        raise Refusal(tr(ctx.lang, "no_table"), alert=False)
    seats = records.seats(ctx.session, table)
    word = args.strip().lower()
    if word in _RESUME_WORDS:
        return resume(ctx, table, seats, player, user, "pr")
    days = 7 if word in _WEEK_WORDS else word.rstrip("dt") or "1"
    if str(days) not in {str(d) for d in PAUSE_DAYS}:
        raise Refusal(tr(ctx.lang, "pause.usage"), alert=False)
    return ask(ctx, table, seats, player, user, f"pz.{days}")


def game_moved(ctx: Ctx, event: TableMoved) -> None:
    """The game moved on: a running pause is over (someone played on), a request for one
    lapses when the clock of the turn it was asked in would have run out."""
    table = event.table
    if table.paused_until is not None:
        table.paused_until, table.pause = None, None
    elif table.pause:
        lapses = table.pause.get("lapses")
        if not isinstance(lapses, str) or aware(datetime.fromisoformat(lapses)) <= ctx.now:
            table.pause = None
