"""How Schwimmen looks in chat: table lines, private hand, move buttons, event lines, rules."""

from __future__ import annotations

from typing import Any

from engine import schwimmen as game
from engine.cards import BY_CODE, show
from engine.protocol import FINISHED, PAYOUT

from ..i18n import N_, NN_, NP_, join_names, register, tr, tr_seat

GAME_ID = game.GAME_ID
CURRENCIES = {"coins": "🪙", "euro": "€", "matches": "🔥"}
ROUND_UNIT = "round"  # what a deal is called in texts ("Hand" in Run Fast's rule sheet)
DEFAULT_TABLE_OPTIONS: dict[str, Any] = {"currency": "coins"}

register({
    "game.schwimmen": N_("Schwimmen (31)"),
    "sw.middle": N_("Middle: {cards}"),
    "sw.currency": N_("Currency: {cur}"),
    "sw.hand": N_("Your cards: {cards} (value {value})"),
    "sw.pot": N_("Pot: {pot}"),
    "sw.passed": NP_("sw.passed", "passed"),
    "sw.swims": N_("🏊 swimming"),
    "sw.out": N_("✖ out"),
    "sw.knocked": NN_(
        "✊ {name} knocked – {n} last turn left.",
        "✊ {name} knocked – {n} last turns left."),
    "sw.swap": N_("{give} ⇄ {take}"),
    "sw.swap_all": N_("Swap all 3"),
    "sw.pass": NP_("sw.pass", "Pass"),
    "sw.knock": N_("Knock"),
    "sw.stay": N_("Keep"),
    "sw.ev.swap": N_("{name} swaps {give} for {take}."),
    "sw.ev.swap.you": N_("You swap {give} for {take}."),
    "sw.ev.swap_all": N_("{name} swaps all three cards ({take})."),
    "sw.ev.swap_all.you": N_("You swap all three cards ({take})."),
    "sw.ev.swap_hidden": N_("{name} swaps a card."),
    "sw.ev.swap_hidden.you": N_("You swap a card."),
    "sw.ev.swap_all_hidden": N_("{name} swaps all three cards."),
    "sw.ev.swap_all_hidden.you": N_("You swap all three cards."),
    "sw.ev.pass": NP_("sw.ev.pass", "{name} passes."),
    "sw.ev.pass.you": NP_("sw.ev.pass.you", "You pass."),
    "sw.ev.knock": N_("{name} knocks!"),
    "sw.ev.knock.you": N_("You knock!"),
    "sw.ev.knock_again": N_("{name} keeps the cards."),
    "sw.ev.knock_again.you": N_("You keep your cards."),
    "sw.ev.deal": N_("Round {n} is dealt, {name} starts."),
    "sw.result": N_("Round {n} over{why}:"),
    "sw.why.31": N_(" – {name} has 31"),
    "sw.why.dealt_31": N_(" – {name} was dealt 31"),
    "sw.why.dealt_31_many": N_(" – {name} were dealt 31"),
    "sw.line": N_("{name}: {cards} = {value}"),
    "sw.draw": N_("All equal – a draw, nobody pays."),
    "sw.pays_amount": N_("{name} pays {amount} into the pot."),
    # a number with its unit in words, the currency's sign as decoration after it (a screen
    # reader says "3 coins", not "3 coin" of an emoji that stands alone)
    "sw.money.coins": NN_("{n} coin 🪙", "{n} coins 🪙"),
    "sw.money.euro": NN_("{n} €", "{n} €"),
    "sw.money.matches": NN_("{n} match 🔥", "{n} matches 🔥"),
    "sw.currency.coins": N_("coins 🪙"),
    "sw.currency.euro": N_("€"),  # (a screen reader says "euro")
    "sw.currency.matches": N_("matches 🔥"),
    "sw.now_swims": N_("{name} is swimming now!"),
    "sw.eliminated": N_("{name} is out."),
    "sw.wins_pot": N_("🏆 {name} wins the game and the pot ({pot}) – now has {total}."),
    "sw.rules": N_(
        "Schwimmen (31) – in short:\n"
        "• 32 cards (7–ace), everyone holds 3, three lie face up in the middle.\n"
        "• Value: the best sum of one suit (ace 11, 10/face cards 10). Three of a rank = 30½. 31 "
        "(ace + two ten-valued cards of a suit) ends the round at once.\n"
        "• On your turn: swap one card, swap all three, pass (once per round) or knock. After a "
        "knock everybody else has exactly one last turn, and nobody may pass.\n"
        "• The lowest hand pays a coin. Without coins you swim; losing while swimming puts you "
        "out. The last one left wins the pot."),
})


