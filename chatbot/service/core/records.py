"""The rows an input works on, through the ORM session: chats and players (created on first
contact), tables (locked for the input), seats; a table's machine over its stored state
(``model``), its options (``options``/``set_options``), a new version (``bump``) and its
move log (``log_move``).

A chat row is locked for the input (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` already admits one writer) so that inputs of one chat that create tables
(``/new``, a game menu) run one after the other: two simultaneous ``/new`` give one lobby.
First contact inserts with ``ON CONFLICT DO NOTHING``, so two inputs of a new chat or person
never fail on the unique key.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import Insert, String, and_, bindparam
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

import fsm
from engine import GAMES
from storage.models import Chat, ChatMember, GameTable, Move, Player, Seat

from ...table_options import TableOptions, options_of
from .api import ChatRef, UserRef
from .transaction import Ctx


def _insert_new(session: Session, model: type[Chat] | type[Player], values: dict[str, Any]
                ) -> None:
    ins = sqlite_insert if session.get_bind().dialect.name == "sqlite" else pg_insert
    session.execute(ins(model).values(**values).on_conflict_do_nothing(
        index_elements=["platform", "external_id"]))


# The statements of every input, built once (building one costs more than running it on
# SQLite); SQLAlchemy's compiled cache then serves them by their cache key.
_CHAT_BY_REF = select(Chat).where(Chat.platform == bindparam("platform"),
                                  Chat.external_id == bindparam("external_id")).with_for_update()
_PLAYER_BY_REF = select(Player).where(Player.platform == bindparam("platform"),
                                      Player.external_id == bindparam("external_id"))
# the chat (locked) and the person who wrote, in one statement: every input needs both
_CHAT_AND_PLAYER = select(Chat, Player).outerjoin(Player, and_(
    Player.platform == Chat.platform, Player.external_id == bindparam("user_id"))).where(
    Chat.platform == bindparam("platform"), Chat.external_id == bindparam("external_id")
).with_for_update(of=Chat)
_LOCK_TABLE = select(GameTable).where(GameTable.id == bindparam("id")).with_for_update()
# the table locked and its seats in one statement (only the table's row locked)
_LOCK_TABLE_SEATS = select(GameTable, Seat).outerjoin(
    Seat, col(Seat.table_id) == GameTable.id).where(GameTable.id == bindparam("id")).order_by(
    col(Seat.seat_no)).with_for_update(of=GameTable)
_SEATS = select(Seat).where(Seat.table_id == bindparam("table_id")).order_by(col(Seat.seat_no))
_PRIVATE_PERSON = select(Player).where(
    Player.platform == bindparam("platform"),
    Player.private_chat_id == bindparam("chat")).limit(1)
_OPEN_TABLE = select(GameTable.id).where(
    GameTable.chat_id == bindparam("chat_id"), col(GameTable.fsm_state).in_(fsm.OPEN),
    col(GameTable.thread_id).is_not_distinct_from(bindparam("thread", type_=String))
).order_by(col(GameTable.id).desc()).limit(1)
_OPEN_IN_THREAD = select(GameTable).where(
    GameTable.chat_id == bindparam("chat_id"), col(GameTable.fsm_state).in_(fsm.OPEN),
    GameTable.thread_id == bindparam("thread")).order_by(col(GameTable.id)).with_for_update()


def chat_and_player(session: Session, ref: ChatRef, user: UserRef | None, now: datetime
                    ) -> tuple[Chat, Player | None]:
    """The chat an input came from, locked for the input, and the person who sent it (with
    what the platform says of them now); each created on first contact. Both come in one
    ``SELECT`` when they are known."""
    if user is None:
        return chat_for(session, ref, now), None
    params = {"platform": ref.platform, "external_id": ref.external_id,
              "user_id": user.external_id}
    row = session.exec(_CHAT_AND_PLAYER, params=params).first()
    if row is None:
        return chat_for(session, ref, now), player_for(session, ref.platform, user, ref, now)
    chat, player = row
    _note_kind(chat, ref)
    if player is None:
        return chat, player_for(session, ref.platform, user, ref, now)
    _note_user(player, user, ref)
    return chat, player


def chat_for(session: Session, ref: ChatRef, now: datetime) -> Chat:
    """The chat an input came from, locked for the input; created on first contact."""
    params = {"platform": ref.platform, "external_id": ref.external_id}
    chat = session.exec(_CHAT_BY_REF, params=params).first()
    if chat is None:
        _insert_new(session, Chat, {**params, "kind": ref.kind, "title": ref.title,
                                    "created_at": now})
        chat = session.exec(_CHAT_BY_REF, params=params).one()
    _note_kind(chat, ref)
    return chat


def _note_kind(chat: Chat, ref: ChatRef) -> None:
    if chat.kind == "private" and ref.kind == "group":  # (``chat_no_longer_private``)
        chat.kind = "group"


def player_for(session: Session, platform: str, user: UserRef, chat: ChatRef | None,
               now: datetime) -> Player:
    """The person who sent an input, with what the platform says of them now."""
    params = {"platform": platform, "external_id": user.external_id}
    player = session.exec(_PLAYER_BY_REF, params=params).first()
    if player is None:
        private = chat.external_id if chat is not None and chat.kind == "private" else None
        _insert_new(session, Player, {
            "platform": platform, "external_id": user.external_id, "name": user.name,
            "username": user.username, "language": user.language,
            "private_chat_id": private, "created_at": now})
        return session.exec(_PLAYER_BY_REF, params=params).one()
    _note_user(player, user, chat)
    return player


def _note_user(player: Player, user: UserRef, chat: ChatRef | None) -> None:
    """What the platform says of a person now (only what changed is assigned: an unchanged
    person costs no ``UPDATE``)."""
    private = chat.external_id if chat is not None and chat.kind == "private" else None
    if user.name and player.name != user.name:
        player.name = user.name
    if player.username != user.username:
        player.username = user.username
    if user.language and player.language != user.language:
        player.language = user.language
    if private is not None and player.private_chat_id != private:
        player.private_chat_id = private


@cache
def _member_statement(dialect: str) -> Insert:
    """``INSERT … ON CONFLICT``: a new member, or ``seen_at`` brought forward when a day old."""
    ins = (sqlite_insert if dialect == "sqlite" else pg_insert)(ChatMember).values(
        chat_id=bindparam("chat_id"), player_id=bindparam("player_id"),
        seen_at=bindparam("now"))
    return ins.on_conflict_do_update(
        index_elements=["chat_id", "player_id"], set_={"seen_at": ins.excluded.seen_at},
        where=col(ChatMember.seen_at) < bindparam("day_ago"))


def note_member(session: Session, chat: Chat, player: Player, now: datetime) -> None:
    """The person was seen in this group chat (the Mini App shows them its tables): one
    statement; a known member's row is written again at most once a day."""
    statement = _member_statement(session.get_bind().dialect.name)
    session.execute(statement, {"chat_id": chat.id, "player_id": player.id, "now": now,
                                "day_ago": now - timedelta(days=1)})


