"""Run Fast: the legal-move generator lists every legal play exactly once (as card sets).

Exact counts on hand-made hands (a hand, its complete leads, its complete answers to a play),
and a brute-force oracle: every subset of a small hand is classified from first principles and
compared with the generator.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import runfast as R
from engine.cards import Card, parse_cards


def m(text: str) -> int:
    return R.mask_of(parse_cards(text))


def key(text: str) -> R.Key:
    combo = R.classify(parse_cards(text), final=True)
    assert combo is not None
    return combo.key


def plays(hand: str, table: str | None = None, next_one: bool = False) -> list[frozenset[Card]]:
    """The generator's plays as card sets (duplicates kept, to be counted)."""
    fams = R.families(m(hand), None if table is None else key(table), next_one)
    return [frozenset(R.cards_of(x)) for f in fams for x in f.masks]


def sets(*texts: str) -> set[frozenset[Card]]:
    return {frozenset(parse_cards(t)) for t in texts}


def check_exactly_once(found: list[frozenset[Card]]) -> set[frozenset[Card]]:
    assert len(found) == len(set(found)), "a play is listed twice"
    return set(found)


# --------------------------------------------------------------------------------- the oracle


def readings(cards: tuple[Card, ...], final: bool) -> list[R.Key]:
    """Every way a card set reads as a combination, straight from docs/rules-runfast.md §2."""
    power = Counter(R.power_of(c.rank) for c in cards)
    n = len(cards)
    out: list[R.Key] = []
    if 4 in power.values():
        return [("bomb", 1, next(p for p, k in power.items() if k == 4))] if n == 4 else []
    ranks = sorted(power)
    consecutive = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    if n == 1:
        out.append(("single", 1, ranks[0]))
    if n == 2 and len(ranks) == 1:
        out.append(("pair", 1, ranks[0]))
    if n >= 4 and set(power.values()) == {2} and consecutive and ranks[-1] <= 11:
        out.append(("pair_chain", n // 2, ranks[-1]))
    if n >= 5 and set(power.values()) == {1} and consecutive and ranks[-1] <= 11:
        out.append(("straight", n, ranks[-1]))
    for k in range(1, 6):
        for top in range(k - 1, 12):
            run = range(top - k + 1, top + 1)
            if all(power.get(p, 0) == 3 for p in run):
                kickers = n - 3 * k
                if kickers == 2 * k or (final and 0 <= kickers < 2 * k):
                    out.append(("triple_two", 1, top) if k == 1 else ("airplane", k, top))
    return out


def oracle(hand: tuple[Card, ...], table: R.Key | None, next_one: bool) -> set[frozenset[Card]]:
    """Every legal play, by trying every subset of the hand."""
    by_rank = Counter(c.rank for c in hand)
    bomb_ranks = {r for r, k in by_rank.items() if k == 4}
    top_single = max((R.power_of(c.rank) for c in hand if c.rank not in bomb_ranks), default=None)
    legal: set[frozenset[Card]] = set()
    for size in range(1, len(hand) + 1):
        for sub in combinations(hand, size):
            used = Counter(c.rank for c in sub)
            if any(0 < used[r] < 4 for r in bomb_ranks):
                continue  # bombs stay whole
            final = size == len(hand)
            reads = readings(sub, final)
            if table is not None:
                reads = [r for r in reads if R._beats(r, table)]
            if not reads:
                continue
            if next_one and reads[0][0] == "single" and reads[0][2] != top_single:
                continue
            legal.add(frozenset(sub))
    return legal


def test_oracle_agrees_on_a_known_hand():
    hand = parse_cards("5C 5S 5H 6C 6S 6H 9D")
    assert oracle(hand, None, False) == set(plays("5C 5S 5H 6C 6S 6H 9D"))


# --------------------------------------------------------------------------------- exact counts


def test_leads_of_a_hand_with_pairs_and_straights():
    hand = "3C 3S 4H 4D 5C 6S 7H 8D 2S"
    found = check_exactly_once(plays(hand))
    by_kind = Counter(R.classify(list(p)).kind for p in found)
    # 9 singles, pairs 33 44, chain 3344, straights 3-7 (4), 4-8 (2), 3-8 (4)
    assert by_kind == {"single": 9, "pair": 2, "pair_chain": 1, "straight": 10}
    assert len(found) == 22
    assert sets("3C 4H 5C 6S 7H", "3S 4D 5C 6S 7H 8D") <= found


def test_answers_of_a_hand_to_a_straight_and_a_pair():
    hand = "3C 3S 4H 4D 5C 6S 7H 8D 2S"
    assert check_exactly_once(plays(hand, "3D 4C 5D 6D 7D")) == sets("4H 5C 6S 7H 8D",
                                                                     "4D 5C 6S 7H 8D")
    assert check_exactly_once(plays(hand, "3D 3H")) == sets("4H 4D")
    assert plays(hand, "KC KD") == []
    assert len(plays(hand, "AC")) == 1  # only the 2♠


def test_triple_with_two_lists_every_kicker_choice_once():
    hand = "5C 5S 5H 9D KC 2S"
    found = check_exactly_once(plays(hand))
    triples = {p for p in found if len(p) == 5}
    assert triples == sets("5C 5S 5H 9D KC", "5C 5S 5H 9D 2S", "5C 5S 5H KC 2S")
    # 6 singles, 3 pairs of fives, 3 triples-with-two; 555 + three kickers is nothing
    assert len(found) == 12


def test_bombs_stay_whole_in_leads():
    found = check_exactly_once(plays("7C 7S 7H 7D 8C 8S 9H"))
    assert found == sets("8C", "8S", "9H", "8C 8S", "7C 7S 7H 7D")


def test_bombs_stay_whole_in_answers():
    hand = "7C 7S 7H 7D 8C 8S 9H"
    assert check_exactly_once(plays(hand, "8D")) == sets("9H", "7C 7S 7H 7D")
    assert check_exactly_once(plays(hand, "6C 6S")) == sets("8C 8S", "7C 7S 7H 7D")
    assert check_exactly_once(plays(hand, "6C 6S 6H 3C 4D")) == sets("7C 7S 7H 7D")
    assert plays(hand, "8C 8S 8H 8D") == []  # the lower bomb does not beat
    assert check_exactly_once(plays(hand, "6C 6S 6H 6D")) == sets("7C 7S 7H 7D")


def test_must_beat_with_only_a_bomb():
    hand = "7C 7S 7H 7D 8C 8S 9H"
    assert check_exactly_once(plays(hand, "9C 9S")) == sets("7C 7S 7H 7D")


def test_airplane_with_wings_and_every_kicker_choice():
    hand = "5C 5S 5H 6C 6S 6H 9D 10C JH QS"
    found = check_exactly_once(plays(hand))
    by_kind = Counter(R.classify(list(p)).kind for p in found)
    # singles 10; pairs 3 + 3; chains 5566: 9; 555/666 + 2 of 7 others: 21 + 21; one airplane
    assert by_kind == {"single": 10, "pair": 6, "pair_chain": 9, "triple_two": 42,
                       "airplane": 1}
    assert len(found) == 68


def test_airplane_read_two_ways_is_listed_once():
    hand = "5C 5S 5H 6C 6S 6H 7C 7S 7H 9D"
    found = check_exactly_once(plays(hand))
    airplanes = [p for p in found if R.classify(list(p)).kind == "airplane"]
    assert airplanes == [frozenset(parse_cards(hand))]
    # singles 10; pairs 9; chains 5566 6677 (9 each) and 556677 (27); triples 3 × 21; airplane
    assert len(found) == 10 + 9 + 45 + 63 + 1
    assert check_exactly_once(plays(hand, "3C 3S 3H 4C 4S 4H 8C 8S 9C 9S")) == \
        sets(hand)  # beats as 666777 with the kickers 5559
    assert plays(hand, "6D 8C 8S 8H 7D 9C 9S 9H 3C 4C") == []


def test_final_play_exception_triple_with_one_or_none():
    assert check_exactly_once(plays("9C 9S 9H 4D", "8C 8S 8H 3D 3C")) == sets("9C 9S 9H 4D")
    assert check_exactly_once(plays("9C 9S 9H", "8C 8S 8H 3D 3C")) == sets("9C 9S 9H")
    leads = check_exactly_once(plays("9C 9S 9H 4D"))
    assert len(leads) == 4 + 3 + 1 and frozenset(parse_cards("9C 9S 9H 4D")) in leads
    assert len(check_exactly_once(plays("9C 9S 9H"))) == 3 + 3 + 1
    assert plays("7C 7S 7H 4D", "8C 8S 8H 3D 3C") == []


def test_final_play_exception_airplane_with_fewer_kickers():
    hand = "5C 5S 5H 6C 6S 6H 8D"
    assert check_exactly_once(plays(hand, "3C 3S 3H 4C 4S 4H 9D 10C JH QS")) == sets(hand)
    # singles 7, pairs 6, chain 5566: 9, 555/666 + 2 of 4: 12, the whole hand at once
    assert len(check_exactly_once(plays(hand))) == 7 + 6 + 9 + 12 + 1


def test_next_player_has_one_card_single_must_be_the_highest():
    hand = "3C 5S 9H KD KC"
    assert check_exactly_once(plays(hand, None, next_one=True)) == sets("KD", "KC", "KD KC")
    assert check_exactly_once(plays(hand, "10C", next_one=True)) == sets("KD", "KC")
    assert plays(hand, "KH", next_one=True) == []
    assert len(plays(hand, "KH", next_one=False)) == 0
    assert len(plays(hand, "8H", next_one=False)) == 3


def test_next_player_has_one_card_bomb_cards_do_not_count_as_singles():
    hand = "3C 4C 4S 4H 4D"
    assert check_exactly_once(plays(hand, None, next_one=True)) == sets("3C", "4C 4S 4H 4D")


# --------------------------------------------------------------------------------- properties


small_hands = st.lists(st.sampled_from(R.DECK), min_size=1, max_size=10, unique=True)


@settings(max_examples=120, deadline=None)
@given(hand=small_hands, table_seed=st.integers(0, 10_000), next_one=st.booleans())
def test_generator_matches_brute_force(hand, table_seed, next_one):
    hand = tuple(hand)
    rng = random.Random(table_seed)
    table = None
    if table_seed % 4:  # answer a random combination made from the other cards
        rest = [c for c in R.DECK if c not in hand]
        for _ in range(200):
            pick = rng.sample(rest, rng.choice([1, 1, 2, 2, 4, 5, 5, 6, 10]))
            combo = R.classify(pick)
            if combo is not None:
                table = combo.key
                break
    fams = R.families(R.mask_of(hand), table, next_one)
    found = [frozenset(R.cards_of(x)) for f in fams for x in f.masks]
    assert len(found) == len(set(found))
    assert set(found) == oracle(hand, table, next_one)
    for f in fams:  # every family's kind, size and rank are those of its plays
        assert len(f.masks) > 0
        for i, x in enumerate(f.masks):
            assert f.masks[i] == x and x in f.masks
            got = R.interpret(x, x == R.mask_of(hand), table)
            assert got == (f.kind, f.length, f.power)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_dealt_hands_every_listed_play_is_legal_and_decodes(seed):
    state = R.new_game(3, seed=seed)
    legal = R.legal_actions(state)
    assert len(legal) == len({a.mask for a in legal})
    assert list(legal) == [legal[i] for i in range(len(legal))]
    assert legal[-1] == list(legal)[-1]
    for action in legal:
        assert R.why_illegal(state, action) is None
        assert R.parse_action(action.code) == action
        assert action in legal


def test_kickers_sequence_indexes_like_its_iteration():
    rest = [1 << i for i in range(7)]
    avoid = [1 << i for i in range(8, 11)]
    fam = R.Kickers(1 << 20, rest, avoid, 4)
    items = list(fam)
    assert len(items) == len(fam) == len(set(items))
    assert items == [fam[i] for i in range(len(fam))]
    everything = {(1 << 20) | sum(c) for c in combinations(rest + avoid, 4)}
    assert set(items) == {x for x in everything if x & 0b111 << 8 != 0b111 << 8}
