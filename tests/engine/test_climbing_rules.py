"""Climbing game: one test per rule decision of RULES.md §4 (seed 003_4c280b6a8724f61e.txt)
and of docs/rules-climbing.md.

Positions are built by hand from a freshly dealt game with ``State._replace``; deals with
chosen hands replace the shuffle (``deal_with``). Every test asserts concrete outcomes.
"""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine import GAMES, GameError, IllegalAction
from engine import climbing as C
from engine.cards import parse_cards
from engine.protocol import EXCHANGE, FINISHED, PAYOUT, TURN

# ---------------------------------------------------------------------------------------------
# helpers


def cards(text: str) -> tuple:
    return parse_cards(text)


def position(hands: list[str], to_act: int = 0, table: str | None = None,
             owner: int | None = None, **changes) -> C.State:
    """A round in progress with exactly these hands ('' for a player who is out)."""
    hs = tuple(C.sort_cards(parse_cards(h)) for h in hands)
    used = [c for h in hs for c in h]
    assert len(used) == len(set(used)), "a card is used twice in the position"
    fields = {
        "hands": hs, "to_act": to_act, "phase": TURN, "opening": False,
        "table": None if table is None else C.parse_action(table), "owner": owner,
        "passed": (False,) * 4, "out_order": (), "played": (), "exchange": None,
        "result": None, "winners": (), "leader": to_act,
    }
    fields.update(changes)
    return C.new_game(4, seed=1)._replace(**fields)


def play(state: C.State, *codes: str) -> tuple[C.State, list[engine.Event]]:
    events: list[engine.Event] = []
    for code in codes:
        state, evs = C.apply(state, code)
        events.extend(evs)
    return state, events


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def codes(actions) -> list[str]:
    return [a.code for a in actions]


def assert_illegal(state: C.State, code: str, match: str) -> None:
    """``code`` raises IllegalAction with a reason and leaves the state as it was."""
    before_json = C.to_json(state)
    before = state
    with pytest.raises(IllegalAction, match=match):
        C.apply(state, code)
    assert state == before
    assert C.to_json(state) == before_json


class _FixedShuffle:
    """Stands in for the round RNG: ``shuffle`` lays the deck in a chosen order."""

    def __init__(self, order: list) -> None:
        self.order = order

    def shuffle(self, deck: list) -> None:
        deck[:] = self.order


def deal_with(monkeypatch, state: C.State, hands: dict[int, str]) -> tuple[C.State, list]:
    """Apply ``deal`` so that the seats named in ``hands`` are dealt exactly those cards
    (the rest of the deck goes round the others)."""
    dealer = (state.dealer + 1) % 4
    fixed = {s: list(parse_cards(h)) for s, h in hands.items()}
    rest = [c for c in C.DECK if not any(c in h for h in fixed.values())]
    sizes = {(dealer + 1) % 4: 14, (dealer + 2) % 4: 14, (dealer + 3) % 4: 13, dealer: 13}
    for s, h in fixed.items():
        assert len(h) == sizes[s], f"seat {s} gets {sizes[s]} cards"
    dealt = {s: fixed.get(s) or [rest.pop() for _ in range(sizes[s])] for s in range(4)}
    order = []
    pos = {s: 0 for s in range(4)}
    for i in range(54):
        s = (dealer + 1 + i) % 4
        order.append(dealt[s][pos[s]])
        pos[s] += 1
    monkeypatch.setattr(C, "_rng", lambda seed, round_no: _FixedShuffle(order))
    return C.apply(state, "deal")


def after_round(order: tuple[int, ...], scores=(0, 0, 0, 0), target=21, dealer=0) -> C.State:
    """A state in ``payout`` right after a round that ended in ``order``."""
    points = [0] * 4
    for place, s in enumerate(order):
        points[s] = C.POINTS[place]
    result = C.RoundResult(1, order, tuple(points), scores, target, target, ())
    return C.new_game(4, seed=1)._replace(
        phase=PAYOUT, to_act=None, result=result, scores=scores, target=target, dealer=dealer,
        out_order=order, opening=False, table=None, owner=None)


def end_of_round(scores, target, first_two=(0, 1)) -> C.State:
    """Seats ``first_two`` are out (in that order); of the two left, the one on turn goes out
    with its last card next: the order becomes first_two + (that seat, the other)."""
    rest = [s for s in range(4) if s not in first_two]
    hands = ["", "", "", ""]
    hands[rest[0]] = "3C"
    hands[rest[1]] = "4C 5D"
    return position(hands, to_act=rest[0], out_order=tuple(first_two),
                    scores=tuple(scores), target=target)


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


# ---------------------------------------------------------------------------------------------
# the first play


