"""The climbing game's move keyboard: the plays of the seat on turn grouped by kind and
paged, or picked card by card, the exchange buttons and the selection steps; also how cards and
kinds of play are named.

Selection steps (``ui.<arg>``, handled by ``ui_press`` with the seat's stored selection):
``k.<kind>`` shows the plays of one kind (``single`` … ``straight``) or ``sel`` the hand to pick
from; ``p.<n>`` turns to page n; ``t.<card>`` toggles a card in the selection; ``play`` plays
the selection if it is a legal play; ``clear`` empties it. The selection is
``{"k": kind, "p": page, "s": [card codes]}``.
"""

from __future__ import annotations

from typing import Any

from engine import climbing as game
from engine.cards import BY_CODE
from engine.protocol import EXCHANGE, TURN

from ..i18n import N_, register, tr
from .paging import in_rows, page_of, tab_or_page

TABS = (*game.KINDS, "sel")
PAGE = {"single": 8, "pair": 6, "triple": 4, "four": 4, "straight": 4}
PER_ROW = {"single": 4, "pair": 3, "triple": 2, "four": 2, "straight": 1}
HAND_PER_ROW = 4

register({
    "cl.joker.BJ": N_("🃏 black joker"),
    "cl.joker.RJ": N_("🃏 red joker"),
    "cl.joker_short.BJ": N_("🃏 black"),
    "cl.joker_short.RJ": N_("🃏 red"),
    "cl.kind.single": N_("single"),
    "cl.kind.pair": N_("pair"),
    "cl.kind.triple": N_("triple"),
    "cl.kind.four": N_("four of a kind"),
    "cl.kind.straight": N_("straight"),
    "cl.tab.single": N_("Singles"),
    "cl.tab.pair": N_("Pairs"),
    "cl.tab.triple": N_("Triples"),
    "cl.tab.four": N_("Fours"),
    "cl.tab.straight": N_("Straights"),
    "cl.tab.sel": N_("✋ Pick"),
    "cl.give": N_("↩ {card}"),
    "cl.pass": N_("Pass"),
    "cl.play_sel": N_("▶ {cards}"),
    "cl.play_empty": N_("▶ Play"),
    "cl.clear": N_("✖ Clear"),
    "cl.ui.empty": N_("Pick some cards first."),
    "cl.ui.not_in_hand": N_("You don't hold that card."),
    "cl.ui.no_combo": N_("That is not a valid combination."),
    "cl.ui.need_3s": N_("The first play of the game must include 3♠."),
    "cl.ui.no_beat": N_("That doesn't beat {cards}."),
    "cl.ui.not_now": N_("It is not the time to play cards."),
    "cl.ui.picked": N_("Picked: {cards} – {kind}"),
    "cl.ui.picked_none": N_("Picked: {cards}"),
})


def card_text(card: Any, lang: str, short: bool = False) -> str:
    """A card as players read it: ``A♥``, ``10♠``; a joker by its name."""
    if card.code in ("BJ", "RJ"):
        # the jokers by name, as the rules call them (in texts), and short (on buttons)
        return tr(lang, f"cl.joker{'_short' if short else ''}.{card.code}")
    return card.symbol


def cards_text(cards: Any, lang: str, short: bool = False) -> str:
    """Cards as players read them, space-separated (``short``: the jokers as on buttons)."""
    return " ".join(card_text(c, lang, short) for c in cards)


def _label(action: game.ClimbAction, lang: str) -> str:
    """A play's button label: its cards (a long straight shortened in the middle)."""
    cards = action.cards
    if len(cards) > 7:
        ends = cards_text(cards[:2], lang, True), cards_text(cards[-2:], lang, True)
        return f"{ends[0]} … {ends[1]} ({len(cards)})"
    return cards_text(cards, lang, True)


def kind_name(kind: str, lang: str) -> str:
    return tr(lang, f"cl.kind.{kind}")


def _plays_by_kind(state: game.State) -> dict[str, list[game.ClimbAction]]:
    out: dict[str, list[game.ClimbAction]] = {}
    for a in game.legal_actions(state):
        if a.is_play:
            out.setdefault(a.kind, []).append(a)
    for kind in out:
        out[kind].sort(key=lambda a: (a.rank, a.length, [game.sort_key(c) for c in a.cards]))
    return out


def _selection(state: game.State, seat: int, ui: dict[str, Any] | None) -> list[str]:
    """The selected card codes that are still in the hand (in hand order)."""
    picked = set((ui or {}).get("s") or ())
    return [c.code for c in state.hands[seat] if c.code in picked]


