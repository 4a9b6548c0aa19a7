"""A group that took a new id (a Telegram group upgraded to a supergroup; the groups room's
hook ``chat.moved``): the announcements of its evening running and of those already announced
are posted anew there (and pinned, where the bot may) — the old messages stay in the old chat's
history, and the bot cannot edit them any more."""

from __future__ import annotations

from sqlmodel import col, select

from storage.models import Chat, Evening

from ..core.transaction import Ctx
from . import steps


def repost(ctx: Ctx, chat: Chat) -> None:
    """The group's live announcements, posted anew (one not announced yet waits its turn)."""
    for evening in ctx.session.exec(select(Evening).where(
            Evening.chat_id == chat.id, col(Evening.state).in_(("planned", "running")))
            .order_by(col(Evening.id))).all():
        if evening.state == "planned" and evening.due_kind == "announce":
            continue
        steps.show(ctx, chat, evening, fresh=True)
