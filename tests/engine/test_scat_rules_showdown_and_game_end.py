"""Scat / Einunddreißig: one test per rule and decision of docs/rules-scat.md.

This module: the showdown, the empty stock, the game end, tie-break and re-entry.

Positions are built by hand with ``State._replace``; deals are rigged by replacing the per-round
RNG (``S._rng``) with one whose shuffle lays out a chosen deck. Every test asserts concrete
outcomes (phase, seat on turn, losers, tokens, events).
The helpers are in ``tests/engine/scat_positions.py``.
"""

from __future__ import annotations

import engine
from engine import scat as S
from engine.cards import parse_cards
from engine.protocol import FINAL_ROUND, FINISHED, PAYOUT, TURN
from tests.engine.scat_positions import LOW, assert_illegal, kinds, play, position

# ---------------------------------------------------------------------------------------------
# showdown


def test_rule_showdown_lowest_loses_one_token():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"])
    state, events = play(state, "knock", "pass", "pass")
    assert state.result.values2 == (40, 36, 40)
    assert state.result.losers == (1,) and state.lives == (3, 2, 3)
    payout = events[-1]
    assert payout.kind == "payout" and payout.data["lost"] == {"1": 1}


def test_rule_showdown_all_tied_at_the_bottom_lose_one_each():
    state = position(["KH QH 2S", "KS 8S 3D", "KC 8C 4D", "AD 9D 4S"])
    state, _ = play(state, "knock", "pass", "pass", "pass")
    assert state.result.losers == (1, 2)
    assert state.lives == (3, 2, 2, 3)


def test_rule_knocker_tie_protection():
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C"])
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.values2[:2] == (40, 40)
    assert state.result.losers == (1,)  # the knocker ties for lowest and is safe
    assert state.lives == (3, 2, 3)
    # everybody tied: the knocker is safe, all the others lose
    state = position(["KH QH 2S", "KS QS 3D", "KD QD 5C"])
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.losers == (1, 2) and state.lives == (3, 2, 2)


def test_rule_knocker_strictly_lowest_loses_two():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"])
    state, events = play(state, "knock", "pass", "pass")
    assert state.result.losers == (0,)
    assert state.result.lost == (2, 0, 0)
    assert state.lives == (1, 3, 3)
    assert events[-1].data["lost"] == {"0": 2}


def test_rule_the_bus_last_token_lost_survives_next_loss_eliminates():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(1, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.losers == (0,) and state.result.bus == (0,)
    assert state.lives == (0, 3, 3) and state.out == (False, False, False)
    assert state.on_bus == (True, False, False)
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert 0 in state.players  # on the bus and still playing
    # on the bus and losing again: out
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.eliminated == (0,) and state.out == (True, False, False)
    state, _ = S.apply(state, "deal")
    assert state.players == (1, 2) and state.hands[0] == ()


def test_rule_never_straight_out_knocker_with_one_token_loses_two():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(1, 3, 3))
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.lost == (1, 0, 0)  # at most down to the bus
    assert state.result.bus == (0,) and state.result.eliminated == ()
    assert state.lives == (0, 3, 3) and not state.out[0]


def test_rule_blitz_puts_bus_riders_out_and_others_on_the_bus():
    state = position(["AH KH 2C", "5S 6C 7D", "8S 9H 2D"], stock="QH", lives=(3, 0, 1))
    state, _ = S.apply(state, "draw")
    assert state.result.eliminated == (1,) and state.result.bus == (2,)
    assert state.out == (False, True, False) and state.lives == (3, 0, 0)


# ---------------------------------------------------------------------------------------------
# empty stock


def test_rule_stock_exhausted_take_knock_or_pass():
    state = position(list(LOW[:3]), discard="KC", empty_stock=True)
    assert set(S.legal_actions(state)) == {S.TAKE, S.KNOCK, S.PASS}
    assert_illegal(state, "draw", "stock is empty")
    state, _ = play(state, "take", "drop.5H")  # taking the discard top goes on as usual
    assert state.phase == TURN and state.to_act == 1


