"""Run Fast's move keyboard: the plays of the seat on turn grouped by kind and paged, or
picked card by card, and the selection steps; also how a kind of play is named.

Selection steps (``ui.<arg>``, handled by ``ui_press`` with the seat's stored selection):
``k.<kind>`` shows the plays of one kind (``single`` … ``bomb``) or ``sel`` the hand to pick from;
``p.<n>`` turns to page n; ``t.<card>`` toggles a card in the selection; ``play`` plays the
selection if it is a legal play; ``clear`` empties it. A triple with two is chosen in two
steps: ``tt.<rank power>`` the triple, then ``x.<card>`` its kickers (the second one plays).
The selection is ``{"k": kind, "p": page, "s": [card codes], "t": triple, "x": [kickers]}``.
At most 4 buttons a row (a phone). A player who cannot beat sees only Pass.
"""

from __future__ import annotations

from typing import Any

from engine import runfast as game
from engine.cards import BY_CODE, show
from engine.protocol import TURN

from ..i18n import N_, NN_, engine_reason, register, tr
from .paging import in_rows, page_of, tab_or_page

TABS = (*game.KINDS, "sel")
PAGE = 8  # plays per page
PER_ROW = {"single": 4, "pair": 3, "pair_chain": 2, "straight": 1, "triple_two": 2,
           "airplane": 1, "bomb": 2}
HAND_PER_ROW = 4
TABS_PER_ROW = 4

register({
    "rf.kind.single": N_("single"),
    "rf.kind.pair": N_("pair"),
    "rf.kind.pair_chain": N_("consecutive pairs"),
    "rf.kind.straight": N_("straight"),
    "rf.kind.triple_two": N_("triple with two"),
    "rf.kind.triple": N_("triple"),
    "rf.kind.triple_one": N_("triple with one"),
    "rf.kind.airplane": N_("airplane"),
    "rf.kind.bomb": N_("bomb"),
    "rf.tab.single": N_("Single"),
    "rf.tab.pair": N_("Pairs"),
    "rf.tab.pair_chain": N_("Chains"),
    "rf.tab.straight": N_("Straight"),
    "rf.tab.triple_two": N_("3+2"),
    "rf.tab.airplane": N_("Planes"),
    "rf.tab.bomb": N_("💣"),
    "rf.tab.sel": N_("✋ Pick"),
    "rf.pass": N_("Pass"),
    "rf.play_sel": N_("▶ Play: {cards}"),
    "rf.play_empty": N_("▶ Play selection"),
    "rf.clear": N_("✖ Clear"),
    "rf.triple": N_("{cards} +2"),
    "rf.back": N_("◀ {cards} + two:"),
    "rf.ui.kicker": N_("{cards} + {kicker} – one more kicker"),
    "rf.ui.kickers_left": NN_("{cards} + {kicker} – {n} more kicker",
                              "{cards} + {kicker} – {n} more kickers"),
    "rf.plane": N_("{cards} +{n}"),
    "rf.back_plane": N_("◀ {cards} + {n} kickers:"),
    "rf.ui.not_kicker": N_("That card cannot be a kicker."),
    "rf.ui.not_now": N_("It's not your turn."),
    "rf.ui.not_in_hand": N_("You don't hold that card."),
    "rf.ui.empty": N_("Pick some cards first."),
    "rf.ui.picked": N_("Picked: {cards} – {kind}"),
    "rf.ui.picked_refused": N_("Picked: {cards} – {kind}, but not now: {reason}"),
    "rf.ui.picked_none": N_("Picked: {cards} – no combination (yet)"),
    "rf.ui.no_combo": N_("These cards are no combination."),
    "rf.ui.no_beat": N_("That does not beat {cards}."),
    "rf.ui.bomb": N_("Four of a rank stay together: only as a bomb."),
    "rf.ui.highest": N_("The next player has only 1 card: play your highest single."),
    "rf.ui.short": N_("A triple with fewer kickers only with your last cards."),
})


