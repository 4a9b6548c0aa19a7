"""Scat / Einunddreißig: one test per rule and decision of docs/rules-scat.md.

This module: players, deck, values, tokens, dealer and the deal.

Positions are built by hand with ``State._replace``; deals are rigged by replacing the per-round
RNG (``S._rng``) with one whose shuffle lays out a chosen deck. Every test asserts concrete
outcomes (phase, seat on turn, losers, tokens, events).
The helpers are in ``tests/engine/scat_positions.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import GAMES, GameError
from engine import scat as S
from engine.cards import parse_cards
from engine.protocol import TURN
from tests.engine.scat_positions import LOW, between_rounds, check_cards, play, position, value

# ---------------------------------------------------------------------------------------------
# players, deck, values


def test_rule_registered_as_scat():
    assert GAMES["scat"] is S
    assert S.GAME_ID == "scat"
    from chatbot.presenters import PRESENTERS
    assert PRESENTERS["scat"].GAME_ID == "scat"
    from engine.bots import levels_for
    assert levels_for("scat") == ["anfaenger", "normal", "experte"]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6, 7])
def test_rule_two_to_seven_players(seats):
    state = S.new_game(seats, seed=3)
    assert state.seats == seats
    assert state.players == tuple(range(seats))
    assert (S.MIN_SEATS, S.MAX_SEATS) == (2, 7)


@pytest.mark.parametrize("seats", [0, 1, 8, -2, "3", 2.0, None, True])
def test_rule_two_to_seven_players_only(seats):
    with pytest.raises(GameError, match="2 to 7"):
        S.new_game(seats, seed=1)


def test_rule_deck_52_cards_no_jokers():
    assert len(S.DECK) == 52 and len(set(S.DECK)) == 52
    assert not any(c.is_joker for c in S.DECK)
    assert {c.rank for c in S.DECK} == set(range(2, 15))
    with pytest.raises(GameError, match="jokers"):
        S.hand_value(parse_cards("BJ AH KH"))


def test_rule_card_values_ace_11_pictures_10_else_face():
    expected = {2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10, 11: 10, 12: 10, 13: 10,
                14: 11}
    for c in S.DECK:
        assert S.CARD_VALUE[c.id] == expected[c.rank]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("2H 3H 4H", 9),
        ("10H JH QH", 30),
        ("AH 7H 8H", 26),
        ("AH KS QC", 11),  # three suits: the best single card
        ("AH 7H KS", 18),  # two hearts beat the lone king
        ("2C 3D 4S", 4),
        ("9H 7H AS", 16),
        ("8S 8C 9S", 17),  # a pair is nothing special
    ],
)
def test_rule_hand_value_best_single_suit_sum(hand, expected):
    assert value(hand) == expected


@pytest.mark.parametrize("suit", ["C", "S", "H", "D"])
@pytest.mark.parametrize("tens", [("K", "Q"), ("10", "J"), ("K", "10"), ("Q", "J")])
def test_rule_31_is_ace_plus_two_ten_valued_cards_of_one_suit(suit, tens):
    assert value(f"A{suit} {tens[0]}{suit} {tens[1]}{suit}") == 31


@pytest.mark.parametrize("rank", ["2", "7", "10", "K", "A"])
def test_rule_trio_is_thirty_and_a_half(rank):
    assert value(f"{rank}H {rank}S {rank}D") == 30.5
    assert value("AH KH QH") > value(f"{rank}C {rank}S {rank}D") > value("10D JD QD")


def test_rule_trio_bonus_in_the_showdown():
    state = position(["2H 2S 2D", "10S JS QS", "KH QH 9H"], to_act=0)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (61, 60, 58)
    assert state.result.losers == (2,)


def test_rule_option_no_trio_bonus():
    assert value("2H 2S 2D", trio=False) == 2
    assert value("AH AS AD", trio=False) == 11
    assert value("AH KH QH", trio=False) == 31
    state = position(["2H 2S 2D", "10S JS QS", "KH QH 9H"], to_act=0,
                     options={"trio_bonus": False})
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (4, 60, 58)
    assert state.result.losers == (0,)
    assert state.lives[0] == 1  # the knocker, strictly lowest, loses two


def test_hand_value_needs_three_or_four_cards():
    for bad in ("AH KH", "AH KH QH JH 10H", "AH AH KH"):
        with pytest.raises(GameError):
            S.hand_value(parse_cards(bad))
    assert value("AH KH QH") == 31 and isinstance(value("AH KH QH"), int)
    assert S.format_value(62) == "31" and S.format_value(61) == "30½"


# ---------------------------------------------------------------------------------------------
# tokens, dealer, deal


@pytest.mark.parametrize("seats", [2, 5, 7])
def test_rule_three_tokens_each(seats):
    state = S.new_game(seats, seed=11)
    if state.phase == TURN:
        assert state.lives == (3,) * seats
    assert S.LIVES == 3
    assert state.out == (False,) * seats


def test_rule_first_dealer_random_player_left_of_dealer_starts():
    for seats in (2, 4, 7):
        dealers = [S.new_game(seats, seed=s).dealer for s in range(500)]
        counts = Counter(dealers)
        assert set(counts) == set(range(seats))
        assert min(counts.values()) > 500 / seats / 2, counts
        assert [S.new_game(seats, seed=s).dealer for s in range(20)] == dealers[:20]
    for seed in range(40):
        state = S.new_game(5, seed=seed)
        if state.phase == TURN:
            assert state.to_act == (state.dealer + 1) % 5


@pytest.mark.parametrize("seats", [2, 4, 7])
@pytest.mark.parametrize("seed", [0, 17, 123456789])
def test_rule_deal_three_each_one_at_a_time_then_discard_then_stock(seats, seed):
    state = S.new_game(seats, seed=seed)
    deck = list(S.DECK)
    S._rng(seed, 1).shuffle(deck)  # white box: the round's deck
    starter = (state.dealer + 1) % seats
    order = [(starter + i) % seats for i in range(seats)]
    for i, seat in enumerate(order):
        assert state.hands[seat] == (deck[i], deck[i + seats], deck[i + 2 * seats])
    assert state.discard == (deck[3 * seats],)  # the next card face up
    assert state.stock == tuple(deck[3 * seats + 1:])  # the rest is the stock
    assert len(state.stock) == 52 - 3 * seats - 1
    check_cards(state)


def test_rule_deal_rotates_clockwise_player_left_of_dealer_starts():
    state = between_rounds(position(list(LOW[:4])), dealer=1)
    state, events = S.apply(state, "deal")
    assert state.dealer == 2 and state.to_act == 3
    assert events[0].kind == "deal"
    assert events[0].data["dealer"] == 2 and events[0].data["starter"] == 3
    state, _ = S.apply(between_rounds(state, state.dealer), "deal")
    assert state.dealer == 3 and state.to_act == 0  # wraps around
    state, _ = S.apply(between_rounds(state, state.dealer), "deal")
    assert state.dealer == 0 and state.to_act == 1


def test_rule_deal_skips_eliminated_players():
    state = between_rounds(position(["5H 6C 7D", "", "3C 4S 6H", "7C 8D 2S"]), dealer=0)
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 2, 3)
    assert state.dealer == 2 and state.to_act == 3
    assert state.hands[1] == ()
    assert len(state.stock) == 52 - 9 - 1
    state, _ = S.apply(between_rounds(state, 0), "deal")
    assert state.dealer == 2  # seat 1 is out: the deal passes from 0 to 2
