"""Plumbing for the Telegram end-to-end tests.

The bot runs as a separate process (``stammtisch telegram``) against the in-process fake Bot API
(``tests.fakes.telegram_api.FakeBotApi``). These helpers start and stop it, read its database
with plain SQL (SQLite file or PostgreSQL), read keyboards, and play games by pressing buttons
the way a person would: only what a message currently shows, one press at a time.

This module gathers the helpers under one name; they live in ``bot_process`` (the bot process,
its environment, the constants), ``bot_db`` (the database), ``keyboards`` (messages, buttons,
presses) and ``playing`` (games played the way a person would).
"""

from __future__ import annotations

from tests.telegram.bot_db import (
    Db,
    as_utc,
    replay,
)
from tests.telegram.bot_process import (
    _CARD_RE,
    MOVE_HEADS,
    ROOT,
    STAMMTISCH,
    TOKEN,
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    bot_env,
    card_symbols,
)
from tests.telegram.keyboards import (
    _MENTION,
    ALWAYS_OFFERED,
    _light,
    actionable,
    answer_text,
    bot_texts,
    buttons,
    codes,
    made_at,
    move_datas,
    parse_data,
    peek,
    peek_all,
    pick_move,
    press_and_settle,
    private_moves,
    private_turn,
    snapshot,
    table_of,
    version_datas,
    versions,
)
from tests.telegram.playing import (
    GroupGame,
    greet,
    play_private,
    private_menu_to_table,
)

__all__ = [
    "ALWAYS_OFFERED",
    "BotProcess",
    "Db",
    "GroupGame",
    "MOVE_HEADS",
    "ROOT",
    "STAMMTISCH",
    "TOKEN",
    "TRACEBACK_MARKERS",
    "WAIT",
    "_CARD_RE",
    "_MENTION",
    "_light",
    "actionable",
    "answer_text",
    "as_utc",
    "bot_env",
    "bot_texts",
    "buttons",
    "card_symbols",
    "codes",
    "greet",
    "made_at",
    "move_datas",
    "parse_data",
    "peek",
    "peek_all",
    "pick_move",
    "play_private",
    "press_and_settle",
    "private_menu_to_table",
    "private_moves",
    "private_turn",
    "replay",
    "snapshot",
    "table_of",
    "version_datas",
    "versions",
]
