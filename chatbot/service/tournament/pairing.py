"""Who sits with whom in a round of a tournament (pure): how many tables of which size a
number of entrants makes for a game, round 1 drawn by lot, later rounds Swiss style — sorted
by standing, tables filled in that order, a repeated opponent avoided where a swap with the
next table's people avoids it. A count the game's table sizes cannot take is filled with
Normal CPU players (``None`` in a table), who take places but are not ranked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations

from engine import GAMES

# The table size a tournament aims at per game; the sizes it may use are the engine's
# MIN_SEATS..MAX_SEATS (Schwimmen 2–4, Scat 2–7, Run Fast 3, the climbing game 4).
PREFERRED = {"schwimmen": 4, "scat": 4, "runfast": 3, "climbing": 4}

Tables = list[list[int | None]]


def sizes_allowed(game: str) -> range:
    """The table sizes a game allows."""
    rules = GAMES[game]
    return range(rules.MIN_SEATS, rules.MAX_SEATS + 1)


def table_sizes(game: str, people: int) -> list[int]:
    """The sizes of the tables for ``people`` entrants, the larger first. Without CPU players
    where the allowed sizes can take everybody: the people spread evenly over the number of
    tables whose sizes are nearest the game's preferred size (the largest distance first,
    then the sum of the distances, then fewer tables). Otherwise (Run Fast, the climbing game,
    one person alone) as few tables as can seat everybody, the people spread evenly, each
    table filled up to the smallest allowed size with CPU players (``sum(sizes) - people``)."""
    if people <= 0:
        return []
    allowed, preferred = sizes_allowed(game), PREFERRED[game]
    best: tuple[tuple[int, int, int], list[int]] | None = None
    for count in range(1, people + 1):
        base, extra = divmod(people, count)
        if base < allowed.start or base + (1 if extra else 0) > allowed.stop - 1:
            continue
        sizes = [base + 1] * extra + [base] * (count - extra)
        far = [abs(size - preferred) for size in sizes]
        cost = (max(far), sum(far), count)
        if best is None or cost < best[0]:
            best = (cost, sizes)
    if best is not None:
        return best[1]
    count = -(-people // (allowed.stop - 1))
    return [max(allowed.start, share) for share in _spread(people, count)]


def _spread(people: int, count: int) -> list[int]:
    """``people`` over ``count`` tables as evenly as can be, the first tables first."""
    base, extra = divmod(people, count)
    return [base + 1] * extra + [base] * (count - extra)


def cpu_seats(game: str, people: int) -> int:
    """How many CPU players a round of ``people`` needs."""
    return sum(table_sizes(game, people)) - people


def draw(people: Sequence[int], game: str, rng: random.Random) -> Tables:
    """Round 1: the tables by lot (``None``: a seat for a CPU player; seats in a drawn
    order, so a CPU's seat is drawn too)."""
    shuffled = list(people)
    rng.shuffle(shuffled)
    tables = _fill(shuffled, table_sizes(game, len(shuffled)))
    for table in tables:
        rng.shuffle(table)
    return tables


def swiss(ranked: Sequence[int], game: str, met: Callable[[int, int], int],
          rng: random.Random) -> Tables:
    """A later round: ``ranked`` best first; tables filled in that order, then people of
    neighbouring tables swapped while a swap lowers the number of times people at a table met
    before (``met(a, b)``: how often ``a`` and ``b`` sat together) — nobody moves further than
    one table from where their standing put them. The order within a table is drawn (who
    deals first)."""
    tables = _fill(list(ranked), table_sizes(game, len(ranked)))
    home = {p: i for i, table in enumerate(tables) for p in table if p is not None}
    while _improve(tables, met, home):
        pass
    for table in tables:
        rng.shuffle(table)
    return tables


def _fill(people: list[int], sizes: list[int]) -> Tables:
    """People in order into tables of ``sizes``, spread evenly (every table gets its share
    before any gets more); the seats left over are CPU seats at the end of a table."""
    shares = _spread(len(people), len(sizes)) if sizes else []
    tables: Tables = []
    at = 0
    for size, share in zip(sizes, shares, strict=True):
        tables.append([*people[at:at + share], *([None] * (size - share))])
        at += share
    return tables


def repeats(table: Sequence[int | None], met: Callable[[int, int], int]) -> int:
    """How many pairs at a table met before (each meeting counted)."""
    people = [p for p in table if p is not None]
    return sum(met(a, b) for a, b in combinations(people, 2))


def swap_helps(here: list[int | None], there: list[int | None], a: int, b: int,
               met: Callable[[int, int], int]) -> bool:
    """Whether swapping ``here[a]`` and ``there[b]`` lowers the two tables' repeats."""
    before = repeats(here, met) + repeats(there, met)
    here[a], there[b] = there[b], here[a]
    after = repeats(here, met) + repeats(there, met)
    here[a], there[b] = there[b], here[a]
    return after < before


def _improve(tables: Tables, met: Callable[[int, int], int], home: dict[int, int]) -> bool:
    """One pass of swaps between neighbouring tables that lower the repeats (nobody further
    than one table from home); whether any. Each swap lowers the total: the passes end."""
    better = False
    for i in range(len(tables) - 1):
        here, there = tables[i], tables[i + 1]
        for a in range(len(here)):
            for b in range(len(there)):
                p, q = here[a], there[b]
                if p is None or q is None or abs(home[p] - (i + 1)) > 1 \
                        or abs(home[q] - i) > 1:
                    continue
                if swap_helps(here, there, a, b, met):
                    here[a], there[b] = q, p
                    better = True
    return better
