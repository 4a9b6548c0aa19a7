"""⏩ A person who is out of a private game skips to the result: the CPU players play the rest
at once (each at its level, the Experte on a short budget), then "play again" if asked."""

from __future__ import annotations

import random

import fsm
from storage.models import GameTable, Outbox, Player, Seat

from ..i18n import tr
from . import outgoing, play, seating, store
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

MAX_MOVES = 5_000  # a safety bound: a game of CPUs ends long before
BUDGET = 0.02  # seconds an Experte thinks per move while skipping


def skip(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """``skip``: play the game out; ``skip.again``: and start the next one."""
    if code not in ("skip", "skip.again"):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    seat = store.seat_of(seats, player)
    if seat is None or not table.is_private:
        raise Refusal(tr(ctx.lang, "not_seated"))
    played = table.fsm_state in fsm.PLAYING
    if played:
        if not outgoing.spectating(table, seats, store.model(table, seats)):
            raise Refusal(tr(ctx.lang, "skip_not_out"))
        _play_out(ctx, table, seats)
        ctx.coalesce_views(Outbox)  # the end of the game, not each of its moves
    # (a press that comes after the CPUs finished by themselves: nothing more to do)
    if code == "skip.again":
        return seating.again(ctx, table, seats, player, user, "again")
    return Outcome(None, table_id=table.id, changed=played)


def _play_out(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    for _ in range(MAX_MOVES):
        if table.fsm_state not in fsm.PLAYING:
            return
        if table.fsm_state == fsm.PAYOUT:
            play.next_round(ctx, table, seats)
            continue
        model = store.model(table, seats)
        seat_no = model.game.to_act(model.engine_state)
        seat = next(s for s in seats if s.seat_no == seat_no)
        rng = random.Random(f"{table.seed}:{table.version}")
        code = fsm.cpu_action(model, seat.cpu_level or "normal", rng, budget=BUDGET)
        play.act(ctx, table, seats, model, seat.seat_no, code, "cpu")
