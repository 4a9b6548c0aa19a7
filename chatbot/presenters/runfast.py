"""How Run Fast (Pao De Kuai) looks in chat: table lines, private hand, event lines, hand
results, rules. The move keyboard (plays by kind, paged, or picked card by card) and the
selection steps are in ``runfast_keys``."""

from __future__ import annotations

from typing import Any

from engine import runfast as game
from engine.cards import BY_CODE, show
from engine.protocol import FINISHED, PAYOUT, TURN

from ..i18n import N_, NN_, register, tr, tr_seat
from .runfast_keys import PAGE as PAGE  # the presenter's keyboard
from .runfast_keys import action_buttons as action_buttons
from .runfast_keys import kind_name
from .runfast_keys import ui_press as ui_press

GAME_ID = game.GAME_ID
ROUND_UNIT = "hand"  # what a deal is called in texts ("Hand" in Run Fast's rule sheet)
DEFAULT_TABLE_OPTIONS: dict[str, Any] = {}
OPTION_CHOICES: dict[str, list[Any]] = {"hands": list(game.HANDS_CHOICES)}

register({
    "game.runfast": N_("Run Fast (Pao De Kuai)"),
    "rf.header": N_("Hand {n} of {total}"),
    "rf.table": N_("On the table: {cards} ({kind}) by {name}"),
    "rf.table_empty": N_("{name} leads freely."),
    "rf.cards": NN_("{n} card", "{n} cards"),
    "rf.points": NN_("{n} pt", "{n} pts"),
    "rf.passed": N_("passed"),
    "rf.alert": N_("⚠️ {name} has only 1 card left!"),
    "rf.bombs": N_("💣 Bombs this hand: {list}"),
    "rf.hand": N_("Your cards ({n}): {cards}"),
    "rf.next_one": N_("⚠️ The next player has only 1 card: a single must be your highest."),
    "rf.cannot_beat": N_("You cannot beat it – pass."),
    "rf.ev.play": N_("{name}: {cards} ({kind})"),
    "rf.ev.play.you": N_("You: {cards} ({kind})"),
    "rf.ev.bomb": N_("💣 {name} bombs with {cards}! (+10, the others −5 each)"),
    "rf.ev.bomb.you": N_("💣 You bomb with {cards}! (+10, the others −5 each)"),
    "rf.ev.one": N_(" ⚠️ {name} has only 1 card left!"),
    "rf.ev.one.you": N_(" ⚠️ You have only 1 card left!"),
    "rf.ev.out": N_("{name} plays the last cards: {cards} ({kind}) 🏁"),
    "rf.ev.out.you": N_("You play your last cards: {cards} ({kind}) 🏁"),
    "rf.ev.pass": N_("{name} passes."),
    "rf.ev.pass.you": N_("You pass."),
    "rf.ev.lead": N_("Everybody passed – {name} leads again."),
    "rf.ev.lead.you": N_("Everybody passed – you lead again."),
    "rf.result": N_("Hand {n} of {total} over – {name} went out first!"),
    "rf.result.left": NN_(
        "{name}: {n} card left ({cards}) → pays {paid}",
        "{name}: {n} cards left ({cards}) → pays {paid}"),
    "rf.result.shut": N_("{name}: played no card – pays double: {paid} ({cards})"),
    "rf.result.gets": N_("{name} collects {n} points for cards."),
    "rf.result.bombs": N_("💣 Bombs: {list}"),
    "rf.result.delta": N_("This hand: {list}"),
    "rf.result.totals": N_("Score: {list}"),
    "rf.result.final": N_("Final score after {n} hands: {list}"),
    "rf.result.winner": N_("🏆 {name} wins the match with {score} points!"),
    "rf.result.shared": N_("🏆 Shared win with {score} points: {names}"),
    "rf.opt.hands": N_("Hands: {n}"),
    "rf.rules": N_(
        "Run Fast (Pao De Kuai) – in short:\n"
        "• 3 players, 16 cards each (48 cards: no 2♣ 2♥ 2♦ and no ace of spades). Order: 3 "
        "lowest … 10 J Q K A, 2 highest; suits never count.\n"
        "• The holder of 3♠ leads the first hand, then the winner of the previous hand.\n"
        "• Combinations: single, pair, consecutive pairs (3344…, no 2), straight (5+ cards, up "
        "to the ace), triple with any two cards, airplane (2+ consecutive triples with two "
        "kickers each), bomb (four of a rank). With your last cards a triple may carry one or no "
        "kicker, an airplane fewer.\n"
        "• To beat: the same combination, the same number of cards, higher. A bomb beats "
        "anything but a higher bomb. Four of a rank always stay together as a bomb.\n"
        "• You must beat when you can. If the next player has one card left, a single you play "
        "must be your highest.\n"
        "• The first player out wins the hand: every other player pays 1 point per card left, "
        "double if they played no card at all. Every bomb: +10 for its player, −5 for each "
        "other. After 4 or 8 hands the highest total wins."),
})


# ---------------------------------------------------------------------------------------------
# helpers


def _c(codes: Any) -> str:
    if isinstance(codes, str):
        return BY_CODE[codes].symbol
    return show(BY_CODE[c] for c in codes)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _score_list(names: list[str], values: tuple[int, ...] | list[int], signed: bool) -> str:
    fmt = _signed if signed else str
    return " · ".join(f"{names[s]} {fmt(values[s])}" for s in range(len(values)))


def name(lang: str | None) -> str:
    """The game's name in ``lang``."""
    return tr(lang, "game.runfast")


