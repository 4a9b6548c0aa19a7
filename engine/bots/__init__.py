"""CPU players. A bot decides from an observation only, never from the full state.

``get_bot(game_id, level)`` returns a bot; ``LEVELS`` lists the levels from weakest to strongest;
``strongest_level(game_id)`` is what plays for a player whose turn clock ran out.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from ..protocol import Action

ANFAENGER = "anfaenger"
NORMAL = "normal"
EXPERTE = "experte"
LEVELS = (ANFAENGER, NORMAL, EXPERTE)


class Bot(Protocol):
    """A CPU player: picks one of the observation's legal actions."""

    game_id: str
    level: str

    def choose(self, observation: Any, rng: random.Random) -> Action: ...


_REGISTRY: dict[tuple[str, str], Callable[[], Bot]] = {}


def register(game_id: str, level: str) -> Callable[[Callable[[], Bot]], Callable[[], Bot]]:
    """Class decorator: make a bot available as ``get_bot(game_id, level)``."""

    def wrap(factory: Callable[[], Bot]) -> Callable[[], Bot]:
        _REGISTRY[(game_id, level)] = factory
        return factory

    return wrap


def levels_for(game_id: str) -> list[str]:
    """The levels a game has bots for, weakest first."""
    return [lv for lv in LEVELS if (game_id, lv) in _REGISTRY]


def strongest_level(game_id: str) -> str:
    avail = levels_for(game_id)
    if not avail:
        raise KeyError(f"no CPU player for {game_id!r}")
    return avail[-1]


def get_bot(game_id: str, level: str) -> Bot:
    """The bot for a game and level; an unknown level falls back to the nearest weaker one."""
    if (game_id, level) in _REGISTRY:
        return _REGISTRY[(game_id, level)]()
    if level not in LEVELS:
        raise KeyError(f"unknown level {level!r}")
    weaker = [lv for lv in levels_for(game_id) if LEVELS.index(lv) <= LEVELS.index(level)]
    if not weaker:
        raise KeyError(f"no CPU player for {game_id!r}")
    return _REGISTRY[(game_id, weaker[-1])]()


from . import climbing as _climbing  # noqa: E402,F401  (registers its bots)
from . import climbing_experte as _climbing_experte  # noqa: E402,F401
from . import ismcts as _ismcts  # noqa: E402,F401  (the arena's ISMCTS level, not in LEVELS)
from . import runfast as _runfast  # noqa: E402,F401  (registers its bots)
from . import runfast_experte as _runfast_experte  # noqa: E402,F401
from . import scat as _scat  # noqa: E402,F401  (registers its bots)
from . import scat_experte as _scat_experte  # noqa: E402,F401
from . import schwimmen as _schwimmen  # noqa: E402,F401  (registers its bots)
from . import schwimmen_experte as _schwimmen_experte  # noqa: E402,F401