def kind_name(kind: str, lang: str, cards: int | None = None) -> str:
    """A kind's name; a triple going out with fewer than two kickers is named as it is."""
    if kind == "triple_two" and cards is not None and cards < 5:
        return tr(lang, "rf.kind.triple" if cards == 3 else "rf.kind.triple_one")
    return tr(lang, f"rf.kind.{kind}")


def _label(cards: tuple) -> str:
    """A play's button label: every card spelled out, weakest first."""
    return show(cards)


def _plays_by_kind(state: game.State) -> dict[str, list[int]]:
    """The legal plays as masks per kind, weakest first (lowest kickers first)."""
    out: dict[str, list[tuple[int, int, int]]] = {}
    for f in game.play_families(state):
        rows = out.setdefault(f.kind, [])
        for x in f.masks:
            rows.append((f.length, f.power, x))
    return {k: [x for *_, x in sorted(v, key=lambda t: (t[0], t[1], _weight(t[2])))]
            for k, v in out.items()}


def _weight(mask: int) -> tuple[int, ...]:
    return tuple(sorted((game.CARD_POWER[c.id] for c in game.cards_of(mask)), reverse=True))


def _selection(state: game.State, seat: int, ui: dict[str, Any] | None) -> list[str]:
    """The selected card codes that are still in the hand (in hand order)."""
    picked = set((ui or {}).get("s") or ())
    return [c.code for c in state.hand_cards(seat) if c.code in picked]


def _tab(state: game.State, seat: int, ui: dict[str, Any] | None,
         groups: dict[str, list[int]]) -> str:
    ui = ui or {}
    if ui.get("k") == "sel" or _selection(state, seat, ui):
        return "sel"
    if ui.get("k") in groups:
        return ui["k"]
    if state.table is not None and state.table[0] in groups:
        return state.table[0]
    return next((k for k in game.KINDS if k in groups), "sel")


_BODY = {"triple_two": "tt", "airplane": "ta"}  # the two-step kinds and their ui heads


def _bodies(state: game.State, kind: str, plays: list[int]
            ) -> tuple[dict[str, tuple[int, int, list[int]]], list[int]]:
    """The triple-with-two or airplane plays grouped by their triples (the body):
    ``{key: (body mask, kickers wanted, plays)}`` with the key ``<power>`` of a triple or
    ``<triples>.<top power>`` of an airplane; and the plays shown as they are (going out with
    fewer kickers, or a body with only one choice of kickers). ``plays``: the kind's plays,
    weakest first."""
    shape = {x: (f.length, f.power) for f in game.play_families(state) if f.kind == kind
             for x in f.masks}
    grouped: dict[str, tuple[int, int, list[int]]] = {}
    single: list[int] = []
    for x in plays:
        length, top = shape[x]
        cards = game.cards_of(x)
        body = game.mask_of([c for c in cards if top - length < game.CARD_POWER[c.id] <= top])
        if len(cards) != 5 * length or body.bit_count() != 3 * length:
            single.append(x)
            continue
        key = str(top) if kind == "triple_two" else f"{length}.{top}"
        grouped.setdefault(key, (body, 2 * length, []))[2].append(x)
    for key in [k for k, (_, _, group) in grouped.items() if len(group) == 1]:
        single += grouped.pop(key)[2]
    return grouped, sorted(single, key=plays.index)


def _kickers(body: int, plays: list[int]) -> int:
    """Every card that goes with the body in one of its plays (as a mask)."""
    out = 0
    for x in plays:
        out |= x
    return out & ~body