def _c(code_or_codes: Any) -> str:
    if isinstance(code_or_codes, str):
        return BY_CODE[code_or_codes].symbol
    return show(BY_CODE[c] for c in code_or_codes)


def money(n: int, currency: str, lang: str | None) -> str:
    """An amount as people read and hear it: "3 Münzen 🪙", "1 €", "2 Streichhölzer 🔥"."""
    return tr(lang, f"sw.money.{currency if currency in CURRENCIES else 'coins'}", n=n)


def currency_label(currency: str, lang: str) -> str:
    """The button text for the currency a table plays for ("Währung: Münzen 🪙")."""
    return tr(lang, "sw.currency",
              cur=tr(lang, f"sw.currency.{currency if currency in CURRENCIES else 'coins'}"))


def name(lang: str | None) -> str:
    """The game's name in ``lang``."""
    return tr(lang, "game.schwimmen")


def rules(lang: str) -> str:
    return tr(lang, "sw.rules")


def public_lines(state: game.State, names: list[str], lang: str, options: dict[str, Any],
                 marks: list[str]) -> list[str]:
    """Status lines anyone may see: middle, coins, passes, knock. No hand cards."""
    cur = options.get("currency", "coins")
    lines = [f"🃏 {name(lang)} · {tr(lang, 'round', n=state.round_no)}"]
    if state.phase not in (PAYOUT, FINISHED):
        lines.append(tr(lang, "sw.middle", cards=show(state.middle)))
    for s in range(state.seats):
        bits = [f"{names[s]}{marks[s]}"]
        if state.out[s]:
            bits.append(tr(lang, "sw.out"))
        else:
            bits.append(money(state.coins[s], cur, lang) if state.coins[s]
                        else tr(lang, "sw.swims"))
            if state.passed[s] and state.phase not in (PAYOUT, FINISHED):
                bits.append(tr(lang, "sw.passed"))
        prefix = "▶ " if state.to_act == s else "   "
        lines.append(prefix + " · ".join(bits))
    lines.append(tr(lang, "sw.pot", pot=money(state.pot, cur, lang)))
    if state.knocker is not None and state.phase not in (PAYOUT, FINISHED):
        lines.append(tr(lang, "sw.knocked", name=names[state.knocker], n=state.final_left))
    return lines


def private_lines(state: game.State, seat: int, lang: str) -> list[str]:
    """The seat's own hand and its value (only while a round is played)."""
    if state.phase in (PAYOUT, FINISHED) or state.out[seat]:
        return []
    hand = tuple(sorted(state.hands[seat], key=lambda c: (c.suit, -c.rank)))
    value = game.format_value(game.half_points(*hand))
    return [tr(lang, "sw.hand", cards=show(hand), value=value)]


def action_buttons(state: game.State, seat: int, lang: str,
                   ui: dict[str, Any] | None = None) -> list[list[tuple[str, str]]]:
    """Rows of (label, action code) for the seat on turn."""
    if state.to_act != seat:
        return []
    legal = game.legal_actions(state)
    rows: list[list[tuple[str, str]]] = []
    by_give: dict[str, list[tuple[str, str]]] = {}
    extra: list[tuple[str, str]] = []
    for a in legal:
        if a.kind == "swap":
            label = tr(lang, "sw.swap", give=a.give.symbol, take=a.take.symbol)  # type: ignore[union-attr]
            by_give.setdefault(a.give.code, []).append((label, a.code))  # type: ignore[union-attr]
        elif a.kind == "swap_all":
            extra.append((tr(lang, "sw.swap_all"), a.code))
        elif a.kind == "pass":
            extra.append((tr(lang, "sw.pass"), a.code))
        elif a.kind == "knock":  # after a knock it keeps the hand: "stay", not "knock"
            extra.append((tr(lang, "sw.knock" if state.knocker is None else "sw.stay"),
                          a.code))
    rows.extend(by_give.values())
    if extra:
        rows.append(extra)
    return rows


