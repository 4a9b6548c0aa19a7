"""Cards as people hear and see them, whatever the game: a card's spoken name in the reader's
language ("Dame Pik", "Queen of spades": what a screen reader says for the Mini App's cards)
and the person's deck in chat texts (``/karten``): the classic symbols, or a colour square
beside each suit for the two four-colour decks (the German tournament colours: ♠ green,
♦ yellow; the poker deck: ♣ green, ♦ blue), since a chat message has no colours of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.cards import BY_CODE, RANK_LABELS, SUIT_LETTERS, Card

from ..i18n import N_, register, tr

register({
    "card.name": N_("{rank} of {suit}"),
    "card.rank.J": N_("Jack"),
    "card.rank.Q": N_("Queen"),
    "card.rank.K": N_("King"),
    "card.rank.A": N_("Ace"),
    "card.suit.C": N_("clubs"),
    "card.suit.S": N_("spades"),
    "card.suit.H": N_("hearts"),
    "card.suit.D": N_("diamonds"),
    "card.joker.BJ": N_("Black joker"),
    "card.joker.RJ": N_("Red joker"),
})

CLASSIC = "classic"
TOURNAMENT = "tournament"  # the German tournament colours: ♣ black, ♠ green, ♥ red, ♦ yellow
POKER = "poker"  # the poker four-colour deck: ♣ green, ♠ black, ♥ red, ♦ blue
DECKS = (CLASSIC, TOURNAMENT, POKER)
# the colour beside a suit in chat texts (emoji squares: the one colour a chat message has)
SQUARES = {
    TOURNAMENT: {"♣": "⬛", "♠": "🟩", "♥": "🟥", "♦": "🟨"},
    POKER: {"♣": "🟩", "♠": "⬛", "♥": "🟥", "♦": "🟦"},
}
_CARD = re.compile(r"(10|[2-9JQKA])([♣♠♥♦])")
_SQUARE = re.compile("[⬛🟩🟥🟨🟦]")


def card_name(card: Card | str, lang: str | None) -> str:
    """A card's name as it is spoken: "Dame Pik", "Queen of spades", "10 Herz", "Roter Joker"."""
    c = BY_CODE[card] if isinstance(card, str) else card
    if c.is_joker:
        return tr(lang, f"card.joker.{c.code}")
    label = RANK_LABELS[c.rank]
    rank = tr(lang, f"card.rank.{label}") if c.rank > 10 else label
    return tr(lang, "card.name", rank=rank, suit=tr(lang, f"card.suit.{SUIT_LETTERS[c.suit]}"))


def card_names(codes: Iterable[str], lang: str | None) -> dict[str, str]:
    """Each card code's spoken name (codes that are no card are left out)."""
    return {code: card_name(code, lang) for code in dict.fromkeys(codes) if code in BY_CODE}


def deck_of(value: str | None) -> str:
    """A stored deck's name, the classic one for anything unknown."""
    return value if value in DECKS else CLASSIC


def styled(text: str, deck: str | None) -> str:
    """A chat text with the person's deck: every card (``Q♠``) gets its suit's colour square
    after it (``Q♠🟩``) for a four-colour deck; the classic deck leaves the text as it is."""
    squares = SQUARES.get(deck_of(deck))
    if squares is None or not text:
        return text
    return _CARD.sub(lambda m: m.group(0) + squares[m.group(2)], text)


def has_cards(text: str) -> bool:
    """Whether a chat text shows any card (``Q♠``)."""
    return _CARD.search(text) is not None


def plain(text: str) -> str:
    """A styled text's cards back as the classic symbols (what a typed answer is matched by)."""
    return _SQUARE.sub("", text)
