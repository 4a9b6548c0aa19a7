"""Helpers of the climbing game's rule tests: cards from text, positions built by hand
(``State._replace``), deals with chosen hands (``deal_with``), states after a round, playing
codes, reading events, checking refusals.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction
from engine import climbing as C
from engine.cards import parse_cards
from engine.protocol import PAYOUT, TURN

# ---------------------------------------------------------------------------------------------
# helpers


def cards(text: str) -> tuple:
    return parse_cards(text)


def position(hands: list[str], to_act: int = 0, table: str | None = None,
             owner: int | None = None, **changes) -> C.State:
    """A round in progress with exactly these hands ('' for a player who is out)."""
    hs = tuple(C.sort_cards(parse_cards(h)) for h in hands)
    used = [c for h in hs for c in h]
    assert len(used) == len(set(used)), "a card is used twice in the position"
    fields = {
        "hands": hs, "to_act": to_act, "phase": TURN, "opening": False,
        "table": None if table is None else C.parse_action(table), "owner": owner,
        "passed": (False,) * 4, "out_order": (), "played": (), "exchange": None,
        "result": None, "winners": (), "leader": to_act,
    }
    fields.update(changes)
    return C.new_game(4, seed=1)._replace(**fields)


def play(state: C.State, *codes: str) -> tuple[C.State, list[engine.Event]]:
    events: list[engine.Event] = []
    for code in codes:
        state, evs = C.apply(state, code)
        events.extend(evs)
    return state, events


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def codes(actions) -> list[str]:
    return [a.code for a in actions]


def assert_illegal(state: C.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = C.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match):
        C.apply(state, code)
    assert state == before
    assert C.to_json(state) == before_json


class _FixedShuffle:
    """Stands in for the round RNG: ``shuffle`` lays the deck in a chosen order."""

    def __init__(self, order: list) -> None:
        self.order = order

    def shuffle(self, deck: list) -> None:
        deck[:] = self.order


def deal_with(monkeypatch, state: C.State, hands: dict[int, str]) -> tuple[C.State, list]:
    """Apply ``deal`` so that the seats named in ``hands`` are dealt exactly those cards
    (the rest of the deck goes round the others)."""
    dealer = (state.dealer + 1) % 4
    fixed = {s: list(parse_cards(h)) for s, h in hands.items()}
    rest = [c for c in C.DECK if not any(c in h for h in fixed.values())]
    sizes = {(dealer + 1) % 4: 14, (dealer + 2) % 4: 14, (dealer + 3) % 4: 13, dealer: 13}
    for s, h in fixed.items():
        assert len(h) == sizes[s], f"seat {s} gets {sizes[s]} cards"
    dealt = {s: fixed.get(s) or [rest.pop() for _ in range(sizes[s])] for s in range(4)}
    order = []
    pos = {s: 0 for s in range(4)}
    for i in range(54):
        s = (dealer + 1 + i) % 4
        order.append(dealt[s][pos[s]])
        pos[s] += 1
    monkeypatch.setattr(C, "_rng", lambda seed, round_no: _FixedShuffle(order))
    return C.apply(state, "deal")


def after_round(order: tuple[int, ...], scores=(0, 0, 0, 0), target=21, dealer=0) -> C.State:
    """A state in ``payout`` right after a round that ended in ``order``."""
    points = [0] * 4
    for place, s in enumerate(order):
        points[s] = C.POINTS[place]
    result = C.RoundResult(1, order, tuple(points), scores, target, target, ())
    return C.new_game(4, seed=1)._replace(
        phase=PAYOUT, to_act=None, result=result, scores=scores, target=target, dealer=dealer,
        out_order=order, opening=False, table=None, owner=None)


def end_of_round(scores, target, first_two=(0, 1)) -> C.State:
    """Seats ``first_two`` are out (in that order); of the two left, the one on turn goes out
    with its last card next: the order becomes first_two + (that seat, the other)."""
    rest = [s for s in range(4) if s not in first_two]
    hands = ["", "", "", ""]
    hands[rest[0]] = "3C"
    hands[rest[1]] = "4C 5D"
    return position(hands, to_act=rest[0], out_order=tuple(first_two),
                    scores=tuple(scores), target=target)
