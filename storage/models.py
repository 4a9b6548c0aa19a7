"""SQLModel tables. Times are aware UTC datetimes (``storage.db.utcnow``).

Schema changes go through Alembic (``storage/migrations``); the app migrates on start.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

# (the tables of some rooms are kept in modules of their own, re-exported here)
from .daily_tables import DailyEntry, DailyPost  # noqa: F401
from .league_tables import LeagueHoliday, LeagueMember, LeagueWeek  # noqa: F401
from .tournament_tables import (  # noqa: F401
    Tournament,
    TournamentEntrant,
    TournamentScore,
    TournamentTable,
)


def _json(default: Any = None) -> Any:
    return Field(default_factory=lambda: default() if callable(default) else default,
                 sa_column=Column(JSON, nullable=True))


def table_token() -> str:
    """A table's unguessable name in links (22 characters of A-Z a-z 0-9 _ -)."""
    return secrets.token_urlsafe(16)


class Chat(SQLModel, table=True):
    """A chat on a platform: a private chat with one user, or a group/room."""

    __tablename__ = "chat"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    external_id: str = Field(max_length=128)
    kind: str = Field(default="private", max_length=16)  # private | group
    title: str | None = Field(default=None, max_length=256)
    language: str | None = Field(default=None, max_length=8)
    created_at: datetime


class Player(SQLModel, table=True):
    """A person on a platform."""

    __tablename__ = "player"
    __table_args__ = (UniqueConstraint("platform", "external_id"),
                      Index("ix_player_private_chat", "platform", "private_chat_id"))

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    external_id: str = Field(max_length=128)
    name: str = Field(default="", max_length=128)
    username: str | None = Field(default=None, max_length=128)
    language: str | None = Field(default=None, max_length=8)
    private_chat_id: str | None = Field(default=None, max_length=128)  # known once they wrote us
    created_at: datetime
    # turn reminders of long clocks (/reminders): on | last (only the last quarter) | off
    reminders: str = Field(default="on", max_length=8)
    quiet_from: int = 23 * 60  # quiet hours, minutes after local midnight: from …
    quiet_to: int = 8 * 60  # … to (no reminder then; a long clock never ends then)
    time_zone: str | None = Field(default=None, max_length=64)  # None: from the language
    # the cards as the person sees them (/karten, the Mini App): classic | tournament (the
    # German four colours: ♠ green, ♦ yellow) | poker (♣ green, ♦ blue); large cards in the page
    deck: str = Field(default="classic", max_length=12)
    large_cards: bool = False


