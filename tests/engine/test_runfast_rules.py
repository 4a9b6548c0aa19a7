"""Run Fast: one test per rule and decision of docs/rules-runfast.md.

Positions are built by hand from a dealt match with ``State._replace``; every test asserts
concrete outcomes (seat on turn, legal moves, scores, phase, events).
"""

from __future__ import annotations

import pytest

import engine
from engine import GAMES, GameError, IllegalAction
from engine import runfast as R
from engine.cards import parse_cards
from engine.protocol import FINISHED, PAYOUT, TURN


def m(text: str) -> int:
    return R.mask_of(parse_cards(text))


def position(hands: list[str], to_act: int = 0, table: str | None = None,
             table_seat: int | None = None, **changes) -> R.State:
    """A hand in progress with exactly these hands; ``table`` is the play to beat."""
    hs = tuple(m(h) for h in hands)
    used = [c for h in hands for c in parse_cards(h)]
    assert len(used) == len(set(used)), "a card is used twice"
    fields = {"hands": hs, "to_act": to_act, "starter": to_act}
    if table is not None:
        tm = m(table)
        fields.update(table=R.interpret(tm, True), table_mask=tm,
                      table_seat=(to_act - 1) % 3 if table_seat is None else table_seat)
    fields.update(changes)
    return R.new_game(3, seed=7)._replace(**fields)


def play(state: R.State, *moves: str) -> tuple[R.State, list[engine.Event]]:
    """Apply moves (card lists or ``pass``/``deal``) in order; return the state and events."""
    events: list[engine.Event] = []
    for mv in moves:
        code = mv if mv in ("pass", "deal") else R.play(mv).code
        state, evs = R.apply(state, code)
        events.extend(evs)
    return state, events


def codes(state: R.State) -> set[str]:
    return {a.code for a in R.legal_actions(state)}


SIXTEEN = "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 3D 4D 5D 6D"


# --------------------------------------------------------------------------------- setup


def test_registered_as_runfast():
    assert GAMES["runfast"] is R
    assert R.MIN_SEATS == R.MAX_SEATS == 3


def test_exactly_three_players():
    for n in (2, 4):
        with pytest.raises(GameError):
            R.new_game(n, seed=1)


def test_sixteen_cards_each_from_the_48_card_deck():
    state = R.new_game(3, seed=11)
    assert [h.bit_count() for h in state.hands] == [16, 16, 16]
    assert state.hands[0] | state.hands[1] | state.hands[2] == R.DECK_MASK
    assert state.round_no == 1 and state.phase == TURN and state.scores == (0, 0, 0)


def test_first_hand_holder_of_three_of_spades_leads():
    for seed in range(20):
        state = R.new_game(3, seed=seed)
        holder = next(s for s in range(3) if state.hands[s] & m("3S"))
        assert state.to_act == holder == state.starter


def test_first_lead_need_not_include_three_of_spades():
    state = R.new_game(3, seed=3)
    seat = state.to_act
    others = [a for a in R.legal_actions(state) if not a.mask & m("3S")]
    assert others
    new, _ = R.apply(state, others[0])
    assert new.table_seat == seat


def test_hands_option_four_by_default_or_eight():
    assert R.new_game(3, seed=1).hands_total == 4
    assert R.new_game(3, {"hands": 8}, seed=1).hands_total == 8
    for bad in ({"hands": 5}, {"hands": "4"}, {"hands": True}, {"rounds": 4}):
        with pytest.raises(GameError):
            R.new_game(3, bad, seed=1)


# --------------------------------------------------------------------------------- play


def test_leader_may_not_pass():
    state = position(["5C 6D", "7C", "8C"])
    assert "pass" not in codes(state)
    with pytest.raises(IllegalAction, match="lead"):
        R.apply(state, "pass")


