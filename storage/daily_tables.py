"""The daily deal's tables (``chatbot.service.solo.daily``): a person's try at a day's deal and
a group's morning post. Kept apart from ``storage.models`` (which re-exports them) only for the
length of that module."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class DailyEntry(SQLModel, table=True):
    """A person's try at a day's daily deal (``chatbot.service.daily``): the table it is
    played at, whether it counts (the first try of the day) and when it began. Its score is
    the table's result (read by ``table_id``; no foreign key: retention may delete the
    table long after the day's ranking was shown)."""

    __tablename__ = "daily_entry"
    __table_args__ = (UniqueConstraint("table_id"),
                      Index("ix_daily_entry_day", "day", "game", "player_id"))

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id")
    game: str = Field(max_length=32)
    day: str = Field(max_length=10)  # the local date it was dealt for, YYYY-MM-DD
    table_id: int
    counted: bool = True
    created_at: datetime


class DailyPost(SQLModel, table=True):
    """A group's morning post of yesterday's daily-deal winners: due once per day and chat,
    claimed once (``posted_at`` set in the claiming transaction)."""

    __tablename__ = "daily_post"
    __table_args__ = (UniqueConstraint("chat_id", "day"), Index("ix_daily_post_due", "due_at"))

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id")
    day: str = Field(max_length=10)  # the day whose winners it names
    due_at: datetime
    posted_at: datetime | None = None
