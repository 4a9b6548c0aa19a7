"""The registry of CPU players: which bot plays a game at a level.

``get_bot(game_id, level)`` returns a bot; ``levels_for(game_id)`` lists the levels a game has
bots for, weakest first (``levels.LEVELS``); ``strongest_level(game_id)`` is the strongest of them.
The registry holds the bots of ``BOTS`` (the Anfänger, Normal and Experte of every game);
``register`` adds more — the arena seats the ISMCTS level (``ismcts.py``) that way, which
production never loads.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from ..protocol import Action
from .climbing import Anfaenger as ClimbingAnfaenger
from .climbing import Normal as ClimbingNormal
from .climbing_experte import ClimbingExperte
from .levels import LEVELS
from .runfast import Anfaenger as RunFastAnfaenger
from .runfast import Normal as RunFastNormal
from .runfast_experte import RunFastExperte
from .scat import Anfaenger as ScatAnfaenger
from .scat import Normal as ScatNormal
from .scat_experte import ScatExperte
from .schwimmen import Anfaenger as SchwimmenAnfaenger
from .schwimmen import Normal as SchwimmenNormal
from .schwimmen_experte import SchwimmenExperte


class Bot(Protocol):
    """A CPU player: picks one of the observation's legal actions."""

    game_id: str
    level: str

    def choose(self, observation: Any, rng: random.Random) -> Action: ...


BOTS: tuple[type[Bot], ...] = (
    ClimbingAnfaenger, ClimbingNormal, ClimbingExperte,
    RunFastAnfaenger, RunFastNormal, RunFastExperte,
    ScatAnfaenger, ScatNormal, ScatExperte,
    SchwimmenAnfaenger, SchwimmenNormal, SchwimmenExperte,
)

_REGISTRY: dict[tuple[str, str], type[Bot]] = {}


def register(*bots: type[Bot]) -> None:
    """Make bot classes available as ``get_bot(cls.game_id, cls.level)``."""
    for bot in bots:
        _REGISTRY[(bot.game_id, bot.level)] = bot


register(*BOTS)


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