def test_must_beat_when_able():
    state = position(["5C 9D", "7C 8D", "KC"], to_act=0, table="6H")
    assert "pass" not in codes(state)
    with pytest.raises(IllegalAction, match="must"):
        R.apply(state, "pass")
    assert codes(state) == {R.play("9D").code}


def test_pass_only_when_nothing_beats():
    state = position(["5C 4D", "7C 8D", "KC"], to_act=0, table="6H")
    assert list(R.legal_actions(state)) == [R.PASS]
    new, events = R.apply(state, "pass")
    assert new.to_act == 1 and new.passed == (True, False, False)
    assert [e.kind for e in events] == ["pass"]


def test_must_beat_with_a_bomb_when_only_a_bomb_beats():
    state = position(["5C 5S 5H 5D 3C", "7C 8D", "KC"], to_act=0, table="2S")
    assert codes(state) == {R.play("5C 5S 5H 5D").code}
    with pytest.raises(IllegalAction):
        R.apply(state, "pass")


def test_bombs_stay_whole():
    state = position(["7C 7S 7H 7D 8C", "9C", "10C"], to_act=0)
    with pytest.raises(IllegalAction, match="bomb"):
        R.apply(state, R.play("7C"))
    with pytest.raises(IllegalAction, match="bomb"):
        R.apply(state, R.play("7C 7S"))
    assert R.play("7C 7S 7H 7D").code in codes(state)


def test_bomb_cards_are_no_kickers():
    state = position(["9C 9S 9H 7C 7S 7H 7D 3D", "JC", "10C"], to_act=0)
    with pytest.raises(IllegalAction, match="bomb"):
        R.apply(state, R.play("9C 9S 9H 7C 7S"))
    assert R.play("9C 9S 9H 7C 3D").code not in codes(state)  # a 7 of the bomb as kicker
    assert R.why_illegal(state, R.play("9C 9S 9H 7C 3D")) is not None


def test_beat_needs_same_kind_and_size():
    state = position(["5C 5S 9D 10D JD QD KD", "7C 8D", "KC"], to_act=0, table="3C 4S 5H 6D 7C")
    with pytest.raises(IllegalAction, match="beat"):
        R.apply(state, R.play("5C 5S"))
    with pytest.raises(IllegalAction, match="no combination"):
        R.apply(state, R.play("9D 10D JD QD KD 5C"))  # no straight: a 5 and 9..K
    assert codes(state) == {R.play("9D 10D JD QD KD").code}


def test_next_player_has_one_card_single_must_be_the_highest():
    state = position(["3C 5S KD", "7C", "8C 9C"], to_act=0)
    with pytest.raises(IllegalAction, match="highest"):
        R.apply(state, R.play("3C"))
    assert codes(state) == {R.play("KD").code}
    new, _ = R.apply(state, R.play("KD"))
    assert new.to_act == 1


def test_next_player_has_one_card_leading_a_non_single_is_allowed():
    state = position(["3C 3S KD", "7C", "8C 9C"], to_act=0)
    assert codes(state) == {R.play("KD").code, R.play("3C 3S").code}
    new, _ = R.apply(state, R.play("3C 3S"))
    assert new.table == ("pair", 1, 0)


def test_next_player_has_one_card_only_the_next_seat_counts():
    state = position(["3C 5S KD", "7C 8D", "9C"], to_act=0)  # seat 2 (not next) has one
    assert R.play("3C").code in codes(state)


def test_both_others_pass_last_player_leads_freely():
    state = position(["5C 9D QH", "4D 3H", "3C 4C"], to_act=0)
    state, events = play(state, "5C", "pass", "pass")
    assert state.to_act == 0 and state.table is None and state.table_seat is None
    assert [e.kind for e in events] == ["play", "pass", "pass", "lead"]
    assert "pass" not in codes(state)
    state, _ = play(state, "9D")  # a free lead: any combination
    assert state.table == ("single", 1, R.power_of(9))


