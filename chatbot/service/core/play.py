"""Play: a move through the table machine (a person's, or a CPU's with the CPU moves due at
once chained on), the next round, the round's end and the result, stopping a table.

Every change goes the same way: the FSM trigger (whose guards ask the engine) → the new state
stored on the table row → the move-log row → the next deadline → the views, all in the
input's transaction; the version is bumped so that older buttons go stale.
"""

from __future__ import annotations

import logging
from typing import Any

import fsm
from storage.models import GameTable, Player, Result, Seat

from ...i18n import N_, engine_reason, register, tr
from ...presenters import presenter
from . import cpu, outgoing, personal, quiet_hours, records, turn_clock
from .api import Outcome, Refusal, UserRef
from .events import GameFinished, RoundEnded, TableClosed
from .transaction import Ctx

register({
    "clock.you_timed_out": N_(
        "⌛ Your time at {game} in {group} ran out – a stand-in played your turn."),
    "clock.you_are_away": N_(
        "💤 You missed two turns in a row at {game} in {group}: the CPU plays for you now. "
        "Tap “I'm back” under the table to play your own turns again."),
    "thread_gone": N_("🚪 Your {game} table in {group} has ended: its topic was closed or "
                      "deleted."),
    "thread_closed": N_("🚪 Your {game} table in {group} has ended: its topic was closed."),
})
log = logging.getLogger(__name__)
CHAIN_LIMIT = 12  # CPU moves one input plays on at most; the deadline path does the rest

LOG_LENGTH = 120  # public events kept: the round's (a new round starts a new log)
_QUIET_EVENTS = ("showdown", "payout", "game_over", "game_start", "deal")


class Stale(Refusal):
    """A press on a version of the table that has passed (told apart in the metrics)."""


def show(ctx: Ctx, table: GameTable, seats: list[Seat] | None = None,
         table_model: fsm.TableModel | None = None, repost: bool = True) -> None:
    """Queue the table's views as they are now."""
    seats = records.seats(ctx.session, table) if seats is None else seats
    outgoing.emit(ctx, table, seats, table_model or records.model(table, seats), repost=repost)


def move(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """A game button: "next round", a selection step, or a move of the seat on turn."""
    if table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "table_over"))
    if code == "next":
        if records.seat_of(seats, player) is None and not user.is_admin:
            raise Refusal(tr(ctx.lang, "seated_only"))
        return next_round(ctx, table, seats)
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    table_model = records.model(table, seats)
    if (table_model.engine_state is None
            or table_model.game.to_act(table_model.engine_state) != seat.seat_no):
        raise Refusal(tr(ctx.lang, "not_your_turn"))
    seat.timeouts = 0
    if code.split(".")[0] == "ui":  # a selection step that lives on the server (picking cards)
        return ui_step(ctx, table, seats, table_model, seat, code[3:])
    seat.ui = {}
    act(ctx, table, seats, table_model, seat.seat_no, code, "player")
    return Outcome(None, table_id=table.id, changed=True)


def ui_step(ctx: Ctx, table: GameTable, seats: list[Seat], table_model: fsm.TableModel,
            seat: Seat, arg: str) -> Outcome:
    """Let the game's presenter update the seat's selection; it may yield a move."""
    p = presenter(table.game)
    if not hasattr(p, "ui_press"):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    try:
        new_ui, action, answer = p.ui_press(table_model.engine_state, seat.seat_no,
                                            dict(seat.ui or {}), arg, ctx.lang)
    except ValueError as exc:
        raise Refusal(str(exc)) from None
    if action is not None:
        seat.ui = {}
        act(ctx, table, seats, table_model, seat.seat_no, action, "player")
    else:
        seat.ui = new_ui
        # The same turn goes on: edit the player's message in place (no new message,
        # no notification for every card picked).
        outgoing.emit(ctx, table, seats, table_model, repost=False)
    return Outcome(answer, table_id=table.id, changed=action is not None)


