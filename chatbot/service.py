"""The application service: commands and button presses in, views out (through the outbox).

Transport-agnostic. Every input runs in one transaction that locks its table; a repeated
update id is ignored; a stale or foreign press changes nothing and gets a short answer. The new
game state, FSM state, version, move-log row, next deadline and outgoing views are committed
together; adapters deliver the outbox afterwards and arm the deadlines.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Table, bindparam, delete, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql import Executable
from sqlmodel import Session, col, select

import fsm
from engine import GAMES
from engine.bots import LEVELS, get_bot, levels_for
from engine.bots.experte import system_load
from storage import fastsql
from storage.db import read_only, utcnow, write_lock
from storage.models import (
    Chat,
    GameTable,
    Move,
    Outbox,
    Player,
    ProcessedUpdate,
    Result,
    Seat,
)

from . import buttons
from .i18n import DEFAULT_LANGUAGE, LANGUAGES, engine_reason, pick_language, tr
from .presenters import PRESENTERS, presenter

log = logging.getLogger(__name__)

CPU_NAMES = ("Anna", "Bernd", "Clara", "Dieter", "Erika", "Franz")
# Table buttons that are not game moves (handled by ``_ui_<name>``).
_UI_CODES = {"join", "leave", "start", "stop", "cards", "back", "again", "fill", "clock", "cur",
             "kick", "opt", "lvl"}
TIMEOUT_CHOICES = (30, 60, 120, 0)
LOG_LENGTH = 6

# Statements of the hot path, built once (building and cache-keying a statement costs more
# than running it on SQLite). The hot path reads and writes with SQLAlchemy Core, not the ORM:
# tables, seats, chats and players are loaded as plain ``_Row`` objects, and what changed in
# them is written back with one UPDATE per changed row at the end of the transaction.
_TABLE_TABLE: Table = GameTable.__table__  # type: ignore[attr-defined]
_SEAT_TABLE: Table = Seat.__table__  # type: ignore[attr-defined]
_CHAT_TABLE: Table = Chat.__table__  # type: ignore[attr-defined]
_PLAYER_TABLE: Table = Player.__table__  # type: ignore[attr-defined]
_MOVE_TABLE: Table = Move.__table__  # type: ignore[attr-defined]
_OUTBOX_TABLE: Table = Outbox.__table__  # type: ignore[attr-defined]
_RESULT_TABLE: Table = Result.__table__  # type: ignore[attr-defined]
_CHAT_BY_REF = core_select(_CHAT_TABLE).where(
    _CHAT_TABLE.c.platform == bindparam("platform"),
    _CHAT_TABLE.c.external_id == bindparam("external_id"))
_CHAT_BY_ID = core_select(_CHAT_TABLE).where(_CHAT_TABLE.c.id == bindparam("id"))
_PLAYER_BY_REF = core_select(_PLAYER_TABLE).where(
    _PLAYER_TABLE.c.platform == bindparam("platform"),
    _PLAYER_TABLE.c.external_id == bindparam("external_id"))
_PLAYER_BY_ID = core_select(_PLAYER_TABLE).where(_PLAYER_TABLE.c.id == bindparam("id"))
_LOCK_TABLE = core_select(_TABLE_TABLE).where(
    _TABLE_TABLE.c.id == bindparam("table_id")).with_for_update()
_TABLE_BY_ID = core_select(_TABLE_TABLE).where(_TABLE_TABLE.c.id == bindparam("id"))
_SEATS = core_select(_SEAT_TABLE).where(
    _SEAT_TABLE.c.table_id == bindparam("table_id")).order_by(_SEAT_TABLE.c.seat_no)
_OPEN_TABLE = core_select(_TABLE_TABLE.c.id).where(
    _TABLE_TABLE.c.chat_id == bindparam("chat_id"),
    _TABLE_TABLE.c.fsm_state.in_(fsm.OPEN)).order_by(_TABLE_TABLE.c.id.desc()).limit(1)
_GROUP_TABLES_OF = core_select(_TABLE_TABLE).join(
    _SEAT_TABLE, _SEAT_TABLE.c.table_id == _TABLE_TABLE.c.id).where(
    _SEAT_TABLE.c.player_id == bindparam("player_id"),
    _TABLE_TABLE.c.fsm_state.in_(fsm.PLAYING), _TABLE_TABLE.c.is_private.is_(False))
_DELETE_SEAT = delete(_SEAT_TABLE).where(_SEAT_TABLE.c.id == bindparam("id"))
_SEEN: dict[str, Executable] = {}
_INSERT_ALL: dict[Table, Executable] = {}  # plain INSERTs of queued rows, per table


def _seen_statement(dialect: str) -> Executable:
    """``INSERT … ON CONFLICT DO NOTHING RETURNING id`` for processed updates, per dialect."""
    stmt = _SEEN.get(dialect)
    if stmt is None:
        ins = sqlite_insert if dialect == "sqlite" else pg_insert
        stmt = ins(ProcessedUpdate).values(
            platform=bindparam("platform"), update_key=bindparam("update_key"),
            at=bindparam("at"),
        ).on_conflict_do_nothing(index_elements=["platform", "update_key"]).returning(
            ProcessedUpdate.id)
        _SEEN[dialect] = stmt
    return stmt


def _queue(session: Session, table: Table, row: dict[str, Any]) -> None:
    """Insert a row (outbox, move log) with the transaction's other queued rows at commit:
    one multi-row statement per table instead of ORM objects and a unit-of-work flush."""
    session.info.setdefault("queued", {}).setdefault(table, []).append(row)


def _queue_outbox(ctx: _Ctx, platform: str, chat: str, table_id: int | None,
                  slot: str | None, repost: bool, text: str, rows: list[list[list[str]]]) -> None:
    _queue(ctx.session, _OUTBOX_TABLE, {
        "platform": platform, "chat_external_id": chat, "table_id": table_id, "slot": slot,
        "repost": repost, "text": text, "buttons": rows, "status": "pending", "attempts": 0,
        "not_before": ctx.now, "created_at": ctx.now, "sent_at": None, "error": None})


def _write_queued(session: Session) -> None:
    """Write the changed ``_Row`` objects, then insert the queued rows, in the order they were
    queued (outbox ids keep that order)."""
    session.flush()  # ORM changes first (cheap when there are none)
    _write_rows(session)
    queued = session.info.pop("queued", None)
    if not queued:
        return
    conn = _conn(session)
    for table, rows in queued.items():
        stmt = _INSERT_ALL.get(table)
        if stmt is None:
            stmt = _INSERT_ALL[table] = insert(table)
        fastsql.insert_many(conn, stmt, rows)


def _conn(session: Session) -> Connection:
    """The session's connection in its current transaction (looked up once per transaction)."""
    conn = session.info.get("conn")
    if conn is None or conn.closed or not conn.in_transaction():
        conn = session.info["conn"] = session.connection()
    return conn


class _Row:
    """A row loaded with Core: its columns as plain attributes. A session keeps one object
    per row (like the ORM's identity map); ``_write_rows`` writes back what changed."""

    TABLE: Table

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__dict__!r})"


class TableRow(_Row):
    """A ``game_table`` row (the columns of ``storage.models.GameTable``)."""

    TABLE = _TABLE_TABLE
    id: int
    chat_id: int
    game: str
    options: dict[str, Any]
    fsm_state: str
    state_json: str | None
    seed: int
    version: int
    is_private: bool
    opener_id: int | None
    turn_timeout: int
    next_deadline: datetime | None
    deadline_kind: str | None
    reminded: bool
    log: list[dict[str, Any]]
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


class SeatRow(_Row):
    """A ``seat`` row (the columns of ``storage.models.Seat``)."""

    TABLE = _SEAT_TABLE
    id: int
    table_id: int
    seat_no: int
    player_id: int | None
    name: str
    is_cpu: bool
    cpu_level: str | None
    away: bool
    timeouts: int
    ui: dict[str, Any]


