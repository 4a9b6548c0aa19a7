"""Stats, a room of its own: ``/stats`` (a person's games, wins, streaks and skill rating per
game; ``/stats hide``), ``/top`` (a group's leaderboard), and the derived tables behind them,
caught up from the results (``ratings``) by a scheduled step and before each command. Other
rooms add lines to ``/stats`` through the hook ``stats.lines``."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.registry import Command, Feature, Step
from . import reports
from .service import StatsService, catch_up_for, catch_up_step

register({
    "command.stats": N_("Your stats"),
    "command.top": N_("The group's leaderboard"),
})


STATS = Feature(
    "stats",
    commands=(
        Command("stats", reports.stats, "command.stats", aliases=("statistik",)),
        Command("top", reports.top, "command.top", aliases=("bestenliste",)),
    ),
    steps=(Step("stats.catch_up", catch_up_step),),
    hooks=(("person.catch_up", catch_up_for),),  # (the privacy room's /mydata, /forget)
)

__all__ = ["STATS", "StatsService"]
