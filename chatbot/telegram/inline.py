"""Inline mode (``@bot`` typed in any chat): the adapter's side.

* An inline query is answered by the service (``Service.inline_query``): the games to invite
  to, or, for ``#<table>``, the person's hand and moves at that table (personal, cached a
  couple of seconds, 50 a page with ``next_offset``; above them a button to the table in the
  Mini App where it is set up). Telegram wants the answer within about ten seconds.
* A chosen inline result (sent only with inline feedback on: BotFather's
  ``/setinlinefeedback``) goes to ``Service.inline_chosen``: an invitation makes its
  message's table, a move is played like a press.
* Presses of a button on an inline message arrive as callback queries with an
  ``inline_message_id`` and no chat: ``TelegramBot.on_press`` hands them over with the chat
  ``inline:<id>`` (``chat_of_press``).
* ``check_inline`` says at start whether inline mode is on (``getMe``'s
  ``supports_inline_queries``) and how to turn it on when it is not.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import (
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    LinkPreviewOptions,
    Update,
    WebAppInfo,
)
from telegram.ext import ChosenInlineResultHandler, ContextTypes, InlineQueryHandler

from ..i18n import tr
from ..service import ChatRef, InlineAnswer, InlineResult, Service, inline_chat
from .polling import ConfirmingBot
from .sender import keyboard, mentions
from .updates import PLATFORM, refs

log = logging.getLogger(__name__)
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
Db = Callable[..., Awaitable[Any]]


def chat_of_press(inline_message_id: str | None) -> ChatRef | None:
    """The chat a press on an inline message comes from (``None``: not one)."""
    return inline_chat(PLATFORM, inline_message_id) if inline_message_id else None


def article(result: InlineResult) -> InlineQueryResultArticle:
    """A result as Telegram shows it: a title, a line, and the message it posts."""
    text, entities = mentions(result.text)
    return InlineQueryResultArticle(
        result.id, result.title[:256], InputTextMessageContent(
            text, entities=entities, link_preview_options=_NO_PREVIEW),
        reply_markup=keyboard([[list(b) for b in row] for row in result.rows]),
        description=result.description[:512] or None)


def check_inline(supports: bool | None, username: str, lang: str) -> str | None:
    """What to tell the operator at start when inline mode is off (``None``: it is on)."""
    if supports:
        return None
    return f"@{username}: " + tr(lang, "il.off")


class InlineMode:
    """The handlers of inline queries and chosen inline results."""

    def __init__(self, service: Service, db: Db,
                 app_page: Callable[[str], str] | None = None) -> None:
        self.service, self._db = service, db
        self.app_page = app_page  # a table's Mini App page by its token (WEBAPP_URL)

    def handlers(self) -> list[Any]:
        return [InlineQueryHandler(self.on_query), ChosenInlineResultHandler(self.on_chosen)]

    async def on_query(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.inline_query
        if query is None:
            return
        user = query.from_user
        _, person = refs(user.id, None, None, user.id, user.first_name, user.last_name,
                         user.username, user.language_code)
        answer: InlineAnswer = await self._db(self.service.inline_query, PLATFORM, person,
                                              query.query or "", query.offset or "")
        button = None
        if answer.app_page and self.app_page is not None:
            button = InlineQueryResultsButton(
                tr(person.language or self.service.settings.default_language, "wa.open"),
                web_app=WebAppInfo(self.app_page(answer.app_page)))
        try:
            await query.answer([article(r) for r in answer.results],
                               cache_time=answer.cache_time, is_personal=answer.personal,
                               next_offset=answer.next_offset or None, button=button)
        except Exception as exc:  # too late (Telegram's ten seconds), or refused
            log.info("inline query %s: could not answer: %s", query.id, exc)

    async def on_chosen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chosen = update.chosen_inline_result
        if chosen is None:
            return
        user = chosen.from_user
        _, person = refs(user.id, None, None, user.id, user.first_name, user.last_name,
                         user.username, user.language_code)
        try:
            outcome = await self._db(self.service.inline_chosen, PLATFORM, person,
                                     chosen.result_id, chosen.inline_message_id,
                                     str(update.update_id))
            if outcome.text and not outcome.ok:
                log.info("chosen inline result %s: %s", chosen.result_id, outcome.text)
        finally:
            bot = context.bot
            if isinstance(bot, ConfirmingBot):
                bot.handled(update.update_id)
