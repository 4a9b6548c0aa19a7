"""The league's entries on the assembled ``Service``: a person's division as plain data (the
Mini App's league page renders it) and the weekly step run directly (the tick runs it as the
step ``league.weeks``)."""

from __future__ import annotations

from ..core import records
from ..core.api import Settings
from ..core.registry import Registry
from ..core.transaction import Transactions
from . import command, season
from .standings import Board


class LeagueReads:
    """The ``Service``'s reads of the league (it sets ``tx``, ``registry``, ``settings`` and
    ``clock``)."""

    tx: Transactions
    registry: Registry
    settings: Settings

    def league_sight(self, platform: str, user_id: str, game: str | None = None,
                     division: int | None = None) -> tuple[Board | None, list[Board]]:
        """The division to show a person this week (their own in ``game`` — without one, the
        game they last played — else ``division``, else the top one) and all divisions of that
        game's week: ``(None, [])`` when there is none."""
        with self.tx.read() as session:
            person = records.find_player(session, platform, user_id)
            if person is None or person.id is None:
                return None, []
            return command.person_board(session, self.registry, self.settings, person.id,
                                        game, division, self.clock())  # type: ignore[attr-defined]

    def open_league_weeks(self) -> int:
        """Open each game's running week of the league that has none yet, each once (what the
        tick's step ``league.weeks`` does); how many were opened."""
        return season.step(self, "")  # type: ignore[arg-type]
