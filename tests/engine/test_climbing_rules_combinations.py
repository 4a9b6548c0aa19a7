"""Climbing game: one test per rule and decision of docs/rules-climbing.md.

This module: players, deck, deal, ranks and combinations.

Positions are built by hand from a freshly dealt game with ``State._replace``; deals with
chosen hands replace the shuffle (``deal_with``). Every test asserts concrete outcomes.
The helpers are in ``tests/engine/climbing_positions.py``.
"""

from __future__ import annotations

import pytest

from engine import GAMES, GameError, IllegalAction
from engine import climbing as C
from tests.engine.climbing_positions import after_round, cards

# ---------------------------------------------------------------------------------------------
# players, deck, deal


def test_rule_registered_as_climbing():
    assert GAMES["climbing"] is C
    assert C.GAME_ID == "climbing"


def test_rule_exactly_four_players():
    assert (C.MIN_SEATS, C.MAX_SEATS) == (4, 4)
    assert C.new_game(4, seed=3).seats == 4
    for seats in (2, 3, 5, 0, "4", None, True):
        with pytest.raises(GameError, match="exactly 4"):
            C.new_game(seats, seed=3)


def test_rule_deck_52_plus_two_jokers_all_dealt():
    assert len(C.DECK) == 54 and len(set(C.DECK)) == 54
    assert [c.code for c in C.DECK if c.is_joker] == ["BJ", "RJ"]
    for seed in range(20):
        state = C.new_game(4, seed=seed)
        dealt = [c for h in state.hands for c in h]
        assert sorted(dealt) == sorted(C.DECK)


@pytest.mark.parametrize("seed", range(12))
def test_rule_first_two_from_the_dealers_left_get_14(seed):
    state = C.new_game(4, seed=seed)
    d = state.dealer
    sizes = [len(h) for h in state.hands]
    assert sizes[(d + 1) % 4] == sizes[(d + 2) % 4] == 14
    assert sizes[(d + 3) % 4] == sizes[d] == 13


def test_rule_dealer_rotates_to_the_left_each_round():
    state = after_round((0, 1, 2, 3), dealer=2)
    new, _ = C.apply(state, "deal")
    assert new.dealer == 3
    assert new.round_no == state.round_no + 1


def test_rule_first_dealer_comes_from_the_seed():
    dealers = {C.new_game(4, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert C.new_game(4, seed=99).dealer == C.new_game(4, seed=99).dealer


# ---------------------------------------------------------------------------------------------
# ranks and combinations


def test_rule_rank_order_3_to_2_then_black_then_red_joker():
    order = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "2C", "BJ", "RJ"]
    for low, high in zip(order, order[1:], strict=False):
        lo, hi = C.classify(cards(low)), C.classify(cards(high))
        assert C.beats(hi, lo) and not C.beats(lo, hi), (low, high)
    assert [C.RANK[c.id] for c in cards(" ".join(order))] == list(range(15))


def test_rule_suits_never_rank():
    assert not C.beats(C.classify(cards("7S")), C.classify(cards("7H")))
    assert not C.beats(C.classify(cards("7C 7S")), C.classify(cards("7H 7D")))


@pytest.mark.parametrize(("text", "kind", "rank", "length"), [
    ("7H", "single", 4, 1),
    ("BJ", "single", 13, 1),
    ("RJ", "single", 14, 1),
    ("7H 7S", "pair", 4, 2),
    ("2C 2D", "pair", 12, 2),
    ("QC QS QD", "triple", 9, 3),
    ("3C 3S 3H 3D", "four", 0, 4),
    ("3H 4S 5C 6D 7H", "straight", 7, 5),
    ("9D 10D JD QD KD AD", "straight", 14, 6),
])
def test_rule_combinations_single_pair_triple_four_straight(text, kind, rank, length):
    combo = C.classify(cards(text))
    assert combo is not None
    assert (combo.kind, combo.rank, combo.length) == (kind, rank, length)
    assert set(combo.cards) == set(cards(text))


@pytest.mark.parametrize("text", ["7H 8H", "7H 7S 8H", "3C 4C 5C 6C", "7H 7S 7C 8D",
                                  "3C 4C 5C 6C 8C", "3C 4C 5C 6C 6D", ""])
def test_rule_other_card_sets_are_no_combination(text):
    assert C.classify(cards(text)) is None


def test_rule_straight_five_or_more_in_any_suits():
    assert C.classify(cards("3H 4S 5C 6D")) is None
    assert C.classify(cards("3H 4S 5C 6D 7H")).kind == "straight"
    assert C.classify(cards("3H 4H 5H 6H 7H 8H 9H 10H")).length == 8
    assert C.classify(cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC")).length == 13


def test_rule_straight_ace_high_10_j_q_k_a_is_the_highest():
    top = C.classify(cards("10H JS QC KD AH"))
    assert top.kind == "straight" and top.rank == 14
    assert top.cards[-1].code == "AH"
    for low in range(1, 10):
        assert C.beats(top, C.Combo("straight", low + 4, 5, ()), "any")
    assert C.classify(cards("JH QS KC AD 2H")) is None  # nothing above the ace


def test_rule_straight_ace_low_as_1_with_the_2():
    low = C.classify(cards("AH 2S 3C 4D 5H"))
    assert (low.kind, low.rank) == ("straight", 5)
    assert [c.code for c in low.cards] == ["AH", "2S", "3C", "4D", "5H"]
    two = C.classify(cards("2S 3C 4D 5H 6H"))
    assert (two.kind, two.rank) == ("straight", 6)
    assert C.beats(two, low)  # 2-6 is exactly one above A-5
    assert C.beats(C.classify(cards("3C 4D 5H 6H 7S")), two)


@pytest.mark.parametrize("text", [
    "QH KS AC 2D 3H",  # wraps past the ace
    "KH AS 2C 3D 4H",
    "AH 2S 3C 4D 5H 6H 7H 8H 9H 10H JH QH KH AS",  # (two aces: not a straight)
    "AH 3S 4C 5D 6H",  # a low ace needs the 2
])
def test_rule_straight_no_wrap_around(text):
    assert C.classify(cards(text)) is None


def test_rule_straight_with_a_two_counts_the_ace_low():
    # 2 counts only as 2, so a straight holding a 2 and an ace runs A-2-3-…: never …-K-A-2
    long = C.classify(cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC"))
    assert (long.kind, long.rank, long.length) == ("straight", 13, 13)
    assert long.cards[0].code == "AC" and long.cards[-1].code == "KC"


def test_rule_jokers_are_singles_only():
    assert C.classify(cards("BJ")).kind == "single"
    assert C.classify(cards("BJ RJ")) is None
    assert C.classify(cards("10H JS QC KD BJ")) is None
    assert C.classify(cards("JH QS KC AD RJ")) is None
    assert C.play_for(cards("BJ RJ")) is None
    with pytest.raises(IllegalAction):
        C.parse_action("BJ+RJ")
    # as singles they are the highest: a joker beats a 2, the red one beats the black one
    assert C.beats(C.classify(cards("BJ")), C.classify(cards("2S")))
    assert C.beats(C.classify(cards("RJ")), C.classify(cards("BJ")))
