"""Plumbing for the Matrix end-to-end tests: the bot process, people as matrix-nio clients,
the bot's database, and reading views the way a person does (the numbered choices under the
newest version of a message).

This module gathers the helpers under one name; they live in ``bot_process`` (the bot process,
its environment, waiting, the constants), ``bot_db`` (the database), ``people`` (matrix-nio
clients, messages, groups) and ``playing`` (moves, snapshots, the leak check).
"""

from __future__ import annotations

from tests.matrix.bot_db import (
    Db,
    as_utc,
    loads,
    replay,
)
from tests.matrix.bot_process import (
    _CARD_RE,
    _CHOICE,
    ROOT,
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    T,
    bot_env,
    card_symbols,
    wait_for,
)
from tests.matrix.people import (
    Msg,
    Person,
    gather,
    open_group,
    start_group_game,
)
from tests.matrix.playing import (
    MOVE_LABELS,
    leak_check,
    move_choices,
    pick_move,
    snapshot,
    to_my_turn,
)

__all__ = [
    "BotProcess",
    "Db",
    "MOVE_LABELS",
    "Msg",
    "Person",
    "ROOT",
    "T",
    "TRACEBACK_MARKERS",
    "WAIT",
    "_CARD_RE",
    "_CHOICE",
    "as_utc",
    "bot_env",
    "card_symbols",
    "gather",
    "leak_check",
    "loads",
    "move_choices",
    "open_group",
    "pick_move",
    "replay",
    "snapshot",
    "to_my_turn",
    "start_group_game",
    "wait_for",
]
