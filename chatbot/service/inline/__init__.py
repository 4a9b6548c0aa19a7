"""Play anywhere, a room of its own: a table in an inline message.

Typing the bot's name in any chat offers the games (``offers``); the invitation chosen is
posted "via" the bot into that chat, which the bot need not be in. Its table is made when
the message is first known (``invitation``) and is played in that one message, edited in
place: the chat is of the kind ``inline`` (``core.outgoing.ONE_MESSAGE``), which takes no
messages of its own. What a person must see alone comes to them as inline results only
they see — their hand and their moves (``hands``) — as an alert ("my cards"), in the Mini
App, and, where they have one, in their private chat with the bot. ``InlineService``
(``service``) answers the adapters.
"""

from __future__ import annotations

from ..core.registry import Button, Feature
from . import invitation, texts  # noqa: F401  (texts: registers the room's texts)
from .offers import HEAD, InlineAnswer, InlineResult
from .service import InlineService, help_lines, inline_chat, table_rows

INLINE = Feature(
    "inline",
    buttons=(Button(HEAD, invitation.press, on_table=False),),
    hooks=(("table.rows", table_rows), ("help.lines", help_lines)),
)

__all__ = ["INLINE", "InlineAnswer", "InlineResult", "InlineService", "inline_chat"]
