"""A tournament's standings (pure): the tournament points each person won at their tables
(by place, as on the Deckel: n−1 for the first of n seats down to 0 for the last, ties sharing
the points of the places they take; CPU seats take places and points but are not ranked), then
the tie-breaks — the opponents' points (Buchholz: the sum of the final points of everybody one
sat with, once per table of a round) and the game's own points (coins, tokens, points the games ended with) — and the
ranks, ties sharing one ("1., 1., 3.")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..core.ranking import ranked


@dataclass(frozen=True)
class Scored:
    """One person's result at one table of one round (``opponents``: the people who sat
    with them there, CPUs not counted)."""

    round_no: int
    table_no: int
    player_id: int
    points: Fraction
    game_points: float
    opponents: tuple[int, ...]


@dataclass(frozen=True)
class Standing:
    """A person's line of the standings."""

    player_id: int
    name: str
    points: Fraction
    buchholz: Fraction
    game_points: float
    played: int

    def key(self) -> tuple[Fraction, Fraction, float]:
        return (self.points, self.buchholz, self.game_points)


def standings(names: Mapping[int, str], scored: Iterable[Scored]) -> list[tuple[int, Standing]]:
    """Everybody in ``names`` (the entrants still counted), best first, with their rank: by
    points, then Buchholz, then the game's points; people equal in all three share a rank
    (listed by name)."""
    rows = list(scored)
    points: dict[int, Fraction] = {p: Fraction(0) for p in names}
    game_points: dict[int, float] = {p: 0.0 for p in names}
    played: dict[int, int] = {p: 0 for p in names}
    for row in rows:
        if row.player_id in points:
            points[row.player_id] += row.points
            game_points[row.player_id] += row.game_points
            played[row.player_id] += 1
    lines = [Standing(p, names[p], points[p], buchholz(p, rows, points), game_points[p],
                      played[p]) for p in names]
    lines.sort(key=lambda s: (-s.points, -s.buchholz, -s.game_points, s.name.lower()))
    return ranked(lines, Standing.key)


def buchholz(person: int, rows: Sequence[Scored], points: Mapping[int, Fraction]) -> Fraction:
    """The points of everybody ``person`` sat with, once per table of a round they shared
    (several games at one table count once); people no longer counted add nothing."""
    sat_with: set[tuple[int, int, int]] = {(row.round_no, row.table_no, other)
                                           for row in rows if row.player_id == person
                                           for other in row.opponents}
    return sum((points.get(other, Fraction(0)) for _r, _t, other in sat_with), Fraction(0))


def order(standings_: Sequence[tuple[int, Standing]]) -> list[int]:
    """The people best first (the Swiss draw's order)."""
    return [s.player_id for _rank, s in standings_]


def met(scored: Iterable[Scored]) -> dict[tuple[int, int], int]:
    """How often two people sat together: ``{(a, b): n}`` with ``a < b``."""
    counts: dict[tuple[int, int], int] = {}
    seen: set[tuple[int, int, int]] = set()
    for row in scored:
        for other in row.opponents:
            a, b = sorted((row.player_id, other))
            if (row.round_no * 1_000_000 + row.table_no, a, b) in seen:
                continue
            seen.add((row.round_no * 1_000_000 + row.table_no, a, b))
            counts[(a, b)] = counts.get((a, b), 0) + 1
    return counts
