"""How the jolly climbing game looks in chat: table lines, private hand, event lines,
results, rules. The move keyboard (plays grouped by kind and paged, or picked card by card),
the selection steps and how cards and kinds are named are in ``climbing_keys``."""

from __future__ import annotations

from typing import Any

from engine import climbing as game
from engine.cards import BY_CODE
from engine.protocol import EXCHANGE, FINISHED, PAYOUT, TURN

from ..i18n import N_, NN_, register, tr, tr_seat
from .climbing_keys import PAGE as PAGE  # the presenter's keyboard
from .climbing_keys import action_buttons as action_buttons
from .climbing_keys import card_text, cards_text, kind_name
from .climbing_keys import ui_press as ui_press

GAME_ID = game.GAME_ID
ROUND_UNIT = "round"  # what a deal is called in texts ("Hand" in Run Fast's rule sheet)
DEFAULT_TABLE_OPTIONS: dict[str, Any] = {}
OPTION_CHOICES: dict[str, list[Any]] = {"straight_step": list(game.STRAIGHT_STEPS)}
PLACES = ("🥇", "🥈", "🥉", "4.")

register({
    "game.climbing": N_("Joker Climb"),
    "cl.header": N_("Round {n} · target {target} points"),
    "cl.table": N_("On the table: {cards} ({kind}) by {name}"),
    "cl.table_empty": N_("The table is empty – {name} leads."),
    "cl.opening": N_("First play of the game: it must include the three of spades."),
    "cl.cards": NN_("{n} card", "{n} cards"),
    "cl.points": NN_("{n} pt", "{n} pts"),
    "cl.passed": N_("passed"),
    "cl.out": N_("{medal} out"),
    "cl.ex.pending": N_(
        "🔁 Exchange: {last} gave {first} their highest card; {first} gives back a card from 4 to "
        "10."),
    "cl.ex.done": N_("🔁 Exchange: {last} and {first} have swapped a card each."),
    "cl.ex.no_back": N_(
        "🔁 Exchange: {last} gave {first} their highest card; {first} holds no card from 4 to 10 "
        "and gives nothing back."),
    "cl.ex.jokers": N_("🃏 No exchange: {last} was dealt both jokers – {first} leads."),
    "cl.hand": N_("Your cards ({n}): {cards}"),
    "cl.you_out": N_("You are out (place {place})."),
    "cl.priv.gave_top": N_("Exchange: you gave away your highest card {card}."),
    "cl.priv.got_top": N_("Exchange: you received {card} (the last player's highest card)."),
    "cl.priv.gave_back": N_("Exchange: you gave back {card}."),
    "cl.priv.got_back": N_("Exchange: you got {card} back."),
    "cl.priv.choose_back": N_("Choose a card from 4 to 10 to give back."),
    "cl.priv.no_back": N_("Exchange: you hold no card from 4 to 10 and give nothing back."),
    "cl.ev.play": N_("{name}: {cards} ({kind})"),
    "cl.ev.play.you": N_("You: {cards} ({kind})"),
    "cl.ev.out": N_("{name}: {cards} ({kind}) – {name} is out, place {place}!"),
    "cl.ev.out.you": N_("You: {cards} ({kind}) – you are out, place {place}!"),
    "cl.ev.pass": N_("{name} passes."),
    "cl.ev.pass.you": N_("You pass."),
    "cl.ev.trick": N_("All pass – {name} leads again."),
    "cl.ev.trick.you": N_("All pass – you lead again."),
    "cl.ev.trick_out": N_("All pass – {owner} is already out, {name} leads."),
    "cl.ev.give_back": N_("{name} gives a card back to {to}."),
    "cl.ev.give_back.you": N_("You give {to} a card back."),
    "cl.result": N_("Round {n} over:"),
    "cl.result.line": N_("{medal} {name} +{points} → {score}"),
    "cl.result.raised": N_("Several players reached {old} points – the target rises to {new}!"),
    "cl.result.target": N_("Target: {target} points."),
    "cl.result.winner": N_("🏆 {name} wins with {score} points!"),
    "cl.result.shared": N_("🏆 Shared win at {score} points: {names}!"),
    "cl.opt.straight_step.exact": N_("Beat a straight: exactly one higher"),
    "cl.opt.straight_step.any": N_("Beat a straight: any higher"),
    "cl.rules": N_(
        "Joker Climb – in short:\n"
        "• 4 players, 52 cards + 2 jokers, all dealt (two players get 14, two 13).\n"
        "• Rank order: 3 4 5 6 7 8 9 10 J Q K A 2, black joker, red joker.\n"
        "• Plays: single, pair, triple, four of a kind or straight (5+ cards in a row, any "
        "suits; ace high up to 10-J-Q-K-A or low as 1 with the 2: A-2-3-4-5, 2-3-4-5-6; no "
        "wrap-around). Jokers are singles only.\n"
        "• The holder of 3♠ starts the game and must include 3♠.\n"
        "• To beat: same kind and number of cards, higher rank. A straight only by the straight "
        "of the same length exactly one higher (3-8 only by 4-9; table option: any higher one). "
        "A four of a kind beats everything but a higher four.\n"
        "• You may always pass and play again later in the same trick. When all others pass, the "
        "last player who played leads anew (if out, the next player holding cards).\n"
        "• Going out first scores 3 points, then 2, 1, 0.\n"
        "• From round 2: the last gives the first their highest card, the first gives back a "
        "card from 4 to 10; the last leads. If the last holds both jokers there is no exchange "
        "and the first leads.\n"
        "• First to 21 points wins. If several reach the target together it rises by 10 (31, 41, "
        "51); at 51 the highest score wins, a tie is a shared win."),
})