def start(ctx: Ctx, table: GameTable) -> None:
    """Deal the first round."""
    seats = records.seats(ctx.session, table)
    table_model = records.model(table, seats)
    fsm.fire(table_model, "start")
    events = fsm.settle(table_model)
    after_change(ctx, table, seats, table_model, events, dealt=True)


def act(ctx: Ctx, table: GameTable, seats: list[Seat], table_model: fsm.TableModel,
        seat_no: int, code: str, actor: str, trigger: str = "act") -> None:
    """A move by a seat (refused unless the engine lists it as legal)."""
    try:
        events = fsm.fire(table_model, trigger, action=code)
    except fsm.TransitionRefused as exc:
        raise Refusal(tr(ctx.lang, "illegal",
                         reason=engine_reason(ctx.lang, str(exc)))) from None
    events += fsm.settle(table_model)
    played = table_model.game.parse_action(code).code
    records.log_move(ctx, table, seat_no, actor, played)
    opts = records.options(table)
    if opts.tip is not None:  # a hint was asked for this turn: used up (noted if worse)
        records.set_options(table, opts.after_move(seat_no, played))
    after_change(ctx, table, seats, table_model, events)


def next_round(ctx: Ctx, table: GameTable, seats: list[Seat]) -> Outcome:
    """Deal the next round (a press, or the deadline after a round's end)."""
    table_model = records.model(table, seats)
    try:
        fsm.fire(table_model, "next_round")
    except fsm.TransitionRefused:
        raise Refusal(tr(ctx.lang, "already_handled")) from None
    events = fsm.settle(table_model)
    records.log_move(ctx, table, None, "system", "deal")
    table.log = []
    opts = records.options(table)
    if opts.notes or opts.tip is not None or opts.reviewed is not None:  # (one round each)
        records.set_options(table, opts.but(notes=(), tip=None, reviewed=None))
    after_change(ctx, table, seats, table_model, events, dealt=True)
    return Outcome(None, table_id=table.id, changed=True)


def after_change(ctx: Ctx, table: GameTable, seats: list[Seat], table_model: fsm.TableModel,
                 events: list[Any], dealt: bool = False) -> None:
    """Store the model, write results, schedule the next deadline, emit views (or play
    on a CPU move that is due at once, which stores and emits the newer state)."""
    table.fsm_state = table_model.state
    entries = [e.to_dict() for e in events if e.kind not in _QUIET_EVENTS]
    if entries:
        table.log = (list(table.log or []) + entries)[-LOG_LENGTH:]
    round_ended = table_model.state in (fsm.PAYOUT, fsm.FINISHED) and (
        dealt or any(e.kind == "showdown" for e in events))
    if round_ended:
        outgoing.announce_result(ctx, table, seats, table_model)
    if table_model.state == fsm.FINISHED:
        finish(ctx, table, seats, table_model)
    if round_ended:
        ctx.publish(RoundEnded(table, seats, table_model.state == fsm.FINISHED))
    turn_clock.schedule(ctx, table, seats, table_model)
    records.bump(ctx, table)
    if chain(ctx, table, seats, table_model):
        return
    if table_model.engine_state is not None:
        table.state_json = table_model.game.to_json(table_model.engine_state)
    outgoing.emit(ctx, table, seats, table_model)


def finish(ctx: Ctx, table: GameTable, seats: list[Seat], table_model: fsm.TableModel) -> None:
    """The game is over: its result row; the features hear of it (``GameFinished``)."""
    p = presenter(table.game)
    table.finished_at = ctx.now
    winners = p.winners(table_model.engine_state)
    standings = p.standings(table_model.engine_state, [s.name for s in seats])
    ctx.queue(Result, {
        "table_id": table.id, "game": table.game, "winners": winners, "standings": standings,
        "rounds": getattr(table_model.engine_state, "round_no", 0), "finished_at": ctx.now})
    ctx.publish(GameFinished(table, seats, list(winners), list(standings)))


