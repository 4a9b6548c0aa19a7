"""The one rule for ranks in every list the bot posts — the evening's Deckel and its tables of
the month and the quarter, the group's leaderboard, the daily deal's ranking, a tournament's
standings: a list sorted best first, people who tie share the best rank of their group and the
next rank skips as many places as tied ("1., 1., 3."); and the one rule for points by place at
a finished table (the Deckel's and a tournament's: n−1 for the first of n seats down to 0,
ties sharing the points of the places they take). Pure."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction
from itertools import groupby
from typing import Any, TypeVar

Row = TypeVar("Row")


def ranked(rows: Sequence[Row], key: Callable[[Row], Hashable]) -> list[tuple[int, Row]]:
    """``rows`` (sorted best first) with their ranks; rows whose ``key`` is equal tie."""
    out: list[tuple[int, Row]] = []
    previous: Hashable = None
    for i, row in enumerate(rows):
        mine = key(row)
        rank = out[-1][0] if i and mine == previous else i + 1
        out.append((rank, row))
        previous = mine
    return out


def standing_value(standing: dict[str, Any]) -> float:
    """How good a seat's final standing is, higher better (points, coins or tokens)."""
    for key in ("points", "coins", "tokens"):
        if key in standing and standing[key] is not None:
            return float(standing[key])
    return 0.0


def seat_points(winners: Iterable[int], standings: list[dict[str, Any]]) -> dict[int, Fraction]:
    """Points by place per seat of one finished game (the Deckel's, a tournament's): winners first, then by standing;
    n−1 for the first place down to 0, tied seats share their places' points."""
    won = set(winners)
    n = len(standings)

    def key(s: dict[str, Any]) -> tuple[bool, float]:
        return s["seat"] in won, standing_value(s)
    ordered = sorted(standings, key=key, reverse=True)
    points: dict[int, Fraction] = {}
    place = 0
    for _, group in groupby(ordered, key=key):
        members = list(group)
        share = Fraction(sum(n - 1 - (place + i) for i in range(len(members))), len(members))
        for member in members:
            points[int(member["seat"])] = share
        place += len(members)
    return points


def shown(points: Fraction, lang: str) -> str:
    """1, 1.5 (1,5 in German), 2⅓ as people read it."""
    if points.denominator == 1:
        return str(points.numerator)
    text = f"{float(points):.1f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "de" else text
