"""Per-game presentation: how a game's state, moves and events read in chat."""

from __future__ import annotations

from types import ModuleType

from . import schwimmen

PRESENTERS: dict[str, ModuleType] = {schwimmen.GAME_ID: schwimmen}


def presenter(game_id: str) -> ModuleType:
    return PRESENTERS[game_id]
