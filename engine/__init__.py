"""Pure rules engine: cards, the games of RULES.md and CPU players. No I/O, clock or DB."""

from __future__ import annotations

from types import ModuleType

from . import schwimmen
from .protocol import Action, Event, GameError, IllegalAction

GAMES: dict[str, ModuleType] = {
    schwimmen.GAME_ID: schwimmen,
}

__all__ = ["GAMES", "Action", "Event", "GameError", "IllegalAction"]