# ---------------------------------------------------------------------------------------------
# helpers


def _c(codes: Any, lang: str) -> str:
    if isinstance(codes, str):
        return card_text(BY_CODE[codes], lang)
    return cards_text((BY_CODE[c] for c in codes), lang)


def name(lang: str | None) -> str:
    """The game's name in ``lang``."""
    return tr(lang, "game.climbing")


def rules(lang: str) -> str:
    return tr(lang, "cl.rules")


def option_label(key: str, value: Any, lang: str) -> str:
    return tr(lang, f"cl.opt.{key}.{value}")


def _place(state: game.State, seat: int) -> int | None:
    order = state.out_order
    return order.index(seat) + 1 if seat in order else None


def _exchange_line(state: game.State, names: list[str], lang: str) -> str | None:
    ex = state.exchange
    if ex is None:
        return None
    if state.phase != EXCHANGE and (state.played or state.phase in (PAYOUT, FINISHED)):
        return None  # shown until the round's first play
    return tr(lang, f"cl.ex.{ex.status}", first=names[ex.first], last=names[ex.last])


# ---------------------------------------------------------------------------------------------
# table and hand


def public_lines(state: game.State, names: list[str], lang: str, options: dict[str, Any],
                 marks: list[str]) -> list[str]:
    """Status lines anyone may see: table, counts, who is out, scores, target. No hidden card."""
    lines = [f"🃏 {name(lang)} · "
             + tr(lang, "cl.header", n=state.round_no, target=state.target)]
    playing = state.phase in (EXCHANGE, TURN)
    ex_line = _exchange_line(state, names, lang)
    if ex_line:
        lines.append(ex_line)
    if state.phase == TURN:
        if state.opening:
            lines.append(tr(lang, "cl.opening"))
        t = state.table
        if t is None:
            lines.append(tr(lang, "cl.table_empty", name=names[state.to_act]))  # type: ignore[index]
        else:
            lines.append(tr(lang, "cl.table", cards=cards_text(t.cards, lang), kind=kind_name(t.kind, lang),
                            name=names[state.owner]))  # type: ignore[index]
    for s in range(state.seats):
        bits = [f"{names[s]}{marks[s] if s < len(marks) else ''}"]
        place = _place(state, s)
        if playing and place is not None:
            bits.append(tr(lang, "cl.out", medal=PLACES[place - 1]))
        elif playing:
            bits.append(tr(lang, "cl.cards", n=len(state.hands[s])))
        bits.append(tr(lang, "cl.points", n=state.scores[s]))
        if state.phase == TURN and state.passed[s] and place is None:
            bits.append(tr(lang, "cl.passed"))
        prefix = "▶ " if state.to_act == s else "   "
        lines.append(prefix + " · ".join(bits))
    return lines


