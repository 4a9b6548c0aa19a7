"""Helpers of the Schwimmen rule tests: positions built by hand from a freshly dealt game
(``State._replace``), playing codes, reading events and values, checking refusals.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction
from engine import schwimmen as S
from engine.cards import parse_cards
from engine.protocol import TURN

# ---------------------------------------------------------------------------------------------
# helpers


def _base(seats: int) -> S.State:
    """A freshly dealt game in phase ``turn`` (no 31 dealt)."""
    for seed in range(100):
        state = S.new_game(seats, seed=seed)
        if state.phase == TURN:
            return state
    raise AssertionError("no seed without a dealt 31")


def position(hands, middle, to_act=0, **changes) -> S.State:
    """A round in progress with exactly these hands ('' for a player who is out) and middle."""
    seats = len(hands)
    hs = tuple(parse_cards(h) for h in hands)
    mid = parse_cards(middle)
    used = [c for h in hs for c in h] + list(mid)
    assert len(used) == len(set(used)), "a card is used twice in the position"
    assert set(used) <= set(S.DECK), "only 7..A in Schwimmen"
    assert len(mid) == 3
    fields = {
        "hands": hs, "middle": mid, "to_act": to_act, "starter": to_act,
        "out": tuple(not h for h in hs),
    }
    fields.update(changes)
    state = _base(seats)._replace(**fields)
    for seat in state.active:
        assert len(state.hands[seat]) == 3
    return state


def play(state: S.State, *codes: str) -> tuple[S.State, list[engine.Event]]:
    """Apply moves in order; return the final state and all events."""
    events: list[engine.Event] = []
    for code in codes:
        state, evs = S.apply(state, code)
        events.extend(evs)
    return state, events


def all_knock(state: S.State) -> tuple[S.State, list[engine.Event]]:
    """End the round with a showdown of the hands as they are: every active player knocks."""
    return play(state, *["knock"] * len(state.active))


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def value(text: str) -> float:
    return S.hand_value(parse_cards(text))


def assert_illegal(state: S.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = S.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match) as info:
        S.apply(state, code)
    assert str(info.value)
    assert state == before
    assert S.to_json(state) == before_json


# Positions without any ace: nobody can reach 31, whatever is swapped.
LOW3 = (["7H 8C 9D", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S")
LOW4 = (["7H 8C 9D", "10C JD 7S", "8H 9H 10H", "QC KD 8S"], "7C 8D 9S")
