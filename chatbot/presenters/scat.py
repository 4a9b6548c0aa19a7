"""How Einunddreißig / Scat looks in chat: table lines, private hand, move buttons, events, rules."""

from __future__ import annotations

from typing import Any

from engine import scat as game
from engine.cards import BY_CODE, Card, show
from engine.protocol import FINISHED, PAYOUT

from ..i18n import N_, NN_, register, tr, tr_seat

GAME_ID = game.GAME_ID
ROUND_UNIT = "round"  # what a deal is called in texts ("Hand" in Run Fast's rule sheet)
DEFAULT_TABLE_OPTIONS: dict[str, Any] = {}
# Engine options offered as lobby buttons; the first value is the default (docs/rules-scat.md §10).
OPTION_CHOICES: dict[str, list[Any]] = {
    "no_first_turn_knock": [True, False],
    "trio_bonus": [True, False],
    "reentry": [False, True],
    "four_cards": [False, True],
}

register({
    "game.scat": N_("Scat (31)"),
    "scat.table": NN_("Discard: {top} · Stock: {n} card", "Discard: {top} · Stock: {n} cards"),
    "scat.table_empty": N_("Discard: {top} · Stock: empty"),
    "scat.tiebreak": N_("tie-break"),
    "scat.tokens_held": NN_("{n} token 🪙", "{n} tokens 🪙"),
    "scat.bus": N_("🚌 on the bus"),
    "scat.out": N_("✖ out"),
    "scat.dealer": N_("deals"),
    "scat.knocker": N_("✊ knocked"),
    "scat.sits_out": N_("sits out"),
    "scat.reentered": N_("↩"),
    "scat.knocked": NN_(
        "✊ {name} knocked – {n} last turn left.",
        "✊ {name} knocked – {n} last turns left."),
    "scat.mid_turn": N_("{name} has drawn and is about to discard."),
    "scat.hand": N_("Your cards: {cards} (value {value})"),
    "scat.drawn_stock": N_(
        "Drawn from the stock: {card} – discard a card (best hand after: {value})."),
    "scat.drawn_pile": N_(
        "Taken from the discard pile: {card} – discard another card (best hand after: {value})."),
    "scat.btn.draw": N_("🂠 Draw from stock"),
    "scat.btn.take": N_("⤴ Take {card}"),
    "scat.btn.knock": N_("✊ Knock"),
    "scat.btn.pass": N_("Pass"),
    "scat.btn.drop": N_("⬇ {card}"),
    "scat.btn.drop_new": N_("⬇ {card} (new)"),
    "scat.ev.draw": N_("{name} draws from the stock."),
    "scat.ev.draw.you": N_("You draw from the stock."),
    "scat.ev.take": N_("{name} takes {card} from the discard pile."),
    "scat.ev.take.you": N_("You take {card} from the discard pile."),
    "scat.ev.discard": N_("{name} discards {card}."),
    "scat.ev.discard.you": N_("You discard {card}."),
    "scat.ev.take_hidden": N_("{name} takes the top card of the discard pile."),
    "scat.ev.take_hidden.you": N_("You take the top card of the discard pile."),
    "scat.ev.discard_hidden": N_("{name} discards a card."),
    "scat.ev.discard_hidden.you": N_("You discard a card."),
    "scat.ev.knock": N_("{name} knocks!"),
    "scat.ev.knock.you": N_("You knock!"),
    "scat.ev.knock_empty": N_("{name} knocks – the stock is empty, showdown now."),
    "scat.ev.knock_empty.you": N_("You knock – the stock is empty, showdown now."),
    "scat.ev.pass": N_("{name} passes."),
    "scat.ev.pass.you": N_("You pass."),
    "scat.ev.pass_empty": N_("{name} passes – the stock is empty, showdown now."),
    "scat.ev.pass_empty.you": N_("You pass – the stock is empty, showdown now."),
    "scat.ev.blitz": N_("⚡ {name} has {value} – blitz!"),
    "scat.ev.blitz.you": N_("⚡ You have {value} – blitz!"),
    "scat.ev.deal": N_("Round {n}: {dealer} deals, {starter} starts."),
    "scat.result": N_("Round {n} over – {why}:"),
    "scat.result_tb": N_("Tie-break (round {n}) over – {why}:"),
    "scat.why.knock": N_("{name} knocked"),
    "scat.why.blitz": N_("⚡ blitz by {name}"),
    "scat.why.dealt_blitz": N_("⚡ blitz dealt ({name})"),
    "scat.why.stock_knock": N_("stock empty, {name} knocks"),
    "scat.why.stock_pass": N_("stock empty, a pass"),
    "scat.line": N_("{name}: {cards} = {value}"),
    "scat.loses": N_("{name} loses {n} {tokens}."),
    "scat.token1": N_("token"),
    "scat.tokens_n": N_("tokens"),
    "scat.now_bus": N_("🚌 {name} is on the bus now – the next loss is the end."),
    "scat.eliminated": N_("✖ {name} is out."),
    "scat.now_reentered": N_("↩ {name} is out – and buys back in with {n} tokens."),
    "scat.tiebreak_next": N_("Everybody left would go out at once – tie-break between {names}!"),
    "scat.tiebreak_again": N_("Tied at the bottom – another tie-break between {names}."),
    "scat.nobody": N_("Nobody loses."),
    "scat.wins": N_("🏆 {name} wins the game!"),
    "scat.opt.no_first_turn_knock": N_("Knock on 1st turn: {value}"),
    "scat.opt.trio_bonus": N_("Three of a rank = 30½: {value}"),
    "scat.opt.reentry": N_("Re-entry (once): {value}"),
    "scat.opt.four_cards": N_("Four-card Scat (41): {value}"),
    "scat.opt.forbidden": N_("not allowed"),
    "scat.opt.allowed": N_("allowed"),
    "scat.opt.on": N_("on"),
    "scat.opt.off": N_("off"),
    "scat.rules": N_(
        "Scat (31, Blitz) – in short:\n"
        "• 52 cards, 2–7 players, everyone holds 3 cards and 3 tokens. Value: the best sum of "
        "one suit (ace 11, face cards 10, others face value). Three of a rank = 30½.\n"
        "• On your turn: draw from the stock or take the discard top, then discard a card (not "
        "the one just taken from the pile). Instead of drawing you may knock – not on your very "
        "first turn. Then everybody else has exactly one last turn (draw/discard or pass), then "
        "the showdown.\n• Blitz: holding 31 before a knock ends the round at once; everybody "
        "else loses a token.\n"
        "• Showdown: the lowest hand loses a token (ties: all of them). A knocker who ties is "
        "safe; a knocker who is lowest alone loses two.\n"
        "• Without tokens you're on the bus 🚌; losing on the bus puts you out. Last one wins.\n"
        "• Stock empty: take the discard top, knock or pass – a knock or a pass ends the round "
        "at once."),
})


