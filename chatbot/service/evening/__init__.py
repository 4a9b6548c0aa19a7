"""The Stammtisch evening, a room of its own: planning it (``/abend``, by buttons or typed:
``planning``, the dates people type: ``dates``), its steps (announce, remind, start, close:
``steps``, claimed once by the scheduled step in ``service``), its Deckel — the running score
sheet of the evening (``scoresheet``; ``/deckel``) — and the tables of the month and the
quarter (``/top monat``, a subcommand of the stats room's ``/top``); its rules (one evening at
a time, how many, who may plan, call off and close: ``rules``). It hears of every game
finished (``GameFinished``) to write the Deckel's line."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.events import GameFinished
from ..core.registry import AdminRights, Button, Command, Feature, Step, Subcommand, Where
from . import moved, planning, scoresheet
from .service import EveningService, step

register({
    "command.evening": N_("Plan a Stammtisch evening"),
    "command.deckel": N_("The evening's score"),
})

EVENING = Feature(
    "evening",
    commands=(
        Command("evening", planning.abend, "command.evening", names={"de": "abend"},
                aliases=("stammtisch",), where=Where.GROUP, elsewhere="ev.groups_only",
                admin=AdminRights.EVERY_USE),  # (the group may let only admins organise)
        Command("deckel", planning.deckel_command, "command.deckel", where=Where.GROUP,
                elsewhere="deckel.none"),
    ),
    subcommands=(Subcommand("top", planning.MONTH_WORDS + planning.SEASON_WORDS,
                            planning.top, where=Where.GROUP),),
    buttons=(Button("ev", planning.press, on_table=False, admin=True),),
    steps=(Step("evening.steps", step),),
    subscriptions=((GameFinished, scoresheet.game_finished),),
    hooks=(("chat.moved", moved.repost),),  # (the groups room: a group took a new id)
)

__all__ = ["EVENING", "EveningService"]