class ChatRow(_Row):
    """A ``chat`` row (the columns of ``storage.models.Chat``)."""

    TABLE = _CHAT_TABLE
    id: int
    platform: str
    external_id: str
    kind: str
    title: str | None
    language: str | None
    created_at: datetime


class PlayerRow(_Row):
    """A ``player`` row (the columns of ``storage.models.Player``)."""

    TABLE = _PLAYER_TABLE
    id: int
    platform: str
    external_id: str
    name: str
    username: str | None
    language: str | None
    private_chat_id: str | None
    created_at: datetime


_INSERTS: dict[type[_Row], Executable] = {
    cls: insert(cls.TABLE).returning(cls.TABLE.c.id)
    for cls in (TableRow, SeatRow, ChatRow, PlayerRow)}
_UPDATES: dict[tuple[Table, tuple[str, ...]], Executable] = {}


def _update_statement(table: Table, names: tuple[str, ...]) -> Executable:
    """``UPDATE <table> SET <names> WHERE id = :_id``, built once per set of columns."""
    key = (table, names)
    stmt = _UPDATES.get(key)
    if stmt is None:
        stmt = _UPDATES[key] = update(table).where(table.c.id == bindparam("_id")).values(
            {table.c[n]: bindparam("v_" + n, type_=table.c[n].type) for n in names})
    return stmt


def _registry(session: Session) -> dict[tuple[type[_Row], int], list[Any]]:
    return session.info.setdefault("rows", {})  # type: ignore[no-any-return]


def _adopt(session: Session, cls: type[_R], values: Any) -> _R:
    """The session's object for a row: the one already loaded, else a new one."""
    registry = _registry(session)
    key = (cls, values["id"])
    entry = registry.get(key)
    if entry is not None:  # loaded before: keep it (and any change made to it), like the ORM
        return entry[0]  # type: ignore[no-any-return]
    values = dict(values)
    obj = cls(**values)
    registry[key] = [obj, values]
    return obj


def _load(session: Session, cls: type[_R], stmt: Executable, params: dict[str, Any]) -> _R | None:
    row = fastsql.fetch_one(_conn(session), stmt, params)
    return None if row is None else _adopt(session, cls, row)


def _get(session: Session, cls: type[_R], stmt: Executable, row_id: int | None) -> _R | None:
    """A row by id: without a query when the session has it already."""
    if row_id is None:
        return None
    entry = session.info.get("rows", {}).get((cls, row_id))
    if entry is not None:
        return entry[0]  # type: ignore[no-any-return]
    return _load(session, cls, stmt, {"id": row_id})


def _add(session: Session, cls: type[_R], values: dict[str, Any]) -> _R:
    """Insert a row now and return its object."""
    row_id = fastsql.insert_returning(_conn(session), _INSERTS[cls], values)
    return _adopt(session, cls, {**values, "id": row_id})


def _remove(session: Session, obj: SeatRow) -> None:
    """Delete a seat now (its object is forgotten)."""
    _write_rows(session)
    fastsql.run(_conn(session), _DELETE_SEAT, {"id": obj.id})
    _registry(session).pop((type(obj), obj.id), None)


def _write_rows(session: Session) -> None:
    """UPDATE what changed in the session's rows since they were loaded (or last written)."""
    registry = session.info.get("rows")
    if not registry:
        return
    conn = None
    for obj, orig in registry.values():
        now = obj.__dict__
        changed = {k: now[k] for k, v in orig.items() if now[k] is not v and now[k] != v}
        if not changed:
            continue
        names = tuple(changed)
        params = {"v_" + k: v for k, v in changed.items()}
        params["_id"] = obj.id
        conn = conn or _conn(session)
        fastsql.run(conn, _update_statement(type(obj).TABLE, names), params)
        orig.update(changed)


_R = TypeVar("_R", bound="_Row")


class _PlanFirst(Exception):
    """Leave the claim: a slow CPU level decides first, outside the transaction."""


_SLOW_LEVELS: dict[tuple[str, str], bool] = {}
_CHAIN_LIMIT = 12  # CPU moves one input plays on at most; the deadline path does the rest


def _slow_level(game_id: str, level: str) -> bool:
    """A level whose bot thinks against a clock (it has a ``budget``); unknown ones count."""
    key = (game_id, level)
    slow = _SLOW_LEVELS.get(key)
    if slow is None:
        try:
            slow = hasattr(get_bot(game_id, level), "budget")
        except Exception:  # no such bot: let the planner find out, as before
            slow = True
        _SLOW_LEVELS[key] = slow
    return slow


@dataclass(frozen=True)
class ChatRef:
    """Where an input came from."""

    platform: str
    external_id: str
    kind: str = "private"  # private | group
    title: str | None = None


@dataclass(frozen=True)
class UserRef:
    """Who sent an input."""

    external_id: str
    name: str
    username: str | None = None
    language: str | None = None
    is_admin: bool = False


@dataclass
class Outcome:
    """The short answer to an input (an alert for a button, a reply for a command)."""

    text: str | None = None
    ok: bool = True
    alert: bool = False
    table_id: int | None = None
    changed: bool = False


@dataclass
class Settings:
    """Service behaviour that differs between transports and tests."""

    cpu_delay: float = 1.0  # seconds a CPU "thinks" before its move is played
    group_timeout: int = 60  # default turn clock in groups; private games have none
    next_round_delay: float = 6.0  # groups: the next round is dealt by itself after this
    default_language: str = DEFAULT_LANGUAGE
    start_link: Callable[[int], str] | None = None  # deep link to start the bot privately
    experte_budget: float | None = None  # Experte seconds per decision (None: engine default)


class Refusal(Exception):
    """An input that changes nothing; the message is the answer."""

    def __init__(self, text: str, alert: bool = True) -> None:
        super().__init__(text)
        self.text, self.alert = text, alert


@dataclass(frozen=True)
class Change:
    """A table changed by a committed input: its new version and next deadline."""

    table_id: int
    version: int
    deadline: datetime | None


@dataclass
class _Batch:
    """Inputs sharing one transaction (``Service.press_many``)."""

    conn: Connection
    touched: dict[int, TableRow] = field(default_factory=dict)  # told after the commit


@dataclass
class _Ctx:
    """One input being handled."""

    session: Session
    platform: str
    lang: str
    now: datetime
    touched: dict[int, TableRow] = field(default_factory=dict)
    chained: int = 0  # CPU moves played on in this input (see ``Service._chain_cpu``)

    def touch(self, table: TableRow) -> None:
        self.touched[table.id] = table  # type: ignore[index]


