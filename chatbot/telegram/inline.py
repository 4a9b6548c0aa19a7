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
* The results as Telegram shows them, and the Mini App's prepared invitations:
  ``inline_results``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import InlineQueryResultsButton, Update, User, WebAppInfo
from telegram.ext import ChosenInlineResultHandler, ContextTypes, InlineQueryHandler

from ..i18n import tr
from ..service import ChatRef, InlineAnswer, Service, Settings, inline_chat
from .inline_results import article
from .polling import ConfirmingBot
from .updates import PLATFORM, refs

log = logging.getLogger(__name__)
Db = Callable[..., Awaitable[Any]]


def chat_of_press(inline_message_id: str | None) -> ChatRef | None:
    """The chat a press on an inline message comes from (``None``: not one)."""
    return inline_chat(PLATFORM, inline_message_id) if inline_message_id else None


def check_inline(supports: bool | None, username: str, lang: str) -> str | None:
    """What to tell the operator at start when inline mode is off (``None``: it is on)."""
    if supports:
        return None
    return f"@{username}: " + tr(lang, "il.off")


def note_me(settings: Settings, me: User) -> None:
    """What ``getMe`` says the bot may do, noted at start: its name, inline mode (logged, and
    how to turn it on when it is off: ``/help`` says so too) and topics in private chats
    (Bot API 9.4: BotFather's threaded mode)."""
    settings.bot_name = me.username
    settings.inline_mode = bool(me.supports_inline_queries)
    settings.private_topics = bool(me.has_topics_enabled)
    off = check_inline(me.supports_inline_queries, me.username, settings.default_language)
    if off is not None:  # invitations "via" the bot need it (docs/inline.md)
        log.warning("%s", off)
    else:
        log.info("inline mode is on: @%s <game> invites in any chat", me.username)
    log.info("topics in private chats: %s", "on (a topic per long table)"
             if settings.private_topics else "off (BotFather: threaded mode)")


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
