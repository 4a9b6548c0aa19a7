"""Schwimmen: one test per rule and decision of docs/rules-schwimmen.md.

This module: the turn, passing, knocking and 31.

Positions are built by hand from a freshly dealt game with ``State._replace``; every test
asserts concrete outcomes (phase, seat on turn, losers, coins, pot, events).
The helpers are in ``tests/engine/schwimmen_positions.py``.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine import schwimmen as S
from engine.cards import parse_cards
from engine.protocol import FINAL_ROUND, PAYOUT, TURN
from tests.engine.schwimmen_positions import (
    LOW3,
    LOW4,
    _base,
    assert_illegal,
    kinds,
    play,
    position,
)

# ---------------------------------------------------------------------------------------------
# the turn


def test_rule_turn_is_exactly_one_of_swap_one_swap_all_pass_knock():
    state = position(*LOW3)
    legal = S.legal_actions(state)
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "pass": 1, "knock": 1}
    swaps = {(a.give.code, a.take.code) for a in legal if a.kind == "swap"}
    assert swaps == {(g, t) for g in ("7H", "8C", "9D") for t in ("7C", "8D", "9S")}
    assert {a.code for a in legal} >= {"all", "pass", "knock", "swap.7H.9S"}
    for action in legal:
        new, events = S.apply(state, action)
        assert new.to_act == 1  # one move, then the next player
        assert new.turns == 1
        assert len(events) == 1
        assert events[0].seat == 0


def test_rule_swap_one_exchanges_one_hand_card_with_one_middle_card():
    state = position(*LOW3)
    new, events = S.apply(state, "swap.8C.9S")
    assert set(new.hands[0]) == set(parse_cards("7H 9S 9D"))
    assert set(new.middle) == set(parse_cards("7C 8D 8C"))
    assert new.hands[1:] == state.hands[1:]
    assert events == [engine.Event("swap", 0, {"give": "8C", "take": "9S"})]
    assert new.phase == TURN and new.to_act == 1
    # the action object works as well as its code
    again, _ = S.apply(state, S.swap(*parse_cards("8C 9S")))
    assert again == new


def test_rule_swap_all_takes_middle_and_lays_hand_as_new_middle():
    state = position(*LOW3)
    new, events = S.apply(state, "all")
    assert set(new.hands[0]) == set(parse_cards("7C 8D 9S"))
    assert set(new.middle) == set(parse_cards("7H 8C 9D"))
    assert new.hands[1:] == state.hands[1:]
    assert events[0].kind == "swap_all"
    assert set(events[0].data["take"]) == {"7C", "8D", "9S"}
    assert set(events[0].data["give"]) == {"7H", "8C", "9D"}
    assert new.to_act == 1


# ---------------------------------------------------------------------------------------------
# passing


def test_rule_pass_at_most_once_per_round():
    state = position(*LOW3)
    state, events = S.apply(state, "pass")
    assert events == [engine.Event("pass", 0, {})]
    assert state.passed == (True, False, False)
    assert state.to_act == 1
    state, _ = play(state, "swap.7S.9S", "swap.8H.7C")
    assert state.to_act == 0
    assert S.PASS not in S.legal_actions(state)
    assert_illegal(state, "pass", "already passed")


def test_rule_pass_allowed_again_in_next_round():
    state = position(*LOW3)
    state, _ = play(state, "pass", "pass", "pass", "knock", "knock", "knock")
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert state.passed == (False, False, False)
    if state.phase == TURN:
        assert S.PASS in S.legal_actions(state)


def test_rule_swap_does_not_restore_pass():
    state = position(*LOW3)
    state, _ = S.apply(state, "pass")
    rng = random.Random(3)
    for _ in range(20):  # seat 0 swaps (one or all) again and again: still no pass
        legal = [a for a in S.legal_actions(state) if a.kind in ("swap", "swap_all")]
        state, _ = S.apply(state, rng.choice(legal))
        if state.to_act == 0:
            assert state.passed[0]
            assert S.PASS not in S.legal_actions(state)
            assert_illegal(state, "pass", "already passed")
    assert state.phase == TURN


def test_rule_all_pass_in_a_row_first_passer_again_may_swap_or_knock_not_pass():
    state = position(*LOW3)
    state, _ = play(state, "pass", "pass", "pass")
    assert state.phase == TURN
    assert state.knocker is None
    assert state.to_act == 0  # the first passer
    legal = S.legal_actions(state)
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "knock": 1}
    assert_illegal(state, "pass", "already passed")
    # the row need not start with the start player
    state = position(*LOW3)
    state, _ = play(state, "swap.7H.7C", "pass", "pass", "pass")
    assert state.to_act == 1
    assert state.phase == TURN
    assert S.PASS not in S.legal_actions(state)
    # and the others, who passed too, may not pass again either
    state, _ = S.apply(state, "all")
    assert state.to_act == 2
    assert S.PASS not in S.legal_actions(state)


def test_rule_nothing_knocked_automatically():
    state = position(*LOW3)
    state, events = play(state, "pass", "pass", "pass")
    rng = random.Random(11)
    for _ in range(90):
        legal = [a for a in S.legal_actions(state) if a.kind != "knock"]
        assert S.PASS not in legal
        state, evs = S.apply(state, rng.choice(legal))
        events += evs
    assert state.phase == TURN
    assert state.knocker is None
    assert state.final_left == 0
    assert state.turns == 93
    assert "knock" not in kinds(events)
    assert "showdown" not in kinds(events)


# ---------------------------------------------------------------------------------------------
# knocking


def test_rule_knock_gives_every_other_player_exactly_one_last_turn():
    state = position(["7H 8C 9D", "AH KS QD", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S", to_act=1)
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 1, {})]
    assert state.phase == FINAL_ROUND
    assert state.knocker == 1
    assert state.final_left == 3
    assert state.to_act == 2
    state, _ = S.apply(state, "swap.7S.9S")
    assert (state.phase, state.to_act, state.final_left) == (FINAL_ROUND, 3, 2)
    state, _ = S.apply(state, "all")
    assert (state.phase, state.to_act, state.final_left) == (FINAL_ROUND, 0, 1)
    state, events = S.apply(state, "swap.7H.10H")
    assert kinds(events) == ["swap", "showdown", "payout"]
    assert state.phase == PAYOUT
    assert state.to_act is None
    r = state.result
    assert r.reason == "knock"
    assert r.thirty_one is None
    assert r.values2 == (20, 22, 20, 16)
    assert r.losers == (3,)
    assert state.coins == (3, 3, 3, 2)
    assert state.pot == 1
    assert state.turns == 4


def test_rule_no_pass_after_knock():
    state = position(*LOW3)
    state, _ = S.apply(state, "knock")
    assert not state.passed[1]
    legal = S.legal_actions(state)
    assert S.PASS not in legal
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "knock": 1}
    assert_illegal(state, "pass", "knock")


def test_rule_swap_one_or_all_allowed_in_final_turns():
    state = position(*LOW3)
    state, _ = play(state, "knock", "swap.10C.7C")
    assert set(state.hands[1]) == set(parse_cards("7C JD 7S"))
    assert state.phase == FINAL_ROUND
    state, _ = S.apply(state, "all")
    assert state.phase == PAYOUT
    assert set(state.result.hands[2]) == set(parse_cards("10C 8D 9S"))


def test_rule_knock_again_in_final_round_changes_nothing():
    state = position(*LOW3)
    state, _ = play(state, "swap.7H.7C", "knock")
    assert (state.knocker, state.final_left, state.to_act) == (1, 2, 2)
    before = state
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 2, {"again": True})]
    assert state.knocker == 1
    assert state.phase == FINAL_ROUND
    assert state.final_left == 1  # it was seat 2's one last turn, no extension
    assert state.to_act == 0
    assert state.hands == before.hands
    assert state.middle == before.middle
    state, events = S.apply(state, "knock")
    assert state.phase == PAYOUT
    assert kinds(events) == ["knock", "showdown", "payout"]


def test_rule_knocker_does_not_move_again():
    # two players: knock, one answer, showdown
    state = position(["7H 8C 9D", "10C JD 7S"], "7C 8D 9S")
    state, _ = S.apply(state, "knock")
    assert state.to_act == 1
    state, _ = S.apply(state, "swap.7S.9S")
    assert state.phase == PAYOUT
    assert state.to_act is None
    # four players, knocker in the middle of the order: the turns go round once, not to him
    state = position(*LOW4, to_act=2)
    state, _ = S.apply(state, "knock")
    seen = []
    while state.phase == FINAL_ROUND:
        seen.append(state.to_act)
        state, _ = S.apply(state, S.legal_actions(state)[0])
    assert seen == [3, 0, 1]
    assert state.phase == PAYOUT


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rule_knock_on_first_turn_allowed(seats):
    state = _base(seats)
    assert state.turns == 0
    assert S.KNOCK in S.legal_actions(state)
    starter = state.to_act
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", starter, {})]
    assert state.phase == FINAL_ROUND
    assert state.knocker == starter
    assert state.final_left == seats - 1


# ---------------------------------------------------------------------------------------------
# 31


def test_rule_31_by_swap_ends_round_at_once():
    state = position(["AH KH 7S", "8D 9D 7D", "10S JS 9S"], "QH 8C 9H")
    state, events = S.apply(state, "swap.7S.QH")
    assert kinds(events) == ["swap", "showdown", "payout"]
    assert state.phase == PAYOUT
    assert state.to_act is None
    assert state.turns == 1
    r = state.result
    assert r.reason == "31"
    assert r.thirty_one == 0
    assert events[1].seat == 0
    assert r.values2 == (62, 48, 58)
    assert r.losers == (1,)
    assert state.coins == (3, 2, 3)
    assert state.pot == 1


def test_rule_31_by_swap_ends_round_at_once_in_final_turns():
    state = position(["7H 8H 9H", "AS KS 7C", "10D JD 8C"], "QS 7D 9C")
    state, _ = S.apply(state, "knock")
    state, events = S.apply(state, "swap.7C.QS")
    assert state.phase == PAYOUT
    assert state.turns == 2  # seat 2 never had its last turn
    assert state.result.reason == "31"
    assert state.result.thirty_one == 1
    assert state.result.values2 == (48, 62, 40)
    assert state.result.losers == (2,)
    assert kinds(events) == ["swap", "showdown", "payout"]


@pytest.mark.parametrize("knock_first", [False, True])
def test_rule_31_by_swap_all_ends_round_at_once(knock_first):
    state = position(["7H 8C 9D", "7S 8S 9S", "10C JC 7D"], "AD KD 10D")
    if knock_first:
        state, _ = S.apply(state, "knock")
    state, events = S.apply(state, "all")
    assert kinds(events) == ["swap_all", "showdown", "payout"]
    assert state.phase == PAYOUT
    r = state.result
    assert r.reason == "31"
    assert r.thirty_one == (1 if knock_first else 0)
    expected_losers = (0,) if knock_first else (2,)
    assert r.losers == expected_losers


def test_rule_trio_does_not_end_round():
    state = position(["9H 9S 7C", "8D 10D 7D", "10S JS 7S"], "9C 8C 8H")
    state, events = S.apply(state, "swap.7C.9C")
    assert S.hand_value(state.hands[0]) == 30.5
    assert state.phase == TURN
    assert state.to_act == 1
    assert kinds(events) == ["swap"]
