"""Schwimmen: one test per rule and decision of docs/rules-schwimmen.md.

This module: players, deck, values, the deal and the start player.

Positions are built by hand from a freshly dealt game with ``State._replace``; every test
asserts concrete outcomes (phase, seat on turn, losers, coins, pot, events).
The helpers are in ``tests/engine/schwimmen_positions.py``.
"""

from __future__ import annotations

import pytest

from engine import GAMES, GameError
from engine import schwimmen as S
from engine.cards import parse_cards
from engine.protocol import PAYOUT, TURN
from tests.engine.schwimmen_positions import LOW4, all_knock, kinds, position, value

# ---------------------------------------------------------------------------------------------
# players, deck, values


def test_rule_registered_as_schwimmen():
    assert GAMES["schwimmen"] is S
    assert S.GAME_ID == "schwimmen"


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rule_two_to_four_players(seats):
    state = S.new_game(seats, seed=1)
    assert state.seats == seats
    assert len(state.hands) == seats
    assert (S.MIN_SEATS, S.MAX_SEATS) == (2, 4)


@pytest.mark.parametrize("seats", [0, 1, 5, 6, -2, "3", 2.0, None])
def test_rule_two_to_four_players_only(seats):
    with pytest.raises(GameError, match="2 to 4"):
        S.new_game(seats, seed=1)


def test_rule_deck_32_cards_seven_to_ace():
    assert len(S.DECK) == 32
    assert len(set(S.DECK)) == 32
    assert {c.rank for c in S.DECK} == set(range(7, 15))
    assert sorted(c.suit for c in S.DECK) == [s for s in range(4) for _ in range(8)]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("7H 8H 9H", 24),  # 7, 8, 9 face value
        ("10H JH QH", 30),  # 10, J, Q = 10 each
        ("KH 7H 8H", 25),  # K = 10
        ("AH 7H 8H", 26),  # A = 11
        ("AS 9S 7S", 27),
        ("KD 10D 9D", 29),
    ],
)
def test_rule_card_values_ace_11_pictures_and_ten_10_else_face(hand, expected):
    assert value(hand) == expected


def test_rule_card_values_table():
    expected = {7: 7, 8: 8, 9: 9, 10: 10, 11: 10, 12: 10, 13: 10, 14: 11}
    for c in S.DECK:
        assert S.CARD_VALUE[c.id] == expected[c.rank]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AH KS QC", 11),  # three suits: the best single card
        ("7H 8S 9C", 9),
        ("AH 7H KS", 18),  # two hearts (18) beat the lone king (10)
        ("9H 7H AS", 16),  # 16 in hearts beats the ace of spades (11)
        ("7C 7D AS", 11),  # two sevens of clubs/diamonds are different suits
        ("KH QH 7S", 20),
        ("10D JD QS", 20),
        ("AH KH 7H", 28),
        ("8S 8C 9S", 17),  # a pair counts nothing special
    ],
)
def test_rule_hand_value_best_single_suit_sum(hand, expected):
    assert value(hand) == expected


@pytest.mark.parametrize("rank", ["7", "8", "9", "10", "J", "Q", "K", "A"])
def test_rule_three_of_a_rank_is_thirty_and_a_half(rank):
    assert value(f"{rank}H {rank}S {rank}D") == 30.5
    assert value(f"{rank}C {rank}S {rank}D") == 30.5


def test_rule_aces_trio_is_thirty_and_a_half_not_33():
    assert value("AH AS AD") == 30.5
    assert value("AC AS AD") == 30.5
    # ... and it loses against a real 31 reached by a swap
    state = position(["AH AS AD", "KC QC 7D"], "AC 8H 9H", to_act=1)
    state, _ = S.apply(state, "swap.7D.AC")
    assert state.phase == PAYOUT
    assert state.result.losers == (0,)
    assert state.result.values2 == (61, 62)


@pytest.mark.parametrize("suit", ["C", "S", "H", "D"])
@pytest.mark.parametrize("tens", [("K", "Q"), ("10", "J"), ("K", "10"), ("Q", "J")])
def test_rule_31_is_ace_plus_two_ten_valued_cards_of_one_suit(suit, tens):
    assert value(f"A{suit} {tens[0]}{suit} {tens[1]}{suit}") == 31


def test_rule_31_only_in_one_suit():
    assert value("AH KH QS") == 21
    assert value("AH KS QC") == 11


def test_rule_order_31_beats_trio_beats_30():
    assert value("AH KH QH") > value("7H 7S 7C") > value("10D JD QD") > value("KD QD 9D")
    # showdown: 30½, 30, 29 -> the 29 loses
    state = position(["AC AD AH", "10S JS QS", "KH QH 9H"], "7C 8C 9C")
    state, _ = all_knock(state)
    assert state.result.values2 == (61, 60, 58)
    assert state.result.losers == (2,)
    # showdown: 30½ against 30 -> the 30 loses
    state = position(["9C 9D 9H", "10S JS QS"], "7C 8C 7D")
    state, _ = all_knock(state)
    assert state.result.losers == (1,)