def _body_rows(state: game.State, seat: int, lang: str, ui: dict[str, Any],
               groups: dict[str, list[int]], kind: str) -> list[list[tuple[str, str]]]:
    """A triple with two, or an airplane, in two steps: first its triples (``ui.tt.<power>``,
    ``ui.ta.<triples>.<top>``), then its kickers card by card (``ui.x.<card>``; the last one
    plays)."""
    grouped, single = _bodies(state, kind, groups.get(kind, []))
    chosen = ui.get("t")
    if chosen in grouped:
        body, wanted, plays = grouped[chosen]
        picked = set(ui.get("x") or ())
        back = tr(lang, "rf.back", cards=show(game.cards_of(body))) if wanted == 2 else \
            tr(lang, "rf.back_plane", cards=show(game.cards_of(body)), n=wanted)
        rows = [[(back, f"ui.k.{kind}")]]
        kick = [(("✅" if c.code in picked else "") + c.symbol, f"ui.x.{c.code}")
                for c in state.hand_cards(seat) if game.mask_of([c]) & _kickers(body, plays)]
        return rows + in_rows(kick, HAND_PER_ROW)
    buttons = [(tr(lang, "rf.triple", cards=show(game.cards_of(body))) if wanted == 2 else
                tr(lang, "rf.plane", cards=show(game.cards_of(body)), n=wanted),
                f"ui.{_BODY[kind]}.{key}")
               for key, (body, wanted, _) in grouped.items()]
    buttons += [(_label(game.cards_of(x)), game.play_code(x)) for x in single]
    return in_rows(buttons, PER_ROW[kind])


def action_buttons(state: game.State, seat: int, lang: str,
                   ui: dict[str, Any] | None = None) -> list[list[tuple[str, str]]]:
    """Rows of (label, code) for the seat on turn: the plays of the chosen kind (paged, cards
    spelled out, weakest first; a triple with two or an airplane: its triples first, then its
    kickers) or the hand to pick from, then the kind tabs; only Pass when nothing beats."""
    if state.to_act != seat or state.phase != TURN:
        return []
    groups = _plays_by_kind(state)
    if not groups:
        return [[(tr(lang, "rf.pass"), game.PASS.code)]]
    tab = _tab(state, seat, ui, groups)
    rows: list[list[tuple[str, str]]] = []
    if tab == "sel":
        picked = set(_selection(state, seat, ui))
        hand = [(("✅" if c.code in picked else "") + c.symbol, f"ui.t.{c.code}")
                for c in state.hand_cards(seat)]
        rows += in_rows(hand, HAND_PER_ROW)
        sel = [BY_CODE[c] for c in _selection(state, seat, ui)]
        play = tr(lang, "rf.play_sel", cards=show(sel)) if sel else tr(lang, "rf.play_empty")
        rows.append([(play, "ui.play"), (tr(lang, "rf.clear"), "ui.clear")])
    elif tab in _BODY:
        rows += _body_rows(state, seat, lang, ui or {}, groups, tab)
    else:
        items = groups[tab]
        shown, nav = page_of(items, ui, PAGE)
        rows += in_rows([(_label(game.cards_of(x)), game.play_code(x)) for x in shown],
                      PER_ROW[tab])
        if nav:
            rows.append(nav)
    tabs = [(("• " if k == tab else "") + tr(lang, f"rf.tab.{k}"), f"ui.k.{k}")
            for k in TABS if k in groups or k == "sel"]
    rows += in_rows(tabs, TABS_PER_ROW)
    return rows