def _tab(state: game.State, seat: int, ui: dict[str, Any] | None,
         groups: dict[str, list[game.ClimbAction]]) -> str:
    ui = ui or {}
    if ui.get("k") == "sel" or _selection(state, seat, ui):
        return "sel"
    if ui.get("k") in groups:
        return ui["k"]
    t = state.table
    if t is not None and t.kind in groups:
        return t.kind
    return next((k for k in game.KINDS if k in groups), "")  # nothing beats: just Pass


def action_buttons(state: game.State, seat: int, lang: str,
                   ui: dict[str, Any] | None = None) -> list[list[tuple[str, str]]]:
    """Rows of (label, code) for the seat on turn: kind tabs, the plays of the chosen kind
    (paged) or the hand to pick from, and Pass; in the exchange one button per card to give."""
    if state.to_act != seat:
        return []
    if state.phase == EXCHANGE:
        gives = [(tr(lang, "cl.give", card=card_text(a.cards[0], lang, True)), a.code)
                 for a in game.legal_actions(state)]
        return in_rows(gives, 4)
    if state.phase != TURN:
        return []
    groups = _plays_by_kind(state)
    if not groups:  # nothing beats the table: no cards to pick, just Pass
        return [[(tr(lang, "cl.pass"), game.PASS.code)]]
    tab = _tab(state, seat, ui, groups)
    tabs = []
    for k in TABS:
        if k in groups or k == "sel":
            tabs.append((("• " if k == tab else "") + tr(lang, f"cl.tab.{k}"), f"ui.k.{k}"))
    rows = in_rows(tabs, 3)
    if tab == "sel":
        picked = set(_selection(state, seat, ui))
        hand = [(("✅" if c.code in picked else "") + card_text(c, lang, True), f"ui.t.{c.code}")
                for c in state.hands[seat]]
        rows += in_rows(hand, HAND_PER_ROW)
        sel = [c for c in state.hands[seat] if c.code in picked]
        play = tr(lang, "cl.play_sel", cards=cards_text(sel, lang, True)) if sel \
            else tr(lang, "cl.play_empty")
        rows.append([(play, "ui.play"), (tr(lang, "cl.clear"), "ui.clear")])
    elif tab:
        items = groups[tab]
        size = PAGE[tab]
        shown, nav = page_of(items, ui, size)
        rows += in_rows([(_label(a, lang), a.code) for a in shown], PER_ROW[tab])
        if nav:
            rows.append(nav)
    if state.table is not None:
        rows.append([(tr(lang, "cl.pass"), game.PASS.code)])
    return rows


def ui_press(state: game.State, seat: int, ui: dict[str, Any], arg: str,
             lang: str) -> tuple[dict[str, Any], str | None, str | None]:
    """One selection step: returns (new selection, action code or None, short answer)."""
    if state.phase != TURN or state.to_act != seat:
        raise ValueError(tr(lang, "cl.ui.not_now"))
    ui = dict(ui or {})
    head, _, rest = arg.partition(".")
    moved = tab_or_page(ui, head, rest, TABS)
    if moved is not None:
        return moved, None, None
    if head == "t" and rest:
        hand = {c.code: c for c in state.hands[seat]}
        if rest not in hand:
            raise ValueError(tr(lang, "cl.ui.not_in_hand"))
        picked = set(_selection(state, seat, ui)) ^ {rest}
        ui["s"] = [c.code for c in state.hands[seat] if c.code in picked]
        ui["k"] = "sel"
        if not ui["s"]:
            return ui, None, None
        cards = [BY_CODE[c] for c in ui["s"]]
        combo = game.classify(cards)
        if combo is None:
            return ui, None, tr(lang, "cl.ui.picked_none", cards=cards_text(cards, lang))
        return ui, None, tr(lang, "cl.ui.picked", cards=cards_text(combo.cards, lang),
                            kind=kind_name(combo.kind, lang))
    if head == "clear" and not rest:
        ui["s"] = []
        return ui, None, None
    if head == "play" and not rest:
        cards = [BY_CODE[c] for c in _selection(state, seat, ui)]
        if not cards:
            raise ValueError(tr(lang, "cl.ui.empty"))
        action = game.play_for(cards)
        if action is None:
            raise ValueError(tr(lang, "cl.ui.no_combo"))
        reason = game.why_illegal(state, action)
        if reason is not None:
            if state.opening and game.THREE_OF_SPADES not in action.cards:
                raise ValueError(tr(lang, "cl.ui.need_3s"))
            if state.table is not None:
                raise ValueError(tr(lang, "cl.ui.no_beat", cards=cards_text(state.table.cards, lang)))
            raise ValueError(reason)
        return {}, action.code, None
    raise ValueError(tr(lang, "unknown_button"))
