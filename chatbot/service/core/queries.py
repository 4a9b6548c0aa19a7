"""Reading tables outside an input: unfinished tables of a chat, a table, its move log, a
replay of the log (for audits, the console and tests), a table as one person sees it (the
Mini App's read, with who may see it) and as every one of its live pages sees it after a
change (one read for all), and what an adapter asks of chats, people and tables (a chat's kind and
language, a person's private chat, who is on turn, a person's running group table, the chat of
a due CPU move)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

import fsm
from engine import GAMES
from storage.models import Chat, GameTable, Move, Player, Seat

from ...i18n import pick_language
from . import records
from .transaction import Transactions

_ENDED = (fsm.FINISHED, fsm.ABANDONED)


class NotYourTable(Exception):
    """The person may not look at this table: not seated, not the owner of a private table,
    never seen in the group of a group table (the Mini App answers 403)."""


@dataclass(frozen=True)
class TableInfo:
    """A table's game and state, its group's name, and who is on turn."""

    game: str
    fsm_state: str
    group: str | None  # where a group table plays (``records.place_name``), else None
    on_turn: str | None  # the platform's id of the person on turn, if a person is
    chat: str | None = None  # the chat it plays in (the platform's id)
    thread: str | None = None  # … and the topic or thread there, if any


@dataclass
class TableSight:
    """A table as one person sees it, read in one transaction: its seats, the person's seat
    (``None`` for somebody not seated), their language, the group's name, and the table
    "play again" opened after this one."""

    table: GameTable
    seats: list[Seat]
    seat: Seat | None
    lang: str
    where: str | None
    next_table: int | None = None
    viewer: int | None = None  # the person's player id (None: the bot has never met them)

    @property
    def model(self) -> fsm.TableModel:
        """The table machine over the stored state."""
        return records.model(self.table, self.seats)

    @property
    def state(self) -> Any:
        return GAMES[self.table.game].from_json(self.table.state_json) \
            if self.table.state_json else None


@dataclass
class TableSnapshot:
    """A table read once for all its live pages: what ``TableSight`` holds but the person."""

    table: GameTable
    seats: list[Seat]
    where: str | None
    following: dict[int, int]  # an ended table: the rematch each seated person sits at

    def sight(self, viewer: int | None, lang: str) -> TableSight:
        """The table as the person ``viewer`` (a player id) sees it in ``lang``."""
        seat = next((s for s in self.seats if viewer is not None
                     and s.player_id == viewer and not s.is_cpu), None)
        return TableSight(self.table, self.seats, seat, lang, self.where,
                          self.following.get(viewer) if viewer is not None else None, viewer)


def _may_see(session: Session, table: GameTable, player: Player | None,
             seat: Seat | None, by_token: bool) -> bool:
    """Seated people see the table; by its token also a private table's owner and, for a
    group's table, the people the bot has seen in that group."""
    if seat is not None:
        return True
    if not by_token or player is None or player.id is None:
        return False
    if table.is_private:
        return table.opener_id == player.id
    chat = records.get_chat(session, table.chat_id)
    return chat is not None and chat.kind == "group" \
        and records.is_member(session, table.chat_id, player.id)


def _person(session: Session, platform: str, user_id: str) -> Player | None:
    return session.exec(select(Player).where(Player.platform == platform,
                                             Player.external_id == user_id)).first()


def _newest_table(session: Session, player: Player | None) -> int | None:
    """The person's newest open table."""
    if player is None:
        return None
    return session.exec(
        select(GameTable.id).join(Seat, col(Seat.table_id) == GameTable.id)
        .where(Seat.player_id == player.id, col(GameTable.fsm_state).not_in(_ENDED))
        .order_by(col(GameTable.id).desc())).first()