def _c(code: str) -> str:
    return BY_CODE[code].symbol


def _sorted(hand: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(hand, key=lambda c: (c.suit, -c.rank)))


def _trio(state: game.State) -> bool:
    return bool(dict(state.options)["trio_bonus"])


def _playing(state: game.State) -> bool:
    return state.phase not in (PAYOUT, FINISHED)


def option_label(key: str, value: Any, lang: str) -> str:
    """The lobby button text for an engine option and its current value."""
    if key == "no_first_turn_knock":
        word = "scat.opt.forbidden" if value else "scat.opt.allowed"
    else:
        word = "scat.opt.on" if value else "scat.opt.off"
    return tr(lang, f"scat.opt.{key}", value=tr(lang, word))


def name(lang: str | None) -> str:
    """The game's name in ``lang``."""
    return tr(lang, "game.scat")


def rules(lang: str) -> str:
    return tr(lang, "scat.rules")


def lives_text(state: game.State, seat: int, lang: str) -> str:
    if state.out[seat]:
        return tr(lang, "scat.out")
    if state.lives[seat] == 0:
        return tr(lang, "scat.bus")
    return tr(lang, "scat.tokens_held", n=state.lives[seat])


def public_lines(state: game.State, names: list[str], lang: str, options: dict[str, Any],
                 marks: list[str]) -> list[str]:
    """Status lines anyone may see: discard top, stock size, tokens, bus, knock. No hand cards."""
    playing = _playing(state)
    head = f"🃏 {name(lang)} · {tr(lang, 'round', n=state.round_no)}"
    if state.tiebreak and (playing or state.phase == PAYOUT):
        head += f" · {tr(lang, 'scat.tiebreak')}"
    lines = [head]
    if playing and state.discard:
        key = "scat.table" if state.stock else "scat.table_empty"
        lines.append(tr(lang, key, top=state.discard[-1].symbol, n=len(state.stock)))
    for s in range(state.seats):
        bits = [f"{names[s]}{marks[s]}", lives_text(state, s, lang)]
        if state.reentered[s]:
            bits.append(tr(lang, "scat.reentered"))
        if not state.out[s] and playing:
            if s not in state.players:
                bits.append(tr(lang, "scat.sits_out"))
            elif s == state.dealer:
                bits.append(tr(lang, "scat.dealer"))
            if state.knocker == s:
                bits.append(tr(lang, "scat.knocker"))
        prefix = "▶ " if state.to_act == s else "   "
        lines.append(prefix + " · ".join(bits))
    if playing and state.knocker is not None:
        lines.append(tr(lang, "scat.knocked", name=names[state.knocker], n=state.final_left))
    if playing and state.drawn is not None and state.to_act is not None:
        lines.append(tr(lang, "scat.mid_turn", name=names[state.to_act]))
    return lines


