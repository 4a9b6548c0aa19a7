"""The coach of a private game against the CPU: "💡 Tip" asks the Experte for the person's
move from their own observation only and explains it in one line from what the search
measured; "🔎 Where could I have played better?" after a round lists at most three moves of
the round that scored clearly below the hint's, with both figures.

The hint thinks outside any transaction, where the CPU's Experte thinks (``cpu.Decisions.
advise``, the process pool): the button's ``think_tip`` reads what to think about and has it
thought before the press's transaction, and ``tip`` — in the press's own transaction —
checks the table again (same version, the person on turn) before it says anything. A game in which a hint was given is a
practice game (``practice="hint"``): no rating, no score. The review has the Experte look
again at the round's latest ``REVIEWED`` moves where the person had a choice (rebuilt from the
seed and the move log, each with ``REVIEW_SHARE`` of the budget, in the pool, thought the same
way), and adds the moves noted when a tip was asked.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

import fsm
from engine import GAMES
from engine.bots.coach import Advice
from storage.models import Chat, GameTable, Move, Player, Seat

from ... import buttons
from ...i18n import N_, Names, register, tr
from ...presenters import presenter
from ..core import outgoing, play, records
from ..core.api import ChatRef, Outcome, Refusal, UserRef
from ..core.registry import Parts
from ..core.transaction import Ctx

REVIEW_SHOWN = 3  # moves the review lists at most
REVIEWED = 8  # the round's latest moves with a choice the Experte looks at again
REVIEW_SHARE = 0.5  # of the Experte's budget per move looked at again

register({
    "co.chance": N_("💡 {move} – over {worlds} sampled worlds your chance to win the game is "
                    "{pct} % with this move."),
    "co.points": N_("💡 {move} – over {worlds} sampled worlds this move scores {points} "
                    "points on average this round."),
    "co.only": N_("💡 {move} – the one sensible move here."),
    "co.private_only": N_("Tips are for private games against the CPU."),
    "co.off": N_("Tips are off at this table: /tips turns them on."),
    "co.not_now": N_("A tip is for your own turn."),
    "co.busy": N_("One moment – I'm still thinking about your last question."),
    "co.review_later": N_("The review comes when the round is over."),
    "co.review_title": N_("🔎 Where you could have played better (moves you asked a tip "
                          "for):"),
    "co.review_title_all": N_("🔎 Where you could have played better this round:"),
    "co.review_none_all": N_("🔎 None of your moves this round scored clearly below the "
                             "Experte's."),
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


def _asker_seat(session: Session, table: GameTable, seats: list[Seat], chat_ref: ChatRef,
                user: UserRef) -> Seat | None:
    """The seat of the person who pressed, if they sit at the table (not a CPU) and pressed in
    the table's own chat; ``None`` for anybody else (nothing is thought for them)."""
    chat = records.get_chat(session, table.chat_id)
    if chat is None or (chat.platform, chat.external_id) != (chat_ref.platform,
                                                              chat_ref.external_id):
        return None
    person = records.find_player(session, chat_ref.platform, user.external_id)
    return None if person is None else records.seat_of(seats, person)


def hint_job(session: Session, press: buttons.Press, chat_ref: ChatRef,
             user: UserRef) -> HintJob | None:
    """The thinking a "💡 Tip" press asks for, or ``None`` when there is none to do: not the
    presser's private table, its chat, its version, their turn, or tips are off (the press is
    then refused by ``tip`` with the reason). Checked before any search. Reads only."""
    table = records.get_table(session, press.table_id)
    if (table is None or not table.is_private or table.version != press.version
            or not records.options(table).coach or table.state_json is None):
        return None
    seats = records.seats(session, table)
    seat = _asker_seat(session, table, seats, chat_ref, user)
    model = records.model(table, seats)
    seat_no = model.game.to_act(model.engine_state) if model.engine_state is not None else None
    if seat is None or seat_no != seat.seat_no:
        return None
    return HintJob(table.id, table.version, table.game, table.state_json, seat_no)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Thought:
    """What a coach's button thought before its transaction: the job and the Experte's
    advice on it (``None``: nothing to think about), or ``busy``: the person's previous
    question was still being thought about (nothing was thought for this one)."""

    job: HintJob | ReviewJob | None = None
    advice: Any = None  # an ``Advice`` for a tip, a list of them for a review
    busy: bool = False


