"""Tournaments, a room of their own (issue 48): ``/turnier`` (``/tournament``) in a group opens
one — a game, a number of rounds, a turn clock, a start; people join under its announcement;
round 1 is drawn by lot, later rounds Swiss style; each table plays in a topic or thread of its
own, or in its players' private chats; every finished game scores tournament points by place
(the core tells: ``GameFinished``, ``TableClosed``); the standings after each round, the winner
at the end (docs/tournaments.md)."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.events import GameFinished, TableClosed
from ..core.registry import AdminRights, Button, Command, Feature, Step, Where
from . import commands, past, rounds, taking_part
from .service import TournamentService, step

register({"command.tournament": N_("A tournament: rounds, tables, standings")})

TOURNAMENT = Feature(
    "tournament",
    commands=(
        Command("tournament", commands.command, "command.tournament", names={"de": "turnier"},
                where=Where.GROUP, elsewhere="tn.groups_only", admin=AdminRights.EVERY_USE),
    ),
    buttons=(Button("tn", commands.press, on_table=False, admin=True),),
    steps=(Step("tournament.steps", step),),
    subscriptions=((GameFinished, rounds.game_finished), (TableClosed, rounds.table_closed)),
    hooks=(("stats.lines", past.stats_line), ("person.forgotten", taking_part.forgotten)),
)

__all__ = ["TOURNAMENT", "TournamentService"]