def private_lines(state: game.State, seat: int, lang: str) -> list[str]:
    """The seat's own hand with its value; mid-turn the drawn card is marked."""
    if not _playing(state) or seat not in state.players:
        return []
    trio = _trio(state)
    hand = state.hands[seat]
    drawn = state.drawn if state.to_act == seat else None
    if drawn is None:
        value = game.format_value(game.half_points(hand, trio))
        return [tr(lang, "scat.hand", cards=show(_sorted(hand)), value=value)]
    rest = tuple(c for c in hand if c is not drawn)
    lines = [tr(lang, "scat.hand", cards=show(_sorted(rest)),
                value=game.format_value(game.half_points(rest, trio)))]
    keep = drawn if state.from_pile else None
    best = game.format_value(game.best_discard(hand, trio, keep)[0])
    key = "scat.drawn_pile" if state.from_pile else "scat.drawn_stock"
    lines.append(tr(lang, key, card=drawn.symbol, value=best))
    return lines


def action_buttons(state: game.State, seat: int, lang: str,
                   ui: dict[str, Any] | None = None) -> list[list[tuple[str, str]]]:
    """Rows of (label, action code) for the seat on turn."""
    if state.to_act != seat:
        return []
    legal = game.legal_actions(state)
    if state.drawn is not None:
        drops = sorted((a for a in legal if a.kind == "drop"),
                       key=lambda a: (a.card.suit, -a.card.rank))  # type: ignore[union-attr]
        row = []
        for a in drops:
            key = "scat.btn.drop_new" if a.card is state.drawn else "scat.btn.drop"
            row.append((tr(lang, key, card=a.card.symbol), a.code))  # type: ignore[union-attr]
        return [row] if len(row) <= 4 else [row[:3], row[3:]]  # a phone: at most 4 a row
    first: list[tuple[str, str]] = []
    second: list[tuple[str, str]] = []
    for a in legal:
        if a.kind == "draw":
            first.append((tr(lang, "scat.btn.draw"), a.code))
        elif a.kind == "take":
            first.append((tr(lang, "scat.btn.take", card=state.discard[-1].symbol), a.code))
        elif a.kind == "knock":
            second.append((tr(lang, "scat.btn.knock"), a.code))
        elif a.kind == "pass":
            second.append((tr(lang, "scat.btn.pass"), a.code))
    return [row for row in (first, second) if row]


