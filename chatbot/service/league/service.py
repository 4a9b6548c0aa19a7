"""The league's entries on the assembled ``Service``: a person's division as plain data (the
Mini App's league page renders it) and the weekly step run directly (the tick runs it as the
step ``league.weeks``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import select

from storage.models import LeagueMember

from ...presenters import PRESENTERS
from ..core import languages, records
from ..core.api import Settings
from ..core.queries import NotYourTable
from ..core.registry import Registry
from ..core.transaction import Transactions
from . import command, season, weeks
from .standings import Board


@dataclass(frozen=True)
class LeaguePage:
    """The league as one person's page shows it: the game (asked for, else the one they
    last played, else the first with a league), its division to show (``None``: nothing to
    show), how many divisions its week has, the games with a league this week, the games
    whose league the person is in, their language and player id (their row is marked)."""

    game: str | None
    board: Board | None
    divisions: int
    games: list[str]
    member_of: list[str]
    lang: str
    viewer: int


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

    def league_page(self, platform: str, user_id: str, user_lang: str | None,
                    game: str | None = None, division: int | None = None) -> LeaguePage:
        """The league as a person's page (the Mini App) shows it: the division
        ``league_sight`` reads (without a game: the person's last played, else the first
        game with a league this week), the games with a league, the person's leagues, their
        language and player id. Raises ``NotYourTable`` for a person the bot never met."""
        with self.tx.read() as session:
            person = records.find_player(session, platform, user_id)
            if person is None or person.id is None:
                raise NotYourTable(None)
            now = self.clock()  # type: ignore[attr-defined]
            week = weeks.running(self.settings, now)
            playing = set(session.exec(select(LeagueMember.game).where(
                LeagueMember.week == week.isoformat()).distinct()).all())
            games = [g for g in PRESENTERS if g in playing]
            mine = command.member_games(session, person.id, week)
            game = game or (mine[0] if mine else games[0] if games else None)
            board, boards = command.person_board(session, self.registry, self.settings,
                                                 person.id, game, division, now) \
                if game is not None else (None, [])
            lang = languages.page_language(session, platform, person, user_lang,
                                           self.settings.default_language)
            return LeaguePage(game, board, len(boards), games, mine, lang, person.id)

    def open_league_weeks(self) -> int:
        """Open each game's running week of the league that has none yet, each once (what the
        tick's step ``league.weeks`` does); how many were opened."""
        return season.step(self, "")  # type: ignore[arg-type]
