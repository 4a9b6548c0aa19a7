"""Climbing game: one test per rule and decision of docs/rules-climbing.md.

This module: round end, scoring, the exchange, targets and winners, action codes.

Positions are built by hand from a freshly dealt game with ``State._replace``; deals with
chosen hands replace the shuffle (``deal_with``). Every test asserts concrete outcomes.
The helpers are in ``tests/engine/climbing_positions.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction
from engine import climbing as C
from engine.cards import parse_cards
from engine.protocol import EXCHANGE, FINISHED, PAYOUT, TURN
from tests.engine.climbing_positions import (
    after_round,
    assert_illegal,
    cards,
    codes,
    deal_with,
    end_of_round,
    kinds,
    play,
    position,
)

# ---------------------------------------------------------------------------------------------
# round end and scoring


def test_rule_round_ends_when_only_one_player_holds_cards():
    state = position(["", "", "3C", "4C 5D"], to_act=2, out_order=(0, 1))
    new, events = C.apply(state, "3C")
    assert new.phase == PAYOUT and new.to_act is None
    assert kinds(events) == ["play", "showdown", "payout"]
    assert new.result.order == (0, 1, 2, 3)
    assert C.legal_actions(new) == (C.DEAL,)
    assert new.hands[3] == cards("4C 5D")  # the last keeps (and hides) the rest


def test_rule_order_of_going_out_scores_3_2_1_0():
    state = end_of_round((5, 6, 7, 8), 21, first_two=(2, 0))
    new, _ = C.apply(state, "3C")  # seat 1 goes out third, seat 3 is last
    assert new.result.order == (2, 0, 1, 3)
    assert new.result.points == (2, 1, 3, 0)
    assert new.scores == (7, 7, 10, 8)
    assert new.result.scores == new.scores


def test_rule_round_end_payout_then_deal_starts_the_next_round():
    state = end_of_round((0, 0, 0, 0), 21)
    state, _ = C.apply(state, "3C")
    assert_illegal(state, "4C", "round is over")
    new, events = C.apply(state, "deal")
    assert events[0].kind == "deal"
    assert new.round_no == state.round_no + 1
    assert new.phase in (EXCHANGE, TURN)
    assert sum(len(h) for h in new.hands) == 54


# ---------------------------------------------------------------------------------------------
# the exchange


def test_rule_exchange_last_gives_highest_card_first_gives_back_4_to_10(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)  # first = 1, last = 3
    # dealer becomes 1: seats 2 and 3 get 14, seats 0 and 1 get 13
    new, events = deal_with(monkeypatch, state, {
        3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C RJ",
        1: "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    })
    assert new.phase == EXCHANGE and new.to_act == 1
    assert new.exchange == C.Exchange(1, 3, C.RED_JOKER_CARD, None, "pending")
    assert C.RED_JOKER_CARD in new.hands[1] and C.RED_JOKER_CARD not in new.hands[3]
    assert len(new.hands[1]) == 14 and len(new.hands[3]) == 13
    assert ("exchange", 3) in [(e.kind, e.seat) for e in events]
    assert all("RJ" not in str(e.data) for e in events)  # the card is not public
    legal = codes(C.legal_actions(new))
    assert legal == ["g.4D", "g.5D", "g.6D", "g.7D", "g.8D", "g.9D", "g.10D"]
    done, events = C.apply(new, "g.7D")
    assert kinds(events) == ["give_back"] and events[0].data == {"to": 3}
    assert parse_cards("7D")[0] in done.hands[3] and parse_cards("7D")[0] not in done.hands[1]
    assert done.exchange.back == parse_cards("7D")[0] and done.exchange.status == "done"
    assert done.phase == TURN
    assert done.to_act == 3 == done.leader  # the last of the previous round leads


def test_rule_exchange_highest_card_by_rank_order(monkeypatch):
    state = after_round((0, 1, 2, 3), dealer=2)  # first 0, last 3; dealer 3: 0, 1 get 14
    new, _ = deal_with(monkeypatch, state, {
        3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C",  # the 2 is above the ace
        0: "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D 3H",
    })
    assert new.exchange.given == parse_cards("2C")[0]
    assert max(C.RANK[c.id] for c in new.hands[3]) == C.RANK[parse_cards("AC")[0].id]


def test_rule_give_back_only_a_card_ranked_4_to_10_from_the_hand(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)
    new, _ = deal_with(monkeypatch, state, {
        3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C RJ",
        1: "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    })
    assert_illegal(new, "g.4C", "not in your hand")
    assert_illegal(new, "3D", "exchange")
    assert_illegal(new, "pass", "exchange")
    for bad in ("g.3D", "g.JD", "g.AD", "g.2D", "g.RJ"):
        with pytest.raises(IllegalAction):
            C.apply(new, bad)
    assert_illegal(C.apply(new, "g.4D")[0], "g.5D", "no exchange")


def test_decision_no_give_back_when_the_first_holds_no_4_to_10(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)
    new, events = deal_with(monkeypatch, state, {
        3: "4C 5C 6C 7C 8C 9C 10C 4H 5H 6H 7H 8H 9H 2S",
        1: "3C 3D 3H JC JD JH QC QD QH KC KD KH AC",
    })
    assert new.exchange.status == "no_back" and new.exchange.back is None
    assert new.exchange.given == parse_cards("2S")[0]
    assert C.legal_actions(new) == tuple(C.legal_actions(new))
    assert new.phase == TURN and new.to_act == 3  # the last still leads
    assert len(new.hands[1]) == 14 and len(new.hands[3]) == 13


def test_rule_no_exchange_when_the_last_was_dealt_both_jokers_and_the_first_leads(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)
    new, events = deal_with(monkeypatch, state, {
        3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC BJ RJ",
    })
    assert new.exchange == C.Exchange(1, 3, None, None, "jokers")
    assert new.phase == TURN
    assert new.to_act == 1 == new.leader  # the first of the previous round leads
    assert C.BLACK_JOKER_CARD in new.hands[3] and C.RED_JOKER_CARD in new.hands[3]
    assert len(new.hands[3]) == 14
    assert [e.data.get("status") for e in events if e.kind == "exchange"] == ["jokers"]


def test_rule_one_joker_is_not_enough_to_skip_the_exchange(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)
    new, _ = deal_with(monkeypatch, state, {3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C BJ"})
    assert new.exchange.status in ("pending", "no_back")
    assert new.exchange.given == C.BLACK_JOKER_CARD


def test_rule_exchange_cards_only_seen_by_the_two_involved(monkeypatch):
    state = after_round((1, 2, 0, 3), dealer=0)
    new, _ = deal_with(monkeypatch, state, {
        3: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C RJ",
        1: "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    })
    new, _ = C.apply(new, "g.5D")
    for seat in range(4):
        ex = C.observation(new, seat).exchange
        if seat in (1, 3):
            assert (ex.given, ex.back) == (C.RED_JOKER_CARD, parse_cards("5D")[0])
        else:
            assert (ex.given, ex.back) == (None, None)
            assert ex.status == "done" and (ex.first, ex.last) == (1, 3)
    pub = C.public_view(new).exchange
    assert (pub.given, pub.back) == (None, None)


# ---------------------------------------------------------------------------------------------
# the game: targets and winners


def test_rule_first_to_21_points_wins():
    state = end_of_round((19, 3, 4, 5), 21, first_two=(0, 1))
    new, events = C.apply(state, "3C")
    assert new.scores == (22, 5, 5, 5)
    assert new.phase == FINISHED and C.is_over(new)
    assert C.winners(new) == [0] and new.result.winners == (0,)
    assert events[-1].kind == "game_over"
    assert C.legal_actions(new) == ()
    assert_illegal(new, "deal", "game is over")


def test_rule_several_reach_the_target_it_rises_by_10():
    state = end_of_round((18, 19, 4, 5), 21, first_two=(0, 1))
    new, events = C.apply(state, "3C")
    assert new.scores == (21, 21, 5, 5)
    assert new.phase == PAYOUT and new.winners == ()
    assert new.target == 31
    assert (new.result.target, new.result.new_target) == (21, 31)
    assert events[-1].kind == "payout" and events[-1].data["raised"]


def test_rule_several_reach_the_target_even_with_different_scores_it_rises():
    state = end_of_round((20, 19, 4, 5), 21, first_two=(0, 1))
    new, _ = C.apply(state, "3C")
    assert new.scores == (23, 21, 5, 5)
    assert new.target == 31 and new.phase == PAYOUT


@pytest.mark.parametrize(("target", "new_target"), [(21, 31), (31, 41), (41, 51)])
def test_rule_target_steps_21_31_41_51(target, new_target):
    state = end_of_round((target - 3, target - 2, 0, 0), target, first_two=(0, 1))
    new, _ = C.apply(state, "3C")
    assert new.target == new_target and new.phase == PAYOUT


def test_rule_one_reaches_a_raised_target_and_wins():
    state = end_of_round((29, 25, 24, 20), 31, first_two=(0, 1))
    new, _ = C.apply(state, "3C")
    assert new.scores == (32, 27, 25, 20)
    assert C.winners(new) == [0] and new.target == 31


def test_rule_at_51_the_highest_score_wins():
    state = end_of_round((49, 49, 20, 20), 51, first_two=(0, 1))
    new, _ = C.apply(state, "3C")
    assert new.scores == (52, 51, 21, 20)
    assert new.phase == FINISHED and new.target == 51
    assert C.winners(new) == [0]


def test_rule_tie_at_51_is_a_shared_win():
    state = end_of_round((48, 50, 20, 20), 51, first_two=(0, 1))
    new, events = C.apply(state, "3C")
    assert new.scores == (51, 52, 21, 20)
    assert C.winners(new) == [1]
    state = end_of_round((49, 50, 20, 51 - 1), 51, first_two=(0, 2))
    new, events = C.apply(state, "3C")
    # seat 0 +3, seat 2 +2, seat 1 +1, seat 3 +0: 52, 51, 22, 50
    assert new.scores == (52, 51, 22, 50)
    assert C.winners(new) == [0]
    tie = end_of_round((49, 50, 30, 30), 51, first_two=(0, 1))
    new, events = C.apply(tie, "3C")
    assert new.scores == (52, 52, 31, 30)
    assert new.phase == FINISHED
    assert C.winners(new) == [0, 1] and new.result.winners == (0, 1)
    assert events[-1].data["winners"] == [0, 1]


def test_rule_targets_only_rise():
    state = end_of_round((10, 10, 4, 5), 31, first_two=(0, 1))
    new, _ = C.apply(state, "3C")
    assert new.target == 31 and new.phase == PAYOUT


# ---------------------------------------------------------------------------------------------
# action codes


@pytest.mark.parametrize("code", [
    "", "xyz", "3S+3S", "3C+3S+", "+3S", "3S+3C", "3s", "3S+4S", "BJ+RJ", "3C+3S+3H+3D+2C",
    "s3.SHC", "sJ.SHCDS", "s2.CCCCCCCCCCCCC", "s3.SHCDX", "sA.CCCCCCCCCCCCCC", "s1.CCCCC",
    "g.3S", "g.JH", "g.RJ", "g.", "deal ", "PASS", "s3SHCDS", "s03.SHCDS",
])
def test_rule_parse_action_rejects_garbage(code):
    with pytest.raises(IllegalAction):
        C.parse_action(code)


@pytest.mark.parametrize(("code", "text"), [
    ("3S", "3S"), ("BJ", "BJ"), ("7C+7H", "7C 7H"), ("10C+10S+10H+10D", "10C 10S 10H 10D"),
    ("s3.SHCDS", "3S 4H 5C 6D 7S"), ("sA.HHSSC", "AH 2H 3S 4S 5C"),
    ("s10.DDDDD", "10D JD QD KD AD"), ("sA.CCCCCCCCCCCCC", "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C "
                                                         "JC QC KC"),
])
def test_rule_action_codes_are_short_and_round_trip(code, text):
    action = C.parse_action(code)
    assert action.code == code
    assert set(action.cards) == set(cards(text))
    assert C.parse_action(code) is action
    assert C.play_for(cards(text)) is action
    assert len(code.encode()) <= 16


def test_rule_apply_accepts_codes_and_actions_alike():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3)
    by_code, _ = C.apply(state, "9C")
    by_action, _ = C.apply(state, C.parse_action("9C"))
    assert by_code == by_action
    assert_illegal(state, "nonsense", "unknown move")
    assert_illegal(state, "4C", "not in your hand")


def test_rule_events_name_only_played_cards():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3)
    _, events = play(state, "9C", "pass", "pass", "pass")
    text = str([e.to_dict() for e in events])
    assert "10C" not in text and "4C" not in text and "JC" not in text
    assert Counter(kinds(events)) == Counter({"pass": 3, "play": 1, "trick": 1})