def rules(lang: str) -> str:
    return tr(lang, "rf.rules")


def option_label(key: str, value: Any, lang: str) -> str:
    return tr(lang, f"rf.opt.{key}", n=value)


# ---------------------------------------------------------------------------------------------
# table and hand


def public_lines(state: game.State, names: list[str], lang: str, options: dict[str, Any],
                 marks: list[str]) -> list[str]:
    """Status lines anyone may see: the play on the table, card counts, alerts, bombs, scores.
    No hidden card."""
    lines = [f"🃏 {name(lang)} · "
             + tr(lang, "rf.header", n=state.round_no, total=state.hands_total)]
    playing = state.phase == TURN
    if playing:
        cur = state.current
        if cur is None:
            lines.append(tr(lang, "rf.table_empty", name=names[state.to_act]))  # type: ignore[index]
        else:
            lines.append(tr(lang, "rf.table", cards=show(cur.cards), kind=kind_name(cur.kind, lang, len(cur.cards)),
                            name=names[state.table_seat]))  # type: ignore[index]
    for s in range(state.seats):
        bits = [f"{names[s]}{marks[s] if s < len(marks) else ''}"]
        if playing:
            n = state.hands[s].bit_count()
            bits.append(tr(lang, "rf.cards", n=n))
        bits.append(tr(lang, "rf.points", n=state.scores[s]))
        if playing and state.passed[s]:
            bits.append(tr(lang, "rf.passed"))
        prefix = "▶ " if state.to_act == s else "   "
        lines.append(prefix + " · ".join(bits))
    if playing:
        for s in range(state.seats):
            if state.hands[s].bit_count() == 1:
                lines.append(tr(lang, "rf.alert", name=names[s]))
        if state.bombs:
            bombs = ", ".join(f"{names[who]} ({game.rank_label(power)})"
                              for who, power in state.bombs)
            lines.append(tr(lang, "rf.bombs", list=bombs))
    return lines


def private_lines(state: game.State, seat: int, lang: str) -> list[str]:
    """The seat's own hand, sorted 3 … A 2 (only while a hand is played)."""
    if state.phase != TURN:
        return []
    hand = state.hand_cards(seat)
    lines = [tr(lang, "rf.hand", n=len(hand), cards=show(hand))]
    if state.to_act == seat and state.hands[(seat + 1) % 3].bit_count() == 1:
        lines.append(tr(lang, "rf.next_one"))
    if state.to_act == seat and not game.play_families(state):
        lines.append(tr(lang, "rf.cannot_beat"))  # only Pass is offered: say why
    return lines


# ---------------------------------------------------------------------------------------------
# events and results


def event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """One line for a public event (plays show only played cards)."""
    kind, seat, data = event["kind"], event.get("seat"), event.get("data") or {}

    def name(s: Any) -> str:
        return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"

    if kind == "play":
        cards = _c(data["cards"])
        what = kind_name(data["kind"], lang, len(data["cards"]))
        if data.get("left") == 0:
            return tr_seat(lang, "rf.ev.out", names, seat, cards=cards, kind=what)
        if data["kind"] == "bomb":
            text = tr_seat(lang, "rf.ev.bomb", names, seat, cards=cards)
        else:
            text = tr_seat(lang, "rf.ev.play", names, seat, cards=cards, kind=what)
        if data.get("left") == 1:
            text += tr_seat(lang, "rf.ev.one", names, seat)
        return text
    if kind == "pass":
        return tr_seat(lang, "rf.ev.pass", names, seat)
    if kind == "lead":
        return tr_seat(lang, "rf.ev.lead", names, seat)
    return None


def result_lines(state: game.State, names: list[str], lang: str,
                 options: dict[str, Any]) -> list[str]:
    """The hand's result: cards left and paid (doubles marked), bombs, the hand's changes and
    the running score; at the end of the match the final score and the winners."""
    r = state.result
    if r is None:
        return []
    lines = [tr(lang, "rf.result", n=r.round_no, total=state.hands_total, name=names[r.winner])]
    for s in range(state.seats):
        if s == r.winner:
            continue
        key = "rf.result.shut" if r.shut_out[s] else "rf.result.left"
        lines.append(tr(lang, key, name=names[s], n=len(r.left[s]), cards=show(r.left[s]),
                        paid=r.paid[s]))
    lines.append(tr(lang, "rf.result.gets", name=names[r.winner], n=sum(r.paid)))
    if any(r.bombs):
        lines.append(tr(lang, "rf.result.bombs", list=_score_list(names, r.bombs, True)))
    lines.append(tr(lang, "rf.result.delta", list=_score_list(names, r.delta, True)))
    if state.phase == FINISHED:
        lines.append(tr(lang, "rf.result.final", n=state.hands_total,
                        list=_score_list(names, state.scores, False)))
        won = list(state.winners)
        if len(won) == 1:
            lines.append(tr(lang, "rf.result.winner", name=names[won[0]],
                            score=state.scores[won[0]]))
        else:
            lines.append(tr(lang, "rf.result.shared", score=state.scores[won[0]],
                            names=", ".join(names[s] for s in won)))
    elif state.phase == PAYOUT:
        lines.append(tr(lang, "rf.result.totals", list=_score_list(names, state.scores, False)))
    return lines


def winners(state: game.State) -> list[int]:
    return game.winners(state)


def standings(state: game.State, names: list[str]) -> list[dict[str, Any]]:
    return [{"seat": s, "name": names[s], "points": state.scores[s],
             "winner": s in state.winners} for s in range(state.seats)]
