"""A person's cards, a room of its own (docs/accessibility.md): ``/karten`` (``/cards``)
chooses the deck's colours — classic, the German tournament's four colours or the poker
four-colour deck — and large cards in the Mini App (``settings``); the chat views of the person
show the chosen deck (``core.outgoing`` reads the person's row, ``presenters.cards`` draws it).
"""

from __future__ import annotations

from ...i18n import N_, register
from ..core.registry import Button, Command, Feature, Where
from . import settings
from .settings import CardSettings, DeckService

register({
    "command.cards": N_("Your cards: four colours, large cards"),
    "deck.private_only": N_("/cards works in your private chat with me."),
})

DECKS_ROOM = Feature(
    "decks",
    commands=(Command("cards", settings.command, "command.cards", names={"de": "karten"},
                      aliases=("deck", "kartenbild"), where=Where.PRIVATE,
                      elsewhere="deck.private_only"),),
    buttons=(Button("deck", settings.press, on_table=False),),
)

__all__ = ["DECKS_ROOM", "CardSettings", "DeckService"]