def is_member(session: Session, chat_id: int, player_id: int) -> bool:
    """Whether the bot has seen the person in the chat."""
    return session.get(ChatMember, (chat_id, player_id)) is not None


def lock_table(session: Session, table_id: int) -> GameTable | None:
    """The table, its row locked (``FOR UPDATE``; on SQLite the transaction holds the
    database's write lock from ``BEGIN IMMEDIATE``)."""
    # (a statement built once: ``Session.get`` builds and cache-keys a new one for every call
    # with ``with_for_update``, which cost a tenth of an input)
    return session.exec(_LOCK_TABLE, params={"id": table_id}).first()


def lock_table_seats(session: Session, table_id: int) -> tuple[GameTable | None, list[Seat]]:
    """``lock_table`` and ``seats`` in one statement: the table (``None`` if there is none)
    and its seats in seat order."""
    rows = session.exec(_LOCK_TABLE_SEATS, params={"id": table_id}).all()
    if not rows:
        return None, []
    return rows[0][0], [seat for _, seat in rows if seat is not None]


def seats(session: Session, table: GameTable) -> list[Seat]:
    """The table's seats in seat order."""
    return list(session.exec(_SEATS, params={"table_id": table.id}).all())


def open_table(session: Session, chat: Chat, thread: str | None = None) -> int | None:
    """The id of the newest open table of a chat's topic or thread (``None``: of the chat
    outside any: a forum's General topic, a room's main timeline)."""
    return session.exec(_OPEN_TABLE, params={"chat_id": chat.id, "thread": thread}).first()


def open_tables_in(session: Session, chat: Chat, thread: str) -> list[GameTable]:
    """The open tables of a chat's topic or thread, locked."""
    return list(session.exec(_OPEN_IN_THREAD, params={"chat_id": chat.id,
                                                      "thread": thread}).all())