def test_passing_does_not_end_a_players_trick():
    state = position(["5C 9D", "7D 3H", "3C 8C"], to_act=0)
    state, _ = play(state, "5C", "7D", "8C", "9D")  # nobody passed twice in a row
    assert state.phase == PAYOUT and state.result.winner == 0


# --------------------------------------------------------------------------------- hand end


def test_hand_ends_when_a_player_has_no_cards_losers_pay_per_card():
    state = position(["9D", "3H 4H 5D", "3C 4C"], to_act=0)
    state, events = play(state, "9D")
    assert state.phase == PAYOUT and state.to_act is None
    r = state.result
    assert r.winner == 0 and r.paid == (0, 3, 2) and r.shut_out == (False, False, False)
    assert state.scores == (5, -3, -2) and r.delta == (5, -3, -2)
    assert [e.kind for e in events] == ["play", "showdown", "payout"]
    assert list(R.legal_actions(state)) == [R.DEAL]


def test_loser_who_played_no_card_pays_double():
    state = position(["9D", SIXTEEN, "3H 4H"], to_act=0)
    state, _ = play(state, "9D")
    assert state.result.paid == (0, 32, 2)
    assert state.result.shut_out == (False, True, False)
    assert state.scores == (34, -32, -2)


def test_bomb_scores_ten_and_five_from_each_other_at_once():
    state = position(["8C 8S 8H 8D 3C", "4D 4H", "5C"], to_act=0)
    state, events = play(state, "8C 8S 8H 8D")
    assert state.phase == TURN
    assert state.scores == (10, -5, -5)
    assert events[0].data["bomb"] == 10
    assert state.bombs == ((0, R.power_of(8)),)


def test_bomb_scores_even_when_over_bombed():
    state = position(["8C 8S 8H 8D 3C", "9C 9S 9H 9D 4H", "5C 6C"], to_act=0)
    state, _ = play(state, "8C 8S 8H 8D", "9C 9S 9H 9D")
    assert state.scores == (5, 5, -10)  # +10 −5 for each bomb
    state, _ = play(state, "pass", "pass", "4H")  # seat 1 wins the hand
    r = state.result
    assert r.winner == 1 and r.bombs == (5, 5, -10)
    assert r.paid == (1, 0, 2) and r.shut_out == (False, False, False)
    assert state.scores == (5 - 1, 5 + 1 + 2, -10 - 2)
    assert sum(state.scores) == 0


def test_later_hands_winner_of_previous_hand_leads():
    state = position(["3D", "3H", "4C 5C"], to_act=2)
    state, _ = play(state, "5C", "pass", "pass", "4C")
    assert state.result.winner == 2
    state, events = R.apply(state, "deal")
    assert state.round_no == 2 and state.to_act == 2 and state.starter == 2
    assert events[0].kind == "deal" and events[0].data["starter"] == 2
    assert state.hands[0] | state.hands[1] | state.hands[2] == R.DECK_MASK


def test_match_of_four_hands_ends_after_the_fourth():
    state = position(["9D", "3H 4H 5D", "3C 4C"], to_act=0, round_no=4, scores=(1, 2, -3))
    state, events = play(state, "9D")
    assert state.phase == FINISHED and R.is_over(state)
    assert state.scores == (6, -1, -5) and state.winners == (0,)
    assert events[-1].kind == "game_over" and events[-1].data["winners"] == [0]
    assert list(R.legal_actions(state)) == []
    with pytest.raises(IllegalAction):
        R.apply(state, "deal")


def test_match_of_eight_hands_goes_on_after_the_fourth():
    base = R.new_game(3, {"hands": 8}, seed=2)
    state = base._replace(hands=(m("9D"), m("3H"), m("3C")), to_act=0, round_no=4)
    state, _ = play(state, "9D")
    assert state.phase == PAYOUT
    state = state._replace(hands=(m("9D"), m("3H"), m("3C")), to_act=0, round_no=8,
                           phase=TURN, result=None)
    state, _ = play(state, "9D")
    assert state.phase == FINISHED


