"""Inline results as Telegram shows them (``article``: an inline query's answer, or an
invitation the Mini App shares) and the Mini App's prepared invitations (``preparer``:
``savePreparedInlineMessage``, Bot API 8.0, for the page's ``Telegram.WebApp.shareMessage``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Bot, InlineQueryResultArticle, InputTextMessageContent, LinkPreviewOptions

from ..service import InlineResult
from .markup import keyboard, mentions

_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def article(result: InlineResult) -> InlineQueryResultArticle:
    """A result as Telegram shows it: a title, a line, and the message it posts."""
    text, entities = mentions(result.text)
    return InlineQueryResultArticle(
        result.id, result.title[:256], InputTextMessageContent(
            text, entities=entities, link_preview_options=_NO_PREVIEW),
        reply_markup=keyboard([[list(b) for b in row] for row in result.rows]),
        description=result.description[:512] or None)


def preparer(bot: Bot) -> Callable[[int, InlineResult], Awaitable[str]]:
    """The Mini App's way to an invitation the person shares (``webapp.invite``): saved as a
    prepared inline message for them, postable into private chats and groups (not into
    channels, nor to other bots); its id."""
    async def prepare(user_id: int, result: InlineResult) -> str:
        prepared = await bot.save_prepared_inline_message(
            user_id, article(result), allow_user_chats=True, allow_bot_chats=False,
            allow_group_chats=True, allow_channel_chats=False)
        return str(prepared.id)
    return prepare
