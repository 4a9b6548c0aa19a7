"""The bot's database as the Matrix end-to-end tests read it: the Telegram tests' plain-SQL
reader (``tests.telegram.bot_db``) with the Matrix bot's outbox rows, and its helpers.
"""

from __future__ import annotations

from typing import Any

from tests.telegram import bot_db
from tests.telegram.bot_db import as_utc, loads, replay

__all__ = ["Db", "as_utc", "loads", "replay"]


class Db(bot_db.Db):
    """Read-only plain-SQL access to the bot's database; its outbox is the Matrix bot's."""

    def tables(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM game_table ORDER BY id")

    def outbox(self, room: str | None = None) -> list[dict[str, Any]]:  # type: ignore[override]
        if room is None:
            return self.rows("SELECT * FROM outbox WHERE platform = 'matrix' ORDER BY id")
        return self.rows("SELECT * FROM outbox WHERE platform = 'matrix' AND "
                         "chat_external_id = :c ORDER BY id", c=room)
