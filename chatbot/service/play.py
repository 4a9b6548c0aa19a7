"""Play: a press on a table, a move through the table machine, the round's end, the result.

Every change goes the same way: the FSM trigger (whose guards ask the engine) → the new state
stored on the table row → the move-log row → the next deadline → the views, all in the
input's transaction; the version is bumped so that older buttons go stale.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import fsm
from engine import GAMES
from storage.models import Chat, GameTable, Move, Player, Result, Seat

from .. import buttons
from ..i18n import engine_reason, tr
from ..presenters import presenter
from . import cpu, deadlines, lobby, outgoing, store
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

LOG_LENGTH = 120  # public events kept: the round's (a new round starts a new log)
_QUIET_EVENTS = ("showdown", "payout", "game_over", "game_start", "deal")


class Stale(Refusal):
    """A press on a version of the table that has passed (told apart in the metrics)."""


def model(table: GameTable, seats: list[Seat]) -> fsm.TableModel:
    """The table machine over the stored state."""
    game = GAMES[table.game]
    engine_state = game.from_json(table.state_json) if table.state_json else None
    return fsm.TableModel(game_id=table.game, state=table.fsm_state, seats=len(seats),
                          options=dict(table.options.get("engine") or {}), seed=table.seed,
                          engine_state=engine_state)


def show(ctx: Ctx, table: GameTable, seats: list[Seat] | None = None,
         table_model: fsm.TableModel | None = None, repost: bool = True) -> None:
    """Queue the table's views as they are now."""
    seats = store.seats(ctx.session, table) if seats is None else seats
    outgoing.emit(ctx, table, seats, table_model or model(table, seats), repost=repost)


def bump(ctx: Ctx, table: GameTable) -> None:
    """A committed change: a new version (older buttons go stale)."""
    table.version += 1
    table.updated_at = ctx.now
    ctx.touch(table)


def table_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
                press: buttons.Press) -> Outcome:
    """A button on a table: a lobby or table UI button (``lobby.UI``), else a move."""
    table = store.lock_table(ctx.session, press.table_id)
    if table is None:
        raise Refusal(tr(ctx.lang, "table_gone"))
    code = press.code
    head = code.split(".")[0]
    # Every table button, UI or move, is checked against the version first (before anything
    # else is read: under load most refused presses are stale ones); only "join", "leave",
    # "my cards" and "I'm back" mean the same whatever the message showed.
    if press.version != table.version and head not in lobby.VERSION_FREE:
        raise Stale(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                       else "stale_button"))
    seats = store.seats(ctx.session, table)
    if table.chat_id != chat.id:
        if store.seat_of(seats, player) is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        # rights are judged in the table's own chat: an admin elsewhere is nobody here
        user = replace(user, is_admin=False)
    handler = lobby.UI.get(head)
    if handler is not None:
        return handler(ctx, table, seats, player, user, code)
    if table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "table_over"))
    if code == "next":
        if store.seat_of(seats, player) is None and not user.is_admin:
            raise Refusal(tr(ctx.lang, "seated_only"))
        return next_round(ctx, table, seats)
    seat = store.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    table_model = model(table, seats)
    if (table_model.engine_state is None
            or table_model.game.to_act(table_model.engine_state) != seat.seat_no):
        raise Refusal(tr(ctx.lang, "not_your_turn"))
    seat.timeouts = 0
    if head == "ui":  # a selection step that lives on the server (e.g. picking cards)
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
    seats = store.seats(ctx.session, table)
    table_model = model(table, seats)
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
    log_move(ctx, table, seat_no, actor, table_model.game.parse_action(code).code)
    after_change(ctx, table, seats, table_model, events)


def log_move(ctx: Ctx, table: GameTable, seat_no: int | None, actor: str, code: str) -> None:
    ctx.queue(Move, {"table_id": table.id, "seq": table.version + 1, "seat_no": seat_no,
                     "actor": actor, "code": code, "at": ctx.now})


def next_round(ctx: Ctx, table: GameTable, seats: list[Seat]) -> Outcome:
    """Deal the next round (a press, or the deadline after a round's end)."""
    table_model = model(table, seats)
    try:
        fsm.fire(table_model, "next_round")
    except fsm.TransitionRefused:
        raise Refusal(tr(ctx.lang, "already_handled")) from None
    events = fsm.settle(table_model)
    log_move(ctx, table, None, "system", "deal")
    table.log = []
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
    deadlines.schedule(ctx, table, seats, table_model)
    bump(ctx, table)
    if cpu.chain(ctx, table, seats, table_model):
        return
    if table_model.engine_state is not None:
        table.state_json = table_model.game.to_json(table_model.engine_state)
    outgoing.emit(ctx, table, seats, table_model)


def finish(ctx: Ctx, table: GameTable, seats: list[Seat], table_model: fsm.TableModel) -> None:
    """The game is over: its result row."""
    p = presenter(table.game)
    table.finished_at = ctx.now
    ctx.queue(Result, {
        "table_id": table.id, "game": table.game,
        "winners": p.winners(table_model.engine_state),
        "standings": p.standings(table_model.engine_state, [s.name for s in seats]),
        "rounds": getattr(table_model.engine_state, "round_no", 0), "finished_at": ctx.now})


def stop_table(ctx: Ctx, table: GameTable) -> Outcome:
    """Close a table for good (``/stop``, the stop button, the last person leaving)."""
    seats = store.seats(ctx.session, table)
    table_model = model(table, seats)
    fsm.fire(table_model, "stop")
    table.fsm_state = table_model.state
    table.next_deadline = table.deadline_kind = None
    table.finished_at = ctx.now
    bump(ctx, table)
    outgoing.emit(ctx, table, seats, table_model)
    return Outcome(tr(ctx.lang, "stopped"), table_id=table.id, changed=True)
