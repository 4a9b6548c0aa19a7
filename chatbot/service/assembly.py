"""The bot's service as it runs: the core with every feature room plugged in.

The core (``core``) is what every table needs; each room (``evening``, ``solo``,
``long_games``, ``stats``, ``groups``, ``privacy``, ``league``, ``decks``, …) declares what it adds
(``core.registry.Feature``) and subscribes to the core's events. This is the one module that
knows them all: a new room is added to ``FEATURES`` (and, if it answers reads of its own, its
mixin to ``Service``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy.engine import Engine

from storage.db import utcnow

from .core.api import Settings
from .core.basics import BASICS
from .core.facade import Service as CoreService
from .core.registry import Feature, Registry
from .decks import DECKS_ROOM, DeckService
from .evening import EVENING, EveningService
from .groups import GROUPS, GroupsService
from .inline import INLINE, InlineService
from .league import LEAGUE, LeagueReads
from .long_games import LONG_GAMES
from .privacy import PRIVACY
from .solo import SOLO, SoloReads
from .stats import STATS, StatsService
from .tournament import TOURNAMENT, TournamentService

FEATURES: tuple[Feature, ...] = (STATS, EVENING, SOLO, LEAGUE, LONG_GAMES, GROUPS, PRIVACY,
                                  TOURNAMENT, INLINE, DECKS_ROOM)


class Service(EveningService, SoloReads, LeagueReads, StatsService, GroupsService,
              TournamentService, InlineService, DeckService, CoreService):
    """The use cases of the bot over one database, with every room (``FEATURES``)."""

    def __init__(self, engine: Engine, settings: Settings | None = None,
                 clock: Callable[[], datetime] = utcnow,
                 features: Sequence[Feature] = FEATURES) -> None:
        super().__init__(engine, settings, clock, features)


def command_words(features: Sequence[Feature] = FEATURES) -> dict[str, str]:
    """Every name a command is typed by (any language) → the command's name (a Matrix ``!``
    word is read with it; the service takes any of them too)."""
    return {typed: c.name for typed, c in Registry((BASICS, *features)).commands.items()}