def test_rule_first_round_holder_of_three_of_spades_starts():
    for seed in range(15):
        state = C.new_game(4, seed=seed)
        holder = next(s for s in range(4) if C.THREE_OF_SPADES in state.hands[s])
        assert state.phase == TURN
        assert state.to_act == holder == state.leader
        assert state.opening
        assert state.exchange is None


def test_rule_first_play_must_include_three_of_spades():
    state = position(["3S 3H 4C 5D 6S 7H 9C", "8C", "8D", "8H"], opening=True)
    legal = C.legal_actions(state)
    assert legal and all(C.THREE_OF_SPADES in a.cards for a in legal)
    assert C.PASS not in legal
    assert_illegal(state, "4C", "3♠")
    assert_illegal(state, "3H", "3♠")
    new, events = C.apply(state, "3S")
    assert not new.opening
    assert events[0].kind == "play" and events[0].data["cards"] == ["3S"]


def test_rule_first_play_three_of_spades_in_a_pair_or_triple_or_four():
    state = position(["3C 3S 3H 3D 9C", "8C", "8D", "8H"], opening=True)
    legal = codes(C.legal_actions(state))
    assert "3C+3S" in legal and "3S+3H" in legal and "3C+3S+3H" in legal
    assert "3C+3S+3H+3D" in legal
    assert "3C+3H" not in legal  # a pair without 3♠
    new, _ = C.apply(state, "3S+3H")
    assert new.table.kind == "pair"


def test_rule_first_play_three_of_spades_in_a_straight():
    state = position(["AC 2D 3S 4H 5C 6D 7S", "8C", "8D", "8H"], opening=True)
    legal = codes(C.legal_actions(state))
    assert "sA.CDSHC" in legal  # A-2-3-4-5
    assert "s2.DSHCD" in legal  # 2-3-4-5-6
    assert "s3.SHCDS" in legal  # 3-4-5-6-7
    new, _ = C.apply(state, "s3.SHCDS")
    assert new.table.kind == "straight" and new.hands[0] == cards("AC 2D")


def test_rule_three_of_spades_duty_only_in_the_first_round(monkeypatch):
    state = after_round((1, 2, 3, 0))
    new, _ = deal_with(monkeypatch, state, {})
    assert not new.opening
    if new.phase == EXCHANGE:
        new, _ = C.apply(new, C.legal_actions(new)[0])
    legal = C.legal_actions(new)
    assert any(C.THREE_OF_SPADES not in a.cards for a in legal)


# ---------------------------------------------------------------------------------------------
# beating


def test_rule_beat_same_kind_same_number_higher_rank():
    state = position(["6C 6S 7C 7S 7H 9D 3C 4D 5H 6H 8S", "KH", "KD", "KS"], table="5C+5D",
                     owner=3)
    assert_illegal(state, "9D", "pair")
    assert_illegal(state, "7C+7S+7H", "pair")
    assert_illegal(state, "s3.CDHHH", "pair")
    new, events = C.apply(state, "6C+6S")
    assert new.table.code == "6C+6S" and new.owner == 0
    low = position(["4C 4S 5H 5S", "KH", "KD", "KS"], table="5C+5D", owner=3)
    assert_illegal(low, "4C+4S", "not higher")
    assert_illegal(low, "5S+5H", "not higher")  # the same rank is not enough


def test_rule_straight_beaten_only_by_exactly_one_higher():
    hand = "4C 5C 6C 7C 8C 9C 10C JC"
    state = position([hand, "KH", "KD", "KS"], table="s3.SHSHSH", owner=3)  # 3-8
    legal = codes(C.legal_actions(state))
    assert legal == ["s4.CCCCCC", "pass"]  # only 4-9
    assert_illegal(state, "s5.CCCCCC", "exactly one higher")  # 5-10
    assert_illegal(state, "s4.CCCCC", "straight of 6")  # 4-8 is shorter
    assert_illegal(state, "s4.CCCCCCC", "straight of 6")  # 4-10 is longer


def test_option_straight_any_higher_of_the_same_length():
    hand = "4C 5C 6C 7C 8C 9C 10C JC"
    state = position([hand, "KH", "KD", "KS"], table="s3.SHSHSH", owner=3,
                     options=(("straight_step", "any"),))
    assert state.straight_step == "any"
    assert codes(C.legal_actions(state)) == ["s4.CCCCCC", "s5.CCCCCC", "s6.CCCCCC", "pass"]
    assert_illegal(state, "s4.CCCCC", "straight of 6")
    assert C.beats(C.classify(cards("5C 6C 7C 8C 9C")), C.classify(cards("3C 4D 5D 6D 7D")),
                   "any")
    assert not C.beats(C.classify(cards("5C 6C 7C 8C 9C")),
                       C.classify(cards("3C 4D 5D 6D 7D")), "exact")


