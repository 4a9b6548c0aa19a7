"""Each game's table as the page draws it: the seats (cards held, score), the open cards in
the middle, the viewer's own hand, and which cards a move takes.

Drawn from the engine state the chat views are drawn from, with public facts for every seat
and hidden cards for the viewer's own seat only (``hand``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import climbing, runfast, scat, schwimmen
from engine.cards import Card
from engine.protocol import EXCHANGE, FINISHED, PAYOUT, TURN, Action

from ..i18n import N_, register, tr
from ..presenters import climbing as climbing_p
from ..presenters import runfast as runfast_p
from ..presenters import scat as scat_p
from ..presenters import schwimmen as schwimmen_p

register({
    "wa.middle": N_("Middle"),
    "wa.discard": N_("Discard pile"),
    "wa.trick": N_("Table"),
    "wa.by": N_("{kind} by {name}"),
    "wa.stock": N_("{n} in the stock"),
})


@dataclass
class Board:
    """What the page shows of a game besides the text lines."""

    cards: list[int | None]  # cards each seat holds (None: not shown)
    scores: list[str]  # each seat's coins, lives or points, as text
    out: list[bool]
    middle_label: str = ""
    middle: list[Card] = field(default_factory=list)
    middle_text: str | None = None
    stack: int | None = None
    hand: list[Card] = field(default_factory=list)


def _schwimmen(state: Any, seat: int | None, names: list[str], lang: str,
               options: dict[str, Any]) -> Board:
    cur = options.get("currency", "coins")
    playing = state.phase not in (PAYOUT, FINISHED)
    scores = [tr(lang, "sw.out") if state.out[s] else schwimmen_p.money(state.coins[s], cur, lang)
              if state.coins[s] else tr(lang, "sw.swims") for s in range(state.seats)]
    cards = [len(state.hands[s]) if playing and not state.out[s] else None
             for s in range(state.seats)]
    hand = sorted(state.hands[seat], key=lambda c: (c.suit, -c.rank)) \
        if seat is not None and playing and not state.out[seat] else []
    return Board(cards, scores, list(state.out), tr(lang, "wa.middle"),
                 list(state.middle) if playing else [],
                 tr(lang, "sw.pot", pot=schwimmen_p.money(state.pot, cur, lang)), None, hand)


def _scat(state: Any, seat: int | None, names: list[str], lang: str,
          options: dict[str, Any]) -> Board:
    playing = state.phase not in (PAYOUT, FINISHED)
    scores = [scat_p.lives_text(state, s, lang) for s in range(state.seats)]
    cards = [len(state.hands[s]) if playing and s in state.players else None
             for s in range(state.seats)]
    hand = sorted(state.hands[seat], key=lambda c: (c.suit, -c.rank)) \
        if seat is not None and playing and seat in state.players else []
    return Board(cards, scores, list(state.out), tr(lang, "wa.discard"),
                 [state.discard[-1]] if playing and state.discard else [],
                 tr(lang, "wa.stock", n=len(state.stock)) if playing else None,
                 len(state.stock) if playing else None, hand)


def _runfast(state: Any, seat: int | None, names: list[str], lang: str,
             options: dict[str, Any]) -> Board:
    playing = state.phase == TURN
    scores = [tr(lang, "rf.points", n=state.scores[s]) for s in range(state.seats)]
    cards = [state.hands[s].bit_count() if playing else None for s in range(state.seats)]
    cur = state.current if playing else None
    text = None if cur is None else tr(
        lang, "wa.by", kind=runfast_p.kind_name(cur.kind, lang, len(cur.cards)),
        name=names[state.table_seat])
    hand = list(state.hand_cards(seat)) if seat is not None and playing else []
    return Board(cards, scores, [False] * state.seats, tr(lang, "wa.trick"),
                 list(cur.cards) if cur is not None else [], text, None, hand)


def _climbing(state: Any, seat: int | None, names: list[str], lang: str,
              options: dict[str, Any]) -> Board:
    playing = state.phase in (EXCHANGE, TURN)
    scores = [tr(lang, "cl.points", n=state.scores[s]) for s in range(state.seats)]
    cards = [len(state.hands[s]) if playing else None for s in range(state.seats)]
    out = [playing and s in state.out_order for s in range(state.seats)]
    table = state.table if state.phase == TURN else None
    text = None if table is None else tr(
        lang, "wa.by", kind=climbing_p.kind_name(table.kind, lang), name=names[state.owner])
    hand = list(climbing.sort_cards(state.hands[seat])) if seat is not None and playing else []
    return Board(cards, scores, out, tr(lang, "wa.trick"),
                 list(table.cards) if table is not None else [], text, None, hand)


def _swim_cards(a: Any) -> tuple[Card, ...]:
    return (a.give, a.take) if a.kind == "swap" else ()


def _scat_cards(a: Any) -> tuple[Card, ...]:
    return (a.card,) if a.kind == "drop" else ()


def _play_cards(a: Any) -> tuple[Card, ...]:
    return tuple(a.cards) if a.code not in ("pass", "deal") else ()


def _swim_pick(state: Any, seat: int, cards: Sequence[Card]) -> Action | None:
    if len(cards) != 2:
        return None
    hand = set(state.hands[seat])
    give = [c for c in cards if c in hand]
    take = [c for c in cards if c in state.middle]
    if len(give) != 1 or len(take) != 1:
        return None
    return schwimmen.swap(give[0], take[0])


def _scat_pick(state: Any, seat: int, cards: Sequence[Card]) -> Action | None:
    return scat.drop(cards[0]) if len(cards) == 1 and cards[0] in state.hands[seat] else None


def _runfast_pick(state: Any, seat: int, cards: Sequence[Card]) -> Action | None:
    return runfast.play(cards) if cards else None


def _climbing_pick(state: Any, seat: int, cards: Sequence[Card]) -> Action | None:
    if state.phase == EXCHANGE:
        if len(cards) != 1 or climbing.RANK[cards[0].id] not in climbing.GIVE_BACK_RANKS:
            return None
        return climbing.give_back(cards[0])
    return climbing.play_for(cards) if cards else None


def _runfast_kind(cards: Sequence[Card], lang: str) -> str | None:
    combo = runfast.classify(cards) or runfast.classify(cards, final=True)
    return None if combo is None else runfast_p.kind_name(combo.kind, lang, len(cards))


def _climbing_kind(cards: Sequence[Card], lang: str) -> str | None:
    action = climbing.play_for(cards)
    return None if action is None else climbing_p.kind_name(action.kind, lang)


@dataclass(frozen=True)
class GameBoard:
    """One game's part of the page: its board, the cards of a move, a selection's move."""

    board: Callable[[Any, int | None, list[str], str, dict[str, Any]], Board]
    cards_of: Callable[[Any], tuple[Card, ...]]  # the cards a move takes (() for none)
    pick: Callable[[Any, int, Sequence[Card]], Action | None]  # selected cards → the move
    kind: Callable[[Sequence[Card], str], str | None] | None = None  # a combination's name
    on_table: Callable[[Any], object | None] = lambda state: None  # the play to beat, if any


BOARDS: dict[str, GameBoard] = {
    "schwimmen": GameBoard(_schwimmen, _swim_cards, _swim_pick),
    "scat": GameBoard(_scat, _scat_cards, _scat_pick),
    "runfast": GameBoard(_runfast, _play_cards, _runfast_pick, _runfast_kind,
                         lambda state: state.current),
    "climbing": GameBoard(_climbing, _play_cards, _climbing_pick, _climbing_kind,
                          lambda state: state.table),
}


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]
