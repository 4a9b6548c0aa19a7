"""Who administers a Telegram group, as the Bot API says (``getChatMember``), remembered for a
short while: a command or a button that asks for the rights (``Service.asks_admin``,
``Service.press_policy``) is judged on every use, but a burst of presses by one administrator
costs one call, not one each. The memory is ``cachetools.TTLCache`` keyed by chat and person,
its time the service's clock (the tests move it): an administrator who lost the rights is
refused at the latest ``ADMIN_SECONDS`` after the last answer, and one made administrator is
let in as late. A failed call is not remembered (the person counts as no administrator)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from cachetools import TTLCache
from telegram import Bot
from telegram.constants import ChatMemberStatus

log = logging.getLogger(__name__)
ADMIN_SECONDS = 30.0  # how long an answer is trusted
ADMIN_ENTRIES = 10_000  # chats × people remembered at most (the oldest go first)
ADMIN_STATUSES = (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


class ChatAdmins:
    """``getChatMember`` answers, trusted for ``seconds`` by ``timer`` (epoch seconds)."""

    def __init__(self, bot: Bot, timer: Callable[[], float], seconds: float = ADMIN_SECONDS,
                 entries: int = ADMIN_ENTRIES) -> None:
        self.bot = bot
        self._known: TTLCache[tuple[int, int], bool] = TTLCache(entries, seconds, timer=timer)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether the person administers the chat (owner or administrator)."""
        key = (chat_id, user_id)
        known = self._known.get(key)
        if known is not None:
            return known
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except Exception as exc:  # (not remembered: asked again next time)
            log.info("chat %s: is %s an administrator? %s", chat_id, user_id, exc)
            return False
        admin = member.status in ADMIN_STATUSES
        self._known[key] = admin
        return admin
