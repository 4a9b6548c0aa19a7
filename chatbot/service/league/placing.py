"""Who goes where, pure: a division's order at the end of a week, who moves up and down, and
the next week's divisions cut from the whole league's order (docs/league.md).

* A division's order: points, then days played, then the order the division started the week
  in (``seed``; who joined during the week after, in the order they joined); people on
  holiday last. Ranks share ties of points and days (``core.ranking``: 1., 1., 3.).
* Up: the first ``PROMOTE`` who scored (not from the top division); down: the last
  ``RELEGATE`` of those not on holiday (not from the lowest division).
* The next week: each division's people who stay, with those who come down from above first
  and those who come up from below last; the new people at the end of the lowest division.
  Divisions are kept so while each holds between ``KEEP_FEWEST`` and ``KEEP_MOST`` people;
  else the whole order is cut anew into ``divisions_for(n)`` divisions of equal size (about
  12–20 each, ``AIM`` aimed at). The first week of a league is cut so from the people's
  ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil

from ..core.ranking import ranked

PROMOTE = 3  # the best of a division who move up
RELEGATE = 3  # the last of a division who move down
AIM = 16  # people per division aimed at when the league is cut anew
FEWEST = 12  # fewest people per division when the league is cut anew (if it has them)
KEEP_FEWEST, KEEP_MOST = 8, 24  # a division is kept while its size lies within
IDLE_WEEKS = 4  # weeks in a row without a counted deal (holidays aside) after which one leaves

UP, DOWN, STAY, HOLIDAY, LEFT = "up", "down", "stay", "holiday", "left"


@dataclass(frozen=True)
class Entry:
    """A person's week in a division, as far as the order goes."""

    player_id: int
    division: int
    points: int
    played: int  # days played
    holiday: bool = False
    seed: int | None = None  # place in the division's order at the week's start
    joined: int = 0  # the order they joined in (for those without a seed)


def order(entries: Sequence[Entry]) -> list[Entry]:
    """A division's order (see the module's text)."""
    return sorted(entries, key=lambda e: (e.holiday, -e.points, -e.played, e.seed is None,
                                          e.seed or 0, e.joined, e.player_id))


def ranks(ordered: Sequence[Entry]) -> dict[int, int | None]:
    """Each person's rank in an ordered division (ties of points and days share it); people
    on holiday have none."""
    playing = [e for e in ordered if not e.holiday]
    out: dict[int, int | None] = {e.player_id: None for e in ordered}
    out.update({e.player_id: rank for rank, e in ranked(playing, key=lambda e: (e.points,
                                                                                 e.played))})
    return out


def moves(ordered: Sequence[Entry], division: int, divisions: int) -> dict[int, str]:
    """Who of an ordered division moves up, down, stays or is kept on holiday."""
    playing = [e for e in ordered if not e.holiday]
    up = [e.player_id for e in playing if e.points > 0][:PROMOTE] if division > 1 else []
    rest = [e.player_id for e in playing if e.player_id not in up]
    down = rest[-RELEGATE:] if division < divisions and RELEGATE else []
    out = {e.player_id: HOLIDAY if e.holiday else STAY for e in ordered}
    out.update({p: UP for p in up})
    out.update({p: DOWN for p in down})
    return out


def target(division: int, move: str) -> int:
    """The division a move leads to."""
    return division - 1 if move == UP else division + 1 if move == DOWN else division


def divisions_for(n: int) -> int:
    """How many divisions ``n`` people are cut into: about ``AIM`` each, at least ``FEWEST``
    each where there are enough people."""
    return max(1, min(ceil(n / AIM), n // FEWEST))


def even(people: Sequence[int], count: int) -> list[list[int]]:
    """``people`` (best first) cut into ``count`` divisions of equal size (the higher
    divisions take the one more)."""
    size, extra = divmod(len(people), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(list(people[start:end]))
        start = end
    return out


def cut(groups: Sequence[Sequence[int]]) -> list[list[int]]:
    """The next week's divisions from the people each division's moves lead to (top first,
    each best first): kept while each holds ``KEEP_FEWEST``–``KEEP_MOST`` people (a single
    division: up to ``KEEP_MOST``), else the whole order cut anew into equal divisions."""
    if len(groups) == 1 and len(groups[0]) <= KEEP_MOST:
        return [list(groups[0])] if groups[0] else []
    if groups and all(KEEP_FEWEST <= len(g) <= KEEP_MOST for g in groups):
        return [list(g) for g in groups]
    everybody = [p for g in groups for p in g]
    return even(everybody, divisions_for(len(everybody))) if everybody else []