def event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """One line for a public event of the log, or ``None`` for events not worth a line."""
    kind, seat, data = event["kind"], event.get("seat"), event.get("data") or {}
    if kind == "swap":
        return tr_seat(lang, "sw.ev.swap", names, seat, give=_c(data["give"]),
                       take=_c(data["take"]))
    if kind == "swap_all":
        return tr_seat(lang, "sw.ev.swap_all", names, seat, take=_c(data["take"]))
    if kind == "pass":
        return tr_seat(lang, "sw.ev.pass", names, seat)
    if kind == "knock":
        return tr_seat(lang, "sw.ev.knock_again" if data.get("again") else "sw.ev.knock",
                       names, seat)
    if kind == "deal" and isinstance(data.get("starter"), int):
        starter = data["starter"]
        return tr(lang, "sw.ev.deal", n=data.get("round", "?"),
                  name=names[starter] if 0 <= starter < len(names) else "?")
    return None


def group_event_text(event: dict[str, Any], names: list[str], lang: str) -> str | None:
    """``event_text`` for the group table message: it never names a card that went into a hand
    (a taken card stays in a hand, and a laid-off card may be taken later)."""
    kind, seat = event["kind"], event.get("seat")
    if kind == "swap":
        return tr_seat(lang, "sw.ev.swap_hidden", names, seat)
    if kind == "swap_all":
        return tr_seat(lang, "sw.ev.swap_all_hidden", names, seat)
    return event_text(event, names, lang)


def result_lines(state: game.State, names: list[str], lang: str,
                 options: dict[str, Any]) -> list[str]:
    """The last round's showdown: every hand, values, who paid, swims, is out; the winner."""
    r = state.result
    if r is None:
        return []
    cur = options.get("currency", "coins")
    seats = r.thirty_ones or ((r.thirty_one,) if r.thirty_one is not None else ())
    why = f"sw.why.{r.reason}" + ("_many" if len(seats) > 1 else "")
    lines = [tr(lang, "sw.result", n=r.round_no,
                why=tr(lang, why, name=join_names([names[s] for s in seats], lang))
                if r.reason != "knock" else "")]
    for s, hand in enumerate(r.hands):
        if hand is None:
            continue
        value = game.format_value(r.values2[s])  # type: ignore[arg-type]
        mark = " ⬇" if s in r.losers else ""
        lines.append(tr(lang, "sw.line", name=names[s], cards=show(hand), value=value) + mark)
    if r.draw:
        lines.append(tr(lang, "sw.draw"))
    for s in r.paid:
        lines.append(tr(lang, "sw.pays_amount", name=names[s], amount=money(1, cur, lang)))
    for s in r.swimming:
        lines.append(tr(lang, "sw.now_swims", name=names[s]))
    for s in r.eliminated:
        lines.append(tr(lang, "sw.eliminated", name=names[s]))
    if state.winner is not None:
        lines.append(tr(lang, "sw.wins_pot", name=names[state.winner],
                        pot=money(r.pot_won, cur, lang),
                        total=money(state.coins[state.winner], cur, lang)))
    return lines


def winners(state: game.State) -> list[int]:
    return [] if state.winner is None else [state.winner]


def standings(state: game.State, names: list[str]) -> list[dict[str, Any]]:
    return [{"seat": s, "name": names[s], "coins": state.coins[s], "out": state.out[s]}
            for s in range(state.seats)]


def seat_out(state: game.State, seat: int) -> bool:
    """Whether the seat is out of the game (it watches the rest)."""
    return bool(state.out[seat])
