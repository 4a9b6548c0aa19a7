"""Who sits with whom in a tournament (``chatbot.service.tournament.pairing``, pure): the table
sizes every game allows for 2–40 people with CPU seats only where no split of the people fits,
round 1 by lot, later rounds Swiss style — by standing, nobody further than one table from
where their standing puts them, and no repeated opponent a swap with the next table could
avoid. Property tests with hypothesis."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.service.tournament import pairing
from engine import GAMES

ALLOWED = {"schwimmen": (2, 4), "scat": (2, 7), "runfast": (3, 3), "climbing": (4, 4)}


def fits_without_cpus(game: str, people: int) -> bool:
    """Whether ``people`` split into tables of the game's sizes (some count of tables t
    with t·smallest ≤ people ≤ t·largest)."""
    lo, hi = ALLOWED[game]
    return any(t * lo <= people <= t * hi for t in range(1, people + 1))


def fewest_cpus(game: str, people: int) -> int:
    """The fewest CPU seats that seat everybody (tables of allowed sizes, a person at each)."""
    if fits_without_cpus(game, people):
        return 0
    lo, hi = ALLOWED[game]
    return min(t * lo - people for t in range(-(-people // hi), people + 1) if t * lo >= people)


def seated(tables: list[list[int | None]]) -> list[int]:
    return [p for table in tables for p in table if p is not None]


def test_the_table_sizes_are_the_games_own() -> None:
    for game, (lo, hi) in ALLOWED.items():
        assert (lo, hi) == (GAMES[game].MIN_SEATS, GAMES[game].MAX_SEATS)
        assert pairing.sizes_allowed(game) == range(lo, hi + 1)


@pytest.mark.parametrize("game", sorted(ALLOWED))
def test_every_count_of_2_to_40_people_gets_allowed_tables_and_cpus_only_where_needed(
        game: str) -> None:
    lo, hi = ALLOWED[game]
    for people in range(2, 41):
        sizes = pairing.table_sizes(game, people)
        assert all(lo <= s <= hi for s in sizes), (people, sizes)
        assert sum(sizes) - people == fewest_cpus(game, people), (people, sizes)
        assert pairing.cpu_seats(game, people) == fewest_cpus(game, people)
        tables = pairing.draw(list(range(people)), game, random.Random(people))
        shares = [len([p for p in t if p is not None]) for t in tables]
        assert min(shares) >= 1 and max(shares) - min(shares) <= 1, (people, tables)


def test_sizes_near_four_for_schwimmen_and_scat_three_for_run_fast() -> None:
    assert pairing.table_sizes("schwimmen", 12) == [4, 4, 4]
    assert pairing.table_sizes("schwimmen", 5) == [3, 2]
    assert pairing.table_sizes("schwimmen", 9) == [3, 3, 3]
    assert pairing.table_sizes("scat", 5) == [5]  # one table of five, not 3 + 2
    assert pairing.table_sizes("scat", 6) == [3, 3]
    assert pairing.table_sizes("scat", 2) == [2]
    assert pairing.table_sizes("runfast", 7) == [3, 3, 3]  # two CPU seats
    assert pairing.table_sizes("climbing", 5) == [4, 4]  # three CPU seats: 3 + 2 people
    assert pairing.table_sizes("schwimmen", 1) == [2]  # one person alone: one CPU
    assert pairing.table_sizes("schwimmen", 0) == []


@settings(max_examples=150, deadline=None)
@given(game=st.sampled_from(sorted(ALLOWED)), people=st.integers(2, 40), seed=st.integers())
def test_the_draw_seats_everybody_once_at_allowed_tables(game: str, people: int,
                                                          seed: int) -> None:
    names = list(range(100, 100 + people))
    tables = pairing.draw(names, game, random.Random(seed))
    assert sorted(seated(tables)) == names
    assert sorted(len(t) for t in tables) == sorted(pairing.table_sizes(game, people))
    assert sum(p is None for t in tables for p in t) == fewest_cpus(game, people)


def test_the_draw_is_by_lot_and_the_same_for_the_same_seed() -> None:
    names = list(range(12))
    one = pairing.draw(names, "schwimmen", random.Random("7:1"))
    assert one == pairing.draw(names, "schwimmen", random.Random("7:1"))
    assert any(pairing.draw(names, "schwimmen", random.Random(s)) != one for s in range(5))


def homes(ranked: list[int], game: str) -> dict[int, int]:
    """Where each person's standing puts them: the best fill the first table first, the
    people spread evenly over the tables (every table its share)."""
    count = len(pairing.table_sizes(game, len(ranked)))
    base, extra = divmod(len(ranked), count)
    shares = [base + 1] * extra + [base] * (count - extra)
    out, at = {}, 0
    for table, share in enumerate(shares):
        for person in ranked[at:at + share]:
            out[person] = table
        at += share
    return out


def meetings(rounds: list[list[list[int | None]]]) -> Counter[tuple[int, int]]:
    met: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        for table in tables:
            for a, b in combinations(sorted(p for p in table if p is not None), 2):
                met[(a, b)] += 1
    return met


@settings(max_examples=150, deadline=None)
@given(game=st.sampled_from(sorted(ALLOWED)), people=st.integers(2, 40),
       earlier=st.integers(1, 3), seed=st.integers())
def test_swiss_keeps_standing_and_leaves_no_repeat_a_swap_with_the_next_table_avoids(
        game: str, people: int, earlier: int, seed: int) -> None:
    rng = random.Random(seed)
    names = list(range(people))
    past = [pairing.draw(names, game, rng) for _ in range(earlier)]
    met = meetings(past)

    def count(a: int, b: int) -> int:
        return met[(min(a, b), max(a, b))]
    ranked = rng.sample(names, people)
    tables = pairing.swiss(ranked, game, count, rng)
    assert sorted(seated(tables)) == names
    assert sorted(len(t) for t in tables) == sorted(pairing.table_sizes(game, people))
    home = homes(ranked, game)
    at = {p: i for i, t in enumerate(tables) for p in t if p is not None}
    assert all(abs(at[p] - home[p]) <= 1 for p in names), "nobody moves further than a table"
    for i in range(len(tables) - 1):
        here, there = tables[i], tables[i + 1]
        for a, p in enumerate(here):
            for b, q in enumerate(there):
                if p is None or q is None or abs(home[p] - (i + 1)) > 1 \
                        or abs(home[q] - i) > 1:
                    continue
                assert not pairing.swap_helps(list(here), list(there), a, b, count), \
                    f"swapping {p} and {q} would avoid a repeat"


def test_swiss_splits_two_tables_that_met_in_round_one() -> None:
    """Eight people, round 1 at {0..3} and {4..7}; the standings would seat the same tables
    again: swaps with the next table leave two repeats per table, the fewest possible."""
    met = meetings([[[0, 1, 2, 3], [4, 5, 6, 7]]])
    tables = pairing.swiss(list(range(8)), "schwimmen",
                           lambda a, b: met[(min(a, b), max(a, b))], random.Random(1))
    assert [pairing.repeats(t, lambda a, b: met[(min(a, b), max(a, b))]) for t in tables] \
        == [2, 2]


def test_swiss_without_repeats_keeps_the_standing_order() -> None:
    tables = pairing.swiss(list(range(12)), "schwimmen", lambda a, b: 0, random.Random(3))
    assert [sorted(p for p in t if p is not None) for t in tables] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_swiss_fills_a_run_fast_round_with_cpus_at_the_last_tables_spread() -> None:
    tables = pairing.swiss(list(range(7)), "runfast", lambda a, b: 0, random.Random(3))
    assert [sorted(p for p in t if p is not None) for t in tables] == [[0, 1, 2], [3, 4], [5, 6]]
    assert [t.count(None) for t in tables] == [0, 1, 1]