def test_rule_stock_exhausted_pass_ends_round_at_once_without_knocker():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True)
    state, events = S.apply(state, "pass")
    assert kinds(events) == ["pass", "showdown", "payout"]
    assert state.result.reason == "stock_pass" and state.result.knocker is None
    assert state.result.losers == (1,) and state.lives == (3, 2, 3)


def test_rule_stock_exhausted_knock_ends_round_at_once_knocker_rules_apply():
    state = position(["KH 5H 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True)
    state, events = S.apply(state, "knock")
    assert kinds(events) == ["knock", "showdown", "payout"]
    assert events[0].data == {"stock_empty": True}
    assert state.result.reason == "stock_knock" and state.result.knocker == 0
    assert state.result.losers == (0,) and state.lives == (1, 3, 3)  # strictly lowest: two


def test_rule_stock_exhausted_by_the_last_draw():
    state = position(list(LOW[:3]), stock="KD")
    state = state._replace(discard=state.discard + state.stock[:-1], stock=state.stock[-1:])
    state, _ = play(state, "draw", "drop.KD")
    assert state.stock == () and state.to_act == 1
    assert set(S.legal_actions(state)) == {S.TAKE, S.KNOCK, S.PASS}


def test_rule_empty_stock_after_a_knock_last_turns_still_played():
    state = position(["KH QH 2S", "KS 8S 3D", "AD 9D 4C"], empty_stock=True,
                     phase=FINAL_ROUND, knocker=2, final_left=2, to_act=0)
    assert set(S.legal_actions(state)) == {S.TAKE, S.PASS}
    state, _ = S.apply(state, "pass")
    assert state.phase == FINAL_ROUND and state.to_act == 1  # no early end after a knock
    state, _ = S.apply(state, "pass")
    assert state.phase == PAYOUT and state.result.reason == "knock"


# ---------------------------------------------------------------------------------------------
# game end, tie-break, re-entry


def test_rule_last_player_not_eliminated_wins():
    state = position(["KH 5H 2S", "KS QS 3D", ""], lives=(0, 2, 0), to_act=1)
    state, events = play(state, "knock", "pass")
    assert state.phase == FINISHED and S.is_over(state)
    assert state.winner == 1 and state.out == (True, False, True)
    assert events[-1] == engine.Event("game_over", 1, {})
    assert S.legal_actions(state) == () and state.to_act is None
    assert_illegal(state, "deal", "game is over")


def test_rule_no_tiebreak_while_someone_remains():
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 0, 2), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.losers == (0, 1)
    assert state.result.eliminated == (0, 1) and state.result.tiebreak == ()
    assert state.phase == FINISHED and state.winner == 2


def test_rule_tiebreak_round_when_all_remaining_would_go_out_together():
    state = position(["KH QH 2S", "KS QS 3D", ""], lives=(0, 0, 0), empty_stock=True)
    state, events = S.apply(state, "pass")
    r = state.result
    assert r.losers == (0, 1) and r.eliminated == () and r.tiebreak == (0, 1)
    assert not r.tiebreak_round
    assert events[-1].data["tiebreak"] == [0, 1]
    assert state.phase == PAYOUT and state.winner is None
    assert state.out == (False, False, True) and state.tiebreak == (0, 1)
    # only those players play the tie-break round
    state, events = S.apply(state, "deal")
    assert events[0].data["tiebreak"] is True
    assert state.players == (0, 1) and state.tiebreak == (0, 1) and state.hands[2] == ()
    # the lowest there is eliminated: the other one wins
    state = state._replace(hands=(parse_cards("KH 5H 2S"), parse_cards("KS QS 3D"), ()),
                           discard=(), stock=())
    state = state._replace(discard=tuple(c for c in S.DECK if c not in
                                         set(state.hands[0]) | set(state.hands[1])))
    state = state._replace(moved=(True, True, True), to_act=0)
    state, _ = play(state, "knock")
    assert state.phase == FINISHED and state.winner == 1
    assert state.result.tiebreak_round and state.result.eliminated == (0,)
    assert state.out == (True, False, True)


def test_rule_tiebreak_repeats_on_ties_among_the_tied():
    tb = dict(lives=(0, 0, 0, 0), tiebreak=(0, 1, 2), empty_stock=True)
    state = position(["KH QH 2S", "KS QS 3D", "AD 10D 5C", ""], **tb)
    state, _ = S.apply(state, "pass")
    r = state.result
    assert r.tiebreak_round and r.losers == (0, 1)
    assert r.tiebreak == (0, 1) and r.eliminated == ()
    assert state.out == (False, False, False, True)
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 1)  # seat 2 is safe and sits this one out
    assert state.hands[2] == ()
    # all tied again: the same tie-break once more
    state = position(["KH QH 2S", "KS QS 3D", "", ""], lives=(0, 0, 0, 0), tiebreak=(0, 1),
                     out=(False, False, False, True), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.tiebreak == (0, 1) and state.phase == PAYOUT
    # a single lowest: out; the safe players go on with normal rounds
    state = position(["KH 5H 2S", "KS QS 3D", "", ""], lives=(0, 0, 0, 0), tiebreak=(0, 1),
                     out=(False, False, False, True), empty_stock=True)
    state, _ = S.apply(state, "pass")
    assert state.result.eliminated == (0,) and state.tiebreak == ()
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert state.players == (1, 2) and state.tiebreak == ()


def test_rule_tiebreak_knocker_and_blitz_rules_apply():
    state = position(["KH QH 2S", "KS QS 3D"], lives=(0, 0), tiebreak=(0, 1))
    state, _ = play(state, "knock", "pass")
    assert state.result.eliminated == (1,) and state.winner == 0  # the tied knocker is safe
    state = position(["AH KH 2C", "5S 6C 7D"], lives=(0, 0), tiebreak=(0, 1), stock="QH")
    state, _ = S.apply(state, "draw")
    assert state.result.eliminated == (1,) and state.winner == 0


def test_rule_reentry_option_off_by_default():
    state = position(["KH 5H 2S", "KS QS 3D", "AD 10D 5C"], lives=(0, 3, 3), to_act=1)
    state, _ = play(state, "knock", "pass", "pass")
    assert state.result.eliminated == (0,) and state.result.reentered == ()
    assert state.out[0]


def test_rule_reentry_once_with_full_tokens():
    opts = {"reentry": True}
    state = position(["KH 5H 2S", "KS QS 3D"], lives=(0, 1), to_act=1, options=opts)
    state, _ = play(state, "knock", "pass")
    r = state.result
    assert r.reentered == (0,) and r.eliminated == ()
    assert state.lives == (3, 1) and state.out == (False, False)
    assert state.reentered == (True, False)
    assert state.phase == PAYOUT  # the game goes on
    state, _ = S.apply(state, "deal")
    assert state.players == (0, 1)
    # the second time is final
    state = position(["KH 5H 2S", "KS QS 3D"], lives=(0, 1), to_act=1, options=opts,
                     reentered=(True, False))
    state, _ = play(state, "knock", "pass")
    assert state.result.eliminated == (0,) and state.result.reentered == ()
    assert state.phase == FINISHED and state.winner == 1


def test_rule_reentry_prevents_a_tiebreak():
    opts = {"reentry": True}
    state = position(["KH QH 2S", "KS QS 3D"], lives=(0, 0), options=opts,
                     reentered=(True, False), empty_stock=True)
    state, _ = S.apply(state, "pass")
    r = state.result
    assert r.tiebreak == () and r.eliminated == (0,) and r.reentered == (1,)
    assert state.phase == FINISHED and state.winner == 1 and state.lives[1] == 3
