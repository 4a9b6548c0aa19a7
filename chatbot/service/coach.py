"""The coach of a private game against the CPU: "💡 Tip" asks the Experte for the person's
move from their own observation only and explains it in one line from what the search
measured; "🔎 Where could I have played better?" after a round lists at most three moves of
the round that scored clearly below the hint's, with both figures.

The hint thinks outside any transaction, where the CPU's Experte thinks (``cpu.Decisions.
advise``, the process pool): ``hint_job`` reads what to think about, the façade has it
thought, and ``tip`` — in the press's own transaction — checks the table again (same
version, the person on turn) before it says anything. A game in which a hint was given is a
practice game (``practice="hint"``): no rating, no score. The review compares the moves for
which a hint was asked (the search's figures of the other moves are not known).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

import fsm
from engine import GAMES
from engine.bots.coach import Advice
from storage.models import Chat, GameTable, Player, Seat

from .. import buttons
from ..i18n import N_, Names, register, tr
from ..presenters import presenter
from . import outgoing, play, store
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

REVIEW_SHOWN = 3  # moves the review lists at most

register({
    "co.chance": N_("💡 {move} – over {worlds} sampled worlds your chance to win the game is "
                    "{pct} % with this move."),
    "co.points": N_("💡 {move} – over {worlds} sampled worlds this move scores {points} "
                    "points on average this round."),
    "co.only": N_("💡 {move} – the one sensible move here."),
    "co.private_only": N_("Tips are for private games against the CPU."),
    "co.off": N_("Tips are off at this table: /tips turns them on."),
    "co.not_now": N_("A tip is for your own turn."),
    "co.review_later": N_("The review comes when the round is over."),
    "co.review_title": N_("🔎 Where you could have played better (moves you asked a tip "
                          "for):"),
    "co.review_line": N_("• {mine_move} ({mine}) – better: {best_move} ({theirs})"),
    "co.tips_on": N_("💡 Tips are on for this game (it is not rated once you ask for one)."),
    "co.no_game": N_("Start a private game first (/new), then /tips."),
    "co.review_none": N_("🔎 None of the moves you asked a tip for scored clearly below the "
                         "Experte's."),
})


@dataclass(frozen=True)
class HintJob:
    """What a hint thinks about: a table's state as the seat on turn sees it."""

    table_id: int
    version: int
    game: str
    state_json: str
    seat: int


def hint_job(session: Session, press: buttons.Press) -> HintJob | None:
    """The thinking a "💡 Tip" press asks for, or ``None`` when there is none to do (the
    press is then refused by ``tip`` with the reason). Reads only."""
    table = store.get_table(session, press.table_id)
    if (table is None or not table.is_private or table.version != press.version
            or not store.options(table).coach or table.state_json is None):
        return None
    seats = store.seats(session, table)
    model = store.model(table, seats)
    seat_no = model.game.to_act(model.engine_state) if model.engine_state is not None else None
    if seat_no is None or any(s.seat_no == seat_no and s.is_cpu for s in seats):
        return None
    return HintJob(table.id, table.version, table.game, table.state_json, seat_no)  # type: ignore[arg-type]


def tip(ctx: Ctx, chat: Chat, player: Player, press: buttons.Press,
        job: HintJob | None, advice: Advice | None) -> Outcome:
    """Say the hint thought for ``job`` (checked again: the same version, the person's turn)."""
    table = store.lock_table(ctx.session, press.table_id)
    if table is None:
        raise Refusal(tr(ctx.lang, "table_gone"))
    if not table.is_private:
        raise Refusal(tr(ctx.lang, "co.private_only"))
    opts = store.options(table)
    if not opts.coach:
        raise Refusal(tr(ctx.lang, "co.off"))
    if table.version != press.version or table.fsm_state in fsm.CLOSED:
        raise play.Stale(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                            else "stale_button"))
    seats = store.seats(ctx.session, table)
    seat = store.seat_of(seats, player)
    if (seat is None or job is None or advice is None or job.version != table.version
            or job.seat != seat.seat_no):
        raise Refusal(tr(ctx.lang, "co.not_now"))
    model = store.model(table, seats)
    labels = {code: move_label(table, seats, model.engine_state, seat.seat_no, code, ctx.lang)
              for code in {advice.code, *advice.values}}
    text = hint_text(advice, labels[advice.code], ctx.lang)
    store.set_options(table, opts.but(practice=opts.practice or "hint", tip={
        "seat": seat.seat_no, "code": advice.code, "values": dict(advice.values),
        "measure": advice.measure, "worlds": advice.worlds, "label": labels[advice.code],
        "labels": labels}))
    where = store.get_chat(ctx.session, table.chat_id) or chat
    outgoing.say(ctx, where, text)
    return Outcome(None, table_id=table.id)