class Service:
    """The use cases of the bot, over one database."""

    def __init__(self, engine: Engine, settings: Settings | None = None,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.settings = settings or Settings()
        self.clock = clock
        # Told after each commit with effects (outbox rows, deadlines): adapters wake their
        # outbox sender and arm the deadlines. Called on the thread that ran the input.
        self.listeners: list[Callable[[list[Change]], None]] = []
        self._thinking = 0  # CPU decisions under way in this process (they share the GIL)
        self._thinking_lock = threading.Lock()
        self._reader = read_only(engine)
        self._write_lock = write_lock(engine)
        self._local = threading.local()  # .batch: the ``_Batch`` this thread's inputs join

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def _tx(self) -> Iterator[Session]:
        """One input's transaction on one connection: the hot path's Core statements run on it
        directly, and the ORM session (used off the hot path) joins its transaction. Changed
        rows are written and rows queued with ``_queue`` inserted before commit. Inside
        ``press_many`` the input is a savepoint of the batch's transaction instead."""
        batch: _Batch | None = getattr(self._local, "batch", None)
        if batch is not None:
            with batch.conn.begin_nested(), \
                    Session(bind=batch.conn, expire_on_commit=False) as session:
                session.info["conn"] = batch.conn
                yield session
                _write_queued(session)
            return
        with self._write_lock, self.engine.connect() as conn, conn.begin(), \
                Session(bind=conn, expire_on_commit=False) as session:
            session.info["conn"] = conn
            yield session
            _write_queued(session)

    def _read(self) -> Session:
        """A read-only session (on SQLite a deferred transaction: it takes no write lock)."""
        return Session(self._reader)

    def _notify(self, ctx: _Ctx | None) -> None:
        touched = {} if ctx is None else ctx.touched
        batch: _Batch | None = getattr(self._local, "batch", None)
        if batch is not None:  # told once the batch has committed
            batch.touched.update(touched)
            return
        self._tell(list(touched.values()))

    def _tell(self, tables: list[TableRow]) -> None:
        """Tell the listeners which tables a commit changed (new version, next deadline)."""
        changes = [Change(t.id, t.version, t.next_deadline) for t in tables]
        for listener in self.listeners:
            try:
                listener(changes)
            except Exception:  # a listener must never break an input
                log.exception("listener failed")

    def _seen(self, session: Session, platform: str, update_key: str | None) -> bool:
        """Record an update id; ``True`` if it was handled before."""
        if not update_key:
            return False
        # One statement: insert the key unless it is there (both SQLite and PostgreSQL).
        conn = _conn(session)  # (not session.connection(): that starts the ORM's bookkeeping)
        stmt = _seen_statement(conn.dialect.name)
        return fastsql.insert_returning(conn, stmt, {
            "platform": platform, "update_key": update_key, "at": self.clock()}) is None

    def _chat(self, session: Session, ref: ChatRef) -> ChatRow:
        chat = _load(session, ChatRow, _CHAT_BY_REF, {
            "platform": ref.platform, "external_id": ref.external_id})
        if chat is None:
            chat = _add(session, ChatRow, {
                "platform": ref.platform, "external_id": ref.external_id, "kind": ref.kind,
                "title": ref.title, "language": None, "created_at": self.clock()})
        return chat

    def _player(self, session: Session, platform: str, user: UserRef,
                chat: ChatRef | None = None) -> PlayerRow:
        player = _load(session, PlayerRow, _PLAYER_BY_REF, {
            "platform": platform, "external_id": user.external_id})
        private = chat.external_id if chat is not None and chat.kind == "private" else None
        if player is None:
            player = _add(session, PlayerRow, {
                "platform": platform, "external_id": user.external_id, "name": user.name,
                "username": user.username, "language": user.language,
                "private_chat_id": private, "created_at": self.clock()})
        else:  # assign only what changed: an unchanged player costs no UPDATE
            if user.name and player.name != user.name:
                player.name = user.name
            if player.username != user.username:
                player.username = user.username
            if user.language and player.language != user.language:
                player.language = user.language
            if private is not None and player.private_chat_id != private:
                player.private_chat_id = private
        return player

    def _lang(self, chat: ChatRow | None, user: UserRef | None) -> str:
        return pick_language(chat.language if chat else None, user.language if user else None,
                             self.settings.default_language)

    def _lock_table(self, session: Session, table_id: int) -> TableRow | None:
        """The table, its row locked (``FOR UPDATE``; on SQLite the transaction holds the
        database's write lock from ``BEGIN IMMEDIATE``)."""
        return _load(session, TableRow, _LOCK_TABLE, {"table_id": table_id})

    def _seats(self, session: Session, table: Any) -> list[SeatRow]:
        _write_rows(session)  # (a renumbered seat is read in its new order)
        conn = _conn(session)
        return [_adopt(session, SeatRow, r)
                for r in fastsql.fetch_all(conn, _SEATS, {"table_id": table.id})]

    def _open_table(self, session: Session, chat: Any) -> int | None:
        """The id of the chat's newest open table."""
        _write_rows(session)
        return _conn(session).execute(_OPEN_TABLE, {"chat_id": chat.id}).scalar()

    @staticmethod
    def _get_chat(session: Session, chat_id: int | None) -> ChatRow | None:
        return _get(session, ChatRow, _CHAT_BY_ID, chat_id)

    @staticmethod
    def _get_player(session: Session, player_id: int | None) -> PlayerRow | None:
        return _get(session, PlayerRow, _PLAYER_BY_ID, player_id)

    @staticmethod
    def _add_seat(ctx: _Ctx, table: Any, seat_no: int, name: str, player_id: int | None = None,
                  is_cpu: bool = False, cpu_level: str | None = None) -> SeatRow:
        return _add(ctx.session, SeatRow, {
            "table_id": table.id, "seat_no": seat_no, "player_id": player_id, "name": name,
            "is_cpu": is_cpu, "cpu_level": cpu_level, "away": False, "timeouts": 0, "ui": {}})

    # ------------------------------------------------------------------ entry points
    def command(self, chat_ref: ChatRef, user: UserRef, name: str, args: str = "",
                update_key: str | None = None) -> Outcome:
        """A slash command (``start``, ``help``, ``rules``, ``language``, ``new``, ``stop``)."""
        try:
            with self._tx() as session:
                if self._seen(session, chat_ref.platform, update_key):
                    return Outcome(None, ok=True)
                chat = self._chat(session, chat_ref)
                player = self._player(session, chat_ref.platform, user, chat_ref)
                ctx = _Ctx(session, chat_ref.platform, self._lang(chat, user), self.clock())
                handler = getattr(self, f"_cmd_{name}", None)
                if handler is None:
                    return Outcome(tr(ctx.lang, "unknown_command"), ok=False)
                out = handler(ctx, chat, player, user, args.strip())
        except Refusal as exc:
            return Outcome(exc.text, ok=False, alert=exc.alert)
        except IntegrityError:
            return Outcome(None, ok=True)  # the same update handled concurrently elsewhere
        self._notify(ctx)
        return out

    def press(self, chat_ref: ChatRef, user: UserRef, data: str | None,
              update_key: str | None = None) -> Outcome:
        """A button press with its (untrusted) data."""
        lang = pick_language(None, user.language, self.settings.default_language)
        try:
            press = buttons.decode(data)
        except buttons.BadButton:
            return Outcome(tr(lang, "unknown_button"), ok=False, alert=True)
        try:
            with self._tx() as session:
                if self._seen(session, chat_ref.platform, update_key):
                    return Outcome(tr(lang, "already_handled"), ok=True)
                chat = self._chat(session, chat_ref)
                player = self._player(session, chat_ref.platform, user, chat_ref)
                ctx = _Ctx(session, chat_ref.platform, self._lang(chat, user), self.clock())
                if press.table_id == 0:
                    out = self._menu_press(ctx, chat, player, user, press.code)
                else:
                    out = self._table_press(ctx, chat, player, user, press)
        except Refusal as exc:
            return Outcome(exc.text, ok=False, alert=exc.alert)
        except IntegrityError:
            return Outcome(tr(lang, "already_handled"), ok=True)
        self._notify(ctx)
        return out

    def press_many(self, presses: list[tuple[ChatRef, UserRef, str | None, str | None]]
                   ) -> list[Outcome | BaseException]:
        """Several button presses (chat, user, data, update key) in one transaction, each in
        a savepoint of its own: a refused or failing press changes nothing and the others
        still count; one commit for all (on SQLite most of an input's cost is its commit and
        transaction set-up). Returns each press's outcome, or the exception it raised.
        Listeners hear of the changes after the commit; if the commit fails, it raises and
        none of the presses counted."""
        if len(presses) == 1:
            chat_ref, user, data, key = presses[0]
            try:
                return [self.press(chat_ref, user, data, key)]
            except Exception as exc:
                return [exc]
        results: list[Outcome | BaseException] = []
        with self._write_lock, self.engine.connect() as conn, conn.begin():
            batch = self._local.batch = _Batch(conn)
            try:
                for chat_ref, user, data, key in presses:
                    try:
                        results.append(self.press(chat_ref, user, data, key))
                    except Exception as exc:  # (rolled back to its savepoint)
                        results.append(exc)
            finally:
                self._local.batch = None
        self._tell(list(batch.touched.values()))
        return results

    def reply(self, chat_ref: ChatRef, text: str) -> None:
        """Queue a plain message to a chat (e.g. the answer to a refused command)."""
        with self._tx() as session:
            chat = self._chat(session, chat_ref)
            ctx = _Ctx(session, chat_ref.platform, DEFAULT_LANGUAGE, self.clock())
            self._say(ctx, chat, text)
        self._notify(ctx)

    def forget_private_chat(self, platform: str, chat_external_id: str) -> None:
        """The user blocked us or never started us: stop sending private views there."""
        with self._tx() as session:
            for player in session.exec(select(Player).where(
                    Player.platform == platform,
                    Player.private_chat_id == chat_external_id)).all():
                player.private_chat_id = None
                session.add(player)

    # ------------------------------------------------------------------ commands
    def _cmd_start(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                   args: str) -> Outcome:
        self._say(ctx, chat, tr(ctx.lang, "welcome"))
        if chat.kind == "private":
            # Now we may write to them: send their hand at every group table they sit at
            # (a deep link ``/start t<id>`` comes from one of those tables).
            _write_rows(ctx.session)
            tables = [_adopt(ctx.session, TableRow, r) for r in _conn(ctx.session).execute(
                _GROUP_TABLES_OF, {"player_id": player.id}).mappings()]
            for table in tables:
                self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(None)

    def _cmd_help(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                  args: str) -> Outcome:
        self._say(ctx, chat, tr(ctx.lang, "help"))
        return Outcome(None)

    def _cmd_rules(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                   args: str) -> Outcome:
        game = args.lower() if args.lower() in PRESENTERS else None
        ids = [game] if game else list(PRESENTERS)
        self._say(ctx, chat, "\n\n".join(PRESENTERS[g].rules(ctx.lang) for g in ids))
        return Outcome(None)

    def _cmd_language(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                      args: str) -> Outcome:
        code = args.lower()[:2]
        if code in LANGUAGES:  # (the confirmation is posted once, not also as the reply)
            self._set_language(ctx, chat, user, code)
            return Outcome(None)
        rows = [[("Deutsch", buttons.encode(0, 0, "lang.de")),
                 ("English", buttons.encode(0, 0, "lang.en"))]]
        self._say(ctx, chat, tr(ctx.lang, "language_menu"), rows)
        return Outcome(None)

    def _set_language(self, ctx: _Ctx, chat: ChatRow, user: UserRef, code: str) -> Outcome:
        if chat.kind == "group" and not self._may_manage(user, None, None):
            raise Refusal(tr(ctx.lang, "stop_denied"))
        chat.language = code
        ctx.lang = code
        self._say(ctx, chat, tr(code, "language_set"))
        return Outcome(tr(code, "language_set"))

    def _cmd_new(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                 args: str) -> Outcome:
        words = args.lower().split()
        parts = [w for w in words if "=" not in w]
        if self._open_table(ctx.session, chat) is not None and chat.kind == "group":
            raise Refusal(tr(ctx.lang, "busy_table"), alert=False)
        if parts and parts[0] in PRESENTERS:
            opts = self._option_words(ctx, parts[0], [w for w in words if "=" in w])
            return self._menu_press(ctx, chat, player, user, "g." + ".".join(parts[:3]),
                                    engine_options=opts)
        rows = [[(presenter(g).NAMES.get(ctx.lang, g), buttons.encode(0, 0, f"g.{g}"))]
                for g in PRESENTERS]
        self._say(ctx, chat, tr(ctx.lang, "choose_game"), rows, slot="menu", repost=True)
        return Outcome(None)

    def _cmd_stop(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                  args: str) -> Outcome:
        table_id = self._open_table(ctx.session, chat)
        if table_id is None:
            raise Refusal(tr(ctx.lang, "no_table"), alert=False)
        table = self._lock_table(ctx.session, table_id)
        assert table is not None
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "stop_denied"), alert=False)
        return self._stop_table(ctx, table)

    def _stop_table(self, ctx: _Ctx, table: TableRow) -> Outcome:
        model = self._model(table, self._seats(ctx.session, table))
        fsm.fire(model, "stop")
        table.fsm_state = model.state
        table.next_deadline = table.deadline_kind = None
        table.finished_at = ctx.now
        self._bump(ctx, table)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(tr(ctx.lang, "stopped"), table_id=table.id, changed=True)

    # ------------------------------------------------------------------ menus (no table yet)
    @staticmethod
    def _option_words(ctx: _Ctx, game_id: str, words: list[str]) -> dict[str, Any]:
        """Engine options given as ``key=value`` after ``/new <game>`` (per OPTION_CHOICES)."""
        choices = getattr(presenter(game_id), "OPTION_CHOICES", {})
        out: dict[str, Any] = {}
        for word in words:
            key, _, value = word.partition("=")
            match = [v for v in choices.get(key, []) if str(v).lower() == value]
            if not match:
                raise Refusal(tr(ctx.lang, "unknown_command"), alert=False)
            out[key] = match[0]
        return out

    def _menu_press(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                    code: str, engine_options: dict[str, Any] | None = None) -> Outcome:
        parts = code.split(".")
        if parts[0] == "lang" and len(parts) == 2 and parts[1] in LANGUAGES:
            return self._set_language(ctx, chat, user, parts[1])
        if parts[0] != "g" or len(parts) < 2 or parts[1] not in GAMES:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        game_id = parts[1]
        game = GAMES[game_id]
        name = presenter(game_id).NAMES.get(ctx.lang, game_id)
        if chat.kind == "group":
            if self._open_table(ctx.session, chat) is not None:
                raise Refusal(tr(ctx.lang, "busy_table"))
            return self._open_lobby(ctx, chat, player, game_id, engine_options)
        if len(parts) == 2:  # how many CPU opponents?
            counts = range(max(1, game.MIN_SEATS - 1), game.MAX_SEATS)
            rows = [[(str(n), buttons.encode(0, 0, f"g.{game_id}.{n}")) for n in counts]]
            self._say(ctx, chat, tr(ctx.lang, "choose_opponents", game=name), rows, slot="menu")
            return Outcome(None)
        if not parts[2].isdigit() or not game.MIN_SEATS <= int(parts[2]) + 1 <= game.MAX_SEATS:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        n = int(parts[2])
        if len(parts) == 3:  # which level?
            rows = [[(tr(ctx.lang, f"level_{lv}"), buttons.encode(0, 0, f"g.{game_id}.{n}.{lv}"))
                     for lv in levels_for(game_id)]]
            self._say(ctx, chat, tr(ctx.lang, "choose_level", game=name, n=n), rows, slot="menu")
            return Outcome(None)
        level = parts[3]
        if level not in LEVELS:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        old = self._open_table(ctx.session, chat)
        if old is not None:  # a new private game replaces an unfinished one
            locked = self._lock_table(ctx.session, old)
            if locked is not None and locked.fsm_state in fsm.OPEN:
                self._stop_table(ctx, locked)
        table = self.create_private_table(ctx, chat, player, game_id, n, level,
                                          options={"engine": engine_options}
                                          if engine_options else None)
        return Outcome(None, table_id=table.id, changed=True)

    def create_private_table(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, game_id: str,
                             opponents: int, level: str,
                             options: dict[str, Any] | None = None) -> TableRow:
        """A private table: the player at seat 0 and CPU opponents, started at once."""
        table = self._new_table(ctx, chat, player, game_id, private=True, options=options)
        self._add_seat(ctx, table, 0, player.name or "Du", player_id=player.id)
        for i in range(opponents):
            self._add_seat(ctx, table, i + 1, f"🤖 {CPU_NAMES[i]}", is_cpu=True,
                           cpu_level=level)
        self._start(ctx, table)
        return table

    def _new_table(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, game_id: str, *,
                   private: bool, options: dict[str, Any] | None = None) -> TableRow:
        opts = dict(presenter(game_id).DEFAULT_TABLE_OPTIONS)
        opts.setdefault("engine", {})
        opts.setdefault("fill_cpu", False)
        opts.setdefault("cpu_level", "normal")
        opts.update(options or {})
        return _add(ctx.session, TableRow, {
            "chat_id": chat.id, "game": game_id, "options": opts, "fsm_state": fsm.LOBBY,
            "state_json": None, "seed": random.SystemRandom().randrange(2**52), "version": 0,
            "is_private": private, "opener_id": player.id,
            "turn_timeout": 0 if private else self.settings.group_timeout,
            "next_deadline": None, "deadline_kind": None, "reminded": False, "log": [],
            "created_at": ctx.now, "updated_at": ctx.now, "finished_at": None})

    def _open_lobby(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, game_id: str,
                    engine_options: dict[str, Any] | None = None) -> Outcome:
        table = self._new_table(ctx, chat, player, game_id, private=False,
                                options={"engine": engine_options} if engine_options else None)
        self._add_seat(ctx, table, 0, player.name, player_id=player.id)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(None, table_id=table.id, changed=True)

    # ------------------------------------------------------------------ table presses
    def _table_press(self, ctx: _Ctx, chat: ChatRow, player: PlayerRow, user: UserRef,
                     press: buttons.Press) -> Outcome:
        table = self._lock_table(ctx.session, press.table_id)
        if table is None:
            raise Refusal(tr(ctx.lang, "table_gone"))
        if table.chat_id != chat.id and not self._is_seated(ctx, table, player):
            raise Refusal(tr(ctx.lang, "not_seated"))
        seats = self._seats(ctx.session, table)
        code = press.code
        head = code.split(".")[0]
        if head in _UI_CODES:
            return getattr(self, f"_ui_{head}")(ctx, table, seats, player, user, code)
        if table.fsm_state in (fsm.FINISHED, fsm.ABANDONED):
            raise Refusal(tr(ctx.lang, "table_over"))
        if press.version != table.version:
            raise Refusal(tr(ctx.lang, "stale_button"))
        if code == "next":
            return self._next_round(ctx, table, seats)
        seat = self._seat_of(seats, player)
        if seat is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        model = self._model(table, seats)
        if model.engine_state is None or model.game.to_act(model.engine_state) != seat.seat_no:
            raise Refusal(tr(ctx.lang, "not_your_turn"))
        seat.timeouts = 0
        if head == "ui":  # a selection step that lives on the server (e.g. picking cards)
            return self._ui_step(ctx, table, seats, model, seat, code[3:])
        seat.ui = {}
        self._act(ctx, table, seats, model, seat.seat_no, code, "player")
        return Outcome(None, table_id=table.id, changed=True)

    def _ui_step(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow], model: fsm.TableModel,
                 seat: SeatRow, arg: str) -> Outcome:
        """Let the game's presenter update the seat's selection; it may yield a move."""
        p = presenter(table.game)
        if not hasattr(p, "ui_press"):
            raise Refusal(tr(ctx.lang, "unknown_button"))
        try:
            new_ui, action, answer = p.ui_press(model.engine_state, seat.seat_no,
                                                dict(seat.ui or {}), arg, ctx.lang)
        except ValueError as exc:
            raise Refusal(str(exc)) from None
        if action is not None:
            seat.ui = {}
            self._act(ctx, table, seats, model, seat.seat_no, action, "player")
        else:
            seat.ui = new_ui
            # The same turn goes on: edit the player's message in place (no new message,
            # no notification for every card picked).
            self._emit(ctx, table, seats, model, repost=False)
        return Outcome(answer, table_id=table.id, changed=action is not None)

    def _is_seated(self, ctx: _Ctx, table: TableRow, player: PlayerRow) -> bool:
        return self._seat_of(self._seats(ctx.session, table), player) is not None

    @staticmethod
    def _seat_of(seats: list[SeatRow], player: PlayerRow) -> SeatRow | None:
        return next((s for s in seats if s.player_id == player.id and not s.is_cpu), None)

    def _may_manage(self, user: UserRef, player: PlayerRow | None, table: TableRow | None) -> bool:
        if user.is_admin:
            return True
        if table is None:
            return player is None
        return table.is_private or (player is not None and table.opener_id == player.id)

    def _ui_join(self, ctx, table, seats, player, user, code) -> Outcome:
        if table.fsm_state != fsm.LOBBY:
            raise Refusal(tr(ctx.lang, "table_over" if table.fsm_state in
                             (fsm.FINISHED, fsm.ABANDONED) else "already_joined"))
        if self._seat_of(seats, player) is not None:
            raise Refusal(tr(ctx.lang, "already_joined"))
        if len(seats) >= GAMES[table.game].MAX_SEATS:
            raise Refusal(tr(ctx.lang, "table_full"))
        self._add_seat(ctx, table, len(seats), player.name, player_id=player.id)
        self._bump(ctx, table)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(tr(ctx.lang, "joined"), table_id=table.id, changed=True)

    def _ui_leave(self, ctx, table, seats, player, user, code) -> Outcome:
        seat = self._seat_of(seats, player)
        if seat is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        return self._remove_seat(ctx, table, seats, seat, tr(ctx.lang, "left"))

    def _ui_kick(self, ctx, table, seats, player, user, code) -> Outcome:
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "stop_denied"))
        try:
            seat_no = int(code.split(".")[1])
        except (IndexError, ValueError):
            raise Refusal(tr(ctx.lang, "unknown_button")) from None
        seat = next((s for s in seats if s.seat_no == seat_no and not s.is_cpu), None)
        if seat is None:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        return self._remove_seat(ctx, table, seats, seat, tr(ctx.lang, "kicked", name=seat.name))

    def _remove_seat(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow], seat: SeatRow,
                     answer: str) -> Outcome:
        if table.fsm_state == fsm.LOBBY:
            _remove(ctx.session, seat)
            for i, s in enumerate(s for s in seats if s is not seat):
                s.seat_no = i
            _write_rows(ctx.session)
            if not any(not s.is_cpu for s in seats if s is not seat):
                return self._stop_table(ctx, table)
        elif table.fsm_state in fsm.PLAYING:
            # Leaving a running game: the CPU takes the seat over for the rest of it.
            seat.player_id, seat.is_cpu, seat.away = None, True, False
            seat.cpu_level = "normal"
            seat.name = f"🤖 {seat.name}"
            if all(s.is_cpu for s in seats):
                return self._stop_table(ctx, table)
            self._schedule(ctx, table, seats, self._model(table, seats))
        else:
            raise Refusal(tr(ctx.lang, "table_over"))
        self._bump(ctx, table)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(answer, table_id=table.id, changed=True)

    def _ui_start(self, ctx, table, seats, player, user, code) -> Outcome:
        if table.fsm_state != fsm.LOBBY:
            raise Refusal(tr(ctx.lang, "table_over" if table.fsm_state in
                             (fsm.FINISHED, fsm.ABANDONED) else "already_handled"))
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "start_denied"))
        game = GAMES[table.game]
        if table.options.get("fill_cpu"):
            level = table.options.get("cpu_level", "normal")
            for i in range(len(seats), game.MAX_SEATS):
                self._add_seat(ctx, table, i, f"🤖 {CPU_NAMES[i - len(seats)]}", is_cpu=True,
                               cpu_level=level)
        if not game.MIN_SEATS <= len(self._seats(ctx.session, table)) <= game.MAX_SEATS:
            raise Refusal(tr(ctx.lang, "need_players", min=game.MIN_SEATS, max=game.MAX_SEATS))
        self._start(ctx, table)
        return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)

    def _ui_stop(self, ctx, table, seats, player, user, code) -> Outcome:
        if table.fsm_state not in fsm.OPEN:
            raise Refusal(tr(ctx.lang, "table_over"))
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "stop_denied"))
        return self._stop_table(ctx, table)

    def _lobby_option(self, ctx, table, player, user, change: Callable[[dict], None]) -> Outcome:
        if table.fsm_state != fsm.LOBBY:
            raise Refusal(tr(ctx.lang, "already_handled"))
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "start_denied"))
        opts = dict(table.options)
        change(opts)
        table.options = opts
        self._bump(ctx, table)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(None, table_id=table.id, changed=True)

    def _ui_fill(self, ctx, table, seats, player, user, code) -> Outcome:
        return self._lobby_option(ctx, table, player, user,
                                  lambda o: o.__setitem__("fill_cpu", not o.get("fill_cpu")))

    def _ui_opt(self, ctx, table, seats, player, user, code) -> Outcome:
        """Cycle a game option the presenter offers (``opt.<key>``) while in the lobby."""
        choices = getattr(presenter(table.game), "OPTION_CHOICES", {})
        key = code[4:]
        if key not in choices:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        values = choices[key]

        def cycle(o: dict) -> None:
            eng = dict(o.get("engine") or {})
            now = eng.get(key, values[0])
            eng[key] = values[(values.index(now) + 1) % len(values)] if now in values \
                else values[0]
            o["engine"] = eng
        return self._lobby_option(ctx, table, player, user, cycle)

    def _ui_lvl(self, ctx, table, seats, player, user, code) -> Outcome:
        """Cycle the level of the CPU players that fill empty seats."""
        levels = levels_for(table.game)

        def cycle(o: dict) -> None:
            now = o.get("cpu_level", "normal")
            o["cpu_level"] = levels[(levels.index(now) + 1) % len(levels)] if now in levels \
                else levels[0]
        return self._lobby_option(ctx, table, player, user, cycle)

    def _ui_cur(self, ctx, table, seats, player, user, code) -> Outcome:
        choices = list(getattr(presenter(table.game), "CURRENCIES", {}) or ["coins"])

        def cycle(o: dict) -> None:
            now = o.get("currency", choices[0])
            o["currency"] = choices[(choices.index(now) + 1) % len(choices)] \
                if now in choices else choices[0]
        return self._lobby_option(ctx, table, player, user, cycle)

    def _ui_clock(self, ctx, table, seats, player, user, code) -> Outcome:
        if table.fsm_state != fsm.LOBBY:
            raise Refusal(tr(ctx.lang, "already_handled"))
        if not self._may_manage(user, player, table):
            raise Refusal(tr(ctx.lang, "start_denied"))
        now = table.turn_timeout if table.turn_timeout in TIMEOUT_CHOICES else TIMEOUT_CHOICES[0]
        table.turn_timeout = TIMEOUT_CHOICES[(TIMEOUT_CHOICES.index(now) + 1)
                                             % len(TIMEOUT_CHOICES)]
        self._bump(ctx, table)
        self._emit(ctx, table, self._seats(ctx.session, table))
        return Outcome(None, table_id=table.id, changed=True)

    def _ui_cards(self, ctx, table, seats, player, user, code) -> Outcome:
        """The group fallback: a player's hand as a private alert."""
        seat = self._seat_of(seats, player)
        if seat is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        if table.fsm_state not in fsm.PLAYING:
            raise Refusal(tr(ctx.lang, "table_over"))
        model = self._model(table, seats)
        p = presenter(table.game)
        lines = p.private_lines(model.engine_state, seat.seat_no, ctx.lang)
        if model.game.to_act(model.engine_state) == seat.seat_no:
            lines.append(tr(ctx.lang, "your_turn"))
        return Outcome("\n".join(lines) or tr(ctx.lang, "ok"), alert=True, table_id=table.id)

    def _ui_back(self, ctx, table, seats, player, user, code) -> Outcome:
        seat = self._seat_of(seats, player)
        if seat is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        if not seat.away:
            return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id)
        seat.away, seat.timeouts = False, 0
        self._announce(ctx, table, seats, "back", name=seat.name)
        model = self._model(table, seats)
        self._schedule(ctx, table, seats, model)
        self._bump(ctx, table)
        self._emit(ctx, table, seats, model)
        return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id, changed=True)

    def _ui_again(self, ctx, table, seats, player, user, code) -> Outcome:
        if table.fsm_state not in (fsm.FINISHED, fsm.ABANDONED):
            raise Refusal(tr(ctx.lang, "already_handled"))
        chat = self._get_chat(ctx.session, table.chat_id)
        assert chat is not None
        if self._open_table(ctx.session, chat) is not None:
            raise Refusal(tr(ctx.lang, "busy_table"))
        if table.is_private:
            cpus = [s for s in seats if s.is_cpu]
            level = cpus[0].cpu_level if cpus else "normal"
            new = self.create_private_table(ctx, chat, player, table.game, len(cpus),
                                            level or "normal", options=table.options)
        else:
            new = self._new_table(ctx, chat, player, table.game, private=False,
                                  options=table.options)
            new.turn_timeout = table.turn_timeout
            self._add_seat(ctx, new, 0, player.name, player_id=player.id)
            self._emit(ctx, new, self._seats(ctx.session, new))
        return Outcome(None, table_id=new.id, changed=True)

    # ------------------------------------------------------------------ the game
    def _model(self, table: TableRow, seats: list[SeatRow]) -> fsm.TableModel:
        game = GAMES[table.game]
        engine_state = game.from_json(table.state_json) if table.state_json else None
        return fsm.TableModel(game_id=table.game, state=table.fsm_state, seats=len(seats),
                              options=dict(table.options.get("engine") or {}), seed=table.seed,
                              engine_state=engine_state)

    def _store(self, table: TableRow, model: fsm.TableModel) -> None:
        table.fsm_state = model.state
        if model.engine_state is not None:
            table.state_json = model.game.to_json(model.engine_state)

    def _bump(self, ctx: _Ctx, table: TableRow) -> None:
        table.version += 1
        table.updated_at = ctx.now
        ctx.touch(table)

    def _log_events(self, table: TableRow, events: list[Any]) -> None:
        entries = [e.to_dict() for e in events
                   if e.kind not in ("showdown", "payout", "game_over", "game_start", "deal")]
        if entries:
            table.log = (list(table.log or []) + entries)[-LOG_LENGTH:]

    def _start(self, ctx: _Ctx, table: TableRow) -> None:
        seats = self._seats(ctx.session, table)
        model = self._model(table, seats)
        fsm.fire(model, "start")
        events = fsm.settle(model)
        self._after_change(ctx, table, seats, model, events, dealt=True)

    def _act(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow], model: fsm.TableModel,
             seat_no: int, code: str, actor: str, trigger: str = "act") -> None:
        try:
            events = fsm.fire(model, trigger, action=code)
        except fsm.TransitionRefused as exc:
            raise Refusal(tr(ctx.lang, "illegal", reason=engine_reason(ctx.lang, str(exc)))) from None
        events += fsm.settle(model)
        self._log_move(ctx, table, seat_no, actor, model.game.parse_action(code).code)
        self._after_change(ctx, table, seats, model, events)

    def _log_move(self, ctx: _Ctx, table: TableRow, seat_no: int | None, actor: str,
                  code: str) -> None:
        _queue(ctx.session, _MOVE_TABLE, {"table_id": table.id, "seq": table.version + 1,
                                          "seat_no": seat_no, "actor": actor, "code": code,
                                          "at": ctx.now})

    def _next_round(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow]) -> Outcome:
        model = self._model(table, seats)
        try:
            fsm.fire(model, "next_round")
        except fsm.TransitionRefused:
            raise Refusal(tr(ctx.lang, "already_handled")) from None
        events = fsm.settle(model)
        self._log_move(ctx, table, None, "system", "deal")
        table.log = []
        self._after_change(ctx, table, seats, model, events, dealt=True)
        return Outcome(None, table_id=table.id, changed=True)

    def _after_change(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
                      model: fsm.TableModel, events: list[Any], dealt: bool = False) -> None:
        """Store the model, write results, schedule the next deadline, emit views (or play
        on a CPU move that is due at once, which stores and emits the newer state)."""
        table.fsm_state = model.state
        self._log_events(table, events)
        round_ended = model.state in (fsm.PAYOUT, fsm.FINISHED) and (
            dealt or any(e.kind == "showdown" for e in events))
        if round_ended:
            self._announce_result(ctx, table, seats, model)
        if model.state == fsm.FINISHED:
            self._finish(ctx, table, seats, model)
        self._schedule(ctx, table, seats, model)
        self._bump(ctx, table)
        if self._chain_cpu(ctx, table, seats, model):
            return
        self._store(table, model)
        self._emit(ctx, table, seats, model)

    def _chain_cpu(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
                   model: fsm.TableModel) -> bool:
        """Play a CPU move that is due right away (no thinking delay set) in this same
        transaction, if the table's CPUs decide quickly: one commit and one view for the whole
        run of moves instead of one each. The move is the one the deadline would have played
        (same seed and version). ``False``: nothing played, the caller stores and emits."""
        if (table.deadline_kind != "cpu" or table.next_deadline is None
                or table.next_deadline > ctx.now or ctx.chained >= _CHAIN_LIMIT
                or self._thinks_long(table, seats)):
            return False
        try:
            code = self._decide(table, seats, model)
        except Exception:  # the deadline path tries again and logs it with the table
            log.exception("table %s: CPU decision failed", table.id)
            return False
        ctx.chained += 1
        try:
            self._cpu_turn(ctx, table, seats, timed_out=False, planned=code, model=model)
        except Refusal as exc:  # refused before anything changed: leave it to the deadline
            log.warning("table %s: CPU move %s refused: %s", table.id, code, exc.text)
            return False
        return True

    def _finish(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
                model: fsm.TableModel) -> None:
        p = presenter(table.game)
        names = [s.name for s in seats]
        table.finished_at = ctx.now
        _queue(ctx.session, _RESULT_TABLE, {
            "table_id": table.id, "game": table.game, "winners": p.winners(model.engine_state),
            "standings": p.standings(model.engine_state, names),
            "rounds": getattr(model.engine_state, "round_no", 0), "finished_at": ctx.now})

    def _schedule(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
                  model: fsm.TableModel) -> None:
        """Set the table's next deadline from its state (all time lives in the database)."""
        table.next_deadline, table.deadline_kind, table.reminded = None, None, False
        ctx.touch(table)
        if model.state in (fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND):
            seat_no = model.game.to_act(model.engine_state)
            seat = next((s for s in seats if s.seat_no == seat_no), None)
            if seat is None:
                return
            if seat.is_cpu or seat.away:
                table.deadline_kind = "cpu"
                table.next_deadline = ctx.now + timedelta(seconds=self.settings.cpu_delay)
            elif table.turn_timeout > 0:
                table.deadline_kind = "remind"
                table.next_deadline = ctx.now + timedelta(seconds=table.turn_timeout / 2)
        elif model.state == fsm.PAYOUT and (not table.is_private or self._all_cpu(seats)
                                            or self._humans_out(seats, model)):
            table.deadline_kind = "next"
            table.next_deadline = ctx.now + timedelta(seconds=self.settings.next_round_delay)

    @staticmethod
    def _humans_out(seats: list[SeatRow], model: fsm.TableModel) -> bool:
        """Every person at the table is out of the game: the CPUs play on by themselves."""
        out = getattr(model.engine_state, "out", None)
        if out is None:
            return False
        return all(out[s.seat_no] for s in seats if not s.is_cpu and s.seat_no < len(out))

    @staticmethod
    def _all_cpu(seats: list[SeatRow]) -> bool:
        return all(s.is_cpu or s.away for s in seats)

    # ------------------------------------------------------------------ deadlines
    def due(self, now: datetime | None = None, limit: int = 100) -> list[tuple[int, int]]:
        """Tables whose deadline has passed: (table id, version) to claim with ``fire_due``."""
        now = now or self.clock()
        with self._read() as session:
            rows = session.exec(select(GameTable.id, GameTable.version).where(
                col(GameTable.next_deadline).is_not(None), GameTable.next_deadline <= now)
                .order_by(col(GameTable.next_deadline)).limit(limit)).all()
        return [(r[0], r[1]) for r in rows]

    def next_deadlines(self, limit: int = 1000) -> list[tuple[int, int, datetime]]:
        """Upcoming deadlines (table id, version, when), soonest first: for arming jobs."""
        with self._read() as session:
            rows = session.exec(select(GameTable.id, GameTable.version, GameTable.next_deadline)
                                .where(col(GameTable.next_deadline).is_not(None))
                                .order_by(col(GameTable.next_deadline)).limit(limit)).all()
        return [(r[0], r[1], r[2]) for r in rows]

    def fire_due(self, table_id: int, version: int, *, may_think: bool = True) -> bool | None:
        """Claim and run a table's deadline. Runs once: a stale or early claim does nothing.

        A CPU level that thinks against a clock (Experte) decides before the claim, outside any
        transaction (it may think for a second; no table or database lock is held meanwhile);
        the claim then checks that the table is still at the version the move was decided for.
        The quick levels decide inside the claim, which saves reading the table twice.
        ``may_think=False``: where such thinking must not run (an event loop), return ``None``
        instead, having changed nothing; the caller fires again where it may.
        """
        planned: str | None = None
        plan_first = True
        while True:
            try:
                with self._tx() as session:
                    table = self._lock_table(session, table_id)
                    now = self.clock()
                    if (table is None or table.version != version or table.next_deadline is None
                            or table.next_deadline > now):
                        return False
                    seats = self._seats(session, table)
                    kind = table.deadline_kind
                    if kind in ("cpu", "timeout") and plan_first and \
                            self._thinks_long(table, seats):
                        raise _PlanFirst
                    chat = self._get_chat(session, table.chat_id)
                    ctx = _Ctx(session, chat.platform if chat else "?",
                               self._lang(chat, None), now)
                    if kind == "remind":
                        self._remind(ctx, table, seats)
                    elif kind in ("cpu", "timeout"):
                        self._cpu_turn(ctx, table, seats, timed_out=kind == "timeout",
                                       planned=planned)
                    elif kind == "next":
                        self._next_round(ctx, table, seats)
                    else:
                        table.next_deadline = None
            except _PlanFirst:
                if not may_think:
                    return None
                plan_first = False
                try:
                    planned = self._plan_cpu(table_id, version)
                except Exception:
                    log.exception("table %s: CPU decision failed", table_id)
                continue
            except Refusal as exc:
                log.warning("table %s: deadline refused: %s", table_id, exc.text)
                return False
            except Exception:
                log.exception("table %s: deadline failed", table_id)
                return False
            self._notify(ctx)
            return True

    @staticmethod
    def _level(seat: SeatRow) -> str:
        """The level a CPU plays a seat at: its own, or Normal for a person (RULES.md §1)."""
        return (seat.cpu_level or "normal") if seat.is_cpu else "normal"

    def _thinks_long(self, table: TableRow, seats: list[SeatRow]) -> bool:
        """Whether a CPU decision at this table may take long (a level with a time budget)."""
        return any(_slow_level(table.game, self._level(s)) for s in seats)

    def _remind(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow]) -> None:
        model = self._model(table, seats)
        seat_no = model.game.to_act(model.engine_state)
        seat = next(s for s in seats if s.seat_no == seat_no)
        player = self._get_player(ctx.session, seat.player_id)
        remaining = table.turn_timeout - table.turn_timeout // 2
        mention = self._mention(ctx.platform, player, seat)
        self._announce(ctx, table, seats, "reminder", mention=mention, seconds=remaining)
        table.reminded = True
        table.deadline_kind = "timeout"
        table.next_deadline = ctx.now + timedelta(seconds=remaining)
        ctx.touch(table)

    @staticmethod
    def _mention(platform: str, player: PlayerRow | None, seat: SeatRow) -> str:
        if player is None:
            return seat.name
        if player.username:
            return "@" + player.username
        if platform == "telegram":
            return f"[{seat.name}](tg://user?id={player.external_id})"
        return seat.name

    def _plan_cpu(self, table_id: int, version: int) -> str | None:
        """Decide a due CPU move without locking anything (``None`` if none is due)."""
        with self._read() as session:
            table = _load(session, TableRow, _TABLE_BY_ID, {"id": table_id})
            if (table is None or table.version != version or table.next_deadline is None
                    or table.deadline_kind not in ("cpu", "timeout")):
                return None
            seats = self._seats(session, table)
            return self._decide(table, seats, self._model(table, seats))

    def decision_load(self) -> float:
        """The load factor of a CPU decision: the decisions under way at once in this process
        (threads share one interpreter), or the machine's load if that is higher."""
        return max(float(self._thinking), system_load())

    def _decide(self, table: TableRow, seats: list[SeatRow], model: fsm.TableModel) -> str:
        """The move a CPU makes for the seat on turn: its own level, or Normal for a person
        whose clock ran out or who is away (RULES.md §1; the nearest weaker level a game has).
        Seeded by the table and version, so a replay decides the same."""
        seat_no = model.game.to_act(model.engine_state)
        seat = next(s for s in seats if s.seat_no == seat_no)
        level = self._level(seat)
        rng = random.Random(f"{table.seed}:{table.version}")
        with self._thinking_lock:
            self._thinking += 1
        try:
            return fsm.cpu_action(model, level, rng, budget=self.settings.experte_budget,
                                  load=self.decision_load)
        finally:
            with self._thinking_lock:
                self._thinking -= 1

    def _cpu_turn(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow], timed_out: bool,
                  planned: str | None = None, model: fsm.TableModel | None = None) -> None:
        model = model or self._model(table, seats)
        seat_no = model.game.to_act(model.engine_state)
        seat = next(s for s in seats if s.seat_no == seat_no)
        code = planned if planned is not None else self._decide(table, seats, model)
        if seat.ui:
            seat.ui = {}  # a half-made selection does not survive a CPU stand-in move
        actor = "cpu" if seat.is_cpu else ("timeout" if timed_out else "away")
        if timed_out and not seat.is_cpu:
            seat.timeouts += 1
            self._announce(ctx, table, seats, "timed_out", name=seat.name)
            if seat.timeouts >= 2 and not seat.away:
                seat.away = True
                self._announce(ctx, table, seats, "now_away", name=seat.name)
        self._act(ctx, table, seats, model, seat.seat_no, code, actor, trigger="timeout"
                  if not seat.is_cpu else "act")

    # ------------------------------------------------------------------ views
    def _say(self, ctx: _Ctx, chat: ChatRow, text: str,
             rows: list[list[tuple[str, str]]] | None = None, slot: str | None = None,
             repost: bool = False) -> None:
        _queue_outbox(ctx, chat.platform, chat.external_id, None, slot, repost, text,
                      [[list(b) for b in row] for row in rows or []])

    def _announce(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow], key: str,
                  **values: Any) -> None:
        """A one-off message in the table's chat (and nowhere hidden cards could show)."""
        chat = self._get_chat(ctx.session, table.chat_id)
        if chat is not None:
            lang = self._lang(chat, None)
            self._say(ctx, chat, tr(lang, key, **values))

    def _announce_result(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
                         model: fsm.TableModel) -> None:
        chat = self._get_chat(ctx.session, table.chat_id)
        if chat is None:
            return
        lang = self._lang(chat, None)
        lines = presenter(table.game).result_lines(model.engine_state, [s.name for s in seats],
                                                   lang, table.options)
        if lines:
            self._say(ctx, chat, "\n".join(lines))

    def _emit(self, ctx: _Ctx, table: TableRow, seats: list[SeatRow],
              model: fsm.TableModel | None = None, repost: bool = True) -> None:
        """Queue the table's current views: the table message and each player's private view
        (``repost=False``: private views are edited in place even on the player's turn)."""
        from .views import render_private, render_table
        chat = self._get_chat(ctx.session, table.chat_id)
        if chat is None:
            return
        model = model or self._model(table, seats)
        lang = self._lang(chat, None)
        if table.is_private:
            seat = seats[0] if seats else None
            view = render_private(table, seats, model, seat, lang, single=True)
            self._say(ctx, chat, view.text, view.rows, slot=f"t{table.id}",
                      repost=view.repost)
            return
        players = {s.player_id: p for s in seats if s.player_id
                   and (p := self._get_player(ctx.session, s.player_id)) is not None}
        view = render_table(table, seats, model, lang, players, self.settings.start_link)
        self._say(ctx, chat, view.text, view.rows, slot=f"t{table.id}")
        if table.fsm_state == fsm.LOBBY:
            return
        for seat in seats:
            player = players.get(seat.player_id) if seat.player_id else None
            if player is None or seat.is_cpu or not player.private_chat_id:
                continue
            plang = pick_language(None, player.language, self.settings.default_language)
            pview = render_private(table, seats, model, seat, plang, single=False)
            _queue_outbox(ctx, chat.platform, player.private_chat_id, table.id,
                          f"h{table.id}", pview.repost and repost, pview.text,
                          [[list(b) for b in row] for row in pview.rows])

    # ------------------------------------------------------------------ queries
    def unfinished_tables(self, platform: str, chat_external_id: str,
                          game_id: str | None = None) -> list[GameTable]:
        with self._read() as session:
            chat = session.exec(select(Chat).where(Chat.platform == platform,
                                                   Chat.external_id == chat_external_id)).first()
            if chat is None:
                return []
            q = select(GameTable).where(GameTable.chat_id == chat.id,
                                        col(GameTable.fsm_state).in_(fsm.PLAYING))
            if game_id:
                q = q.where(GameTable.game == game_id)
            return list(session.exec(q.order_by(col(GameTable.id).desc())).all())

    def table(self, table_id: int) -> GameTable | None:
        with self._read() as session:
            return session.get(GameTable, table_id)

    def moves(self, table_id: int) -> list[Move]:
        with self._read() as session:
            return list(session.exec(select(Move).where(Move.table_id == table_id)
                                     .order_by(col(Move.seq))).all())

    def replay(self, table_id: int) -> Any:
        """Rebuild a table's engine state from its seed and move log (for audits and tests)."""
        table = self.table(table_id)
        if table is None or table.state_json is None:
            return None
        with self._read() as session:
            n = len(self._seats(session, table))
        game = GAMES[table.game]
        state = game.new_game(n, table.options.get("engine") or {}, table.seed)
        for move in self.moves(table_id):
            state, _ = game.apply(state, move.code)
        return state

    def resend(self, table_id: int) -> None:
        """Queue the table's views again (e.g. when a console resumes a table)."""
        with self._tx() as session:
            table = _load(session, TableRow, _TABLE_BY_ID, {"id": table_id})
            if table is None:
                return
            chat = self._get_chat(session, table.chat_id)
            ctx = _Ctx(session, chat.platform if chat else "?", self._lang(chat, None),
                       self.clock())
            self._emit(ctx, table, self._seats(session, table))
        self._notify(ctx)
