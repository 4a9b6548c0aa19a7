"""Climbing game: legal move generation — exact lists for hand-made hands, and every legal play
exactly once (distinct card sets) against a brute force over all subsets of random hands."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import climbing as C
from engine.cards import parse_cards
from engine.protocol import TURN


def state_with(hand: str, table: str | None = None, step: str = "exact",
               opening: bool = False) -> C.State:
    hs = [C.sort_cards(parse_cards(hand)), (), (), ()]
    others = [c for c in C.DECK if c not in hs[0]]
    if table is not None:
        others = [c for c in others if c not in C.parse_action(table).cards]
    hs[1], hs[2], hs[3] = (tuple(others[:1]), tuple(others[1:2]), tuple(others[2:3]))
    return C.new_game(4, {"straight_step": step}, seed=1)._replace(
        hands=tuple(tuple(C.sort_cards(h)) for h in hs), to_act=0, phase=TURN,
        table=None if table is None else C.parse_action(table),
        owner=None if table is None else 3, opening=opening, out_order=(), played=(),
        passed=(False,) * 4, exchange=None)


def legal(hand: str, table: str | None = None, step: str = "exact",
          opening: bool = False) -> list[str]:
    return [a.code for a in C.legal_actions(state_with(hand, table, step, opening))]


def test_movegen_lead_small_hand_exact_list():
    assert legal("3S 3H 4C 5D 6S 7H BJ") == [
        "3S", "3H", "4C", "5D", "6S", "7H", "BJ",
        "3S+3H",
        "s3.SCDSH", "s3.HCDSH",
    ]


def test_movegen_lead_groups_every_pair_and_triple_once():
    assert legal("9C 9S 9H") == ["9C", "9S", "9H", "9C+9S", "9C+9H", "9S+9H", "9C+9S+9H"]
    got = legal("KC KS KH KD")
    assert len(got) == 4 + 6 + 4 + 1
    assert got[-1] == "KC+KS+KH+KD"


def test_movegen_lead_straights_every_length_and_start():
    got = [c for c in legal("AS 2H 3C 4D 5S 6H") if c.startswith("s")]
    assert got == ["sA.SHCDS", "sA.SHCDSH", "s2.HCDSH"]


def test_movegen_lead_ace_high_straight_and_no_wrap():
    got = [c for c in legal("10C JC QC KC AC 2C 3C") if c.startswith("s")]
    assert got == ["s10.CCCCC"]  # J-Q-K-A-2, Q-K-A-2-3 … are no straights


def test_movegen_answer_single_higher_singles_jokers_and_fours():
    assert legal("4C 9S 9H 2D BJ 5C 5S 5H 5D", table="9C") == [
        "2D", "BJ", "5C+5S+5H+5D", "pass"]


def test_movegen_answer_pair_higher_pairs_only_and_fours():
    assert legal("4C 4S 8C 8S 8H QD QS BJ", table="7C+7S") == [
        "8C+8S", "8C+8H", "8S+8H", "QS+QD", "pass"]


def test_movegen_answer_triple():
    assert legal("4C 4S 4H 8C 8S 8H 8D", table="6C+6S+6H") == [
        "8C+8S+8H", "8C+8S+8D", "8C+8H+8D", "8S+8H+8D", "8C+8S+8H+8D", "pass"]


def test_movegen_answer_four_only_higher_fours():
    assert legal("4C 4S 4H 4D 8C 8S 8H 8D RJ", table="6C+6S+6H+6D") == ["8C+8S+8H+8D", "pass"]


def test_movegen_answer_straight_exactly_one_higher():
    hand = "4C 5C 6C 7C 8C 9C 9D 10H"
    assert legal(hand, table="s3.HHHHH") == ["s4.CCCCC", "pass"]  # 3-7 → 4-8
    assert legal(hand, table="s4.HHHHH") == [  # 4-8 → 5-9, with either nine
        "s5.CCCCC", "s5.CCCCD", "pass"]
    assert legal(hand, table="s6.HHHHH") == ["pass"]  # 7-J is not in the hand


def test_movegen_answer_straight_option_any_higher():
    hand = "4C 5C 6C 7C 8C 9C 10H"
    assert legal(hand, table="s3.HHHHH", step="any") == [
        "s4.CCCCC", "s5.CCCCC", "s6.CCCCH", "pass"]


def test_movegen_answer_ace_low_straight_by_the_two_straight():
    assert legal("2C 3C 4C 5C 6C 7C", table="sA.HHHHH") == ["s2.CCCCC", "pass"]


def test_movegen_opening_only_plays_with_three_of_spades():
    assert legal("3S 3H 4C 5D 6S 7H 9C", opening=True) == [
        "3S", "3S+3H", "s3.SCDSH"]


def test_movegen_exchange_lists_each_4_to_10_card():
    state = state_with("3C 4S 7H 10D JC 2S BJ")._replace(
        phase="exchange", exchange=C.Exchange(0, 1, C.BLACK_JOKER_CARD, None, "pending"))
    assert [a.code for a in C.legal_actions(state)] == ["g.4S", "g.7H", "g.10D"]


# ---------------------------------------------------------------------------------------------
# against brute force


def brute_force(hand, table, step: str, must=None) -> set[int]:
    """Card masks of every subset of the hand that is a combination beating the table."""
    out = set()
    for n in range(1, len(hand) + 1):
        for sub in itertools.combinations(hand, n):
            combo = C.classify(sub)
            if combo is None or not C.beats(combo, table, step):
                continue
            if must is not None and must not in sub:
                continue
            out.add(sum(1 << c.id for c in sub))
    return out


deck_indices = st.lists(st.integers(0, 53), min_size=1, max_size=12, unique=True)


@settings(max_examples=300, deadline=None)
@given(hand_ids=deck_indices, table_pick=st.integers(0, 10_000),
       step=st.sampled_from(C.STRAIGHT_STEPS), must=st.booleans())
def test_movegen_matches_brute_force_each_play_once(hand_ids, table_pick, step, must):
    hand = C.sort_cards(C.DECK[i] for i in hand_ids)
    rest = [c for c in C.DECK if c not in hand]
    # a table combination made of cards not in the hand (or none: a lead)
    tables = [None]
    for n in (1, 2, 3, 4, 5, 6):
        for sub in itertools.islice(itertools.combinations(rest[table_pick % 7::3], n), 40):
            if C.classify(sub) is not None:
                tables.append(C.play_for(sub))
    table = tables[table_pick % len(tables)]
    need = C.THREE_OF_SPADES if must and C.THREE_OF_SPADES in hand else None
    got = C.plays(hand, table, step, need)
    masks = [a.mask for a in got]
    assert len(masks) == len(set(masks)), "a play is listed twice"
    assert set(masks) == brute_force(hand, table, step, need)
    for a in got:
        combo = C.classify(a.cards)
        assert combo is not None and (combo.kind, combo.rank, combo.length) == (
            a.kind, a.rank, a.length)
        assert C.parse_action(a.code) is a
        assert len(a.code.encode()) <= 40


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.integers(0, 53), min_size=5, max_size=13, unique=True))
def test_movegen_classify_agrees_with_play_for_and_codes(ids):
    cs = [C.DECK[i] for i in ids]
    combo = C.classify(cs)
    action = C.play_for(cs)
    assert (combo is None) == (action is None)
    if action is not None:
        assert action.kind == combo.kind == "straight"
        assert C.parse_action(action.code) is action
