"""Scat / Einunddreißig: one test per rule and decision of docs/rules-scat.md.

This module: four-card Scat, options, observation and JSON.

Positions are built by hand with ``State._replace``; deals are rigged by replacing the per-round
RNG (``S._rng``) with one whose shuffle lays out a chosen deck. Every test asserts concrete
outcomes (phase, seat on turn, losers, tokens, events).
The helpers are in ``tests/engine/scat_positions.py``.
"""

from __future__ import annotations

import pytest

from engine import GameError
from engine import scat as S
from engine.cards import parse_card
from engine.protocol import PAYOUT, TURN
from tests.engine.scat_positions import (
    LOW,
    between_rounds,
    deal_rigged,
    kinds,
    play,
    position,
    value,
)

# ---------------------------------------------------------------------------------------------
# four-card Scat


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AH KH QH JH", 41),
        ("AH KH QH 2C", 31),
        ("10H JH QH KH", 40),
        ("AH AS AD AC", 11),  # no trio bonus with four cards
        ("2H 2S 2D 9C", 9),
        ("AH 9H 2S 3S", 20),
    ],
)
def test_rule_four_card_scat_best_suit_sum_up_to_41(hand, expected):
    assert value(hand) == expected


def test_rule_four_card_scat_deal_and_blitz_at_41(monkeypatch):
    opts = {"four_cards": True}
    state = S.new_game(7, opts, seed=5)
    assert all(len(state.hands[s]) == 4 for s in range(7))
    assert len(state.discard) == 1 and len(state.stock) == 52 - 28 - 1
    # blitz at 41 right after drawing
    state = position(["AH KH QH 2C", "5S 6C 7D 8D", "8S 9H 2D 3D"], stock="JH", options=opts)
    state, events = S.apply(state, "draw")
    assert kinds(events) == ["draw", "blitz", "showdown", "payout"]
    assert events[1].data == {"when": "draw", "value": 41}
    assert state.result.values2[0] == 82 and state.lives == (3, 2, 2)
    # 31 is no blitz in four-card Scat
    state = position(["AH KH 2C 3D", "5S 6C 7D 8D", "8S 9H 2D 4D"], stock="QH", options=opts)
    state, _ = S.apply(state, "draw")
    assert state.phase == TURN and state.drawn == parse_card("QH")
    state, _ = S.apply(state, "drop.2C")
    assert S.hand_value(state.hands[0]) == 31 and state.phase == TURN
    # blitz at 41 after the deal
    state = between_rounds(position(["5H 6C 7D 8S", "9S 9H 2D 3D"], options=opts), dealer=1)
    state, _ = deal_rigged(monkeypatch, state, ["5S 6C 7D 8D", "AS KS QS JS"], "3C")
    assert state.result.reason == "dealt_blitz" and state.result.blitz == (1,)


# ---------------------------------------------------------------------------------------------
# options, observation, JSON


def test_options_defaults_and_validation():
    state = S.new_game(3, seed=1)
    assert dict(state.options) == {"no_first_turn_knock": True, "trio_bonus": True,
                                   "reentry": False, "four_cards": False}
    with pytest.raises(GameError, match="unknown Scat option"):
        S.new_game(3, {"coins": 3}, seed=1)
    with pytest.raises(GameError, match="true or false"):
        S.new_game(3, {"reentry": "yes"}, seed=1)
    with pytest.raises(GameError, match="true or false"):
        S.new_game(3, {"four_cards": 1}, seed=1)
    assert S.new_game(3, {"four_cards": True}, seed=1).options != state.options


def test_observation_shows_own_hand_discard_and_public_facts_only():
    state = position(list(LOW[:3]), discard="9S KC", stock="QD", lives=(3, 0, 2))
    state, _ = S.apply(state, "draw")
    obs = S.observation(state, 1)
    assert obs.hand == state.hands[1] and obs.drawn is None and obs.legal == ()
    assert obs.discard == state.discard and obs.stock_size == len(state.stock)
    assert obs.lives == (3, 0, 2) and obs.to_act == 0 and obs.mid_turn
    assert not obs.visible_cards() & (set(state.hands[0]) | set(state.hands[2]) |
                                       set(state.stock))
    assert S.hidden_cards(state) == set(state.stock) | {c for h in state.hands for c in h}
    me = S.observation(state, 0)
    assert me.legal == S.legal_actions(state)
    with pytest.raises(GameError):
        S.observation(state, 3)


def test_json_round_trip_mid_turn_and_after_showdown():
    state = position(list(LOW[:3]), discard="KC")
    state, _ = S.apply(state, "take")
    assert S.from_json(S.to_json(state)) == state
    state, _ = play(state, "drop.5H", "knock", "pass", "pass")
    assert state.phase == PAYOUT
    assert S.from_json(S.to_json(state)) == state
    with pytest.raises(GameError):
        S.from_json('{"game": "schwimmen"}')
    with pytest.raises(GameError):
        S.from_json("not json")