def event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """One line for a public event of the log, or ``None``. A stock draw never names the card."""
    kind, seat, data = event["kind"], event.get("seat"), event.get("data") or {}
    if kind == "draw":
        return tr_seat(lang, "scat.ev.draw", names, seat)
    if kind == "take":
        return tr_seat(lang, "scat.ev.take", names, seat, card=_c(data["card"]))
    if kind == "discard":
        return tr_seat(lang, "scat.ev.discard", names, seat, card=_c(data["card"]))
    if kind == "knock":
        return tr_seat(lang, "scat.ev.knock_empty" if data.get("stock_empty")
                       else "scat.ev.knock", names, seat)
    if kind == "pass":
        return tr_seat(lang, "scat.ev.pass_empty" if data.get("stock_empty")
                       else "scat.ev.pass", names, seat)
    if kind == "blitz":
        return tr_seat(lang, "scat.ev.blitz", names, seat, value=data.get("value", 31))
    if kind == "deal":
        def who(s: Any) -> str:
            return names[s] if isinstance(s, int) and 0 <= s < len(names) else "?"
        return tr(lang, "scat.ev.deal", n=data.get("round", "?"), dealer=who(data.get("dealer")),
                  starter=who(data.get("starter")))
    return None


def group_event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """``event_text`` for the group table message: it never names a card that went into a
    hand (a taken card stays in a hand, and a discarded card may be taken later; the discard
    top is shown in the table's status line)."""
    kind, seat = event["kind"], event.get("seat")
    if kind in ("take", "discard"):
        return tr_seat(lang, f"scat.ev.{kind}_hidden", names, seat)
    return event_text(event, names, lang)


def result_lines(state: game.State, names: list[str], lang: str,
                 options: dict[str, Any]) -> list[str]:
    """The last round: every hand shown, who lost tokens, the bus, eliminations, the winner."""
    r = state.result
    if r is None:
        return []
    if r.blitz:
        who = ", ".join(names[s] for s in r.blitz)
    elif r.knocker is not None:
        who = names[r.knocker]
    else:
        who = ""
    why = tr(lang, f"scat.why.{r.reason}", name=who)
    lines = [tr(lang, "scat.result_tb" if r.tiebreak_round else "scat.result",
                n=r.round_no, why=why)]
    size = 4 if dict(state.options)["four_cards"] else 3
    for s, hand in enumerate(r.hands):
        if hand is None:
            continue
        cards = show(_sorted(hand))
        if len(hand) > size:  # a blitz right after drawing: the 31 (41) and the extra card
            extra = game.best_discard(hand, _trio(state))[1]
            rest = tuple(c for c in hand if c is not extra)
            cards = f"{show(_sorted(rest))} (+{extra.symbol})"
        line = tr(lang, "scat.line", name=names[s], cards=cards,
                  value=game.format_value(r.values2[s]))  # type: ignore[arg-type]
        if s == r.knocker:
            line += " ✊"
        if s in r.blitz:
            line += " ⚡"
        if s in r.losers:
            line += f" ⬇{' −' + str(r.lost[s]) if r.lost[s] else ''}"
        lines.append(line)
    if not r.losers:
        lines.append(tr(lang, "scat.nobody"))
    for s in r.losers:
        if r.lost[s]:
            unit = tr(lang, "scat.token1" if r.lost[s] == 1 else "scat.tokens_n")
            lines.append(tr(lang, "scat.loses", name=names[s], n=r.lost[s], tokens=unit))
    for s in r.bus:
        lines.append(tr(lang, "scat.now_bus", name=names[s]))
    for s in r.reentered:
        lines.append(tr(lang, "scat.now_reentered", name=names[s], n=game.LIVES))
    for s in r.eliminated:
        lines.append(tr(lang, "scat.eliminated", name=names[s]))
    if r.tiebreak:
        key = "scat.tiebreak_again" if r.tiebreak_round else "scat.tiebreak_next"
        lines.append(tr(lang, key, names=", ".join(names[s] for s in r.tiebreak)))
    if state.winner is not None:
        lines.append(tr(lang, "scat.wins", name=names[state.winner]))
    return lines


def winners(state: game.State) -> list[int]:
    return [] if state.winner is None else [state.winner]


def standings(state: game.State, names: list[str]) -> list[dict[str, Any]]:
    return [{"seat": s, "name": names[s], "tokens": state.lives[s],
             "bus": state.on_bus[s], "out": state.out[s]} for s in range(state.seats)]


def seat_out(state: game.State, seat: int) -> bool:
    """Whether the seat is out of the game (it watches the rest)."""
    return bool(state.out[seat])