class Queries:
    """Read-only views of the stored tables."""

    def __init__(self, tx: Transactions) -> None:
        self.tx = tx

    def unfinished_tables(self, platform: str, chat_external_id: str,
                          game_id: str | None = None) -> list[GameTable]:
        with self.tx.read() as session:
            chat = session.exec(select(Chat).where(Chat.platform == platform,
                                                   Chat.external_id == chat_external_id)).first()
            if chat is None:
                return []
            q = select(GameTable).where(GameTable.chat_id == chat.id,
                                        col(GameTable.fsm_state).in_(fsm.PLAYING))
            if game_id:
                q = q.where(GameTable.game == game_id)
            return list(session.exec(q.order_by(col(GameTable.id).desc())).all())

    def sight(self, platform: str, user_id: str, user_lang: str | None,
              table_key: int | str | None, default_language: str) -> TableSight | None:
        """The table asked for — by its id (seated people only) or its token — else the
        person's newest open one, as they see it; ``NotYourTable`` if they may not see it.
        Their language is their private chat's choice, else what the platform says of them now
        (``user_lang``), else the one kept for them."""
        with self.tx.read() as session:
            player = _person(session, platform, user_id)
            if table_key is None:
                table_key = _newest_table(session, player)
            if isinstance(table_key, str):
                table = session.exec(select(GameTable).where(
                    GameTable.token == table_key)).first()
            else:
                table = records.get_table(session, table_key)
            if table is None:
                return None
            seats = records.seats(session, table)
            seat = records.seat_of(seats, player) if player is not None else None
            if not _may_see(session, table, player, seat, isinstance(table_key, str)):
                raise NotYourTable(table.id)
            chosen = records.chat_language(session, platform, player.private_chat_id) \
                if player is not None and player.private_chat_id else None
            lang = pick_language(chosen, user_lang or (player.language if player else None),
                                 default_language)
            chat = records.get_chat(session, table.chat_id)
            where = records.place_name(chat, table)
            following = None
            if player is not None and table.fsm_state in _ENDED:
                following = session.exec(  # a rematch in the same chat the person sits at
                    select(GameTable.id).join(Seat, col(Seat.table_id) == GameTable.id)
                    .where(Seat.player_id == player.id, GameTable.chat_id == table.chat_id,
                           col(GameTable.id) > table.id,
                           col(GameTable.fsm_state).not_in(_ENDED))
                    .order_by(col(GameTable.id).desc())).first()
            return TableSight(table, seats, seat, lang, where or None, following,
                              player.id if player is not None else None)

    def snapshot(self, table_id: int) -> TableSnapshot | None:
        """The table for every live page at once (each page then takes its person's seat)."""
        with self.tx.read() as session:
            table = records.get_table(session, table_id)
            if table is None:
                return None
            seats = records.seats(session, table)
            chat = records.get_chat(session, table.chat_id)
            where = records.place_name(chat, table)
            following: dict[int, int] = {}
            people = [s.player_id for s in seats if s.player_id is not None]
            if table.fsm_state in _ENDED and people:
                rows = session.exec(  # the newest rematch in the same chat, by person
                    select(Seat.player_id, func.max(GameTable.id))
                    .join(GameTable, col(Seat.table_id) == GameTable.id)
                    .where(col(Seat.player_id).in_(people),
                           GameTable.chat_id == table.chat_id, col(GameTable.id) > table.id,
                           col(GameTable.fsm_state).not_in(_ENDED))
                    .group_by(col(Seat.player_id))).all()
                following = {int(p): int(t) for p, t in rows if p is not None}
            return TableSnapshot(table, seats, where or None, following)

    def table(self, table_id: int) -> GameTable | None:
        with self.tx.read() as session:
            return session.get(GameTable, table_id)

    def chat(self, platform: str, external_id: str) -> tuple[str, str | None] | None:
        """(kind, language) of a chat the service knows."""
        with self.tx.read() as session:
            row = session.exec(select(Chat.kind, Chat.language).where(
                Chat.platform == platform, Chat.external_id == external_id)).first()
            return (row[0], row[1]) if row else None

    def private_chat(self, platform: str, user_id: str) -> str | None:
        """The private chat the service sends a person's private views to."""
        with self.tx.read() as session:
            return session.exec(select(Player.private_chat_id).where(
                Player.platform == platform, Player.external_id == user_id)).first()

    def info(self, table_id: int) -> TableInfo | None:
        """A table's game and state, its group's name, and who is on turn."""
        with self.tx.read() as session:
            table = session.get(GameTable, table_id)
            if table is None:
                return None
            chat = records.get_chat(session, table.chat_id)
            on_turn = None
            game = GAMES.get(table.game)
            if game is not None and table.state_json:
                seat_no = game.to_act(game.from_json(table.state_json))
                seat = next((s for s in records.seats(session, table) if s.seat_no == seat_no),
                            None) if seat_no is not None else None
                person = records.get_player(session, seat.player_id) \
                    if seat is not None and not seat.is_cpu else None
                on_turn = person.external_id if person is not None else None
            group = (records.place_name(chat, table) or "") if chat is not None \
                and chat.kind == "group" else None
            return TableInfo(table.game, table.fsm_state, group, on_turn,
                             chat.external_id if chat is not None else None, table.thread_id)

    def running_group_table(self, platform: str, user_id: str) -> tuple[int, str] | None:
        """A group game the person is seated at and that is not over: (table id, chat)."""
        with self.tx.read() as session:
            row = session.exec(
                select(GameTable.id, Chat.external_id)
                .join(Seat, col(Seat.table_id) == GameTable.id)
                .join(Player, col(Player.id) == Seat.player_id)
                .join(Chat, col(Chat.id) == GameTable.chat_id)
                .where(Player.platform == platform, Player.external_id == user_id,
                       col(GameTable.is_private).is_(False), Chat.kind == "group",
                       col(GameTable.fsm_state).in_(fsm.PLAYING))
                .order_by(col(GameTable.id).desc())).first()
            return (int(row[0]), str(row[1])) if row else None

    def cpu_chat(self, platform: str, table_id: int, version: int) -> str | None:
        """The chat of a table whose due deadline (at this version) is a CPU move or a move
        played for a person who ran out of time; ``None`` for any other deadline."""
        with self.tx.read() as session:
            return session.exec(select(Chat.external_id).join(
                GameTable, col(GameTable.chat_id) == col(Chat.id)).where(
                GameTable.id == table_id, GameTable.version == version,
                col(GameTable.deadline_kind).in_(("cpu", "timeout")),
                Chat.platform == platform)).first()

    def moves(self, table_id: int) -> list[Move]:
        with self.tx.read() as session:
            return list(session.exec(select(Move).where(Move.table_id == table_id)
                                     .order_by(col(Move.seq))).all())

    def replay(self, table_id: int) -> Any:
        """Rebuild a table's engine state from its seed and move log."""
        table = self.table(table_id)
        if table is None or table.state_json is None:
            return None
        with self.tx.read() as session:
            n = len(session.exec(select(Seat.id).where(Seat.table_id == table_id)).all())
        game = GAMES[table.game]
        state = game.new_game(n, table.options.get("engine") or {}, table.seed)
        for move in self.moves(table_id):
            state, _ = game.apply(state, move.code)
        return state