def test_hand_value_needs_three_cards():
    with pytest.raises(GameError):
        S.hand_value(parse_cards("AH KH"))
    with pytest.raises(GameError):
        S.hand_value(parse_cards("AH KH QH JH"))


def test_hand_value_type_whole_or_half():
    assert value("AH KH QH") == 31 and isinstance(value("AH KH QH"), int)
    assert S.format_value(62) == "31"
    assert S.format_value(61) == "30½"


# ---------------------------------------------------------------------------------------------
# deal and start player


def _shuffled_deck(seed: int, round_no: int) -> list:
    # White box: the engine shuffles the 32-card deck with _rng(seed, round_no) for each round.
    deck = list(S.DECK)
    S._rng(seed, round_no).shuffle(deck)
    return deck


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 17, 123456789])
def test_rule_deal_round_robin_three_each_then_three_middle(seats, seed):
    state = S.new_game(seats, seed=seed)
    deck = _shuffled_deck(seed, 1)
    order = [(state.starter + i) % seats for i in range(seats)]
    for i, seat in enumerate(order):  # one card at a time, round-robin, from the start player
        assert state.hands[seat] == (deck[i], deck[i + seats], deck[i + 2 * seats])
    assert state.middle == tuple(deck[3 * seats:3 * seats + 3])  # then three face up
    # the rest of the deck is not used: exactly 3n + 3 distinct cards are out
    out = [c for h in state.hands for c in h] + list(state.middle)
    assert len(set(out)) == 3 * seats + 3


def test_rule_deal_only_to_active_players():
    state = position(LOW4[0], LOW4[1])._replace(
        phase=PAYOUT, to_act=None, starter=3, out=(False, True, False, False),
        coins=(3, 0, 3, 3), pot=3)
    state, events = S.apply(state, "deal")
    assert state.hands[1] == ()
    assert state.starter == 0  # next active after seat 3
    deck = _shuffled_deck(state.seed, state.round_no)
    order = [0, 2, 3]
    for i, seat in enumerate(order):
        assert state.hands[seat] == (deck[i], deck[i + 3], deck[i + 6])
    assert state.middle == tuple(deck[9:12])
    assert events[0].kind == "deal"
    assert events[0].data["starter"] == 0


def test_rule_start_player_random_first_round_then_next_active():
    # first round: random, depends only on the seed, covers every seat
    for seats in (2, 3, 4):
        starters = [S.new_game(seats, seed=s).starter for s in range(400)]
        counts = [starters.count(seat) for seat in range(seats)]
        assert min(counts) > 400 / seats / 2, counts
        assert [S.new_game(seats, seed=s).starter for s in range(20)] == starters[:20]
    for seed in range(30):
        state = S.new_game(4, seed=seed)
        if state.phase == TURN:
            assert state.to_act == state.starter
    # later rounds: the next active player after the previous start player, in seat order
    state = position(LOW4[0], LOW4[1], to_act=2)
    assert state.starter == 2
    state, _ = all_knock(state)
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert state.starter == 3
    assert state.round_no == 2
    if state.phase == TURN:
        assert state.to_act == 3
    # wraps around from the last seat to seat 0
    state = state._replace(phase=PAYOUT, to_act=None, starter=3)
    state, _ = S.apply(state, "deal")
    assert state.starter == 0
    # skips eliminated players
    state = state._replace(phase=PAYOUT, to_act=None, starter=3,
                           out=(True, True, False, False), coins=(0, 0, 3, 3), pot=6)
    state, _ = S.apply(state, "deal")
    assert state.starter == 2


def _dealt_31_seed(seats: int) -> int:
    for seed in range(10_000):
        if S.new_game(seats, seed=seed).phase == PAYOUT:
            return seed
    raise AssertionError("no dealt 31 found")


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rule_31_after_deal_ends_round_before_any_move(seats):
    seed = _dealt_31_seed(seats)
    state = S.new_game(seats, seed=seed)
    assert state.phase == PAYOUT
    assert state.to_act is None
    assert state.turns == 0
    assert S.legal_actions(state) == (S.DEAL,)
    r = state.result
    assert r.reason == "dealt_31"
    assert r.thirty_one is not None
    assert S.hand_value(state.hands[r.thirty_one]) == 31
    assert r.values2[r.thirty_one] == 62
    lowest = min(r.values2)
    assert r.losers == tuple(s for s in range(seats) if r.values2[s] == lowest)
    assert state.pot == len(r.losers)
    assert sum(state.coins) + state.pot == 3 * seats


def test_rule_31_after_deal_by_the_deal_action():
    for seed in range(5000):
        start = S.new_game(4, seed=seed)
        if start.phase != TURN:
            continue
        state, events = S.apply(start._replace(phase=PAYOUT, to_act=None), "deal")
        if state.phase == PAYOUT:
            break
    else:
        raise AssertionError("no dealt 31 found")
    assert kinds(events) == ["deal", "showdown", "payout"]
    assert state.turns == 0 and state.to_act is None
    assert state.result.reason == "dealt_31"
    assert events[1].data["reason"] == "dealt_31"
    assert events[1].seat == state.result.thirty_one
