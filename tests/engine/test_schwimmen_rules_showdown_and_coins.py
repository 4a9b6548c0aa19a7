"""Schwimmen: one test per rule and decision of docs/rules-schwimmen.md.

This module: the showdown, coins, swimming, elimination and the winner.

Positions are built by hand from a freshly dealt game with ``State._replace``; every test
asserts concrete outcomes (phase, seat on turn, losers, coins, pot, events).
The helpers are in ``tests/engine/schwimmen_positions.py``.
"""

from __future__ import annotations

import pytest

import engine
from engine import schwimmen as S
from engine.protocol import FINISHED, PAYOUT
from tests.engine.schwimmen_positions import LOW3, all_knock, assert_illegal, position

# ---------------------------------------------------------------------------------------------
# showdown


def test_rule_showdown_shows_all_hands():
    state = position(*LOW3)
    hands = state.hands
    state, events = all_knock(state)
    assert state.result.hands == hands
    showdown = events[-2]
    assert showdown.kind == "showdown"
    assert showdown.data["hands"] == {str(s): [c.code for c in hands[s]] for s in range(3)}
    assert showdown.data["values"] == {"0": 9, "1": 10, "2": 27}
    # from now on every seat (and the group) may see every hand
    for seat in range(3):
        assert S.observation(state, seat).visible_cards() >= set(c for h in hands for c in h)
    assert S.public_view(state).visible_cards() >= set(c for h in hands for c in h)


def test_rule_lowest_hands_lose_all_tied_at_bottom_lose():
    state = position(["KH QH 7S", "9C 8C 7D", "9S 8S 10C", "AD 10D 7H"], "JC JS 8H")
    state, events = all_knock(state)
    r = state.result
    assert r.values2 == (40, 34, 34, 42)
    assert r.losers == (1, 2)
    assert r.paid == (1, 2)
    assert not r.draw
    assert state.coins == (3, 2, 2, 3)
    assert state.pot == 2
    assert events[-1] == engine.Event("payout", None, {
        "losers": [1, 2], "paid": [1, 2], "swimming": [], "eliminated": [], "draw": False})


def test_rule_single_lowest_loses_even_if_others_tie_above():
    state = position(["KH QH 7S", "KS QS 7C", "9D 8D 7H"], "JC JD 8S")
    state, _ = all_knock(state)
    assert state.result.losers == (2,)
    assert not state.result.draw


def test_rule_all_equal_is_draw_nobody_loses():
    state = position(["KH QH 7S", "KS QS 7C", "KC QC 7D"], "8H 9S 10D")
    state, events = all_knock(state)
    r = state.result
    assert r.values2 == (40, 40, 40)
    assert r.draw
    assert r.losers == () and r.paid == () and r.eliminated == ()
    assert state.coins == (3, 3, 3)
    assert state.pot == 0
    assert state.phase == PAYOUT
    assert events[-1].data["draw"] is True


def test_rule_all_equal_is_draw_among_active_players_only():
    state = position(["KH QH 7S", "", "KS QS 7C", "KC QC 7D"], "8H 9S 10D",
                     coins=(0, 0, 0, 3), pot=9)
    state, _ = all_knock(state)
    assert state.result.draw
    assert state.out == (False, True, False, False)  # swimmers are not eliminated by a draw
    assert state.coins == (0, 0, 0, 3)
    assert state.phase == PAYOUT


# ---------------------------------------------------------------------------------------------
# coins, swimming, elimination, the winner


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rule_start_with_three_coins(seats):
    state = S.new_game(seats, seed=5)
    assert state.coins == (3,) * seats
    assert state.pot == 0
    assert state.out == (False,) * seats
    assert state.winner is None
    assert state.round_no == 1


def test_rule_loser_pays_one_coin_into_pot():
    state = position(["7H 8C 9D", "KS QS 7C", "KC QC 7D"], "8H 9S 10D",
                     coins=(2, 3, 3), pot=1)
    state, events = all_knock(state)
    assert state.result.losers == (0,)
    assert state.result.paid == (0,)
    assert state.result.swimming == ()
    assert state.coins == (1, 3, 3)
    assert state.pot == 2