class GameTable(SQLModel, table=True):
    """One table: a game in a chat, its FSM state and engine state, and its next deadline."""

    __tablename__ = "game_table"
    __table_args__ = (
        Index("ix_game_table_deadline", "next_deadline"),
        Index("ix_game_table_chat_state", "chat_id", "fsm_state"),
        Index("ix_game_table_finished", "finished_at"),  # retention
        Index("ix_game_table_token", "token", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id")
    game: str = Field(max_length=32)
    options: dict[str, Any] = _json(dict)
    fsm_state: str = Field(default="lobby", max_length=32)
    state_json: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    version: int = 0  # bumped by every committed change; button data carries it
    is_private: bool = False
    opener_id: int | None = Field(default=None, foreign_key="player.id")
    turn_timeout: int = 0  # seconds; 0 = no clock
    next_deadline: datetime | None = None
    deadline_kind: str | None = Field(default=None, max_length=16)  # remind|timeout|cpu|next
    reminded: bool = False
    turn_ends_at: datetime | None = None  # when a long turn clock of the person on turn ends
    paused_until: datetime | None = None  # a paused long game's clock stands still until then
    # the chat's topic or thread the table lives in (an adapter's opaque key; None: the chat)
    thread_id: str | None = Field(default=None, max_length=128)
    # a pause asked for (who, how long, who agreed, when it lapses) or running (the clock as it
    # stood when it began): see chatbot/service/pause.py
    pause: dict[str, Any] | None = _json(None)
    log: list[dict[str, Any]] = _json(list)  # the last public events, for "last move" lines
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None
    # the table in Mini App links instead of its sequential id (nullable in the schema only:
    # every row has one, set here for new rows and by migration 0007 for older ones)
    token: str | None = Field(default_factory=table_token, max_length=32)


class ChatMember(SQLModel, table=True):
    """A person the bot has seen write or press in a group chat (who may look at the
    group's tables in the Mini App); ``seen_at`` is brought forward at most once a day."""

    __tablename__ = "chat_member"

    chat_id: int = Field(foreign_key="chat.id", primary_key=True)
    player_id: int = Field(foreign_key="player.id", primary_key=True)
    seen_at: datetime


class Seat(SQLModel, table=True):
    """A seat at a table: a player or a CPU."""

    __tablename__ = "seat"
    __table_args__ = (UniqueConstraint("table_id", "seat_no"),
                      Index("ix_seat_player", "player_id"))  # a person's tables (/start)

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id", index=True)
    seat_no: int
    player_id: int | None = Field(default=None, foreign_key="player.id")
    name: str = Field(default="", max_length=128)
    is_cpu: bool = False
    cpu_level: str | None = Field(default=None, max_length=16)
    away: bool = False
    timeouts: int = 0  # consecutive turn timeouts
    ui: dict[str, Any] = _json(dict)  # a selection in progress (e.g. cards picked to play)
    # a topic of its own in the person's private chat was asked for (a long table on a
    # platform that has them: its id is the chat's message slot ``pt<table>``)
    private_topic: bool = False


class Move(SQLModel, table=True):
    """The append-only move log: every accepted move, in order, once."""

    __tablename__ = "move"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id")
    seq: int
    seat_no: int | None = None
    actor: str = Field(max_length=16)  # player | cpu | timeout | system
    code: str = Field(max_length=64)
    at: datetime


class Result(SQLModel, table=True):
    """A finished game: who won, and the final standing."""

    __tablename__ = "result"

    id: int | None = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="game_table.id", unique=True)
    game: str = Field(max_length=32)
    winners: list[int] = _json(list)  # seat numbers
    standings: list[dict[str, Any]] = _json(list)
    rounds: int = 0
    finished_at: datetime


class ProcessedUpdate(SQLModel, table=True):
    """Platform update ids already handled: a repeated update is ignored."""

    __tablename__ = "processed_update"
    __table_args__ = (UniqueConstraint("platform", "update_key"),
                      Index("ix_processed_update_at", "at"))  # retention

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    update_key: str = Field(max_length=128)
    at: datetime


class Outbox(SQLModel, table=True):
    """A view to deliver, written in the same commit as the change that caused it."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_pending", "status", "not_before"),
        # a chat's rows newest first (the Matrix bot's choice lists), a pass's pending rows
        Index("ix_outbox_chat", "platform", "chat_external_id", "status", "id"),
        Index("ix_outbox_created", "created_at"),  # retention
        # an id is never used twice (it is the Matrix transaction id of the row's events)
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    chat_external_id: str = Field(max_length=128)
    table_id: int | None = Field(default=None)
    slot: str | None = Field(default=None, max_length=64)  # edit in place when set
    repost: bool = False  # post the slot anew (it notifies) and delete the old message
    fresh: bool = False  # post anew even if unchanged (a command's answer: at the bottom)
    text: str = Field(sa_column=Column(Text, nullable=False))
    buttons: list[list[list[str]]] = _json(list)  # rows of [label, data]
    status: str = Field(default="pending", max_length=16)  # pending | sent | failed | dropped
    attempts: int = 0
    not_before: datetime
    created_at: datetime
    sent_at: datetime | None = None
    error: str | None = Field(default=None, max_length=512)
    claimed_by: str | None = Field(default=None, max_length=64)  # the first process to try it
    message_id: str | None = Field(default=None, max_length=128)  # the message it made/edited
    # instead of a view: "delete", "pin" or "unpin" the slot's message (``text`` is empty)
    action: str | None = Field(default=None, max_length=16)
    # the message this one answers ("<id>", or "<thread root> <id>" in a thread), if any
    reply_to: str | None = Field(default=None, max_length=600)
    # the chat's topic or thread it goes to (an adapter's opaque key; None: the chat itself)
    thread: str | None = Field(default=None, max_length=128)


class OutboxLease(SQLModel, table=True):
    """Which process delivers a chat's outbox now (one at a time, so in order) and the chat's
    recent sends (its rate limits, whichever process sends next)."""

    __tablename__ = "outbox_lease"

    platform: str = Field(primary_key=True, max_length=16)
    chat_external_id: str = Field(primary_key=True, max_length=128)
    holder: str = Field(default="", max_length=64)  # "" = free
    expires_at: datetime
    sends: list[float] = _json(list)  # epoch seconds of its sends in the last minute


class SendWindow(SQLModel, table=True):
    """The bot's sends in the last second, for the bot-wide limit shared by processes."""

    __tablename__ = "send_window"

    platform: str = Field(primary_key=True, max_length=16)
    sends: list[float] = _json(list)  # epoch seconds


class MessageSlot(SQLModel, table=True):
    """Which platform message shows a slot (table message, private hand view) in a chat."""

    __tablename__ = "message_slot"
    __table_args__ = (UniqueConstraint("platform", "chat_external_id", "slot"),
                      Index("ix_message_slot_message", "platform", "chat_external_id",
                            "message_id"),  # the slot a replied-to message shows
                      Index("ix_message_slot_updated", "updated_at"))  # retention

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    chat_external_id: str = Field(max_length=128)
    slot: str = Field(max_length=64)
    message_id: str = Field(max_length=128)
    text_hash: str | None = Field(default=None, max_length=64)
    updated_at: datetime
    pinned: bool | None = None  # None: not asked; True: pinned (or asked); False: may not pin


class KeyValue(SQLModel, table=True):
    """Small persisted settings of a process (e.g. a Matrix sync token)."""

    __tablename__ = "key_value"

    key: str = Field(primary_key=True, max_length=128)
    value: str = Field(sa_column=Column(Text, nullable=False))


class StatEntry(SQLModel, table=True):
    """One person's seat in a stored result, for ``/stats`` and ``/top`` (derived from
    ``result`` by ``chatbot.service.stats``; one row per person and result)."""

    __tablename__ = "stat_entry"
    __table_args__ = (UniqueConstraint("result_id", "seat_no"),
                      Index("ix_stat_entry_player", "player_id", "result_id"),
                      Index("ix_stat_entry_chat", "chat_id", "game", "player_id", "won"))

    id: int | None = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="result.id")
    seat_no: int
    player_id: int = Field(foreign_key="player.id")
    game: str = Field(max_length=32)
    chat_id: int
    is_private: bool = False
    cpu_level: str | None = Field(default=None, max_length=16)  # the strongest CPU opponent
    won: bool = False


