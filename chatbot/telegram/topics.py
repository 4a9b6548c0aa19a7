"""Forum topics as Telegram tells of them: the service messages it posts in a topic when a
person creates, renames, closes or reopens it (``forum_topic_created``, ``…_edited``,
``…_closed``, ``…_reopened``; the bot's own changes post none it receives).

- Closed: the topic's open tables end at once (``Service.thread_gone``, its players told
  privately); nothing more is sent there — the closing no longer waits for the next send
  into the topic to be refused.
- Reopened: the topic takes messages again (the sender forgets that it refused one); a table
  that ended with the closing stays ended, ``/new`` there opens a new one.
- Created or renamed: the topic's name is kept for its open tables (``Service.thread_named``),
  so the private reminders name it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.ext import BaseHandler, ContextTypes, MessageHandler, filters

from ..service import ChatRef, Service
from .sender import TelegramTransport
from .updates import PLATFORM, topic_name, topic_of

Run = Callable[..., Awaitable[Any]]


class ForumTopics:
    """The handlers of a forum topic's service messages."""

    def __init__(self, service: Service, transport: TelegramTransport, run: Run) -> None:
        self.service, self.transport = service, transport
        self.run = run  # where inputs' database work runs (``TelegramBot._db``)

    def handlers(self) -> list[BaseHandler]:
        status = filters.StatusUpdate
        return [MessageHandler(status.FORUM_TOPIC_CLOSED, self.on_closed),
                MessageHandler(status.FORUM_TOPIC_REOPENED, self.on_reopened),
                MessageHandler(status.FORUM_TOPIC_CREATED | status.FORUM_TOPIC_EDITED,
                               self.on_named)]

    @staticmethod
    def _topic(update: Update) -> tuple[str, str] | None:
        """(chat, topic) of a service message in a forum's topic."""
        chat, message = update.effective_chat, update.effective_message
        thread = topic_of(bool(chat and chat.is_forum), message)
        return (str(chat.id), thread) if chat is not None and thread is not None else None

    async def on_closed(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        where = self._topic(update)
        if where is not None:
            await self.run(self.service.thread_gone, PLATFORM, *where, closed=True)

    async def on_reopened(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        where = self._topic(update)
        if where is not None:
            self.transport.topic_open(*where)

    async def on_named(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        where, chat = self._topic(update), update.effective_chat
        name = topic_name(update.effective_message)
        if where is None or chat is None or not name:
            return
        ref = ChatRef(PLATFORM, where[0], "group", chat.title, thread=where[1],
                      thread_name=name)
        await self.run(self.service.thread_named, ref, str(update.update_id))
