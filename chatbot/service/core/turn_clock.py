"""The turn clock: a table's next deadline set from its state (a reminder, the timeout, a CPU
move, the next round), and the reminders. All time lives in the table's row; ``deadlines``
fires what is due.

Live clocks (under ``quiet_hours.LONG_CLOCK``, 10 minutes): one reminder in the group at half time.
Long clocks: the person on turn is told privately — their private view comes to the bottom of
their chat when the turn starts (``outgoing.emit``), or when their quiet hours end (a
``nudge``), and again, with the time left, when a quarter of the clock is left (``remind``,
with one short mention in the group); a reminder due in quiet hours waits until they end, and a
clock of 12 hours or more never runs out in them (it ends when they end). The turn's end is
kept in the row (``turn_ends_at``), so a restart or another process goes on from it.

No reminder that cannot be acted on: a reminder that fires late (the bot was down) when the
turn has run out, or nearly, moves the turn's end to leave a grace (``GRACE``, or what the
reminder would have left on time if that is less) and says the time left; the timeout comes
after it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import fsm
from storage.models import GameTable, Player, Seat

from ...durations import time_left
from ...i18n import N_, register, tr
from . import cpu, languages, outgoing, personal, quiet_hours, records
from .events import TableMoved
from .transaction import Ctx

register({
    "clock.reminder_long": N_("⏰ {mention}, it's your turn ({left})."),
    "clock.your_turn": N_("⏰ Your turn at {game}."),
    "clock.your_turn_where": N_("⏰ Your turn at {game} in {group}."),
    "clock.quarter": N_("⏰ Your turn at {game} – {left}."),
    "clock.quarter_where": N_("⏰ Your turn at {game} in {group} – {left}."),
    "clock.lobby_expired": N_("⌛ Nobody started the {game} table – it is closed."),
})
QUIET_MARGIN = timedelta(minutes=15)  # a reminder moved before quiet hours comes this early
LIVE_LOBBY = timedelta(minutes=15)  # a lobby with a live clock closes by itself after this
LONG_LOBBY = timedelta(hours=24)  # … with a long clock (10 minutes or more)
GRACE = timedelta(minutes=10)  # a reminder fired late leaves at least this (see ``_grace``)
LATE = timedelta(minutes=1)  # … fired this long after it was due: the bot was down


def lobby_ends(table: GameTable) -> datetime:
    """When a group's lobby closes by itself if nobody starts it."""
    return table.created_at + (LONG_LOBBY if table.turn_timeout >= quiet_hours.LONG_CLOCK
                               else LIVE_LOBBY)


def arm_lobby(ctx: Ctx, table: GameTable) -> None:
    """A group's lobby (not a rematch's) gets its end as its deadline."""
    if table.is_private or table.fsm_state != fsm.LOBBY or records.options(table).rematch:
        return
    table.deadline_kind, table.next_deadline = "expire", lobby_ends(table)
    ctx.touch(table)


def lobby_over(ctx: Ctx, table: GameTable) -> bool:
    """Whether a lobby's time is up (then any member may close it)."""
    return table.fsm_state == fsm.LOBBY and not table.is_private \
        and ctx.now >= lobby_ends(table)


