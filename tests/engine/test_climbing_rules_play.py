"""Climbing game: one test per rule and decision of docs/rules-climbing.md.

This module: the first play, beating, passing and leading.

Positions are built by hand from a freshly dealt game with ``State._replace``; deals with
chosen hands replace the shuffle (``deal_with``). Every test asserts concrete outcomes.
The helpers are in ``tests/engine/climbing_positions.py``.
"""

from __future__ import annotations

import pytest

from engine import GameError
from engine import climbing as C
from engine.protocol import EXCHANGE, TURN
from tests.engine.climbing_positions import (
    after_round,
    assert_illegal,
    cards,
    codes,
    deal_with,
    kinds,
    play,
    position,
)

# ---------------------------------------------------------------------------------------------
# the first play


def test_rule_first_round_holder_of_three_of_spades_starts():
    for seed in range(15):
        state = C.new_game(4, seed=seed)
        holder = next(s for s in range(4) if C.THREE_OF_SPADES in state.hands[s])
        assert state.phase == TURN
        assert state.to_act == holder == state.leader
        assert state.opening
        assert state.exchange is None


def test_rule_first_play_must_include_three_of_spades():
    state = position(["3S 3H 4C 5D 6S 7H 9C", "8C", "8D", "8H"], opening=True)
    legal = C.legal_actions(state)
    assert legal and all(C.THREE_OF_SPADES in a.cards for a in legal)
    assert C.PASS not in legal
    assert_illegal(state, "4C", "3♠")
    assert_illegal(state, "3H", "3♠")
    new, events = C.apply(state, "3S")
    assert not new.opening
    assert events[0].kind == "play" and events[0].data["cards"] == ["3S"]


def test_rule_first_play_three_of_spades_in_a_pair_or_triple_or_four():
    state = position(["3C 3S 3H 3D 9C", "8C", "8D", "8H"], opening=True)
    legal = codes(C.legal_actions(state))
    assert "3C+3S" in legal and "3S+3H" in legal and "3C+3S+3H" in legal
    assert "3C+3S+3H+3D" in legal
    assert "3C+3H" not in legal  # a pair without 3♠
    new, _ = C.apply(state, "3S+3H")
    assert new.table.kind == "pair"


def test_rule_first_play_three_of_spades_in_a_straight():
    state = position(["AC 2D 3S 4H 5C 6D 7S", "8C", "8D", "8H"], opening=True)
    legal = codes(C.legal_actions(state))
    assert "sA.CDSHC" in legal  # A-2-3-4-5
    assert "s2.DSHCD" in legal  # 2-3-4-5-6
    assert "s3.SHCDS" in legal  # 3-4-5-6-7
    new, _ = C.apply(state, "s3.SHCDS")
    assert new.table.kind == "straight" and new.hands[0] == cards("AC 2D")


def test_rule_three_of_spades_duty_only_in_the_first_round(monkeypatch):
    state = after_round((1, 2, 3, 0))
    new, _ = deal_with(monkeypatch, state, {})
    assert not new.opening
    if new.phase == EXCHANGE:
        new, _ = C.apply(new, C.legal_actions(new)[0])
    legal = C.legal_actions(new)
    assert any(C.THREE_OF_SPADES not in a.cards for a in legal)


# ---------------------------------------------------------------------------------------------
# beating


def test_rule_beat_same_kind_same_number_higher_rank():
    state = position(["6C 6S 7C 7S 7H 9D 3C 4D 5H 6H 8S", "KH", "KD", "KS"], table="5C+5D",
                     owner=3)
    assert_illegal(state, "9D", "pair")
    assert_illegal(state, "7C+7S+7H", "pair")
    assert_illegal(state, "s3.CDHHH", "pair")
    new, events = C.apply(state, "6C+6S")
    assert new.table.code == "6C+6S" and new.owner == 0
    low = position(["4C 4S 5H 5S", "KH", "KD", "KS"], table="5C+5D", owner=3)
    assert_illegal(low, "4C+4S", "not higher")
    assert_illegal(low, "5S+5H", "not higher")  # the same rank is not enough


def test_rule_straight_beaten_only_by_exactly_one_higher():
    hand = "4C 5C 6C 7C 8C 9C 10C JC"
    state = position([hand, "KH", "KD", "KS"], table="s3.SHSHSH", owner=3)  # 3-8
    legal = codes(C.legal_actions(state))
    assert legal == ["s4.CCCCCC", "pass"]  # only 4-9
    assert_illegal(state, "s5.CCCCCC", "exactly one higher")  # 5-10
    assert_illegal(state, "s4.CCCCC", "straight of 6")  # 4-8 is shorter
    assert_illegal(state, "s4.CCCCCCC", "straight of 6")  # 4-10 is longer


