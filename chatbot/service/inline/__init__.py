"""Play anywhere, a room of its own: a table in an inline message.

Typing the bot's name in any chat offers the games (``offers``); the invitation chosen is
posted "via" the bot into that chat, which the bot need not be in. Its table is made when
the message is first known (``invitation``) and is played in that one message, edited in
place: the chat is of the kind ``inline`` (``core.outgoing.ONE_MESSAGE``), which takes no
messages of its own. What a person must see alone comes to them as inline results only
they see — their hand and their moves (``hands``) — as an alert ("my cards"), in the Mini
App, and, where they have one, in their private chat with the bot. ``InlineService``
(``service``) answers the adapters. On Matrix, ``!duell @person`` opens a room of its own for
one game (``duel``).
"""

from __future__ import annotations

from ..core.events import GameFinished, TableClosed
from ..core.registry import Button, Command, Feature
from . import duel, invitation, texts  # noqa: F401  (texts: registers the room's texts)
from .duel import DuelPlan
from .offers import HEAD, InlineAnswer, InlineResult
from .service import InlineService, help_lines, inline_chat, table_rows

INLINE = Feature(
    "inline",
    commands=(Command("duel", duel.command, "command.duel", names={"de": "duell"}),),
    buttons=(Button(HEAD, invitation.press, on_table=False),),
    subscriptions=((GameFinished, duel.game_finished), (TableClosed, duel.table_closed)),
    hooks=(("table.rows", table_rows), ("help.lines", help_lines)),
)

__all__ = ["DuelPlan", "INLINE", "InlineAnswer", "InlineResult", "InlineService",
           "inline_chat"]