def stop_table(ctx: Ctx, table: GameTable, reason: str = "stopped") -> Outcome:
    """Close a table for good (``/stop``, the stop button, the last person leaving, a lobby
    nobody started: ``reason`` ``expired``)."""
    _stop(ctx, table, group=True)
    ctx.publish(TableClosed(table, reason))
    return Outcome(tr(ctx.lang, "stopped"), table_id=table.id, changed=True)


def _stop(ctx: Ctx, table: GameTable, group: bool) -> list[Seat]:
    """Fire ``stop``, clear the deadlines and emit the views (the group's too if ``group``);
    returns the seats."""
    seats = records.seats(ctx.session, table)
    table_model = records.model(table, seats)
    fsm.fire(table_model, "stop")
    table.fsm_state = table_model.state
    table.next_deadline = table.deadline_kind = None
    table.finished_at = ctx.now
    records.bump(ctx, table)
    outgoing.emit(ctx, table, seats, table_model, group=group)
    return seats


def thread_gone(ctx: Ctx, table: GameTable, closed: bool = False) -> None:
    """The table's topic was closed or deleted (``closed``: known to be closed): the table
    ends (abandoned) without a word to the topic (it takes none), and each seated person is
    told privately."""
    for seat in _stop(ctx, table, group=False):
        if seat.player_id is not None and not seat.is_cpu:
            personal.tell_person(ctx, table, records.get_player(ctx.session, seat.player_id),
                                 "thread_closed" if closed else "thread_gone")
    ctx.publish(TableClosed(table, "abandoned"))


def cpu_turn(ctx: Ctx, table: GameTable, seats: list[Seat], timed_out: bool,
         planned: str | None = None, model: fsm.TableModel | None = None) -> None:
    """Play the CPU's move for the seat on turn (``planned`` if decided beforehand)."""
    model = model or records.model(table, seats)
    seat = cpu.on_turn(seats, model)
    code = planned if planned is not None else ctx.decisions.decide(table, seats, model)
    if seat.ui:
        seat.ui = {}  # a half-made selection does not survive a CPU stand-in move
    actor = "cpu" if seat.is_cpu else ("timeout" if timed_out else "away")
    if timed_out and not seat.is_cpu:
        seat.timeouts += 1
        long_clock = table.turn_timeout >= quiet_hours.LONG_CLOCK
        person = records.get_player(ctx.session, seat.player_id) if long_clock else None
        told = person.id if person is not None else None  # (in their own words, below)
        outgoing.announce(ctx, table, "timed_out", but=told, name=seat.name)
        if seat.timeouts >= 2 and not seat.away:
            seat.away = True
            outgoing.announce(ctx, table, "now_away", but=told, name=seat.name)
            personal.tell_person(ctx, table, person, "clock.you_are_away")
        else:  # (on a long clock the person is told privately what happened)
            personal.tell_person(ctx, table, person, "clock.you_timed_out")
    act(ctx, table, seats, model, seat.seat_no, code, actor,
             trigger="timeout" if not seat.is_cpu else "act")


def chain(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> bool:
    """Play a CPU move that is due right away (no thinking delay set) in this same
    transaction, if the table's CPUs decide quickly: one commit and one view for the whole
    run of moves instead of one each. The move is the one the deadline would have played
    (same seed and version). ``False``: nothing played, the caller stores and emits."""
    if (table.deadline_kind != "cpu" or table.next_deadline is None
            or table.next_deadline > ctx.now or ctx.chained >= CHAIN_LIMIT
            or cpu.thinks_long(table, seats)):
        return False
    try:
        code = ctx.decisions.decide(table, seats, model)
    except Exception:  # the deadline path tries again and logs it with the table
        log.exception("table %s: CPU decision failed", table.id)
        return False
    ctx.chained += 1
    try:
        cpu_turn(ctx, table, seats, timed_out=False, planned=code, model=model)
    except Refusal as exc:  # refused before anything changed: leave it to the deadline
        log.warning("table %s: CPU move %s refused: %s", table.id, code, exc.text)
        return False
    return True