def test_rule_zero_coins_swims_and_keeps_playing():
    state = position(["7H 8C 9D", "KS QS 7C", "KC QC 7D"], "8H 9S 10D",
                     coins=(1, 3, 3), pot=2)
    state, events = all_knock(state)
    assert state.coins == (0, 3, 3)
    assert state.pot == 3
    assert state.result.paid == (0,)
    assert state.result.swimming == (0,)
    assert state.out == (False, False, False)
    assert state.phase == PAYOUT
    assert events[-1].data["swimming"] == [0]
    state, _ = S.apply(state, "deal")
    assert len(state.hands[0]) == 3
    assert 0 in state.active


def test_rule_swimming_loser_is_eliminated():
    state = position(["7H 8C 9D", "KS QS 7C", "KC QC 7D"], "8H 9S 10D",
                     coins=(0, 3, 2), pot=4)
    state, events = all_knock(state)
    r = state.result
    assert r.losers == (0,)
    assert r.eliminated == (0,)
    assert r.paid == ()
    assert state.out == (True, False, False)
    assert state.coins == (0, 3, 2)  # nothing to pay
    assert state.pot == 4
    assert state.phase == PAYOUT  # two players left: the game goes on
    assert state.winner is None
    assert events[-1].data["eliminated"] == [0]
    state, _ = S.apply(state, "deal")
    assert state.hands[0] == ()
    assert state.active == [1, 2]


def test_rule_tied_swimmer_is_eliminated_while_tied_payer_swims():
    state = position(["7H 8C 9D", "7S 8D 9C", "KC QC 7D"], "8H 9S 10D",
                     coins=(0, 1, 3), pot=5)
    state, _ = all_knock(state)
    r = state.result
    assert r.losers == (0, 1)
    assert r.eliminated == (0,)
    assert r.paid == (1,)
    assert r.swimming == (1,)
    assert state.out == (True, False, False)
    assert state.coins == (0, 0, 3)
    assert state.pot == 6


def test_rule_last_player_wins_game_and_pot():
    state = position(["7H 8C 9D", "KS QS 7C"], "8H 9S 10D", coins=(0, 2), pot=4)
    state, events = all_knock(state)
    assert state.phase == FINISHED
    assert S.is_over(state)
    assert state.winner == 1
    assert state.out == (True, False)
    assert state.coins == (0, 6)
    assert state.pot == 0
    assert state.to_act is None
    assert S.legal_actions(state) == ()
    assert events[-1] == engine.Event("game_over", 1, {"pot": 4})
    assert_illegal(state, "deal", "game is over")
    assert_illegal(state, "knock", "game is over")


def test_rule_last_player_wins_when_two_swimmers_go_out_together():
    state = position(["7H 8C 9D", "7S 8D 9C", "KC QC 7D"], "8H 9S 10D",
                     coins=(0, 0, 5), pot=4)
    state, _ = all_knock(state)
    assert state.result.eliminated == (0, 1)
    assert state.phase == FINISHED
    assert state.winner == 2
    assert state.coins == (0, 0, 9)
    assert state.pot == 0


def test_rule_eliminated_players_are_skipped():
    state = position(["7H 8C 9D", "", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S",
                     coins=(3, 0, 3, 3), pot=3)
    assert state.active == [0, 2, 3]
    state, _ = S.apply(state, "pass")
    assert state.to_act == 2
    state, _ = S.apply(state, "pass")
    assert state.to_act == 3
    state, _ = S.apply(state, "knock")
    assert state.final_left == 2  # only the active players get a last turn
    assert state.to_act == 0
    state, _ = S.apply(state, "swap.7H.7C")
    assert state.to_act == 2
    state, events = S.apply(state, "knock")
    assert state.phase == PAYOUT
    r = state.result
    assert r.hands[1] is None
    assert r.values2[1] is None
    assert "1" not in events[-2].data["hands"]
    assert r.values2 == (30, None, 20, 54)  # 7C 8C 9D = 15, 10C JD 7S = 10, hearts 27
    assert r.losers == (2,)
    assert state.coins == (3, 0, 2, 3)
    # the next deal skips seat 1 for cards and for the start
    state = state._replace(starter=0)
    state, _ = S.apply(state, "deal")
    assert state.hands[1] == ()
    assert state.starter == 2