def hint_text(advice: Advice, move: str, lang: str) -> str:
    """The hint's one line, from what the search measured."""
    value = advice.values.get(advice.code)
    if value is None:
        return tr(lang, "co.only", move=move)
    if advice.measure == "chance":
        return tr(lang, "co.chance", move=move, worlds=advice.worlds, pct=round(100 * value))
    return tr(lang, "co.points", move=move, worlds=advice.worlds, points=f"{value:+.1f}")


def figure(value: float, measure: str) -> str:
    return f"{round(100 * value)} %" if measure == "chance" else f"{value:+.1f}"


def move_label(table: GameTable, seats: list[Seat], state: Any, seat: int, code: str,
               lang: str) -> str:
    """A move as its log line tells it to the person ("You knock."), else its code."""
    game = GAMES[table.game]
    try:
        _, events = game.apply(state, game.parse_action(code))
    except Exception:  # (not legal here: its code will do)
        return code
    names = Names([s.name for s in seats], you=seat)
    p = presenter(table.game)
    for event in events:
        if event.seat == seat:
            line = p.event_text(event.to_dict(), names, lang)
            if line:
                return str(line).rstrip(".")
    return code


def review(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
           code: str) -> Outcome:
    """"Where could I have played better?": the round's noted moves, the worst first."""
    if not table.is_private:
        raise Refusal(tr(ctx.lang, "co.private_only"))
    opts = store.options(table)
    if not opts.coach:
        raise Refusal(tr(ctx.lang, "co.off"))
    if table.fsm_state not in (fsm.PAYOUT, fsm.FINISHED):
        raise Refusal(tr(ctx.lang, "co.review_later"))
    if store.seat_of(seats, player) is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    chat = store.get_chat(ctx.session, table.chat_id)
    assert chat is not None
    outgoing.say(ctx, chat, review_text(opts.notes, ctx.lang))
    return Outcome(None, table_id=table.id)


def review_text(notes: tuple[Any, ...], lang: str) -> str:
    """The review: at most ``REVIEW_SHOWN`` moves, the largest loss first."""
    if not notes:
        return tr(lang, "co.review_none")
    worst = sorted(notes, key=lambda n: float(n["mine"]) - float(n["theirs"]))[:REVIEW_SHOWN]
    lines = [tr(lang, "co.review_title")]
    lines += [tr(lang, "co.review_line", mine_move=n.get("mine_label") or n["code"],
                 best_move=n.get("label") or n["best"],
                 mine=figure(float(n["mine"]), n["measure"]),
                 theirs=figure(float(n["theirs"]), n["measure"])) for n in worst]
    return "\n".join(lines)


def tips(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/tips`` (``/tipps``): the running private game offers "💡 Tip" (on by default
    against the Anfänger)."""
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "co.private_only"), alert=False)
    table = store.lock_table(ctx.session, store.open_table(ctx.session, chat) or 0)
    if table is None or not table.is_private or table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "co.no_game"), alert=False)
    store.set_options(table, store.options(table).but(coach=True))
    outgoing.say(ctx, chat, tr(ctx.lang, "co.tips_on"))
    store.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


COMMANDS = {"tips": tips, "tipps": tips}