def test_highest_total_wins_ties_win_together():
    state = position(["9D", "3H 4H", "3C"], to_act=0, round_no=4, scores=(0, 3, 0))
    state, events = play(state, "9D")  # +3 to seat 0: 3, 1, -1 … make it a tie
    assert state.scores == (3, 1, -1) and state.winners == (0,)
    state = position(["9D", "3H", "3C"], to_act=0, round_no=4, scores=(0, 2, -2))
    state, events = play(state, "9D")
    assert state.scores == (2, 1, -3)
    state = position(["9D", "3H 4H", "3C"], to_act=0, round_no=4, scores=(1, 6, -7))
    state, events = play(state, "9D")
    assert state.scores == (4, 4, -8) and state.winners == (0, 1)
    assert events[-1].seat is None and events[-1].data["winners"] == [0, 1]
    assert R.winners(state) == [0, 1]


def test_final_play_exception_in_a_game():
    state = position(["9C 9S 9H 4D", "3H 4H", "3C"], to_act=0, table="8C 8S 8H 3D 3S")
    state, events = play(state, "9C 9S 9H 4D")
    assert state.phase == PAYOUT and events[0].data["kind"] == "triple_two"


def test_short_triple_only_as_the_last_cards():
    state = position(["9C 9S 9H 4D 5D 6D", "3H 4H", "3C"], to_act=0)
    with pytest.raises(IllegalAction, match="last cards"):
        R.apply(state, R.play("9C 9S 9H 4D"))


def test_cards_not_in_hand_are_refused():
    state = position(["9C 4D", "3H 4H", "3C"], to_act=0)
    with pytest.raises(IllegalAction, match="not in your hand"):
        R.apply(state, R.play("9H"))


def test_illegal_moves_change_nothing():
    state = position(["9C 4D", "3H 4H", "3C"], to_act=0, table="5D")
    before = R.to_json(state)
    for bad in ("deal", R.play("4D").code, R.play("3H").code, "p.zzzz", "x"):
        with pytest.raises(IllegalAction):
            R.apply(state, bad)
    assert R.to_json(state) == before


def test_deal_only_between_hands():
    state = R.new_game(3, seed=1)
    with pytest.raises(IllegalAction, match="still"):
        R.apply(state, "deal")
    assert R.to_act(state) is not None and R.phase(state) == TURN


def test_bombs_stay_whole_in_a_last_play():
    state = position(["5C 5S 5H 7C 7S 7H 7D", "3H 4H", "3C"], to_act=0)
    whole = R.play_code(m("5C 5S 5H 7C 7S 7H 7D"))  # four of a rank plus more: no combination
    with pytest.raises(IllegalAction, match="no combination"):
        R.apply(state, whole)
    assert whole not in codes(state)
    state = position(["5C 5S 5H 7C 7S 7H 7D", "3H 4H", "3C"], to_act=0, table="4S 4D 4C 6S 6D")
    with pytest.raises(IllegalAction, match="bomb"):  # a 7 of the bomb as a kicker
        R.apply(state, R.play("5C 5S 5H 7C 7S"))


def test_hand_end_reveals_the_cards_left():
    state = position(["9D", "3H 4H 5D", "3C 4C"], to_act=0)
    state, events = play(state, "9D")
    assert state.result.left[1] == parse_cards("3H 4H 5D")
    assert events[1].data["left"]["2"] == ["3C", "4C"]
    assert R.hidden_cards(state) == set()
    obs = R.observation(state, 0)
    assert set(parse_cards("3H 4H 5D 3C 4C")) <= obs.visible_cards()


def test_turn_order_is_seat_order():
    state = position(["5C 9D", "6D 10H", "7C JC"], to_act=1, table="4C", table_seat=0)
    state, _ = play(state, "6D")
    assert state.to_act == 2
    state, _ = play(state, "7C")
    assert state.to_act == 0
