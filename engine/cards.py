"""Cards, decks and the card notation of docs/rules.md §2.

Cards are interned: every card exists exactly once (``CARDS``), so equality and hashing are by
identity and cost nothing. Rank numbers: 2..10, J=11, Q=12, K=13, A=14, black joker 15, red joker 16.
Suits: 0 ♣ Kreuz, 1 ♠ Pik, 2 ♥ Herz, 3 ♦ Karo; jokers have suit ``JOKER_SUIT``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

SUIT_SYMBOLS = ("♣", "♠", "♥", "♦")
SUIT_LETTERS = ("C", "S", "H", "D")
SUIT_NAMES_DE = ("Kreuz", "Pik", "Herz", "Karo")
SUIT_NAMES_EN = ("Clubs", "Spades", "Hearts", "Diamonds")
JOKER_SUIT = 4

RANK_LABELS = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
               11: "J", 12: "Q", 13: "K", 14: "A"}
RANK_NAMES_DE = {11: "Bube", 12: "Dame", 13: "König", 14: "Ass"}
BLACK_JOKER = 15
RED_JOKER = 16


class CardError(ValueError):
    """A card or card list could not be parsed."""


class Card:
    """One playing card. Never construct directly: use ``card()``, ``parse_cards`` or ``CARDS``."""

    __slots__ = ("rank", "suit", "id", "code", "symbol")

    def __init__(self, rank: int, suit: int, ident: int) -> None:
        self.rank = rank
        self.suit = suit
        self.id = ident
        if rank == BLACK_JOKER:
            self.code = self.symbol = "BJ"
        elif rank == RED_JOKER:
            self.code = self.symbol = "RJ"
        else:
            self.code = RANK_LABELS[rank] + SUIT_LETTERS[suit]
            self.symbol = RANK_LABELS[rank] + SUIT_SYMBOLS[suit]

    @property
    def is_joker(self) -> bool:
        return self.suit == JOKER_SUIT

    def __str__(self) -> str:
        return self.symbol

    def __repr__(self) -> str:
        return f"Card({self.symbol})"

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __reduce__(self):  # pickling/copying keeps the interned instance
        return (_card_by_id, (self.id,))


def _card_by_id(ident: int) -> Card:
    return CARDS[ident]


# id = (rank - 2) * 4 + suit for the 52 suited cards, then the two jokers: sorting by id sorts by rank.
CARDS: tuple[Card, ...] = tuple(
    [Card(rank, suit, (rank - 2) * 4 + suit) for rank in range(2, 15) for suit in range(4)]
    + [Card(BLACK_JOKER, JOKER_SUIT, 52), Card(RED_JOKER, JOKER_SUIT, 53)]
)
BY_CODE: dict[str, Card] = {c.code: c for c in CARDS}
BY_CODE.update({c.symbol: c for c in CARDS})

_TOKEN = re.compile(r"(10|[2-9]|[JQKAjqka]|[Bb][Jj]|[Rr][Jj])\s*([♣♠♥♦♧♤♡♢CSHDcshd]?)")
_SUIT_ALIASES = {"♣": 0, "♧": 0, "C": 0, "♠": 1, "♤": 1, "S": 1, "♥": 2, "♡": 2, "H": 2,
                 "♦": 3, "♢": 3, "D": 3}
_RANK_ALIASES = {"J": 11, "Q": 12, "K": 13, "A": 14}


def card(rank: int, suit: int) -> Card:
    """The card of a rank (2..14) and suit (0..3)."""
    return CARDS[(rank - 2) * 4 + suit]


def parse_card(text: str) -> Card:
    """Parse one card: ``A♥``, ``AH``, ``10♠``, ``10S``, ``BJ``, ``RJ``."""
    cards = parse_cards(text)
    if len(cards) != 1:
        raise CardError(f"expected one card, got {text!r}")
    return cards[0]


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a list of cards separated by spaces or commas, in symbol or ASCII notation."""
    out: list[Card] = []
    for raw in re.split(r"[\s,;]+", text.strip()):
        if not raw:
            continue
        found = BY_CODE.get(raw) or BY_CODE.get(raw.upper())
        if found is None:
            m = _TOKEN.fullmatch(raw)
            if not m:
                raise CardError(f"not a card: {raw!r}")
            rank_s, suit_s = m.group(1).upper(), m.group(2).upper()
            if rank_s in ("BJ", "RJ"):
                if suit_s:
                    raise CardError(f"not a card: {raw!r}")
                found = BY_CODE[rank_s]
            else:
                if not suit_s:
                    raise CardError(f"card without suit: {raw!r}")
                rank = _RANK_ALIASES.get(rank_s) or int(rank_s)
                found = card(rank, _SUIT_ALIASES[suit_s])
        out.append(found)
    return tuple(out)


def codes(cards: Iterable[Card]) -> list[str]:
    """ASCII codes of cards, for JSON."""
    return [c.code for c in cards]


def from_codes(items: Iterable[str]) -> tuple[Card, ...]:
    """Cards from ASCII codes (the inverse of ``codes``)."""
    try:
        return tuple(BY_CODE[c] for c in items)
    except KeyError as exc:
        raise CardError(f"unknown card code {exc.args[0]!r}") from None


def show(cards: Iterable[Card]) -> str:
    """Symbol form, space separated: ``A♥ K♥ Q♥``."""
    return " ".join(c.symbol for c in cards)


def piquet_deck() -> list[Card]:
    """The 32-card deck: 7 to ace in four suits (Schwimmen)."""
    return [c for c in CARDS if 7 <= c.rank <= 14]


def full_deck(jokers: int = 0) -> list[Card]:
    """The 52-card deck, plus up to two jokers."""
    return list(CARDS[: 52 + jokers])


def shuffled(deck: Sequence[Card], rng: random.Random) -> list[Card]:
    """A shuffled copy of a deck."""
    out = list(deck)
    rng.shuffle(out)
    return out
