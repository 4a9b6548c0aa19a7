"""The league across groups, a room of its own (docs/league.md): every week the people who
play a game's daily deal are placed in divisions of about 12–20 (``placing``, ``season``);
each day's counted try scores within the division by its rank among the division's players of
that day (``standings``, from the solo room's hook ``daily.scores``); at the week's end the
best move up, the last down, a person on holiday keeps their place (``holiday``); groups are
teams of their best members. ``/liga`` (``command``, texts in ``texts``) shows the tables;
the daily deal's morning post asks the hook ``daily.morning_lines`` for the group's places.
A person's first counted deal of a week puts them in the league (``GameFinished``)."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.events import GameFinished
from ..core.registry import Command, Feature, Step
from . import command, season
from .service import LeagueReads

register({
    "command.league": N_("The weekly league of the daily deal"),
})

STEP_EVERY = 60.0  # seconds between two looks for a new week in one process

LEAGUE = Feature(
    "league",
    commands=(Command("league", command.command, "command.league", names={"de": "liga"}),),
    steps=(Step("league.weeks", season.step, every=STEP_EVERY),),
    subscriptions=((GameFinished, season.game_finished),),
    hooks=(("daily.morning_lines", command.morning_lines),),
)

__all__ = ["LEAGUE", "LeagueReads"]
