"""What the two games of 31 share: Einunddreißig/Scat (``engine.scat``) and Schwimmen
(``engine.schwimmen``).

Both count a hand alike (docs/rules-scat.md §2, docs/rules-schwimmen.md §2): ace 11; king,
queen, jack and ten 10 each; the other cards their face value. A hand is worth its best
single-suit sum, three of a rank 30½, and 31 is the best three-card hand. Both deal one card at a
time clockwise from the round's first player (§3 of both), and at the showdown every hand is
shown and the lowest lose (docs/rules-scat.md §8, docs/rules-schwimmen.md §7). Values are kept in
half points (31 → 62, 30½ → 61). What differs — the deck, the turn, the knock, what a loss
costs — stays in each game's module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .cards import CARDS, Card, from_codes

THIRTY_ONE = 62  # 31 in half points: the best three-card hand
TRIO = 61  # three of a rank in half points: 30½


# ---------------------------------------------------------------------------------------------
# Card and hand values


def card_value(card: Card) -> int:
    """A card's value: ace 11; king, queen and jack 10; the others their face value."""
    return 11 if card.rank == 14 else min(card.rank, 10)


def value_table(deck: Iterable[Card]) -> list[int]:
    """The value of each card of ``deck`` by card id (``table[card.id]``); 0 for other cards."""
    table = [0] * len(CARDS)
    for c in deck:
        table[c.id] = card_value(c)
    return table


def three_card_half_points(c1: Card, c2: Card, c3: Card, values: Sequence[int],
                           trio: bool = True) -> int:
    """Three cards' value in half points: 61 for three of a rank (when ``trio``), else twice
    the best single-suit sum; ``values`` is the game's value table (``value_table``)."""
    if trio and c1.rank == c2.rank == c3.rank:
        return TRIO
    v1, v2, v3 = values[c1.id], values[c2.id], values[c3.id]
    s1, s2, s3 = c1.suit, c2.suit, c3.suit
    if s1 == s2:
        best = v1 + v2 + v3 if s1 == s3 else max(v1 + v2, v3)
    elif s1 == s3:
        best = max(v1 + v3, v2)
    elif s2 == s3:
        best = max(v2 + v3, v1)
    else:
        best = max(v1, v2, v3)
    return best * 2


def points(value2: int) -> float:
    """Half points as points: 62 → 31, 61 → 30.5 (a whole number stays an ``int``)."""
    return value2 // 2 if value2 % 2 == 0 else value2 / 2


def format_value(value2: int) -> str:
    """Half points as text: ``31``, ``30½``."""
    return f"{value2 // 2}½" if value2 % 2 else str(value2 // 2)


# ---------------------------------------------------------------------------------------------
# Seats and the deal


def seat_after(group: Sequence[int], seat: int) -> int:
    """The first seat of ``group`` after ``seat`` in clockwise (seat) order."""
    for s in group:
        if s > seat:
            return s
    return group[0]


def clockwise_from(group: Sequence[int], first: int) -> tuple[int, ...]:
    """The seats of ``group`` (in seat order) clockwise, beginning with ``first``, one of them."""
    i = group.index(first)
    return tuple(group[i:]) + tuple(group[:i])


def deal(deck: Sequence[Card], order: Sequence[int], seats: int,
         size: int) -> tuple[tuple[tuple[Card, ...], ...], Sequence[Card]]:
    """``size`` cards to every seat of ``order``, one at a time round ``order``, from the front
    of ``deck``: the hands by seat number (``()`` for a seat not dealt in) and the rest of the
    deck."""
    dealt: list[list[Card]] = [[] for _ in range(seats)]
    pos = 0
    for _ in range(size):
        for seat in order:
            dealt[seat].append(deck[pos])
            pos += 1
    return tuple(tuple(h) for h in dealt), deck[pos:]


# ---------------------------------------------------------------------------------------------
# The showdown


def lowest_seats(values2: Sequence[int | None], seats: Sequence[int]) -> list[int]:
    """The seats of ``seats`` whose hands have the lowest value, in the order of ``seats``."""
    low = min(values2[s] for s in seats)  # type: ignore[type-var]
    return [s for s in seats if values2[s] == low]


def shown_hands(hands: Sequence[Sequence[Card]], values2: Sequence[int | None],
                seats: Sequence[int]) -> dict[str, Any]:
    """What a showdown shows, as event data: each seat's cards and the value in points."""
    return {
        "hands": {str(s): [c.code for c in hands[s]] for s in seats},
        "values": {str(s): values2[s] / 2 for s in seats},  # type: ignore[operator]
    }


def hands_to_codes(hands: Sequence[Sequence[Card] | None]) -> list[list[str] | None]:
    """A round result's shown hands as card codes, for JSON (``None``: a seat not in it)."""
    return [None if h is None else [c.code for c in h] for h in hands]


def hands_from_codes(raw: Iterable[Iterable[str] | None]) -> tuple[tuple[Card, ...] | None, ...]:
    """The shown hands from ``hands_to_codes`` output."""
    return tuple(None if h is None else from_codes(h) for h in raw)
