"""The one rule for ranks in every list the bot posts — the evening's Deckel and its tables of
the month and the quarter, the group's leaderboard, the daily deal's ranking: a list sorted
best first, people who tie share the best rank of their group and the next rank skips as many
places as tied ("1., 1., 3."). Pure."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

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