def test_option_straight_step_default_exact_and_validated():
    assert C.new_game(4, seed=1).straight_step == "exact"
    assert C.new_game(4, {"straight_step": "any"}, seed=1).straight_step == "any"
    with pytest.raises(GameError):
        C.new_game(4, {"straight_step": "sometimes"}, seed=1)
    with pytest.raises(GameError):
        C.new_game(4, {"jokers": 3}, seed=1)


@pytest.mark.parametrize("table", ["RJ", "BJ", "2C+2D", "AC+AS+AH", "s10.CCCCC",
                                   "s5.CCCCCCCCC"])
def test_rule_four_of_a_kind_beats_any_non_four_jokers_included(table):
    assert not set(C.parse_action(table).cards) & set(cards("3C 3S 3H 3D"))
    state = position(["3C 3S 3H 3D", "9H", "9D", "9S"], table=table, owner=2)
    assert "3C+3S+3H+3D" in codes(C.legal_actions(state))
    new, _ = C.apply(state, "3C+3S+3H+3D")
    assert new.table.kind == "four" and new.owner == 0


def test_rule_higher_four_beats_lower_four_only():
    state = position(["5C 5S 5H 5D 3C 3S 3H 9D", "KH", "KD", "KS"], table="4C+4S+4H+4D",
                     owner=1)
    assert codes(C.legal_actions(state)) == ["5C+5S+5H+5D", "pass"]
    assert_illegal(state, "3C+3S+3H", "higher four")
    assert_illegal(state, "9D", "higher four")
    high = position(["3C 3S 3H 3D", "KH", "KD", "KS"], table="4C+4S+4H+4D", owner=1)
    assert_illegal(high, "3C+3S+3H+3D", "higher four")


# ---------------------------------------------------------------------------------------------
# passing and leading


def test_rule_pass_is_always_allowed_when_a_play_is_on_the_table():
    state = position(["2C 2S", "3C", "3D", "3H"], table="KC+KS", owner=3)
    assert "pass" in codes(C.legal_actions(state))  # even though 2-2 would beat it
    new, events = C.apply(state, "pass")
    assert kinds(events) == ["pass"]
    assert new.to_act == 1 and new.passed[0]


def test_decision_the_leader_cannot_pass():
    state = position(["2C 2S", "3C", "3D", "3H"])
    assert "pass" not in codes(C.legal_actions(state))
    assert_illegal(state, "pass", "you lead")


def test_rule_passed_player_may_play_again_later_in_the_same_trick():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, _ = play(state, "pass", "4C", "6C", "8C")  # seat 0 passed, the others went on
    assert state.to_act == 0 and state.table.code == "8C"
    state, events = C.apply(state, "9C")  # back in the same trick
    assert events[0].kind == "play" and state.owner == 0


def test_rule_all_others_pass_the_last_player_leads_anew():
    state = position(["9C 10C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, events = play(state, "9C", "pass", "pass", "pass")
    assert kinds(events)[-2:] == ["pass", "trick"]
    assert events[-1].seat == 0 and events[-1].data["leader"] == 0
    assert state.to_act == 0 and state.table is None and state.owner is None
    assert state.passed == (False,) * 4
    assert "pass" not in codes(C.legal_actions(state))


def test_decision_players_who_are_out_do_not_count_when_all_pass():
    # seat 2 is out; seats 3 and 1 passing after seat 0's play is "all others"
    state = position(["9C 10C", "4C 5C", "", "8C JC"], table="3C", owner=1, to_act=3,
                     out_order=(2,))
    state, events = play(state, "8C", "9C", "pass", "pass")
    assert kinds(events)[-1] == "trick"
    assert state.to_act == 0 and state.table is None


def test_rule_player_who_went_out_the_next_player_holding_cards_leads():
    state = position(["9C", "4C 5C", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0)
    state, events = C.apply(state, "9C")  # seat 0 goes out with its play
    assert events[0].data["out"] == 1 and state.out_order == (0,)
    assert state.to_act == 1  # the others may still beat it
    state, events = play(state, "pass", "pass", "pass")
    trick = events[-1]
    assert trick.kind == "trick" and trick.seat == 0 and trick.data["leader"] == 1
    assert state.to_act == 1 and state.table is None


def test_rule_went_out_the_next_holding_cards_skips_players_already_out():
    state = position(["9C", "", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0,
                     out_order=(1,))
    state, _ = play(state, "9C", "pass", "pass")
    assert state.to_act == 2 and state.table is None


def test_rule_the_turn_skips_players_who_are_out():
    state = position(["9C 10C", "", "6C 7C", "8C JC"], table="3C", owner=3, to_act=0,
                     out_order=(1,))
    state, _ = C.apply(state, "9C")
    assert state.to_act == 2


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
