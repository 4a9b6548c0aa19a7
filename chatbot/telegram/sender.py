"""Delivering the outbox to Telegram: rate limits, retries, edit in place.

Telegram allows about 1 message/s per chat, 20/min per group and 30/s overall. The sender
keeps to those (configurable for tests), keeps each chat's messages in order, retries on
``RetryAfter`` and network errors, and treats "message is not modified" as success.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    MessageEntity,
)
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from ..outbox import (
    Item,
    MessageGone,
    OutboxStore,
    Permanent,
    Retry,
    deliver_async,
    record_all,
)

log = logging.getLogger(__name__)
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass
class Limits:
    per_chat_interval: float = 1.0  # seconds between two messages to one chat
    group_per_minute: int = 20
    global_per_second: int = 30


class RateLimiter:
    """Decides whether a message to a chat may go now (no sleeping: callers defer)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits, self.clock = limits, clock
        self.last: dict[str, float] = {}
        self.group_window: dict[str, deque[float]] = defaultdict(deque)
        self.global_window: deque[float] = deque()

    def wait_time(self, chat: str) -> float:
        now = self.clock()
        waits = [0.0]
        if chat in self.last:
            waits.append(self.last[chat] + self.limits.per_chat_interval - now)
        if chat.startswith("-"):
            window = self.group_window[chat]
            while window and window[0] <= now - 60:
                window.popleft()
            if len(window) >= self.limits.group_per_minute:
                waits.append(window[0] + 60 - now)
        while self.global_window and self.global_window[0] <= now - 1:
            self.global_window.popleft()
        if len(self.global_window) >= self.limits.global_per_second:
            waits.append(self.global_window[0] + 1 - now)
        return max(waits)

    def took(self, chat: str, ago: float = 0.0) -> None:
        """A message went to a chat (``ago`` seconds before now)."""
        when = self.clock() - ago
        self.last[chat] = max(self.last.get(chat, when), when)
        if chat.startswith("-"):
            self.group_window[chat].append(when)
        self.global_window.append(when)

    def remember(self, sent: list[tuple[str, float]]) -> None:
        """Messages sent before this process started (chat, seconds ago), oldest first: the
        limits hold across a restart."""
        for chat, ago in sorted(sent, key=lambda s: -s[1]):
            if 0 <= ago < 60:
                self.took(chat, ago)


def keyboard(rows: list[list[list[str]]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data)
                                  for label, data in row] for row in rows])


_MENTION = re.compile(r"\[([^\[\]]+)\]\((tg://user\?id=\d+)\)")


def _u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def mentions(text: str) -> tuple[str, list[MessageEntity] | None]:
    """The service writes mentions as ``[name](tg://user?id=N)``; messages go out as plain
    text, so turn each into the bare name with a link entity (else the brackets would show)."""
    out: list[str] = []
    entities: list[MessageEntity] = []
    pos = offset = 0
    for m in _MENTION.finditer(text):
        out.append(text[pos:m.start()])
        offset += _u16(text[pos:m.start()])
        entities.append(MessageEntity(MessageEntity.TEXT_LINK, offset, _u16(m.group(1)),
                                      url=m.group(2)))
        out.append(m.group(1))
        offset += _u16(m.group(1))
        pos = m.end()
    if not entities:
        return text, None
    out.append(text[pos:])
    return "".join(out), entities