def test_option_straight_any_higher_of_the_same_length():
    hand = "4C 5C 6C 7C 8C 9C 10C JC"
    state = position([hand, "KH", "KD", "KS"], table="s3.SHSHSH", owner=3,
                     options=(("straight_step", "any"),))
    assert state.straight_step == "any"
    assert codes(C.legal_actions(state)) == ["s4.CCCCCC", "s5.CCCCCC", "s6.CCCCCC", "pass"]
    assert_illegal(state, "s4.CCCCC", "straight of 6")
    assert C.beats(C.classify(cards("5C 6C 7C 8C 9C")), C.classify(cards("3C 4D 5D 6D 7D")),
                   "any")
    assert not C.beats(C.classify(cards("5C 6C 7C 8C 9C")),
                       C.classify(cards("3C 4D 5D 6D 7D")), "exact")


def test_option_straight_step_default_exact_and_validated():
    assert C.new_game(4, seed=1).straight_step == "exact"
    assert C.new_game(4, {"straight_step": "any"}, seed=1).straight_step == "any"
    with pytest.raises(GameError):
        C.new_game(4, {"straight_step": "sometimes"}, seed=1)
    with pytest.raises(GameError):
        C.new_game(4, {"jokers": 3}, seed=1)


@pytest.mark.parametrize("table", ["RJ", "BJ", "2C+2D", "AC+AS+AH", "s10.CCCCC",
                                   "s5.CCCCCCCCC"])
def test_rule_four_of_a_kind_beats_any_non_four_jokers_included(table):
    assert not set(C.parse_action(table).cards) & set(cards("3C 3S 3H 3D"))
    state = position(["3C 3S 3H 3D", "9H", "9D", "9S"], table=table, owner=2)
    assert "3C+3S+3H+3D" in codes(C.legal_actions(state))
    new, _ = C.apply(state, "3C+3S+3H+3D")
    assert new.table.kind == "four" and new.owner == 0


def test_rule_higher_four_beats_lower_four_only():
    state = position(["5C 5S 5H 5D 3C 3S 3H 9D", "KH", "KD", "KS"], table="4C+4S+4H+4D",
                     owner=1)
    assert codes(C.legal_actions(state)) == ["5C+5S+5H+5D", "pass"]
    assert_illegal(state, "3C+3S+3H", "higher four")
    assert_illegal(state, "9D", "higher four")
    high = position(["3C 3S 3H 3D", "KH", "KD", "KS"], table="4C+4S+4H+4D", owner=1)
    assert_illegal(high, "3C+3S+3H+3D", "higher four")


# ---------------------------------------------------------------------------------------------
# passing and leading


def test_rule_pass_is_always_allowed_when_a_play_is_on_the_table():
    state = position(["2C 2S", "3C", "3D", "3H"], table="KC+KS", owner=3)
    assert "pass" in codes(C.legal_actions(state))  # even though 2-2 would beat it
    new, events = C.apply(state, "pass")
    assert kinds(events) == ["pass"]
    assert new.to_act == 1 and new.passed[0]


def test_decision_the_leader_cannot_pass():
    state = position(["2C 2S", "3C", "3D", "3H"])
    assert "pass" not in codes(C.legal_actions(state))
    assert_illegal(state, "pass", "you lead")


def test_rule_passed_player_may_play_again_later_in_the_same_trick():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, _ = play(state, "pass", "4C", "6C", "8C")  # seat 0 passed, the others went on
    assert state.to_act == 0 and state.table.code == "8C"
    state, events = C.apply(state, "9C")  # back in the same trick
    assert events[0].kind == "play" and state.owner == 0


def test_rule_all_others_pass_the_last_player_leads_anew():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, events = play(state, "9C", "pass", "pass", "pass")
    assert kinds(events)[-2:] == ["pass", "trick"]
    assert events[-1].seat == 0 and events[-1].data["leader"] == 0
    assert state.to_act == 0 and state.table is None and state.owner is None
    assert state.passed == (False,) * 4
    assert "pass" not in codes(C.legal_actions(state))


def test_decision_players_who_are_out_do_not_count_when_all_pass():
    # seat 2 is out; seats 3 and 1 passing after seat 0's play is "all others"
    state = position(["9C 10C", "4C 5C", "", "8C JC"], table="3C", owner=1, to_act=3,
                     out_order=(2,))
    state, events = play(state, "8C", "9C", "pass", "pass")
    assert kinds(events)[-1] == "trick"
    assert state.to_act == 0 and state.table is None


def test_rule_player_who_went_out_the_next_player_holding_cards_leads():
    state = position(["9C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, events = C.apply(state, "9C")  # seat 0 goes out with its play
    assert events[0].data["out"] == 1 and state.out_order == (0,)
    assert state.to_act == 1  # the others may still beat it
    state, events = play(state, "pass", "pass", "pass")
    trick = events[-1]
    assert trick.kind == "trick" and trick.seat == 0 and trick.data["leader"] == 1
    assert state.to_act == 1 and state.table is None


def test_rule_went_out_the_next_holding_cards_skips_players_already_out():
    state = position(["9C", "", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0,
                     out_order=(1,))
    state, _ = play(state, "9C", "pass", "pass")
    assert state.to_act == 2 and state.table is None


def test_rule_the_turn_skips_players_who_are_out():
    state = position(["9C 10C", "", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0,
                     out_order=(1,))
    state, _ = C.apply(state, "9C")
    assert state.to_act == 2
