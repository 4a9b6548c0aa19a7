"""Schwimmen: one test per rule decision of RULES.md §1 (seed 000_14385143c965cf2b.txt).

Positions are built by hand from a freshly dealt game with ``State._replace``; every test
asserts concrete outcomes (phase, seat on turn, losers, coins, pot, events).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine import GAMES, GameError, IllegalAction
from engine import schwimmen as S
from engine.cards import parse_cards
from engine.protocol import FINAL_ROUND, FINISHED, PAYOUT, TURN

# ---------------------------------------------------------------------------------------------
# helpers


def _base(seats: int) -> S.State:
    """A freshly dealt game in phase ``turn`` (no 31 dealt)."""
    for seed in range(100):
        state = S.new_game(seats, seed=seed)
        if state.phase == TURN:
            return state
    raise AssertionError("no seed without a dealt 31")


def position(hands, middle, to_act=0, **changes) -> S.State:
    """A round in progress with exactly these hands ('' for a player who is out) and middle."""
    seats = len(hands)
    hs = tuple(parse_cards(h) for h in hands)
    mid = parse_cards(middle)
    used = [c for h in hs for c in h] + list(mid)
    assert len(used) == len(set(used)), "a card is used twice in the position"
    assert set(used) <= set(S.DECK), "only 7..A in Schwimmen"
    assert len(mid) == 3
    fields = {
        "hands": hs, "middle": mid, "to_act": to_act, "starter": to_act,
        "out": tuple(not h for h in hs),
    }
    fields.update(changes)
    state = _base(seats)._replace(**fields)
    for seat in state.active:
        assert len(state.hands[seat]) == 3
    return state


def play(state: S.State, *codes: str) -> tuple[S.State, list[engine.Event]]:
    """Apply moves in order; return the final state and all events."""
    events: list[engine.Event] = []
    for code in codes:
        state, evs = S.apply(state, code)
        events.extend(evs)
    return state, events


def all_knock(state: S.State) -> tuple[S.State, list[engine.Event]]:
    """End the round with a showdown of the hands as they are: every active player knocks."""
    return play(state, *["knock"] * len(state.active))


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def value(text: str) -> float:
    return S.hand_value(parse_cards(text))


def assert_illegal(state: S.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = S.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match) as info:
        S.apply(state, code)
    assert str(info.value)
    assert state == before
    assert S.to_json(state) == before_json


# Positions without any ace: nobody can reach 31, whatever is swapped.
LOW3 = (["7H 8C 9D", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S")
LOW4 = (["7H 8C 9D", "10C JD 7S", "8H 9H 10H", "QC KD 8S"], "7C 8D 9S")


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


# ---------------------------------------------------------------------------------------------
# the turn


def test_rule_turn_is_exactly_one_of_swap_one_swap_all_pass_knock():
    state = position(*LOW3)
    legal = S.legal_actions(state)
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "pass": 1, "knock": 1}
    swaps = {(a.give.code, a.take.code) for a in legal if a.kind == "swap"}
    assert swaps == {(g, t) for g in ("7H", "8C", "9D") for t in ("7C", "8D", "9S")}
    assert {a.code for a in legal} >= {"all", "pass", "knock", "swap.7H.9S"}
    for action in legal:
        new, events = S.apply(state, action)
        assert new.to_act == 1  # one move, then the next player
        assert new.turns == 1
        assert len(events) == 1
        assert events[0].seat == 0


def test_rule_swap_one_exchanges_one_hand_card_with_one_middle_card():
    state = position(*LOW3)
    new, events = S.apply(state, "swap.8C.9S")
    assert set(new.hands[0]) == set(parse_cards("7H 9S 9D"))
    assert set(new.middle) == set(parse_cards("7C 8D 8C"))
    assert new.hands[1:] == state.hands[1:]
    assert events == [engine.Event("swap", 0, {"give": "8C", "take": "9S"})]
    assert new.phase == TURN and new.to_act == 1
    # the action object works as well as its code
    again, _ = S.apply(state, S.swap(*parse_cards("8C 9S")))
    assert again == new


def test_rule_swap_all_takes_middle_and_lays_hand_as_new_middle():
    state = position(*LOW3)
    new, events = S.apply(state, "all")
    assert set(new.hands[0]) == set(parse_cards("7C 8D 9S"))
    assert set(new.middle) == set(parse_cards("7H 8C 9D"))
    assert new.hands[1:] == state.hands[1:]
    assert events[0].kind == "swap_all"
    assert set(events[0].data["take"]) == {"7C", "8D", "9S"}
    assert set(events[0].data["give"]) == {"7H", "8C", "9D"}
    assert new.to_act == 1


# ---------------------------------------------------------------------------------------------
# passing


def test_rule_pass_at_most_once_per_round():
    state = position(*LOW3)
    state, events = S.apply(state, "pass")
    assert events == [engine.Event("pass", 0, {})]
    assert state.passed == (True, False, False)
    assert state.to_act == 1
    state, _ = play(state, "swap.7S.9S", "swap.8H.7C")
    assert state.to_act == 0
    assert S.PASS not in S.legal_actions(state)
    assert_illegal(state, "pass", "already passed")


def test_rule_pass_allowed_again_in_next_round():
    state = position(*LOW3)
    state, _ = play(state, "pass", "pass", "pass", "knock", "knock", "knock")
    assert state.phase == PAYOUT
    state, _ = S.apply(state, "deal")
    assert state.passed == (False, False, False)
    if state.phase == TURN:
        assert S.PASS in S.legal_actions(state)


def test_rule_swap_does_not_restore_pass():
    state = position(*LOW3)
    state, _ = S.apply(state, "pass")
    rng = random.Random(3)
    for _ in range(20):  # seat 0 swaps (one or all) again and again: still no pass
        legal = [a for a in S.legal_actions(state) if a.kind in ("swap", "swap_all")]
        state, _ = S.apply(state, rng.choice(legal))
        if state.to_act == 0:
            assert state.passed[0]
            assert S.PASS not in S.legal_actions(state)
            assert_illegal(state, "pass", "already passed")
    assert state.phase == TURN


def test_rule_all_pass_in_a_row_first_passer_again_may_swap_or_knock_not_pass():
    state = position(*LOW3)
    state, _ = play(state, "pass", "pass", "pass")
    assert state.phase == TURN
    assert state.knocker is None
    assert state.to_act == 0  # the first passer
    legal = S.legal_actions(state)
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "knock": 1}
    assert_illegal(state, "pass", "already passed")
    # the row need not start with the start player
    state = position(*LOW3)
    state, _ = play(state, "swap.7H.7C", "pass", "pass", "pass")
    assert state.to_act == 1
    assert state.phase == TURN
    assert S.PASS not in S.legal_actions(state)
    # and the others, who passed too, may not pass again either
    state, _ = S.apply(state, "all")
    assert state.to_act == 2
    assert S.PASS not in S.legal_actions(state)


def test_rule_nothing_knocked_automatically():
    state = position(*LOW3)
    state, events = play(state, "pass", "pass", "pass")
    rng = random.Random(11)
    for _ in range(90):
        legal = [a for a in S.legal_actions(state) if a.kind != "knock"]
        assert S.PASS not in legal
        state, evs = S.apply(state, rng.choice(legal))
        events += evs
    assert state.phase == TURN
    assert state.knocker is None
    assert state.final_left == 0
    assert state.turns == 93
    assert "knock" not in kinds(events)
    assert "showdown" not in kinds(events)


# ---------------------------------------------------------------------------------------------
# knocking


def test_rule_knock_gives_every_other_player_exactly_one_last_turn():
    state = position(["7H 8C 9D", "AH KS QD", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S", to_act=1)
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 1, {})]
    assert state.phase == FINAL_ROUND
    assert state.knocker == 1
    assert state.final_left == 3
    assert state.to_act == 2
    state, _ = S.apply(state, "swap.7S.9S")
    assert (state.phase, state.to_act, state.final_left) == (FINAL_ROUND, 3, 2)
    state, _ = S.apply(state, "all")
    assert (state.phase, state.to_act, state.final_left) == (FINAL_ROUND, 0, 1)
    state, events = S.apply(state, "swap.7H.10H")
    assert kinds(events) == ["swap", "showdown", "payout"]
    assert state.phase == PAYOUT
    assert state.to_act is None
    r = state.result
    assert r.reason == "knock"
    assert r.thirty_one is None
    assert r.values2 == (20, 22, 20, 16)
    assert r.losers == (3,)
    assert state.coins == (3, 3, 3, 2)
    assert state.pot == 1
    assert state.turns == 4


def test_rule_no_pass_after_knock():
    state = position(*LOW3)
    state, _ = S.apply(state, "knock")
    assert not state.passed[1]
    legal = S.legal_actions(state)
    assert S.PASS not in legal
    assert Counter(a.kind for a in legal) == {"swap": 9, "swap_all": 1, "knock": 1}
    assert_illegal(state, "pass", "knock")


def test_rule_swap_one_or_all_allowed_in_final_turns():
    state = position(*LOW3)
    state, _ = play(state, "knock", "swap.10C.7C")
    assert set(state.hands[1]) == set(parse_cards("7C JD 7S"))
    assert state.phase == FINAL_ROUND
    state, _ = S.apply(state, "all")
    assert state.phase == PAYOUT
    assert set(state.result.hands[2]) == set(parse_cards("10C 8D 9S"))


def test_rule_knock_again_in_final_round_changes_nothing():
    state = position(*LOW3)
    state, _ = play(state, "swap.7H.7C", "knock")
    assert (state.knocker, state.final_left, state.to_act) == (1, 2, 2)
    before = state
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", 2, {"again": True})]
    assert state.knocker == 1
    assert state.phase == FINAL_ROUND
    assert state.final_left == 1  # it was seat 2's one last turn, no extension
    assert state.to_act == 0
    assert state.hands == before.hands
    assert state.middle == before.middle
    state, events = S.apply(state, "knock")
    assert state.phase == PAYOUT
    assert kinds(events) == ["knock", "showdown", "payout"]


def test_rule_knocker_does_not_move_again():
    # two players: knock, one answer, showdown
    state = position(["7H 8C 9D", "10C JD 7S"], "7C 8D 9S")
    state, _ = S.apply(state, "knock")
    assert state.to_act == 1
    state, _ = S.apply(state, "swap.7S.9S")
    assert state.phase == PAYOUT
    assert state.to_act is None
    # four players, knocker in the middle of the order: the turns go round once, not to him
    state = position(*LOW4, to_act=2)
    state, _ = S.apply(state, "knock")
    seen = []
    while state.phase == FINAL_ROUND:
        seen.append(state.to_act)
        state, _ = S.apply(state, S.legal_actions(state)[0])
    assert seen == [3, 0, 1]
    assert state.phase == PAYOUT


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rule_knock_on_first_turn_allowed(seats):
    state = _base(seats)
    assert state.turns == 0
    assert S.KNOCK in S.legal_actions(state)
    starter = state.to_act
    state, events = S.apply(state, "knock")
    assert events == [engine.Event("knock", starter, {})]
    assert state.phase == FINAL_ROUND
    assert state.knocker == starter
    assert state.final_left == seats - 1


# ---------------------------------------------------------------------------------------------
# 31


def test_rule_31_by_swap_ends_round_at_once():
    state = position(["AH KH 7S", "8D 9D 7D", "10S JS 9S"], "QH 8C 9H")
    state, events = S.apply(state, "swap.7S.QH")
    assert kinds(events) == ["swap", "showdown", "payout"]
    assert state.phase == PAYOUT
    assert state.to_act is None
    assert state.turns == 1
    r = state.result
    assert r.reason == "31"
    assert r.thirty_one == 0
    assert events[1].seat == 0
    assert r.values2 == (62, 48, 58)
    assert r.losers == (1,)
    assert state.coins == (3, 2, 3)
    assert state.pot == 1


def test_rule_31_by_swap_ends_round_at_once_in_final_turns():
    state = position(["7H 8H 9H", "AS KS 7C", "10D JD 8C"], "QS 7D 9C")
    state, _ = S.apply(state, "knock")
    state, events = S.apply(state, "swap.7C.QS")
    assert state.phase == PAYOUT
    assert state.turns == 2  # seat 2 never had its last turn
    assert state.result.reason == "31"
    assert state.result.thirty_one == 1
    assert state.result.values2 == (48, 62, 40)
    assert state.result.losers == (2,)
    assert kinds(events) == ["swap", "showdown", "payout"]


@pytest.mark.parametrize("knock_first", [False, True])
def test_rule_31_by_swap_all_ends_round_at_once(knock_first):
    state = position(["7H 8C 9D", "7S 8S 9S", "10C JC 7D"], "AD KD 10D")
    if knock_first:
        state, _ = S.apply(state, "knock")
    state, events = S.apply(state, "all")
    assert kinds(events) == ["swap_all", "showdown", "payout"]
    assert state.phase == PAYOUT
    r = state.result
    assert r.reason == "31"
    assert r.thirty_one == (1 if knock_first else 0)
    expected_losers = (0,) if knock_first else (2,)
    assert r.losers == expected_losers


def test_rule_trio_does_not_end_round():
    state = position(["9H 9S 7C", "8D 10D 7D", "10S JS 7S"], "9C 8C 8H")
    state, events = S.apply(state, "swap.7C.9C")
    assert S.hand_value(state.hands[0]) == 30.5
    assert state.phase == TURN
    assert state.to_act == 1
    assert kinds(events) == ["swap"]


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


# ---------------------------------------------------------------------------------------------
# between rounds, illegal moves, codes


def test_rule_deal_only_between_rounds():
    state = position(*LOW3)
    assert S.DEAL not in S.legal_actions(state)
    assert_illegal(state, "deal", "still being played")
    state, _ = S.apply(state, "knock")
    assert_illegal(state, "deal", "still being played")
    state, _ = play(state, "knock", "knock")
    assert state.phase == PAYOUT
    assert S.to_act(state) is None
    assert S.legal_actions(state) == (S.DEAL,)
    for code in ("pass", "knock", "all", "swap.7H.7C"):
        assert_illegal(state, code, "round is over")
    round_no = state.round_no
    new, events = S.apply(state, "deal")
    assert new.round_no == round_no + 1
    assert events[0].kind == "deal"
    assert events[0].data["round"] == round_no + 1
    assert events[0].data["middle"] == [c.code for c in new.middle]
    if new.phase == TURN:
        assert new.result is None
        assert new.knocker is None
        assert new.turns == 0
        assert new.to_act == new.starter


def test_illegal_swap_of_card_not_in_hand_or_not_in_middle():
    state = position(*LOW3)
    assert_illegal(state, "swap.AH.7C", "not in your hand")
    assert_illegal(state, "swap.10C.7C", "not in your hand")  # seat 1's card
    assert_illegal(state, "swap.7H.AS", "not in the middle")
    assert_illegal(state, "swap.7H.10H", "not in the middle")  # seat 2's card


@pytest.mark.parametrize(
    "code", ["", "foo", "swap", "swap.AH", "swap.AH.AH", "swap.2H.AH", "swap.XX.7C", "dealer"])
def test_unknown_codes_raise_illegal_action(code):
    state = position(*LOW3)
    assert_illegal(state, code, "unknown move")
    with pytest.raises(IllegalAction, match="unknown move"):
        S.parse_action(code)


def test_action_codes_round_trip():
    state = position(*LOW3)
    for action in S.legal_actions(state):
        assert S.parse_action(action.code) is action
        assert str(action) == action.code
        assert len(f"v1:123456:99999:{action.code}".encode()) <= 64
    assert S.parse_action("deal") is S.DEAL
    a = S.swap(*parse_cards("AH KS"))
    assert (a.code, a.kind) == ("swap.AH.KS", "swap")
    assert S.parse_action("swap.AH.KS") is a
    with pytest.raises(GameError):
        S.swap(*parse_cards("AH AH"))
    with pytest.raises(GameError):
        S.swap(*parse_cards("2H AH"))


def test_state_is_a_value_apply_does_not_change_it():
    state = position(*LOW3)
    before = S.to_json(state)
    copy = state
    S.apply(state, "swap.7H.7C")
    S.apply(state, "all")
    S.apply(state, "knock")
    assert state is copy
    assert S.to_json(state) == before


# ---------------------------------------------------------------------------------------------
# observation and JSON


def test_observation_shows_own_hand_and_middle_only():
    state = position(*LOW3)
    for seat in range(3):
        obs = S.observation(state, seat)
        assert obs.hand == state.hands[seat]
        assert obs.middle == state.middle
        others = {c for s in range(3) if s != seat for c in state.hands[s]}
        assert not obs.visible_cards() & others
        assert obs.result is None
        assert obs.legal == (S.legal_actions(state) if seat == 0 else ())
    view = S.public_view(state)
    assert view.hand == () and view.legal == ()
    assert view.visible_cards() == set(state.middle)
    assert S.hidden_cards(state) == set(S.DECK) - set(state.middle)
    with pytest.raises(GameError):
        S.observation(state, 3)


def test_json_round_trip_of_hand_built_positions():
    states = [position(*LOW3)]
    s, _ = S.apply(states[0], "knock")
    states.append(s)
    s, _ = all_knock(position(*LOW3))
    states.append(s)
    s, _ = all_knock(position(["7H 8C 9D", "KS QS 7C"], "8H 9S 10D", coins=(0, 2), pot=4))
    states.append(s)
    states.append(position(["7H 8C 9D", "", "10C JD 7S", "8H 9H 10H"], "7C 8D 9S",
                           coins=(3, 0, 3, 3), pot=3))
    for state in states:
        text = S.to_json(state)
        assert S.from_json(text) == state
        assert S.to_json(S.from_json(text)) == text


@pytest.mark.parametrize("text", ["", "not json", "{}", '{"game": "scat"}', '{"game": "schwimmen"}'])
def test_from_json_rejects_garbage(text):
    with pytest.raises(GameError):
        S.from_json(text)


def test_hand_value_refuses_cards_outside_the_deck_and_duplicates():
    """Issue 17, item 14 (from the rules audits): like Scat, ``hand_value`` takes only three
    different cards of the 32-card deck; ``coins=True`` is no number of coins."""
    assert S.hand_value(parse_cards("AH KH QH")) == 31
    for bad in ("AH AH KH", "2H KH QH", "AH KH BJ"):
        with pytest.raises(GameError):
            S.hand_value(parse_cards(bad))
    for coins in (True, 0, 10, "3"):
        with pytest.raises(GameError):
            S.new_game(3, {"coins": coins}, seed=1)
