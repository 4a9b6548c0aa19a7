"""Who sits with whom in a round of a tournament (pure): how many tables of which size a
number of entrants makes for a game, round 1 drawn by lot, later rounds Swiss style — sorted
by standing, tables filled in that order, a repeated opponent avoided where a swap with the
next table's people of similar standing avoids it. A count that does not divide is filled with
Normal CPU players (``None`` in a table), who take places but are not ranked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations

# The table size a tournament prefers per game, and the sizes it may use (the engine's
# MIN_SEATS..MAX_SEATS narrowed to what plays well in a tournament).
PREFERRED = {"schwimmen": 4, "scat": 4, "runfast": 3, "climbing": 4}
SIZES = {"schwimmen": (2, 3, 4), "scat": (3, 4, 5), "runfast": (3,), "climbing": (4,)}
SWAP_PASSES = 3  # rounds of improving swaps between neighbouring tables


def table_sizes(game: str, people: int) -> list[int]:
    """The sizes of the tables for ``people`` entrants: as many tables of the preferred size
    as needed, the people spread over them as evenly as the allowed sizes let them be; the
    seats left over are for CPU players (``seats - people``). At least one table."""
    preferred, allowed = PREFERRED[game], SIZES[game]
    tables = max(1, -(-people // preferred))
    # spread evenly: some tables one smaller, if that size is allowed; else CPUs fill
    base, extra = divmod(people, tables)
    if base in allowed and (extra == 0 or base + 1 in allowed):
        return [base + 1] * extra + [base] * (tables - extra)
    return [preferred] * tables


def seat_count(sizes: Sequence[int]) -> int:
    return sum(sizes)


def draw(people: Sequence[int], game: str, rng: random.Random) -> list[list[int | None]]:
    """Round 1: the tables by lot (``None``: a seat for a CPU player)."""
    shuffled = list(people)
    rng.shuffle(shuffled)
    return _fill(shuffled, table_sizes(game, len(shuffled)))


def swiss(ranked: Sequence[int], game: str, met: Callable[[int, int], int],
          rng: random.Random) -> list[list[int | None]]:
    """A later round: ``ranked`` best first; tables filled in that order, then people of
    neighbouring tables swapped where it lowers the number of opponents who met before
    (``met(a, b)``: how often ``a`` and ``b`` sat together) without moving anybody further than
    the next table. The order within a table is drawn (who deals first)."""
    tables = _fill(list(ranked), table_sizes(game, len(ranked)))
    for _ in range(SWAP_PASSES):
        if not _improve(tables, met):
            break
    for table in tables:
        rng.shuffle(table)
    return tables


def _fill(people: list[int], sizes: list[int]) -> list[list[int | None]]:
    """People in order into tables of ``sizes`` (the first tables first); CPU seats at the
    end of the tables that are not full (people spread: every table gets its share first)."""
    counts = _shares(len(people), sizes)
    tables: list[list[int | None]] = []
    at = 0
    for size, count in zip(sizes, counts, strict=True):
        tables.append([*people[at:at + count], *([None] * (size - count))])
        at += count
    return tables


def _shares(people: int, sizes: list[int]) -> list[int]:
    """How many people each table gets: all, or as evenly as possible below the sizes."""
    counts = [0] * len(sizes)
    left = people
    while left:
        for i, size in enumerate(sizes):
            if left and counts[i] < size:
                counts[i] += 1
                left -= 1
    return counts


def repeats(table: Sequence[int | None], met: Callable[[int, int], int]) -> int:
    """How many pairs at a table met before (each meeting counted)."""
    people = [p for p in table if p is not None]
    return sum(met(a, b) for a, b in combinations(people, 2))


def _improve(tables: list[list[int | None]], met: Callable[[int, int], int]) -> bool:
    """One pass of swaps between neighbouring tables that lower the repeats; whether any."""
    better = False
    for i in range(len(tables) - 1):
        here, there = tables[i], tables[i + 1]
        for a in range(len(here)):
            for b in range(len(there)):
                if here[a] is None or there[b] is None:
                    continue
                before = repeats(here, met) + repeats(there, met)
                here[a], there[b] = there[b], here[a]
                if repeats(here, met) + repeats(there, met) < before:
                    better = True
                else:
                    here[a], there[b] = there[b], here[a]
    return better
