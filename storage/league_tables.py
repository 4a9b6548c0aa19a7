"""The league's tables (``chatbot.service.league``, docs/league.md): a game's week, who plays
in which division of it, and who took their holiday protection for a week. Kept apart from
``storage.models`` (which re-exports them) only for the length of that module."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class LeagueWeek(SQLModel, table=True):
    """A week of a game's league: opened once by the league's weekly step (the insert of this
    row is the claim; the step places the week's people in the same transaction), closed when
    the next week of the game opens (its people's final points and moves written then)."""

    __tablename__ = "league_week"
    __table_args__ = (UniqueConstraint("game", "week"),)

    id: int | None = Field(default=None, primary_key=True)
    game: str = Field(max_length=32)
    week: str = Field(max_length=10)  # its Monday (YYYY-MM-DD, the installation's zone)
    divisions: int = 0  # how many divisions the week was cut into (0: nobody yet)
    opened_at: datetime
    closed_at: datetime | None = None


class LeagueMember(SQLModel, table=True):
    """A person in a division of a game's league for a week. ``seed`` is their place in the
    division's order at the week's start (ties at its end go by it; ``None``: joined during
    the week). The final ``points``, ``days`` (their points per day), ``rank`` and ``moved``
    (up | down | stay | holiday | left) are written when the week closes."""

    __tablename__ = "league_member"
    __table_args__ = (UniqueConstraint("game", "week", "player_id"),
                      Index("ix_league_member_division", "game", "week", "division"),
                      Index("ix_league_member_player", "player_id"))

    id: int | None = Field(default=None, primary_key=True)
    game: str = Field(max_length=32)
    week: str = Field(max_length=10)
    player_id: int = Field(foreign_key="player.id")
    division: int  # 1: the top division
    seed: int | None = None
    idle: int = 0  # weeks in a row before this one without a counted deal (holidays aside)
    joined_at: datetime
    points: int | None = None
    days: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    rank: int | None = None
    moved: str | None = Field(default=None, max_length=8)


class LeagueHoliday(SQLModel, table=True):
    """A person's holiday protection (``/liga urlaub``) for a week, in every game's league:
    they keep their division and score nothing that week; one per calendar month."""

    __tablename__ = "league_holiday"

    player_id: int = Field(foreign_key="player.id", primary_key=True)
    week: str = Field(primary_key=True, max_length=10)  # the Monday of the week it protects
    taken_at: datetime
