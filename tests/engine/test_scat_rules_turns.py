"""Scat / Einunddreißig: one test per rule and decision of docs/rules-scat.md.

This module: the turn (draw, then discard), knocking, the final round and blitz.

Positions are built by hand with ``State._replace``; deals are rigged by replacing the per-round
RNG (``S._rng``) with one whose shuffle lays out a chosen deck. Every test asserts concrete
outcomes (phase, seat on turn, losers, tokens, events).
The helpers are in ``tests/engine/scat_positions.py``.
"""

from __future__ import annotations

import json

import pytest

import engine
from engine import IllegalAction
from engine import scat as S
from engine.cards import parse_card, parse_cards
from engine.protocol import FINAL_ROUND, PAYOUT, TURN
from tests.engine.scat_positions import (
    LOW,
    assert_illegal,
    between_rounds,
    check_cards,
    deal_rigged,
    kinds,
    play,
    position,
)

# ---------------------------------------------------------------------------------------------
# the turn: draw, then discard


def test_rule_turn_is_draw_then_discard_by_the_same_seat():
    state = position(list(LOW[:3]), discard="KC", stock="QD")
    assert set(S.legal_actions(state)) == {S.DRAW, S.TAKE, S.KNOCK}
    state, events = S.apply(state, "draw")
    assert events == [engine.Event("draw", 0, {"stock": len(state.stock)})]
    assert state.phase == TURN and state.to_act == 0  # same seat, same phase
    assert state.drawn == parse_card("QD") and not state.from_pile
    assert len(state.hands[0]) == 4
    assert {a.kind for a in S.legal_actions(state)} == {"drop"}
    assert len(S.legal_actions(state)) == 4  # a card drawn from the stock may go again
    state, events = S.apply(state, "drop.QD")
    assert events == [engine.Event("discard", 0, {"card": "QD"})]
    assert state.to_act == 1 and state.drawn is None
    assert state.discard[-1] == parse_card("QD")
    assert state.hands[0] == parse_cards(LOW[0])
    assert state.turns == 4


def test_rule_stock_draw_is_private_discard_is_public():
    state = position(list(LOW[:3]), discard="KC", stock="QD")
    state, events = S.apply(state, "draw")
    text = json.dumps([e.to_dict() for e in events])
    assert "QD" not in text and "Q♦" not in text  # nobody learns the drawn card
    me = S.observation(state, 0)
    assert me.drawn == parse_card("QD") and parse_card("QD") in me.hand
    for seat in (1, 2):
        other = S.observation(state, seat)
        assert other.drawn is None and other.mid_turn
        assert parse_card("QD") not in other.visible_cards()
    assert S.public_view(state).drawn is None
    _, events = S.apply(state, "drop.5H")
    assert events[0].data == {"card": "5H"}


def test_rule_take_discard_top_then_discard_another():
    state = position(list(LOW[:3]), discard="9S KC")
    state, events = S.apply(state, "take")
    assert events == [engine.Event("take", 0, {"card": "KC"})]
    assert state.drawn == parse_card("KC") and state.from_pile
    assert state.discard[-1] == parse_card("9S")
    state, _ = S.apply(state, "drop.7D")
    assert parse_card("KC") in state.hands[0]
    assert state.discard[-1] == parse_card("7D")


def test_rule_discard_pile_card_not_discarded_again_same_turn():
    state = position(list(LOW[:3]), discard="KC")
    state, _ = S.apply(state, "take")
    assert S.drop(parse_card("KC")) not in S.legal_actions(state)
    assert len(S.legal_actions(state)) == 3
    assert_illegal(state, "drop.KC", "discard pile")
    # a card drawn from the stock may be discarded at once
    state = position(list(LOW[:3]), stock="KD")
    state, _ = S.apply(state, "draw")
    state, _ = S.apply(state, "drop.KD")
    assert state.discard[-1] == parse_card("KD")


def test_rule_discard_needs_a_draw_first_and_only_one_draw():
    state = position(list(LOW[:3]))
    assert_illegal(state, "drop.5H", "draw a card first")
    state, _ = S.apply(state, "draw")
    assert_illegal(state, "draw", "discard one card")
    assert_illegal(state, "take", "discard one card")
    assert_illegal(state, "knock", "discard one card")
    assert_illegal(state, "pass", "discard one card")
    assert_illegal(state, "drop.9C", "not in your hand")


def test_apply_accepts_codes_and_actions_and_rejects_garbage():
    state = position(list(LOW[:3]), stock="QD")
    a, _ = S.apply(state, "draw")
    b, _ = S.apply(state, S.DRAW)
    c, _ = S.apply(state, engine.Action("draw", "draw"))
    assert a == b == c
    for bad in ("", "drop", "drop.XX", "drop.BJ", "swap.AH.KH", "DRAW", "v1:1:2:draw", "x" * 80):
        with pytest.raises(IllegalAction):
            S.parse_action(bad)
        assert_illegal(state, bad, "unknown move")
    assert all(len(a.code.encode()) <= 10 for a in S._BY_CODE.values())
    assert S.parse_action(" drop.10H ") is S.drop(parse_card("10H"))


# ---------------------------------------------------------------------------------------------
# knocking and the final round


