"""The turn clock: a table's next deadline set from its state (a reminder at half time, the
timeout, a CPU move, the next round), and the half-time reminder. All time lives in the
table's row; ``deadlines`` fires what is due."""

from __future__ import annotations

from datetime import timedelta

import fsm
from storage.models import GameTable, Seat

from ..i18n import tr
from . import cpu, outgoing, store
from .transaction import Ctx


def schedule(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> None:
    """Set the table's next deadline from its state (all time lives in the database)."""
    if table.reminded:  # the turn it reminded of is over
        outgoing.forget_reminder(ctx, table)
    table.next_deadline, table.deadline_kind, table.reminded = None, None, False
    ctx.touch(table)
    if model.state in (fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND):
        seat_no = model.game.to_act(model.engine_state)
        seat = next((s for s in seats if s.seat_no == seat_no), None)
        if seat is None:
            return
        if seat.is_cpu or seat.away:
            table.deadline_kind = "cpu"
            table.next_deadline = ctx.now + timedelta(seconds=ctx.settings.cpu_delay)
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


def remind(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """Half the turn clock has run: remind the player on turn, arm the timeout."""
    seat = cpu.on_turn(seats, store.model(table, seats))
    player = store.get_player(ctx.session, seat.player_id)
    remaining = table.turn_timeout - table.turn_timeout // 2
    chat = store.get_chat(ctx.session, table.chat_id)
    outgoing.remind(ctx, table, tr(outgoing.language(ctx, chat), "reminder",
                                   mention=outgoing.mention(ctx.platform, player, seat),
                                   seconds=remaining))
    table.reminded = True
    table.deadline_kind = "timeout"
    table.next_deadline = ctx.now + timedelta(seconds=remaining)
    ctx.touch(table)