def schedule(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> None:
    """Set the table's next deadline from its state (all time lives in the database)."""
    if table.reminded:  # the turn it reminded of is over
        outgoing.forget_reminder(ctx, table)
    ctx.publish(TableMoved(table, seats))  # (a pause ends or lapses: ``long_games.pause``)
    table.next_deadline, table.deadline_kind, table.reminded = None, None, False
    table.turn_ends_at = None
    ctx.touch(table)
    ctx.think_ahead.discard(table.id)  # type: ignore[arg-type]
    if model.state in (fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND):
        seat_no = model.game.to_act(model.engine_state)
        seat = next((s for s in seats if s.seat_no == seat_no), None)
        if seat is None:
            return
        if seat.is_cpu or seat.away:
            table.deadline_kind = "cpu"
            table.next_deadline = ctx.now + timedelta(seconds=ctx.settings.cpu_delay)
            if seat.is_cpu and cpu.slow_level(table.game, cpu.level(seat)):
                ctx.think_ahead.add(table.id)  # type: ignore[arg-type]  # during the delay
        elif table.turn_timeout >= quiet_hours.LONG_CLOCK:
            _long_turn(ctx, table, records.get_player(ctx.session, seat.player_id))
        elif table.turn_timeout > 0:
            table.deadline_kind = "remind"
            table.next_deadline = ctx.now + timedelta(seconds=table.turn_timeout / 2)
    elif model.state == fsm.PAYOUT and (not table.is_private or _all_cpu(seats)
                                        or _humans_out(seats, model)):
        table.deadline_kind = "next"
        table.next_deadline = ctx.now + timedelta(seconds=ctx.settings.next_round_delay)


def _humans_out(seats: list[Seat], model: fsm.TableModel) -> bool:
    """Every person at the table is out of the game: the CPUs play on by themselves."""
    out = getattr(model.engine_state, "out", None)
    if out is None:
        return False
    return all(out[s.seat_no] for s in seats if not s.is_cpu and s.seat_no < len(out))


def _all_cpu(seats: list[Seat]) -> bool:
    return all(s.is_cpu or s.away for s in seats)


def _long_turn(ctx: Ctx, table: GameTable, player: Player | None) -> None:
    """A person's turn on a long clock begins: its end, then the first reminder due."""
    ends = ctx.now + timedelta(seconds=table.turn_timeout)
    if table.turn_timeout >= quiet_hours.NEVER_ENDS_QUIET and player is not None:
        ends = quiet_hours.quiet_over(player, ends)
    table.turn_ends_at = ends
    nudge = None
    if player is not None and player.reminders == quiet_hours.ON and quiet_hours.in_quiet(player, ctx.now):
        nudge = quiet_hours.quiet_over(player, ctx.now)  # (the view was not brought down now)
    last = _last_quarter(ctx, table, player)
    if nudge is not None and nudge < ends and (last is None or nudge < last):
        table.deadline_kind, table.next_deadline = "nudge", nudge
    else:
        _after_nudge(ctx, table, player)


def _last_quarter(ctx: Ctx, table: GameTable, player: Player | None) -> datetime | None:
    """When the last-quarter reminder is due: a quarter before the turn's end; if that falls
    in the person's quiet hours, when they end — or, if the clock ends with them, just before
    they began (the evening before, not never). ``None`` if no such time is left."""
    ends = table.turn_ends_at
    assert ends is not None
    due = ends - timedelta(seconds=table.turn_timeout / 4)
    if player is not None and quiet_hours.in_quiet(player, due):
        after = quiet_hours.quiet_over(player, due)
        due = after if after < ends else quiet_hours.quiet_began(player, due) - QUIET_MARGIN
    return due if ctx.now < due < ends else None


def _after_nudge(ctx: Ctx, table: GameTable, player: Player | None) -> None:
    last = _last_quarter(ctx, table, player)
    if last is not None:
        table.deadline_kind, table.next_deadline = "remind", last
    else:
        table.deadline_kind, table.next_deadline = "timeout", table.turn_ends_at


def after_pause(ctx: Ctx, table: GameTable, seats: list[Seat], kind: str | None,
                due: datetime | None, ends: datetime | None) -> None:
    """A pause is over: the clock goes on from where it stood (``kind``, ``due`` and ``ends``
    moved by the pause). A person's long turn keeps its rules: a clock of 12 hours or more
    does not run out in their quiet hours, a reminder not sent yet comes when one may."""
    table.deadline_kind, table.next_deadline, table.turn_ends_at = kind, due, ends
    if ends is None or kind not in ("nudge", "remind", "timeout"):
        return
    model = records.model(table, seats)
    seat_no = model.game.to_act(model.engine_state) if model.engine_state else None
    seat = next((s for s in seats if s.seat_no == seat_no), None)
    player = records.get_player(ctx.session, seat.player_id) \
        if seat is not None and seat.player_id and not seat.is_cpu else None
    if player is None:
        return
    if table.turn_timeout >= quiet_hours.NEVER_ENDS_QUIET:
        table.turn_ends_at = quiet_hours.quiet_over(player, ends)
    if kind == "timeout":
        table.next_deadline = table.turn_ends_at
    else:  # (the view comes down as the game goes on: the last-quarter reminder is next)
        _after_nudge(ctx, table, player)


def nudge(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """The quiet hours are over: the person on turn gets their view at the bottom of their
    chat; the last-quarter reminder comes next."""
    seat = cpu.on_turn(seats, records.model(table, seats))
    player = records.get_player(ctx.session, seat.player_id)
    late = _grace(ctx, table, player)
    if player is not None and quiet_hours.may_remind(player, "start", ctx.now):
        _tell(ctx, table, seats, seat, player, "clock.quarter" if late else "clock.your_turn")
    _after_nudge(ctx, table, player)
    ctx.touch(table)


def _tell(ctx: Ctx, table: GameTable, seats: list[Seat], seat: Seat, player: Player,
          key: str) -> None:
    """A reminder in the person's private chat: their view, under a line that says why."""
    chat = records.get_chat(ctx.session, table.chat_id)
    where = personal.linked_title(ctx, chat, table) if chat is not None \
        and not table.is_private else None
    lang = languages.person_language(ctx, chat.platform if chat else ctx.platform, player)
    ends = table.turn_ends_at
    left = time_left((ends - ctx.now).total_seconds(), lang) if ends is not None else ""
    game = outgoing.game_name(table, lang)
    header = tr(lang, key + ("_where" if where else ""), game=game, group=where, left=left)
    personal.remind_privately(ctx, table, seats, seat, player, header)


def remind(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """A reminder is due: on a live clock half of it has run (the group is reminded); on a
    long clock a quarter is left (the person privately, the group once). Then the timeout."""
    if table.turn_timeout >= quiet_hours.LONG_CLOCK and table.turn_ends_at is not None:
        _remind_long(ctx, table, seats)
        return
    seat = cpu.on_turn(seats, records.model(table, seats))
    player = records.get_player(ctx.session, seat.player_id)
    remaining = table.turn_timeout - table.turn_timeout // 2
    chat = records.get_chat(ctx.session, table.chat_id)
    outgoing.remind(ctx, table, tr(languages.language(ctx, chat), "reminder",
                                   mention=outgoing.mention(ctx.platform, player, seat),
                                   seconds=remaining))
    table.reminded = True
    table.deadline_kind = "timeout"
    table.next_deadline = ctx.now + timedelta(seconds=remaining)
    ctx.touch(table)


def _grace(ctx: Ctx, table: GameTable, player: Player | None) -> bool:
    """A reminder fires late (the bot was down, ``LATE``) when the turn has run out or
    nearly: the turn's end moves to leave what the reminder would have left on time, at most
    ``GRACE`` (a clock of 12 hours or more still ends after the person's quiet hours).
    Whether it moved."""
    due, ends = table.next_deadline, table.turn_ends_at
    if due is None or ends is None or ctx.now - due < LATE:
        return False
    keep = min(GRACE, max(ends - due, timedelta(0)))
    if ends - ctx.now >= keep:
        return False
    ends = ctx.now + keep
    if table.turn_timeout >= quiet_hours.NEVER_ENDS_QUIET and player is not None:
        ends = quiet_hours.quiet_over(player, ends)
    table.turn_ends_at = ends
    return True


def _remind_long(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    seat = cpu.on_turn(seats, records.model(table, seats))
    player = records.get_player(ctx.session, seat.player_id)
    _grace(ctx, table, player)
    ends = table.turn_ends_at
    assert ends is not None
    if player is not None and quiet_hours.may_remind(player, "last", ctx.now):
        _tell(ctx, table, seats, seat, player, "clock.quarter")
    if not table.is_private:
        chat = records.get_chat(ctx.session, table.chat_id)
        lang = languages.language(ctx, chat)
        outgoing.remind(ctx, table, tr(lang, "clock.reminder_long",
                                       mention=outgoing.mention(ctx.platform, player, seat),
                                       left=time_left((ends - ctx.now).total_seconds(), lang)))
        table.reminded = True
    table.deadline_kind, table.next_deadline = "timeout", ends
    ctx.touch(table)
