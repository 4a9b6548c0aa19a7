"""CPU players. A bot decides from an observation only, never from the full state.

This package re-exports the registry (``registry.py``): ``get_bot(game_id, level)`` returns a
bot; ``LEVELS`` (``levels.py``) lists the levels offered in chat from weakest to strongest;
``levels_for(game_id)`` the levels a game has; ``strongest_level(game_id)`` the strongest.
The modules import one way only — ``levels`` ← the per-game bots (``<game>.py``: Anfänger and
Normal; ``experte.py`` and ``<game>_experte.py``: the Experte) ← ``registry`` ← ``standin``
and this package — so no two import each other. ``ismcts.py`` is the arena's reference player;
only the arena imports it.
"""

from __future__ import annotations

from .levels import ANFAENGER, EXPERTE, LEVELS, NORMAL
from .registry import Bot, get_bot, levels_for, register, strongest_level

__all__ = ["ANFAENGER", "EXPERTE", "LEVELS", "NORMAL", "Bot", "get_bot", "levels_for", "register",
           "strongest_level"]
