"""Which view a typed move (``!klopfen``, ``!schieben``, ``!weiter`` …) presses (a mixin of
``MatrixBot``): never silently another table's.

* A reply to one of the bot's views in a direct room: that view (offering the move or not).
* In a group room: the room's newest view in the input's thread; else the person's views in
  their direct room of the table that plays in that room and thread, and no other.
* Otherwise, in the direct room: the person's views there that offer the move, one per table.
  One: that one. Several: the table where it is the person's turn, if it is theirs at exactly
  one; else nothing is pressed and the bot asks which, naming the tables.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..i18n import N_, register, tr
from ..service import ChatRef, UserRef
from .memory import PLATFORM
from .render import code_of

register({
    "mx.which_table": N_("That fits more than one table – reply to the view of the one you "
                         "mean:\n{tables}"),
})


def replied_to(content: dict[str, Any]) -> str | None:
    """The message a message answers (``m.in_reply_to``); a thread message's fallback
    (``is_falling_back``), which names the thread's newest event, answers none."""
    relates = content.get("m.relates_to") or {}
    if relates.get("is_falling_back"):
        return None
    event = (relates.get("m.in_reply_to") or {}).get("event_id")
    return event if isinstance(event, str) and event else None


class MovesMixin:
    """Typed moves → the button they press."""

    async def _find_button(self, chat_ref: ChatRef, user: UserRef, code: str,
                           replied: str | None = None) -> tuple[str | None, list[int]]:
        """The button with this code that a typed move presses (see the module), and the
        tables it would fit when it fits several and none stands out (then ``None``)."""
        room_id, private = chat_ref.external_id, chat_ref.kind == "private"
        memory = self.memory  # type: ignore[attr-defined]
        if private and replied and await asyncio.to_thread(memory.is_ours, room_id, replied):
            rows = await asyncio.to_thread(memory.message_buttons, room_id, replied) or []
            return next((d for _label, d in rows if code_of(d) == code), None), []
        dm = room_id
        if not private:
            rows = await asyncio.to_thread(memory.newest_buttons, room_id, chat_ref.thread)
            data = next((d for _label, d in rows or [] if code_of(d) == code), None)
            if data is not None:
                return data, []
            dm = await asyncio.to_thread(self.service.private_chat_of,  # type: ignore[attr-defined]
                                         PLATFORM, user.external_id)
            if not dm:
                return None, []
            if self.sender is not None:  # type: ignore[attr-defined]
                await self.sender.settled(dm)  # type: ignore[attr-defined]
        fits: dict[int, tuple[str, Any]] = {}  # table (0: no table) → (button, its table)
        for view in await asyncio.to_thread(memory.live_views, dm):  # (the lowest first)
            data = next((d for _label, d in view.buttons if code_of(d) == code), None)
            table = view.table_id or 0
            if data is None or table in fits:
                continue
            info = await asyncio.to_thread(self.service.table_info,  # type: ignore[attr-defined]
                                           table) if table else None
            if not private and (info is None or info.chat != room_id
                                or info.thread != chat_ref.thread):
                continue  # (typed in a group: only that room's and thread's table)
            fits[table] = (data, info)
        if len(fits) <= 1:
            return next((data for data, _info in fits.values()), None), []
        mine = [data for data, info in fits.values()
                if info is not None and info.on_turn == user.external_id]
        if len(mine) == 1:
            return mine[0], []
        return None, [table for table in fits if table]

    async def _which_table(self, tables: list[int], lang: str) -> str:
        """The question which table a move was meant for, naming each table."""
        lines = []
        for table_id in tables:
            info = await asyncio.to_thread(self.service.table_info,  # type: ignore[attr-defined]
                                           table_id)
            if info is not None:
                game = tr(lang, f"game.{info.game}")
                lines.append(f"• {game} · {info.group}" if info.group else f"• {game}")
        return tr(lang, "mx.which_table", tables="\n".join(lines))