class Rating(SQLModel, table=True):
    """A skill rating per game (OpenSkill's μ and σ) of a person (``p<id>``) or a CPU level
    (``cpu:<level>``), updated from the results in order."""

    __tablename__ = "rating"
    __table_args__ = (UniqueConstraint("game", "subject"),
                      Index("ix_rating_player", "player_id"))

    id: int | None = Field(default=None, primary_key=True)
    game: str = Field(max_length=32)
    subject: str = Field(max_length=32)
    player_id: int | None = Field(default=None, foreign_key="player.id")
    mu: float
    sigma: float
    games: int = 0


class StatsCursor(SQLModel, table=True):
    """How far ``stat_entry`` and ``rating`` have read ``result``: the highest result id read,
    and the lower ids not seen yet (a result whose transaction had not committed yet)."""

    __tablename__ = "stats_cursor"

    id: int = Field(default=1, primary_key=True)
    last_result_id: int = 0
    holes: list[list[float]] = _json(list)  # [result id, epoch seconds first missed]


class StatsHidden(SQLModel, table=True):
    """A person who asked not to be listed in ``/top`` (``/stats hide``)."""

    __tablename__ = "stats_hidden"

    player_id: int = Field(primary_key=True, foreign_key="player.id")
    since: datetime


class Evening(SQLModel, table=True):
    """One Stammtisch evening of a group (issue 40): when it starts (UTC, from the local time
    ``hhmm`` in ``zone``), how it repeats, the game planned, and its next due step (announce,
    remind, start, close) claimed once by ``chatbot.service.evening`` (version-checked)."""

    __tablename__ = "evening"
    __table_args__ = (Index("ix_evening_due", "due_at"),
                      Index("ix_evening_chat", "chat_id", "state"))

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id")
    starts_at: datetime
    hhmm: int  # local start, minutes after midnight (kept across daylight-saving changes)
    zone: str = Field(max_length=64)
    repeat: str = Field(default="once", max_length=8)  # once | weekly | biweekly
    game: str | None = Field(default=None, max_length=32)  # None: "we'll see"
    state: str = Field(default="planned", max_length=16)  # planned | running | closed | dropped
    due_kind: str | None = Field(default=None, max_length=16)  # announce|day|soon|start|close
    due_at: datetime | None = None
    version: int = 0
    opener_id: int | None = Field(default=None, foreign_key="player.id")
    started_at: datetime | None = None
    closed_at: datetime | None = None
    created_at: datetime


class EveningAnswer(SQLModel, table=True):
    """Who comes to an evening: yes | no | maybe, one answer per person (the last counts)."""

    __tablename__ = "evening_answer"

    evening_id: int = Field(foreign_key="evening.id", primary_key=True)
    player_id: int = Field(foreign_key="player.id", primary_key=True)
    answer: str = Field(max_length=8)
    at: datetime


class GroupSetting(SQLModel, table=True):
    """A group's settings: its time zone, the last month whose winner was posted, and who may
    organise for it (plan an evening, open a tournament): ``all`` or ``admins``."""

    __tablename__ = "group_setting"

    chat_id: int = Field(foreign_key="chat.id", primary_key=True)
    zone: str | None = Field(default=None, max_length=64)
    crowned: str | None = Field(default=None, max_length=8)  # "2030-01": that month's posted
    organisers: str = Field(default="all", max_length=8, sa_column_kwargs={"server_default": "all"})
