"""Reading tables outside an input: unfinished tables of a chat, a table, its move log, and a
replay of the log (for audits, the console and tests)."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

import fsm
from engine import GAMES
from storage.models import Chat, GameTable, Move, Seat

from .transaction import Transactions


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

    def table(self, table_id: int) -> GameTable | None:
        with self.tx.read() as session:
            return session.get(GameTable, table_id)

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
