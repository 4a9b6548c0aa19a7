"""Helpers of the Scat rule tests: positions built by hand (``State._replace``), rigged deals
(a per-round RNG whose shuffle lays out a chosen deck), playing codes, reading events and
values, checking refusals.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction
from engine import scat as S
from engine.cards import parse_card, parse_cards
from engine.protocol import PAYOUT, TURN

# ---------------------------------------------------------------------------------------------
# helpers


def position(hands, discard="3H", stock="", to_act=0, options=None, empty_stock=False,
             **changes) -> S.State:
    """A round in progress: these hands ('' = not in the round), this discard pile (top last);
    ``stock`` lists the next stock cards in drawing order (the rest of the deck lies below).
    With ``empty_stock`` the stock is empty and the rest of the deck lies in the discard pile."""
    n = len(hands)
    hs = tuple(parse_cards(h) if h else () for h in hands)
    disc = parse_cards(discard)
    top = parse_cards(stock)
    used = [c for h in hs for c in h] + list(disc) + list(top)
    assert len(used) == len(set(used)), "a card is used twice in the position"
    rest = tuple(c for c in S.DECK if c not in set(used))
    if empty_stock:
        assert not top
        disc, stock_t = rest + disc, ()
    else:
        stock_t = rest + tuple(reversed(top))
    fields = {
        "hands": hs, "discard": disc, "stock": stock_t, "to_act": to_act,
        "players": tuple(s for s in range(n) if hs[s]), "out": tuple(not h for h in hs),
        "phase": TURN, "drawn": None, "from_pile": False, "knocker": None, "final_left": 0,
        "moved": (True,) * n, "turns": n, "result": None, "winner": None,
        "lives": tuple(3 if h else 0 for h in hs), "dealer": (to_act - 1) % n,
    }
    fields.update(changes)
    state = S.new_game(n, options, seed=1)._replace(**fields)
    check_cards(state)
    return state


def check_cards(state: S.State) -> None:
    every = [c for h in state.hands for c in h] + list(state.discard) + list(state.stock)
    assert len(every) == 52 and set(every) == set(S.DECK)


def play(state: S.State, *codes: str) -> tuple[S.State, list[engine.Event]]:
    """Apply moves in order; return the final state and all events."""
    events: list[engine.Event] = []
    for code in codes:
        state, evs = S.apply(state, code)
        events.extend(evs)
        check_cards(state)
    return state, events


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def value(text: str, trio: bool = True) -> float:
    return S.hand_value(parse_cards(text), trio)


def assert_illegal(state: S.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = S.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match) as info:
        S.apply(state, code)
    assert str(info.value)
    assert state == before
    assert S.to_json(state) == before_json


class Rigged:
    """Stands in for the per-round RNG: the shuffle lays out a fixed deck."""

    def __init__(self, order) -> None:
        self.order = list(order)

    def shuffle(self, deck) -> None:
        deck[:] = self.order

    def randrange(self, n: int) -> int:
        return 0


def rigged_deck(hands_in_deal_order, discard: str):
    """A deck that deals these hands (first hand = the player left of the dealer) one card at
    a time, then ``discard`` face up; the rest of the deck is the stock."""
    hs = [parse_cards(h) for h in hands_in_deal_order]
    order = [h[i] for i in range(len(hs[0])) for h in hs]
    order.append(parse_card(discard))
    return order + [c for c in S.DECK if c not in set(order)]


def rig(monkeypatch, order) -> None:
    monkeypatch.setattr(S, "_rng", lambda seed, round_no: Rigged(order))


def between_rounds(state: S.State, dealer: int) -> S.State:
    """The round is over; ``dealer`` dealt it (the next deal passes to the next seat)."""
    return state._replace(phase=PAYOUT, to_act=None, dealer=dealer)


def deal_rigged(monkeypatch, state: S.State, hands_by_seat, discard: str):
    """Apply ``deal`` with a deck that gives each seat of the round these cards."""
    players = state.tiebreak or tuple(state.remaining)
    starter = S.seat_after(players, S.seat_after(players, state.dealer))
    i = players.index(starter)
    order = players[i:] + players[:i]
    rig(monkeypatch, rigged_deck([hands_by_seat[s] for s in order], discard))
    return S.apply(state, "deal")


# Hands without any chance of 31 in one draw (no two cards of one suit with 21+ and an ace).
LOW = ("5H 6C 7D", "8S 9H 2D", "3C 4S 6H", "7C 8D 2S", "9C 3D 4H", "5S 6D 2H", "7S 8H 3S")