class TelegramTransport:
    """The Bot API calls behind an outbox item, with Telegram's errors mapped."""

    def __init__(self, bot: Bot, on_forbidden: Callable[[str], None] | None = None) -> None:
        self.bot = bot
        self.on_forbidden = on_forbidden

    async def _call(self, chat: str, coro_factory):  # type: ignore[no-untyped-def]
        try:
            return await coro_factory()
        except RetryAfter as exc:
            after = exc.retry_after
            seconds = after.total_seconds() if hasattr(after, "total_seconds") else float(after)
            raise Retry(seconds, f"rate limited for {seconds}s") from exc
        except Forbidden as exc:
            if self.on_forbidden is not None:
                self.on_forbidden(chat)
            raise Permanent(str(exc)) from exc
        except BadRequest as exc:
            text = str(exc).lower()
            if "message is not modified" in text:
                return None
            if "message to edit not found" in text or "message can't be edited" in text:
                raise MessageGone(str(exc)) from exc
            raise Permanent(str(exc)) from exc
        except NetworkError as exc:  # includes TimedOut and 5xx answers
            raise Retry(2.0, f"network: {exc}") from exc
        except TelegramError as exc:
            raise Retry(5.0, f"telegram: {exc}") from exc

    async def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str:
        text, entities = mentions(text)
        msg = await self._call(chat, lambda: self.bot.send_message(
            int(chat), text, entities=entities, reply_markup=keyboard(rows),
            link_preview_options=_NO_PREVIEW))
        return str(msg.message_id)

    async def edit(self, chat: str, message_id: str, text: str,
                   rows: list[list[list[str]]]) -> None:
        text, entities = mentions(text)
        await self._call(chat, lambda: self.bot.edit_message_text(
            text, chat_id=int(chat), message_id=int(message_id), entities=entities,
            reply_markup=keyboard(rows), link_preview_options=_NO_PREVIEW))

    async def delete(self, chat: str, message_id: str) -> None:
        await self._call(chat, lambda: self.bot.delete_message(int(chat), int(message_id)))


class OutboxSender:
    """An asyncio task that delivers the outbox whenever woken, and at least every second.

    Woken, it waits ``gather`` seconds more so that the views of inputs arriving together
    go out in one pass: each pass reads the outbox and records its outcomes in a transaction
    of its own, and under load one pass per input cost more than the sending itself."""

    def __init__(self, store: OutboxStore, transport: TelegramTransport,
                 limits: Limits | None = None,
                 run: Callable[..., Any] | None = None, gather: float = 0.005) -> None:
        self.store, self.transport = store, transport
        self.gather = gather
        self.run = run or asyncio.to_thread  # how database calls leave the event loop
        self.limiter = RateLimiter(limits or Limits())
        self.wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="outbox-sender")

    async def stop(self) -> None:
        self._stopping = True
        self.wake.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()

    async def _run(self) -> None:
        try:  # what went out during the last minute (before a restart) still counts
            now = self.store.clock()
            sent = await self.run(self.store.sent_since, now - timedelta(seconds=60))
            self.limiter.remember([(chat, (now - at).total_seconds()) for chat, at in sent])
        except Exception:
            log.exception("could not read the recent sends")
        while not self._stopping:
            try:
                delay = await self.pass_once()
            except Exception:
                log.exception("outbox pass failed")
                delay = 1.0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=max(0.01, min(delay, 1.0)))
            if self.wake.is_set() and self.gather > 0 and not self._stopping:
                await asyncio.sleep(self.gather)
            self.wake.clear()

    async def pass_once(self) -> float:
        """Deliver what may go now; returns how long until something else may go.

        Chats are served concurrently (each chat's items in order); the outcomes of the pass
        are recorded together in one transaction."""
        items: list[Item] = await self.run(self.store.pending)
        by_chat: dict[str, list[Item]] = {}
        for item in items:
            by_chat.setdefault(item.chat, []).append(item)
        waits: list[float] = []
        outcomes: list[tuple[Item, str | None, Exception | None]] = []

        async def serve(chat_items: list[Item]) -> None:
            for item in chat_items:
                wait = self.limiter.wait_time(item.chat)
                if wait > 0:
                    waits.append(wait)
                    return  # keep the chat's order: its later items wait too
                if item.slot is not None and item.message_id is not None and item.unchanged:
                    outcomes.append((item, item.message_id, None))
                    continue
                self.limiter.took(item.chat)
                message_id, error = await deliver_async(item, self.transport)
                outcomes.append((item, message_id, error))
                if isinstance(error, Retry):
                    waits.append(error.after)
                    log.info("outbox %s to %s: %s", item.id, item.chat, error)
                    return

        results = await asyncio.gather(*(serve(v) for v in by_chat.values()),
                                       return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                log.error("outbox delivery failed", exc_info=result)
        if outcomes:
            await self.run(record_all, self.store, outcomes)
        return min([1.0, *waits])
