"""Long games, a room of their own: ``/games`` (a person's running tables everywhere),
``/reminders`` (turn reminders, quiet hours, time zone), ``/pause`` (a long game's clock
stands still for days when everybody agrees) and a topic of its own for each long table in a
person's private chat (``topics``). The turn clock itself, with its reminders and quiet
hours, is the core's (``core.turn_clock``, ``core.quiet_hours``); this room hears when a game
moves on (``TableMoved``: a pause ends, a topic is asked for), ends (``GameFinished``,
``TableClosed``: the topics renamed) and fires a pause's end (deadline ``resume``).
"""

from __future__ import annotations

from ...i18n import N_, register
from ..core.events import GameFinished, TableClosed, TableMoved
from ..core.registry import Button, Command, Feature, Where
from . import pause, reminders, running, topics

register({
    "command.games": N_("Your running tables"),
    "command.reminders": N_("Turn reminders and quiet hours"),
    "command.pause": N_("Pause a long game (1, 3 or 7 days)"),
})

LONG_GAMES = Feature(
    "long_games",
    commands=(
        Command("games", running.games, "command.games", names={"de": "spiele"},
                aliases=("tische",), where=Where.PRIVATE, elsewhere="games.private_only"),
        Command("reminders", reminders.reminders, "command.reminders",
                names={"de": "erinnerungen"}, aliases=("erinnerung",), where=Where.PRIVATE,
                elsewhere="games.private_only"),
        Command("pause", pause.command, "command.pause", aliases=("pausieren",)),
    ),
    buttons=(
        Button("pz", pause.ask, version_free=True),
        Button("pa", pause.agree, version_free=True),
        Button("pr", pause.resume, version_free=True),
        Button("rem", reminders.reminders_press, on_table=False),
        Button("show", running.show_press, on_table=False),
    ),
    deadlines={"resume": pause.end},
    subscriptions=((TableMoved, pause.game_moved), (TableMoved, topics.table_moved),
                   (GameFinished, topics.game_finished), (TableClosed, topics.table_closed)),
)

__all__ = ["LONG_GAMES"]
