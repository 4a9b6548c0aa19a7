"""⏩ A person who is out of a private game skips to the result: the CPU players play the rest
at once (each at its level, the Experte on a short budget), then "play again" if asked.

Where a CPU thinks against a clock (the Experte: 20 ms a move, and a game of the climbing game
has hundreds of moves), the play-out is thought before the press's transaction and outside it
(``play_out_job``, in the thinking pool: ``Decisions.play_out``), so that it never holds up
the event loop or the database; the transaction then plays the moves thought
(``Ctx.plan``), each checked by the rules as any move, and thinks here only a move whose
table had moved on meanwhile.
"""

from __future__ import annotations

import random
from typing import Any

from sqlmodel import Session

import fsm
from storage.models import GameTable, Outbox, Player, Seat

from ... import buttons
from ...i18n import tr
from ..core import cpu, outgoing, play, records, seating
from ..core.api import ChatRef, Outcome, Refusal, UserRef
from ..core.registry import Parts
from ..core.transaction import Ctx

MAX_MOVES = 5_000  # a safety bound: a game of CPUs ends long before
BUDGET = 0.02  # seconds an Experte thinks per move while skipping
SKIP_CODES = frozenset({"skip", "skip.again"})
PLANS = 3  # a play-out is thought again when its table moved on meanwhile (its CPUs play on)


def think(parts: Parts, chat_ref: ChatRef, user: UserRef,
          press: buttons.Press) -> dict[tuple[int, int], str]:
    """The CPU moves a ⏩ press will play, thought outside any transaction (in the thinking
    pool): ``{(table id, version it is played at): code}``; empty when there is nothing to
    think beforehand. Thought again, up to ``PLANS`` times, if the table moved on meanwhile."""
    tx, decisions = parts.tx, parts.decisions
    planned: dict[tuple[int, int], str] = {}
    for _ in range(PLANS):
        with tx.read() as session:
            job = play_out_job(session, chat_ref.platform, user.external_id, press.table_id)
        if job is None:
            return planned
        job_table, version, args = job
        planned = {(job_table, v): code for v, code in decisions.play_out(args).items()}
        with tx.read() as session:
            table = records.get_table(session, job_table)
            if table is None or table.version == version:
                return planned
    return planned


def play_out_job(session: Session, platform: str, user_id: str, table_id: int | None
                 ) -> tuple[int, int, tuple[Any, ...]] | None:
    """What a ⏩ press asks to think before its transaction: (table id, version, the
    arguments of ``fsm.play_out_from_json``) for the table as it stands; ``None`` when there
    is nothing to think beforehand (not the play-out of a private game the person is out of —
    the press is then refused with the reason — or only quick CPUs, which are decided in the
    transaction as before). Reads only."""
    table = records.get_table(session, table_id)
    if (table is None or not table.is_private or table.fsm_state not in fsm.PLAYING
            or table.state_json is None):
        return None
    seats = records.seats(session, table)
    person = records.find_player(session, platform, user_id)
    if person is None or records.seat_of(seats, person) is None \
            or not cpu.thinks_long(table, seats):
        return None
    model = records.model(table, seats)
    if not outgoing.spectating(table, seats, model):
        return None
    levels = [cpu.level(s) for s in sorted(seats, key=lambda s: s.seat_no)]
    return table.id, table.version, (  # type: ignore[return-value]
        table.game, table.fsm_state, len(seats), model.options, table.seed, table.state_json,
        levels, table.version, BUDGET, MAX_MOVES)


def skip(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """``skip``: play the game out; ``skip.again``: and start the next one."""
    if code not in SKIP_CODES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    seat = records.seat_of(seats, player)
    if seat is None or not table.is_private:
        raise Refusal(tr(ctx.lang, "not_seated"))
    played = table.fsm_state in fsm.PLAYING
    if played:
        if not outgoing.spectating(table, seats, records.model(table, seats)):
            raise Refusal(tr(ctx.lang, "skip_not_out"))
        # the moves thought beforehand fit only if the table still stands where they begin
        planned = {v: move for (t, v), move in (ctx.plan or {}).items() if t == table.id}
        _play_out(ctx, table, seats, planned if min(planned, default=None) == table.version
                  else {})
        ctx.coalesce_views(Outbox)  # the end of the game, not each of its moves
    # (a press that comes after the CPUs finished by themselves: nothing more to do)
    if code == "skip.again":
        return seating.again(ctx, table, seats, player, user, "again")
    return Outcome(None, table_id=table.id, changed=played)


def _play_out(ctx: Ctx, table: GameTable, seats: list[Seat], planned: dict[int, str]) -> None:
    """Play the game out: each move as ``planned`` for the version the table is at, else
    thought here."""
    for _ in range(MAX_MOVES):
        if table.fsm_state not in fsm.PLAYING:
            return
        if table.fsm_state == fsm.PAYOUT:
            planned.pop(table.version, None)  # ("deal")
            play.next_round(ctx, table, seats)
            continue
        model = records.model(table, seats)
        seat_no = model.game.to_act(model.engine_state)
        seat = next(s for s in seats if s.seat_no == seat_no)
        code = planned.pop(table.version, None)
        if code is not None:
            try:
                play.act(ctx, table, seats, model, seat.seat_no, code, "cpu")
                continue
            except Refusal:  # (refused before anything changed) the plan no longer fits
                planned.clear()
        rng = random.Random(f"{table.seed}:{table.version}")
        code = fsm.cpu_action(model, cpu.level(seat), rng, budget=BUDGET)
        play.act(ctx, table, seats, model, seat.seat_no, code, "cpu")