class _Thinking:
    """The people the coach is thinking for in this process: one question each at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._asking: set[tuple[str, str]] = set()

    @contextmanager
    def one_at_a_time(self, chat_ref: ChatRef, user: UserRef) -> Iterator[bool]:
        """``True`` while this person's question may be thought about, ``False`` when their
        previous one still is."""
        who = (chat_ref.platform, user.external_id)
        with self._lock:
            free = who not in self._asking
            self._asking.add(who)
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._asking.discard(who)


THINKING = _Thinking()


def think_tip(parts: Parts, chat_ref: ChatRef, user: UserRef, press: buttons.Press) -> Thought:
    """"💡 Tip", before its transaction: the Experte's advice on the person's move, thought
    where the Experte thinks (``cpu.Decisions.advise``, the thinking pool) — only for the
    person on turn at their own table, one question at a time."""
    with THINKING.one_at_a_time(chat_ref, user) as free:
        if not free:
            return Thought(busy=True)
        with parts.tx.read() as session:
            job = hint_job(session, press, chat_ref, user)
        if job is None:
            return Thought()
        return Thought(job, parts.decisions.advise(job.game, job.state_json, job.seat))


def tip(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
        code: str) -> Outcome:
    """Say the hint thought for the press (``think_tip``; checked again: the same version,
    the person's turn)."""
    thought = ctx.plan if isinstance(ctx.plan, Thought) else Thought()
    if thought.busy:
        raise Refusal(tr(ctx.lang, "co.busy"))
    job, advice = thought.job, thought.advice
    if not table.is_private:
        raise Refusal(tr(ctx.lang, "co.private_only"))
    opts = records.options(table)
    if not opts.coach:
        raise Refusal(tr(ctx.lang, "co.off"))
    if table.fsm_state in fsm.CLOSED:
        raise play.Stale(tr(ctx.lang, "table_over"))
    seat = records.seat_of(seats, player)
    if (seat is None or job is None or advice is None or job.version != table.version
            or job.seat != seat.seat_no):
        raise Refusal(tr(ctx.lang, "co.not_now"))
    model = records.model(table, seats)
    labels = {code: move_label(table, seats, model.engine_state, seat.seat_no, code, ctx.lang)
              for code in {advice.code, *advice.values}}
    text = hint_text(advice, labels[advice.code], ctx.lang)
    records.set_options(table, opts.but(practice=opts.practice or "hint", tip={
        "seat": seat.seat_no, "code": advice.code, "values": dict(advice.values),
        "measure": advice.measure, "worlds": advice.worlds, "label": labels[advice.code],
        "labels": labels}))
    chat = records.get_chat(ctx.session, table.chat_id)
    assert chat is not None
    outgoing.say(ctx, chat, text)
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


@dataclass(frozen=True)
class ReviewJob:
    """What a review thinks about: the positions of the round's last ended round where the
    person chose among several moves (the state before, the seat, the move played)."""

    table_id: int
    version: int
    game: str
    positions: tuple[tuple[str, int, str], ...]


def review_job(session: Session, press: buttons.Press, chat_ref: ChatRef,
               user: UserRef) -> ReviewJob | None:
    """The positions a "🔎" press has the Experte look at again (at most ``REVIEWED``, the
    latest), rebuilt from the seed and the move log; ``None``: nothing to think about — not a
    seated person's press in the table's chat at the version the round ended at, the round not
    over, or its review already kept (the press is then answered from what was kept or
    refused by ``review``). Checked before any search. Reads only."""
    table = records.get_table(session, press.table_id)
    if (table is None or not table.is_private or not records.options(table).coach
            or table.version != press.version or table.fsm_state not in (fsm.PAYOUT, fsm.FINISHED)
            or _kept_review(table) is not None):
        return None
    seats = records.seats(session, table)
    if _asker_seat(session, table, seats, chat_ref, user) is None:
        return None
    people = {s.seat_no for s in seats if not s.is_cpu}
    game = GAMES[table.game]
    state = game.new_game(len(seats), dict(records.options(table).engine), table.seed)
    moves = session.exec(select(Move).where(Move.table_id == table.id)
                         .order_by(col(Move.seq))).all()
    dealt = max((i for i, m in enumerate(moves) if m.actor == "system"), default=-1)
    positions = []
    for i, m in enumerate(moves):
        if (i > dealt and m.actor == "player" and m.seat_no in people
                and len(game.legal_actions(state)) > 1):
            positions.append((game.to_json(state), m.seat_no, m.code))
        state, _ = game.apply(state, m.code)
    return ReviewJob(table.id, table.version, table.game,  # type: ignore[arg-type]
                     tuple(positions[-REVIEWED:]))


def _found(table: GameTable, seats: list[Seat], job: ReviewJob, advices: list[Advice],
           lang: str) -> list[dict[str, Any]]:
    """The reviewed moves that scored clearly below the Experte's, as notes."""
    game = GAMES[table.game]
    notes = []
    for (state_json, seat, code), advice in zip(job.positions, advices, strict=True):
        if advice.clearly_below(code):
            state = game.from_json(state_json)
            notes.append({"code": code, "best": advice.code, "mine": advice.values[code],
                          "theirs": advice.values[advice.code], "measure": advice.measure,
                          "label": move_label(table, seats, state, seat, advice.code, lang),
                          "mine_label": move_label(table, seats, state, seat, code, lang)})
    return notes


def think_review(parts: Parts, chat_ref: ChatRef, user: UserRef,
                 press: buttons.Press) -> Thought:
    """"🔎", before its transaction: the Experte's second look at the round's moves — once
    per round (what it found is kept with the table), for a person seated at it, one question
    at a time."""
    with THINKING.one_at_a_time(chat_ref, user) as free:
        if not free:
            return Thought(busy=True)
        with parts.tx.read() as session:
            job = review_job(session, press, chat_ref, user)
        if job is None:
            return Thought()
        return Thought(job, parts.decisions.advise_many(job.game, list(job.positions),
                                                        REVIEW_SHARE))


def _kept_review(table: GameTable) -> list[dict[str, Any]] | None:
    """What the round's review found, if it was thought already (kept until the next deal)."""
    kept = records.options(table).reviewed
    if kept is None or kept.get("version") != table.version:
        return None
    return [dict(n) for n in kept.get("found") or ()]


def review_press(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player,
                 user: UserRef, code: str) -> Outcome:
    """A "🔎" press with the Experte's second look at the round's moves (``think_review``),
    or what the round's review found before (kept: the same answer, nothing thought again)."""
    thought = ctx.plan if isinstance(ctx.plan, Thought) else Thought()
    if thought.busy:
        raise Refusal(tr(ctx.lang, "co.busy"))
    found = _kept_review(table)
    job = thought.job
    if found is None and isinstance(job, ReviewJob) and thought.advice is not None \
            and job.version == table.version:
        found = _found(table, seats, job, thought.advice, ctx.lang)
        if records.seat_of(seats, player) is not None:  # (kept for the round's next asks)
            records.set_options(table, records.options(table).but(
                reviewed={"version": table.version, "found": found}))
    return review(ctx, table, seats, player, user, code, found)


def review(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
           code: str, found: list[dict[str, Any]] | None = None) -> Outcome:
    """"Where could I have played better?": the moves of the round's that scored clearly
    below the Experte's (``found`` by a second look, and those noted at tips), the worst
    first."""
    if not table.is_private:
        raise Refusal(tr(ctx.lang, "co.private_only"))
    opts = records.options(table)
    if not opts.coach:
        raise Refusal(tr(ctx.lang, "co.off"))
    if table.fsm_state not in (fsm.PAYOUT, fsm.FINISHED):
        raise Refusal(tr(ctx.lang, "co.review_later"))
    if records.seat_of(seats, player) is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    chat = records.get_chat(ctx.session, table.chat_id)
    assert chat is not None
    notes = list(found or [])
    seen = {(n["code"], n["best"], n["mine"]) for n in notes}
    notes += [n for n in opts.notes if (n["code"], n["best"], n["mine"]) not in seen]
    outgoing.say(ctx, chat, review_text(tuple(notes), ctx.lang, reviewed=found is not None))
    return Outcome(None, table_id=table.id)


def review_text(notes: tuple[Any, ...], lang: str, reviewed: bool = False) -> str:
    """The review: at most ``REVIEW_SHOWN`` moves, the largest loss first (``reviewed``:
    the Experte looked at the round's moves again, not only at those with a tip)."""
    if not notes:
        return tr(lang, "co.review_none_all" if reviewed else "co.review_none")
    worst = sorted(notes, key=lambda n: float(n["mine"]) - float(n["theirs"]))[:REVIEW_SHOWN]
    lines = [tr(lang, "co.review_title_all" if reviewed else "co.review_title")]
    lines += [tr(lang, "co.review_line", mine_move=n.get("mine_label") or n["code"],
                 best_move=n.get("label") or n["best"],
                 mine=figure(float(n["mine"]), n["measure"]),
                 theirs=figure(float(n["theirs"]), n["measure"])) for n in worst]
    return "\n".join(lines)


def tips(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/tips`` (``/tipps``): the running private game offers "💡 Tip" (on by default
    against the Anfänger)."""
    table = records.lock_table(ctx.session, records.open_table(ctx.session, chat) or 0)
    if table is None or not table.is_private or table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "co.no_game"), alert=False)
    records.set_options(table, records.options(table).but(coach=True))
    outgoing.say(ctx, chat, tr(ctx.lang, "co.tips_on"))
    records.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)