def _press_body(state: game.State, seat: int, ui: dict[str, Any], head: str, rest: str,
                lang: str) -> tuple[dict[str, Any], str | None, str | None]:
    """``tt.<power>``/``ta.<triples>.<top>`` chooses a triple or an airplane's triples,
    ``x.<card>`` toggles one of its kickers; the last kicker wanted plays."""
    kind = next((k for k, h in _BODY.items() if h == head), ui.get("k"))
    if kind not in _BODY:
        raise ValueError(tr(lang, "unknown_button"))
    grouped, _ = _bodies(state, kind, _plays_by_kind(state).get(kind, []))
    if head != "x":
        if not (rest.isascii() and len(rest) <= 5) or rest not in grouped:
            raise ValueError(tr(lang, "unknown_button"))
        return {"k": kind, "t": rest, "x": []}, None, None
    if ui.get("t") not in grouped:
        raise ValueError(tr(lang, "unknown_button"))
    body, wanted, plays = grouped[ui["t"]]
    hand = {c.code: c for c in state.hand_cards(seat)}
    if rest not in hand:
        raise ValueError(tr(lang, "rf.ui.not_in_hand"))
    if not game.mask_of([hand[rest]]) & _kickers(body, plays):
        raise ValueError(tr(lang, "rf.ui.not_kicker"))
    picked = set(c for c in (ui.get("x") or ()) if c in hand) ^ {rest}
    kickers = [hand[c] for c in hand if c in picked]
    if len(kickers) < wanted:
        ui = {**ui, "x": [c.code for c in kickers]}
        if not kickers:
            return ui, None, None
        if wanted == 2:
            return ui, None, tr(lang, "rf.ui.kicker", cards=show(game.cards_of(body)),
                                kicker=show(kickers))
        return ui, None, tr(lang, "rf.ui.kickers_left", cards=show(game.cards_of(body)),
                            kicker=show(kickers), n=wanted - len(kickers))
    action = game.parse_action(game.play_code(body | game.mask_of(kickers)))
    reason = game.why_illegal(state, action)
    if reason is not None:
        for needle, key in _REASONS:
            if needle in reason:
                raise ValueError(tr(lang, key))
        raise ValueError(reason)
    return {}, action.code, None


_REASONS = (("bomb", "rf.ui.bomb"), ("highest", "rf.ui.highest"),
            ("last cards", "rf.ui.short"), ("no combination", "rf.ui.no_combo"))


def ui_press(state: game.State, seat: int, ui: dict[str, Any], arg: str,
             lang: str) -> tuple[dict[str, Any], str | None, str | None]:
    """One selection step: returns (new selection, action code or None, short answer)."""
    if state.phase != TURN or state.to_act != seat:
        raise ValueError(tr(lang, "rf.ui.not_now"))
    ui = dict(ui or {})
    head, _, rest = arg.partition(".")
    moved = tab_or_page(ui, head, rest, TABS, forget=("t", "x"))
    if moved is not None:
        return moved, None, None
    if head in ("tt", "ta", "x") and rest:
        return _press_body(state, seat, ui, head, rest, lang)
    hand = {c.code: c for c in state.hand_cards(seat)}
    if head == "t" and rest:
        if rest not in hand:
            raise ValueError(tr(lang, "rf.ui.not_in_hand"))
        picked = set(_selection(state, seat, ui)) ^ {rest}
        ui["s"] = [c for c in hand if c in picked]
        ui["k"] = "sel"
        if not ui["s"]:
            return ui, None, None
        cards = [hand[c] for c in ui["s"]]
        mask = game.mask_of(cards)
        key = game.interpret(mask, final=mask == state.hands[seat])
        if key is None:
            return ui, None, tr(lang, "rf.ui.picked_none", cards=show(cards))
        what = kind_name(key[0], lang, len(cards))
        reason = game.why_illegal(state, game.parse_action(game.play_code(mask)))
        if reason is not None:  # a combination, but not one that may go now
            return ui, None, tr(lang, "rf.ui.picked_refused", cards=show(cards), kind=what,
                                reason=engine_reason(lang, reason))
        return ui, None, tr(lang, "rf.ui.picked", cards=show(cards), kind=what)
    if head == "clear" and not rest:
        ui["s"] = []
        return ui, None, None
    if head == "play" and not rest:
        cards = [hand[c] for c in _selection(state, seat, ui)]
        if not cards:
            raise ValueError(tr(lang, "rf.ui.empty"))
        try:
            action = game.parse_action(game.play_code(game.mask_of(cards)))
        except game.IllegalAction:
            raise ValueError(tr(lang, "rf.ui.no_combo")) from None
        reason = game.why_illegal(state, action)
        if reason is not None:
            if "beat" in reason and state.current is not None:
                raise ValueError(tr(lang, "rf.ui.no_beat", cards=show(state.current.cards)))
            for needle, key in _REASONS:
                if needle in reason:
                    raise ValueError(tr(lang, key))
            raise ValueError(reason)
        return {}, action.code, None
    raise ValueError(tr(lang, "unknown_button"))