def test_rule_knock_instead_of_drawing_then_every_other_player_one_last_turn():
    state = position(list(LOW[:4]), to_act=1, stock="4C 10C")
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 1, {"stock_empty": False})]
    assert state.phase == FINAL_ROUND and state.knocker == 1
    assert state.to_act == 2 and state.final_left == 3
    assert set(S.legal_actions(state)) == {S.DRAW, S.TAKE, S.PASS}  # no second knock
    assert_illegal(state, "knock", "already knocked")
    state, _ = play(state, "draw", "drop.4C")  # seat 2: draw and discard
    assert state.phase == FINAL_ROUND and state.to_act == 3 and state.final_left == 2
    state, _ = S.apply(state, "pass")  # seat 3 passes
    assert state.to_act == 0 and state.final_left == 1
    state, events = play(state, "take", "drop.5H")  # seat 0 takes 4C
    assert state.phase == PAYOUT  # the knocker does not move again
    assert kinds(events)[-2:] == ["showdown", "payout"]
    assert state.result.reason == "knock" and state.result.knocker == 1


def test_rule_no_pass_before_a_knock_while_the_stock_lasts():
    state = position(list(LOW[:3]))
    assert S.PASS not in S.legal_actions(state)
    assert_illegal(state, "pass", "only allowed after a knock")


def test_rule_no_knock_on_the_very_first_turn_by_default():
    state = position(list(LOW[:3]), moved=(False, False, False))
    assert S.KNOCK not in S.legal_actions(state)
    assert_illegal(state, "knock", "first turn")
    state, _ = play(state, "draw", "drop.5H", "draw")
    state, _ = S.apply(state, S.legal_actions(state)[0])
    assert state.to_act == 2 and S.KNOCK not in S.legal_actions(state)
    state, _ = play(state, "draw")
    state, _ = S.apply(state, S.legal_actions(state)[0])
    assert state.to_act == 0
    assert S.KNOCK in S.legal_actions(state)  # the second turn: knocking is fine
    # a new game: nobody may knock on the first turn
    for seed in range(10):
        start = S.new_game(4, seed=seed)
        if start.phase == TURN:
            assert S.KNOCK not in S.legal_actions(start)


def test_rule_option_first_turn_knock_allowed():
    state = position(list(LOW[:3]), moved=(False, False, False),
                     options={"no_first_turn_knock": False})
    assert S.KNOCK in S.legal_actions(state)
    state, _ = S.apply(state, "knock")
    assert state.phase == FINAL_ROUND


# ---------------------------------------------------------------------------------------------
# blitz


def test_rule_blitz_after_the_deal_every_other_player_loses_one(monkeypatch):
    state = between_rounds(position(list(LOW[:3])), dealer=2)
    state, events = deal_rigged(monkeypatch, state, ["5H 6C 7D", "AS KS QS", "8S 9H 2D"], "3C")
    assert kinds(events) == ["deal", "blitz", "showdown", "payout"]
    assert events[1] == engine.Event("blitz", 1, {"when": "deal", "value": 31})
    assert state.phase == PAYOUT and state.to_act is None and state.turns == 0
    r = state.result
    assert r.reason == "dealt_blitz" and r.blitz == (1,)
    assert r.losers == (0, 2) and state.lives == (2, 3, 2)
    assert S.legal_actions(state) == (S.DEAL,)


def test_rule_blitz_after_the_deal_found_by_seed():
    for seed in range(20_000):
        state = S.new_game(6, seed=seed)
        if state.phase == PAYOUT:
            break
    else:
        raise AssertionError("no dealt blitz found")
    r = state.result
    assert r.reason == "dealt_blitz"
    for s in r.blitz:
        assert S.hand_value(state.hands[s]) == 31
    assert r.losers == tuple(s for s in range(6) if s not in r.blitz)
    assert all(state.lives[s] == 2 for s in r.losers)


def test_rule_blitz_after_the_deal_two_players_both_safe(monkeypatch):
    state = between_rounds(position(list(LOW[:4])), dealer=3)
    state, _ = deal_rigged(monkeypatch, state, ["AS KS QS", "5H 6C 7D", "AH 10H JH", "8S 9H 2D"],
                           "3C")
    assert state.result.blitz == (0, 2)
    assert state.result.losers == (1, 3)
    assert state.lives == (3, 2, 3, 2)


def test_rule_blitz_right_after_drawing_from_stock_before_discarding():
    state = position(["AH KH 2C", "5S 6C 7D", "8S 9H 2D"], stock="QH")
    state, events = S.apply(state, "draw")
    assert kinds(events) == ["draw", "blitz", "showdown", "payout"]
    assert "QH" not in json.dumps(events[0].to_dict())
    r = state.result
    assert r.reason == "blitz" and r.blitz == (0,) and r.values2[0] == 62
    assert r.hands[0] == parse_cards("AH KH 2C QH")  # shown as held, the extra card included
    assert r.losers == (1, 2) and state.lives == (3, 2, 2)
    assert state.phase == PAYOUT and state.drawn is None
    check_cards(state)


def test_rule_blitz_right_after_taking_the_discard_top():
    state = position(["5S 6C 7D", "AD 2C KD", "8S 9H 2D"], discard="10D", to_act=1)
    state, events = S.apply(state, "take")
    assert kinds(events) == ["take", "blitz", "showdown", "payout"]
    assert state.result.blitz == (1,)
    assert state.lives == (2, 3, 2)


def test_rule_blitz_only_before_a_knock():
    state = position(["5S 6C 7D", "AH KH 2C", "8S 9H 2D"], stock="QH", to_act=0)
    state, _ = play(state, "knock", "draw")  # seat 1 draws to 31 in its last turn
    assert state.phase == FINAL_ROUND and state.to_act == 1 and len(state.hands[1]) == 4
    state, _ = play(state, "drop.2C", "pass")
    r = state.result
    assert r.reason == "knock" and r.blitz == ()
    assert r.values2 == (14, 62, 18)
    assert r.losers == (0,) and state.lives == (1, 3, 3)  # only the knocker, strictly lowest