def group_tables_of(session: Session, player: Player) -> list[GameTable]:
    """The running group tables a person sits at."""
    return list(session.exec(select(GameTable).join(Seat, col(Seat.table_id) == GameTable.id)
                             .where(Seat.player_id == player.id,
                                    col(GameTable.fsm_state).in_(fsm.PLAYING),
                                    col(GameTable.is_private).is_(False))).all())


def get_table(session: Session, table_id: int | None) -> GameTable | None:
    return None if table_id is None else session.get(GameTable, table_id)


def get_chat(session: Session, chat_id: int | None) -> Chat | None:
    return None if chat_id is None else session.get(Chat, chat_id)


def find_chat(session: Session, platform: str, external_id: str) -> Chat | None:
    """A chat by its platform's id, if the bot knows it (reads only)."""
    return session.exec(select(Chat).where(Chat.platform == platform,
                                           Chat.external_id == external_id)).first()


def find_player(session: Session, platform: str, external_id: str) -> Player | None:
    """A person by their platform's id, if they ever wrote (reads only)."""
    return session.exec(_PLAYER_BY_REF, params={"platform": platform,
                                                "external_id": external_id}).first()


def get_player(session: Session, player_id: int | None) -> Player | None:
    return None if player_id is None else session.get(Player, player_id)


def place_name(chat: Chat | None, table: GameTable) -> str | None:
    """Where a group table plays, as its players read it outside the group: the group's
    name, and the name of the topic or thread it plays in when one is known
    (``Stammtisch › Schwimmen am Montag?``: two tables in two threads of one room are told
    apart); ``None`` for a private table or a chat without a name."""
    if table.is_private or chat is None:
        return None
    thread = (table.options or {}).get("thread_name") if table.thread_id else None
    if not thread and table.thread_id and table.thread_id.isdigit():
        thread = f"#{table.thread_id}"  # (a Telegram forum topic never named to us: its id)
    return " › ".join(p for p in (chat.title, thread) if p) or None


def chat_language(session: Session, platform: str, external_id: str) -> str | None:
    """The language a chat chose (``/language``), if it chose one."""
    return session.exec(select(Chat.language).where(Chat.platform == platform,
                                                    Chat.external_id == external_id)).first()


def private_person(session: Session, chat: Chat) -> Player | None:
    """The person whose private chat with the bot this is."""
    return session.exec(_PRIVATE_PERSON, params={"platform": chat.platform,
                                                 "chat": chat.external_id}).first()


def add_seat(session: Session, table: GameTable, seat_no: int, name: str,
             player_id: int | None = None, is_cpu: bool = False,
             cpu_level: str | None = None) -> Seat:
    seat = Seat(table_id=table.id, seat_no=seat_no, player_id=player_id, name=name,  # type: ignore[arg-type]
                is_cpu=is_cpu, cpu_level=cpu_level, away=False, timeouts=0, ui={})
    session.add(seat)
    return seat


def seat_of(table_seats: list[Seat], player: Player) -> Seat | None:
    """The seat a person sits in (not one a CPU took over)."""
    return next((s for s in table_seats if s.player_id == player.id and not s.is_cpu), None)


def model(table: GameTable, seats: list[Seat]) -> fsm.TableModel:
    """The table machine over the stored state."""
    game = GAMES[table.game]
    engine_state = game.from_json(table.state_json) if table.state_json else None
    return fsm.TableModel(game_id=table.game, state=table.fsm_state, seats=len(seats),
                          options=dict(options_of(table).engine), seed=table.seed,
                          engine_state=engine_state)


def options(table: GameTable) -> TableOptions:
    """The table's options, typed."""
    return options_of(table)


def set_options(table: GameTable, opts: TableOptions) -> None:
    """Store the table's options (a new JSON value, so the ORM sees the change)."""
    table.options = opts.to_json()


def bump(ctx: Ctx, table: GameTable) -> None:
    """A committed change: a new version (older buttons go stale)."""
    table.version += 1
    table.updated_at = ctx.now
    ctx.touch(table)


def log_move(ctx: Ctx, table: GameTable, seat_no: int | None, actor: str, code: str) -> None:
    """A move-log row for the change about to be made (its sequence is the next version)."""
    ctx.queue(Move, {"table_id": table.id, "seq": table.version + 1, "seat_no": seat_no,
                     "actor": actor, "code": code, "at": ctx.now})
