"""The tournaments' tables (``chatbot.service.tournament``, docs/tournaments.md): a group's
tournament, its entrants, the tables of each round and every person's score at a table.
Kept apart from ``storage.models`` (which re-exports them) only for the length of that
module."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class Tournament(SQLModel, table=True):
    """A tournament of a group. ``state``: ``open`` (entry), ``running``, ``finished``,
    ``cancelled``. Its next step lives in the row (``due_kind`` at ``due_at``: ``start``,
    ``deal`` while a round's topics are being made, ``round_end`` at the round's deadline or
    once every table finished), claimed once by the version."""

    __tablename__ = "tournament"
    __table_args__ = (Index("ix_tournament_chat", "chat_id", "state"),
                      Index("ix_tournament_due", "due_at"))

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id")
    thread_id: str | None = Field(default=None, max_length=64)  # where it was opened
    game: str = Field(max_length=32)
    rounds: int = 3
    games_per_round: int = 1  # games each table plays in a round
    round_seconds: int | None = None  # a round's time (None: until every table finished)
    turn_timeout: int = 60
    late_entry: bool = False  # entry stays open until round 2 begins
    state: str = Field(default="open", max_length=12)
    round_no: int = 0
    place: str | None = Field(default=None, max_length=12)  # topics | private | threads
    opener_id: int | None = Field(default=None, foreign_key="player.id")
    starts_at: datetime | None = None  # the start at a time (None: its opener starts it)
    round_ends_at: datetime | None = None
    due_kind: str | None = Field(default=None, max_length=12)
    due_at: datetime | None = None
    version: int = 0
    options: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_at: datetime
    finished_at: datetime | None = None


class TournamentEntrant(SQLModel, table=True):
    """A person in a tournament: ``in`` (plays), ``left`` (left before a round: seated no
    more), ``removed`` (by an administrator)."""

    __tablename__ = "tournament_entrant"

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    player_id: int = Field(foreign_key="player.id", primary_key=True)
    state: str = Field(default="in", max_length=8)
    joined_at: datetime


class TournamentTable(SQLModel, table=True):
    """A table of a round: who sits there (player ids, ``None`` for a CPU seat, in seat order),
    the topic or thread it plays in, the game table now playing (``game_no`` of the round's
    ``Tournament.games_per_round``) and ``state``: ``waiting`` (for its topic), ``playing``,
    ``done``."""

    __tablename__ = "tournament_table"
    __table_args__ = (UniqueConstraint("tournament_id", "round_no", "table_no"),
                      Index("ix_tournament_table_game", "table_id"))

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    round_no: int
    table_no: int
    seats: list[int | None] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    thread_id: str | None = Field(default=None, max_length=64)
    table_id: int | None = None  # the game table playing now (no foreign key: retention)
    game_no: int = 0
    state: str = Field(default="waiting", max_length=8)


class TournamentScore(SQLModel, table=True):
    """A person's result at one table in one game of a round: tournament points by place
    (a fraction: ``points_num``/``points_den``), the game's own points, who sat with them."""

    __tablename__ = "tournament_score"
    __table_args__ = (UniqueConstraint("tournament_id", "round_no", "table_no", "game_no",
                                       "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    round_no: int
    table_no: int
    game_no: int = 0
    player_id: int = Field(foreign_key="player.id")
    points_num: int
    points_den: int = 1
    game_points: float = 0.0
    opponents: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    at: datetime
