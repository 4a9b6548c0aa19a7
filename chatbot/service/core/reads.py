"""What the service answers without changing anything, for the adapters and the Mini App:
tables and chats, a table as one person sees it, its snapshot for the live pages, its move
log (``Queries`` does the reading; ``Reads`` is mixed into ``Service``). The rooms add their
own (a replay: ``solo.service``)."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from storage.models import Chat, GameTable, Move

from . import languages
from .api import Settings
from .queries import Queries, TableInfo, TableSight, TableSnapshot
from .transaction import Transactions


class Reads:
    """The ``Service``'s reads (it sets ``tx``, ``settings`` and ``queries``)."""

    tx: Transactions
    settings: Settings
    queries: Queries

    def unfinished_tables(self, platform: str, chat_external_id: str,
                          game_id: str | None = None) -> list[GameTable]:
        return self.queries.unfinished_tables(platform, chat_external_id, game_id)

    def table(self, table_id: int) -> GameTable | None:
        return self.queries.table(table_id)

    def chat_info(self, platform: str, external_id: str) -> tuple[str, str | None] | None:
        """(kind, language) of a chat the service knows, ``None`` for one it does not."""
        return self.queries.chat(platform, external_id)

    def chat_language(self, platform: str, external_id: str) -> str:
        """The language of a chat's messages: its choice; in a private chat its person's
        (``languages.language_of``); else the default (also for a chat it does not know)."""
        with self.tx.read() as session:
            chat = session.exec(select(Chat).where(Chat.platform == platform,
                                                   Chat.external_id == external_id)).first()
            return languages.language_of(chat, self.settings, session)

    def private_chat_of(self, platform: str, user_id: str) -> str | None:
        """The private chat a person's private views go to."""
        return self.queries.private_chat(platform, user_id)

    def table_info(self, table_id: int) -> TableInfo | None:
        """A table's game and state, its group's name, and who is on turn."""
        return self.queries.info(table_id)

    def running_group_table(self, platform: str, user_id: str) -> tuple[int, str] | None:
        """A group game the person sits at that is not over: (table id, chat)."""
        return self.queries.running_group_table(platform, user_id)

    def cpu_chat(self, platform: str, table_id: int, version: int) -> str | None:
        """The chat of a table whose due deadline at ``version`` is a CPU move."""
        return self.queries.cpu_chat(platform, table_id, version)

    def table_sight(self, platform: str, user_id: str, user_lang: str | None,
                    table_id: int | str | None = None) -> TableSight | None:
        """A table as one person sees it: ``table_id`` its id (for seated people), its token
        (also for a private table's owner and the people seen in a group table's group) or
        ``None`` (their newest open one). Raises ``NotYourTable`` for anybody else."""
        return self.queries.sight(platform, user_id, user_lang, table_id,
                                  self.settings.default_language)

    def table_snapshot(self, table_id: int) -> TableSnapshot | None:
        """A table read once for all its live pages (``TableSnapshot.sight`` per person)."""
        return self.queries.snapshot(table_id)

    def moves(self, table_id: int) -> list[Move]:
        return self.queries.moves(table_id)

    def replay(self, table_id: int) -> Any:
        """Rebuild a table's engine state from its seed and move log (for audits and tests)."""
        return self.queries.replay(table_id)