def private_lines(state: game.State, seat: int, lang: str) -> list[str]:
    """The seat's own sorted hand and, if it took part, its side of the exchange."""
    if state.phase in (PAYOUT, FINISHED):
        return []
    lines: list[str] = []
    hand = state.hands[seat]
    if hand:
        lines.append(tr(lang, "cl.hand", n=len(hand), cards=cards_text(game.sort_cards(hand), lang)))
    else:
        lines.append(tr(lang, "cl.you_out", place=_place(state, seat)))
    ex = state.exchange
    if ex is not None and ex.status != "jokers" and seat in (ex.first, ex.last):
        if seat == ex.last:
            lines.append(tr(lang, "cl.priv.gave_top", card=card_text(ex.given, lang)))
            if ex.back is not None:
                lines.append(tr(lang, "cl.priv.got_back", card=card_text(ex.back, lang)))
        else:
            lines.append(tr(lang, "cl.priv.got_top", card=card_text(ex.given, lang)))
            if ex.back is not None:
                lines.append(tr(lang, "cl.priv.gave_back", card=card_text(ex.back, lang)))
            elif ex.status == "pending":
                lines.append(tr(lang, "cl.priv.choose_back"))
            elif ex.status == "no_back":
                lines.append(tr(lang, "cl.priv.no_back"))
    return lines


# ---------------------------------------------------------------------------------------------
# events and results


def event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """One line for a public event (plays show only played cards, exchanges no card)."""
    kind, seat, data = event["kind"], event.get("seat"), event.get("data") or {}

    def name(s: Any) -> str:
        return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"

    if kind == "play":
        key = "cl.ev.out" if data.get("out") else "cl.ev.play"
        return tr_seat(lang, key, names, seat, cards=_c(data["cards"], lang),
                  kind=kind_name(data["kind"], lang), place=data.get("out"))
    if kind == "pass":
        return tr_seat(lang, "cl.ev.pass", names, seat)
    if kind == "trick":
        leader = data.get("leader")
        if leader == seat:
            return tr_seat(lang, "cl.ev.trick", names, leader)
        return tr(lang, "cl.ev.trick_out", owner=name(seat), name=name(leader))
    if kind == "give_back":
        return tr_seat(lang, "cl.ev.give_back", names, seat, to=name(data.get("to")))
    if kind == "exchange":
        return tr(lang, f"cl.ex.{data.get('status')}", first=name(data.get("to")),
                  last=name(seat))
    return None


def result_lines(state: game.State, names: list[str], lang: str,
                 options: dict[str, Any]) -> list[str]:
    """The round's order of going out, points, scores, a target change and the winners."""
    r = state.result
    if r is None:
        return []
    lines = [tr(lang, "cl.result", n=r.round_no)]
    for place, s in enumerate(r.order):
        lines.append(tr(lang, "cl.result.line", medal=PLACES[place], name=names[s],
                        points=r.points[s], score=r.scores[s]))
    if r.new_target != r.target:
        lines.append(tr(lang, "cl.result.raised", old=r.target, new=r.new_target))
    if len(r.winners) == 1:
        w = r.winners[0]
        lines.append(tr(lang, "cl.result.winner", name=names[w], score=r.scores[w]))
    elif r.winners:
        lines.append(tr(lang, "cl.result.shared", score=r.scores[r.winners[0]],
                        names=", ".join(names[s] for s in r.winners)))
    else:
        lines.append(tr(lang, "cl.result.target", target=r.new_target))
    return lines


def winners(state: game.State) -> list[int]:
    return game.winners(state)


def standings(state: game.State, names: list[str]) -> list[dict[str, Any]]:
    r = state.result
    return [{"seat": s, "name": names[s], "points": state.scores[s],
             "place": (r.order.index(s) + 1) if r is not None else None}
            for s in range(state.seats)]
