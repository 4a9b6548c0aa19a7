"""Pure rules engine: cards, the games of docs/rules.md and CPU players. No I/O, clock or DB."""

from __future__ import annotations

from types import ModuleType

from . import climbing, runfast, scat, schwimmen
from .protocol import Action, Event, GameError, IllegalAction

GAMES: dict[str, ModuleType] = {
    schwimmen.GAME_ID: schwimmen,
    scat.GAME_ID: scat,
    climbing.GAME_ID: climbing,
    runfast.GAME_ID: runfast,
}

__all__ = ["GAMES", "Action", "Event", "GameError", "IllegalAction"]
