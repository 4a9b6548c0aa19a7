"""Schwimmen: one test per rule and decision of docs/rules-schwimmen.md.

This module: between rounds, illegal moves, action codes, observation and JSON.

Positions are built by hand from a freshly dealt game with ``State._replace``; every test
asserts concrete outcomes (phase, seat on turn, losers, coins, pot, events).
The helpers are in ``tests/engine/schwimmen_positions.py``.
"""

from __future__ import annotations

import pytest

from engine import GameError, IllegalAction
from engine import schwimmen as S
from engine.cards import parse_cards
from engine.protocol import PAYOUT, TURN
from tests.engine.schwimmen_positions import LOW3, all_knock, assert_illegal, play, position

# ---------------------------------------------------------------------------------------------
# between rounds, illegal moves, codes


def test_rule_deal_only_between_rounds():
    state = position(*LOW3)
    assert S.DEAL not in S.legal_actions(state)
    assert_illegal(state, "deal", "still being played")
    state, _ = S.apply(state, "knock")
    assert_illegal(state, "deal", "still being played")
    state, _ = play(state, "knock", "knock")
    assert state.phase == PAYOUT
    assert S.to_act(state) is None
    assert S.legal_actions(state) == (S.DEAL,)
    for code in ("pass", "knock", "all", "swap.7H.7C"):
        assert_illegal(state, code, "round is over")
    round_no = state.round_no
    new, events = S.apply(state, "deal")
    assert new.round_no == round_no + 1
    assert events[0].kind == "deal"
    assert events[0].data["round"] == round_no + 1
    assert events[0].data["middle"] == [c.code for c in new.middle]
    if new.phase == TURN:
        assert new.result is None
        assert new.knocker is None
        assert new.turns == 0
        assert new.to_act == new.starter


def test_illegal_swap_of_card_not_in_hand_or_not_in_middle():
    state = position(*LOW3)
    assert_illegal(state, "swap.AH.7C", "not in your hand")
    assert_illegal(state, "swap.10C.7C", "not in your hand")  # seat 1's card
    assert_illegal(state, "swap.7H.AS", "not in the middle")
    assert_illegal(state, "swap.7H.10H", "not in the middle")  # seat 2's card


@pytest.mark.parametrize(
    "code", ["", "foo", "swap", "swap.AH", "swap.AH.AH", "swap.2H.AH", "swap.XX.7C", "dealer"])
def test_unknown_codes_raise_illegal_action(code):
    state = position(*LOW3)
    assert_illegal(state, code, "unknown move")
    with pytest.raises(IllegalAction, match="unknown move"):
        S.parse_action(code)


def test_action_codes_round_trip():
    state = position(*LOW3)
    for action in S.legal_actions(state):
        assert S.parse_action(action.code) is action
        assert str(action) == action.code
        assert len(f"v1:123456:99999:{action.code}".encode()) <= 64
    assert S.parse_action("deal") is S.DEAL
    a = S.swap(*parse_cards("AH KS"))
    assert (a.code, a.kind) == ("swap.AH.KS", "swap")
    assert S.parse_action("swap.AH.KS") is a
    with pytest.raises(GameError):
        S.swap(*parse_cards("AH AH"))
    with pytest.raises(GameError):
        S.swap(*parse_cards("2H AH"))


def test_state_is_a_value_apply_does_not_change_it():
    state = position(*LOW3)
    before = S.to_json(state)
    copy = state
    S.apply(state, "swap.7H.7C")
    S.apply(state, "all")
    S.apply(state, "knock")
    assert state is copy
    assert S.to_json(state) == before


# ---------------------------------------------------------------------------------------------
# observation and JSON


def test_observation_shows_own_hand_and_middle_only():
    state = position(*LOW3)
    for seat in range(3):
        obs = S.observation(state, seat)
        assert obs.hand == state.hands[seat]
        assert obs.middle == state.middle
        others = {c for s in range(3) if s != seat for c in state.hands[s]}
        assert not obs.visible_cards() & others
        assert obs.result is None
        assert obs.legal == (S.legal_actions(state) if seat == 0 else ())
    view = S.public_view(state)
    assert view.hand == () and view.legal == ()
    assert view.visible_cards() == set(state.middle)
    assert S.hidden_cards(state) == set(S.DECK) - set(state.middle)
    with pytest.raises(GameError):
        S.observation(state, 3)


def test_json_round_trip_of_hand_built_positions():
    states = [position(*LOW3)]
    s, _ = S.apply(states[0], "knock")
    states.append(s)
    s, _ = all_knock(position(*LOW3))
    states.append(s)
    s, _ = all_knock(position(["7H 8C 9D", "KS QS 7C"], "8H 9S 10D", coins=(0, 2), pot=4))
    states.append(s)
    states.append(position(["7H 8C 9D", "", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S",
                           coins=(3, 0, 3, 3), pot=3))
    for state in states:
        text = S.to_json(state)
        assert S.from_json(text) == state
        assert S.to_json(S.from_json(text)) == text


@pytest.mark.parametrize("text", ["", "not json", "{}", '{"game": "scat"}', '{"game": "schwimmen"}'])
def test_from_json_rejects_garbage(text):
    with pytest.raises(GameError):
        S.from_json(text)


def test_hand_value_refuses_cards_outside_the_deck_and_duplicates():
    """Issue 17, item 14 (from the rules audits): like Scat, ``hand_value`` takes only three
    different cards of the 32-card deck; ``coins=True`` is no number of coins."""
    assert S.hand_value(parse_cards("AH KH QH")) == 31
    for bad in ("AH AH KH", "2H KH QH", "AH KH BJ"):
        with pytest.raises(GameError):
            S.hand_value(parse_cards(bad))
    for coins in (True, 0, 10, "3"):
        with pytest.raises(GameError):
            S.new_game(3, {"coins": coins}, seed=1)
