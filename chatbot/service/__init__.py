"""The application service: commands and button presses in, views out (through the outbox).

Transport-agnostic. ``Service`` is what the adapters call. It is built from a core and rooms:

* ``core`` — what every table needs: the input's transaction and its rows, the outbox hand-off,
  tables, seating, the lobby, play, the turn clock, CPU decisions, the router, the registry of
  commands, buttons and scheduled steps (``core.registry``), and the domain events the core
  publishes inside each input's transaction (``core.events``). Its modules form a ladder
  (``core/__init__.py``).
* the rooms, each a package that declares what it adds and subscribes to the core's events;
  none imports another, and the core imports none of them: ``evening`` (the Stammtisch evening
  and its Deckel), ``solo`` (replay, coach, daily deal, ⏩ skip), ``long_games`` (``/games``,
  ``/reminders``, ``/pause``), ``stats`` (``/stats``, ``/top``, ratings), ``league``
  (``/liga``: the daily deal's weekly league; a division as plain data: ``LeagueBoard``).
* ``assembly`` plugs the rooms into the core (``Service``).

The import-linter contracts of ``pyproject.toml`` keep this, run by the test suite.
"""

from ..table_options import CPU_NAMES
from .assembly import FEATURES, Service, command_words
from .core.api import Change, ChatRef, Outcome, PressInput, Refusal, Settings, UserRef
from .core.lobby import TIMEOUT_CHOICES
from .core.queries import NotYourTable, TableSight, TableSnapshot
from .core.registry import AdminRights, Command, Feature, PressPolicy, Where
from .core.ticking import Due
from .decks import CardSettings
from .inline import DuelPlan, InlineAnswer, InlineResult, inline_chat
from .league.service import LeaguePage
from .league.standings import Board as LeagueBoard
from .league.standings import Line as LeagueLine
from .solo.replays import Replayed, round_name, where_text
from .tournament.service import TournamentSight

__all__ = ["AdminRights", "CPU_NAMES", "CardSettings", "FEATURES", "TIMEOUT_CHOICES", "Change", "ChatRef", "Command", "DuelPlan", "Due",
           "Feature", "InlineAnswer", "InlineResult", "LeagueBoard", "LeagueLine", "LeaguePage", "NotYourTable", "Outcome", "PressInput",
           "PressPolicy", "Refusal",
           "Replayed", "Service", "Settings", "TableSight", "TableSnapshot", "TournamentSight",
           "UserRef", "Where",
           "command_words", "inline_chat", "round_name", "where_text"]
