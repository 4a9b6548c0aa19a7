"""Delivering the outbox to Telegram: rate limits, retries, edit in place.

Telegram allows about 1 message/s per chat, 20/min per group and 30/s overall (``Limits``,
configurable for tests). The sender keeps to those across all processes sharing the database
(``chatbot.delivery.claim``, given the ``Limits``), keeps each chat's messages in order, retries
on ``RetryAfter`` and network errors, and treats "message is not modified" as success.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, InputFile, LinkPreviewOptions
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from ..delivery import (
    CHATS_PER_PASS,
    CannotPin,
    Claim,
    ClaimingOutbox,
    Delivered,
    Item,
    MessageGone,
    OutboxStore,
    Permanent,
    Retry,
    SlotMessages,
    Worker,
    deliver_async,
)
from ..runtime import metrics
from .limits import INLINE, Limits
from .markup import keyboard, mentions

__all__ = ["OutboxSender", "TelegramTransport", "keyboard", "mentions"]

log = logging.getLogger(__name__)
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# the forum topic of the item being delivered (per asyncio task: each chat is served by one)
_THREAD: contextvars.ContextVar[str | None] = contextvars.ContextVar("tg_thread", default=None)
# what Telegram answers a message into a forum topic that is closed or deleted
_TOPIC_GONE = ("message thread not found", "topic_closed", "topic_deleted")
TOPIC_GONE_FOR = 60.0  # seconds a refusing topic is not tried again
MAX_DOCUMENT = 50 * 1024 * 1024  # Telegram takes files of up to 50 MB from a bot
TOPIC_NAME = 128  # characters of a forum topic's name


class TelegramTransport:
    """The Bot API calls behind an outbox item, with Telegram's errors mapped."""

    def __init__(self, bot: Bot, on_forbidden: Callable[[str], None] | None = None,
                 on_thread_gone: Callable[[str, str], Awaitable[None]] | None = None,
                 on_chat_moved: Callable[[str, str], Awaitable[None]] | None = None) -> None:
        self.bot = bot
        self.on_forbidden = on_forbidden
        self.on_thread_gone = on_thread_gone  # a forum topic refused a message: (chat, topic)
        self.on_chat_moved = on_chat_moved  # a group became a supergroup: (old id, new id)
        self._may_pin: dict[str, bool] = {}  # per chat, once asked
        # (chat, topic) → when it refused a message (monotonic): for a while nothing more is
        # tried there (a topic opened again takes messages again once that is past)
        self._gone: dict[tuple[str, str], float] = {}

    def begin(self, item: Item) -> None:
        """The forum topic of the item about to be delivered (``message_thread_id``)."""
        _THREAD.set(item.thread)

    async def _call(self, chat: str, coro_factory):  # type: ignore[no-untyped-def]
        try:
            return await coro_factory()
        except RetryAfter as exc:
            after = exc.retry_after
            seconds = after.total_seconds() if hasattr(after, "total_seconds") else float(after)
            raise Retry(seconds, f"rate limited for {seconds}s") from exc
        except ChatMigrated as exc:  # a group upgraded: what was for it goes to the new id
            await self._chat_moved(chat, str(exc.new_chat_id))
            raise Retry(0.0, f"chat moved to {exc.new_chat_id}") from exc
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
            thread = _THREAD.get()
            if thread is not None and any(s in text for s in _TOPIC_GONE):
                await self._topic_gone(chat, thread)  # (its table ends)
            raise Permanent(str(exc)) from exc
        except NetworkError as exc:  # includes TimedOut and 5xx answers
            raise Retry(2.0, f"network: {exc}") from exc
        except TelegramError as exc:
            raise Retry(5.0, f"telegram: {exc}") from exc

    async def send(self, chat: str, text: str, rows: list[list[list[str]]]) -> str:
        if chat.startswith(INLINE):  # a chat that is one message: its view is an edit of it
            await self.edit(chat, chat.removeprefix(INLINE), text, rows)
            return chat.removeprefix(INLINE)
        text, entities = mentions(text)
        thread = _THREAD.get()
        if thread is not None and self._refused(chat, thread):
            raise Permanent(f"topic {thread} is closed or deleted")
        msg = await self._call(chat, lambda: self.bot.send_message(
            int(chat), text, entities=entities, reply_markup=keyboard(rows),
            link_preview_options=_NO_PREVIEW,
            message_thread_id=int(thread) if thread is not None else None))
        return str(msg.message_id)

    async def _chat_moved(self, old: str, new: str) -> None:
        """Telegram refused a call naming a group's old id: the group's rows and what is
        still to go there move to the new id (the refused item goes there on its retry)."""
        log.info("chat %s became %s", old, new)
        if self.on_chat_moved is not None:
            try:
                await self.on_chat_moved(old, new)
            except Exception:  # (the next refused call tries again)
                log.exception("chat %s: moving it to %s failed", old, new)

    async def document(self, chat: str, name: str, data: bytes) -> str:
        """A file (an outbox ``document`` row): ``sendDocument`` with the bytes uploaded."""
        if len(data) > MAX_DOCUMENT:  # (Telegram answers 413, which reads like a network error)
            raise Permanent(f"file of {len(data)} bytes: over Telegram's 50 MB")
        thread = _THREAD.get()
        if thread is not None and self._refused(chat, thread):
            raise Permanent(f"topic {thread} is closed or deleted")
        msg = await self._call(chat, lambda: self.bot.send_document(
            int(chat), InputFile(data, filename=name),
            message_thread_id=int(thread) if thread is not None else None))
        return str(msg.message_id)

    async def thread(self, chat: str, name: str) -> str:
        """A new forum topic (an outbox ``thread`` row): ``createForumTopic``; its id. Also a
        topic in a person's private chat (Bot API 9.4, where the bot's threaded mode is on).
        A chat that is no forum, or where the bot may not manage topics, refuses it
        (``Permanent``: the caller falls back)."""
        topic = await self._call(chat, lambda: self.bot.create_forum_topic(
            int(chat), name[:TOPIC_NAME]))
        return str(topic.message_thread_id)

    async def name_thread(self, chat: str, thread: str, name: str) -> None:
        """A topic renamed (an outbox ``thread_name`` row): ``editForumTopic``."""
        await self._call(chat, lambda: self.bot.edit_forum_topic(
            int(chat), int(thread), name=name[:TOPIC_NAME]))

    def _refused(self, chat: str, thread: str) -> bool:
        when = self._gone.get((chat, thread))
        return when is not None and time.monotonic() - when < TOPIC_GONE_FOR

    def topic_open(self, chat: str, thread: str) -> None:
        """A forum topic was reopened: it takes messages again."""
        self._gone.pop((chat, thread), None)

    async def _topic_gone(self, chat: str, thread: str) -> None:
        """A forum topic refused a message: remembered for a while (nothing more is tried
        there) and told once (its table ends)."""
        if self._refused(chat, thread):
            return
        self._gone[(chat, thread)] = time.monotonic()
        log.info("chat %s: topic %s is closed or deleted", chat, thread)
        if self.on_thread_gone is not None:
            try:
                await self.on_thread_gone(chat, thread)
            except Exception:  # (the table ends when the next message meets the topic)
                self._gone.pop((chat, thread), None)
                log.exception("chat %s: ending the tables of topic %s failed", chat, thread)

    async def edit(self, chat: str, message_id: str, text: str,
                   rows: list[list[list[str]]]) -> None:
        text, entities = mentions(text)
        if chat.startswith(INLINE):  # an inline message, posted via the bot (by its id)
            try:
                await self._call(chat, lambda: self.bot.edit_message_text(
                    text, inline_message_id=chat.removeprefix(INLINE), entities=entities,
                    reply_markup=keyboard(rows), link_preview_options=_NO_PREVIEW))
            except MessageGone as exc:  # (it cannot be posted anew: nothing else to do)
                raise Permanent(str(exc)) from exc
            return
        await self._call(chat, lambda: self.bot.edit_message_text(
            text, chat_id=int(chat), message_id=int(message_id), entities=entities,
            reply_markup=keyboard(rows), link_preview_options=_NO_PREVIEW))

    async def delete(self, chat: str, message_id: str) -> None:
        if chat.startswith(INLINE):
            raise Permanent("an inline message cannot be deleted by the bot")
        await self._call(chat, lambda: self.bot.delete_message(int(chat), int(message_id)))

    async def may_pin(self, chat: str) -> bool:
        """Whether the bot may pin in a chat: asked once per chat (``getChatMember``) and
        remembered, like a refused pin (a bot made admin later pins after a restart)."""
        known = self._may_pin.get(chat)
        if known is None:
            try:
                member = await self._call(chat, lambda: self.bot.get_chat_member(
                    int(chat), self.bot.id))
            except Retry:
                raise
            except Exception as exc:  # an answer the library cannot read: no pins here
                log.info("chat %s: may the bot pin? %s", chat, exc)
                member = None
            status = getattr(member, "status", "")
            known = status == "creator" or (status == "administrator" and bool(
                getattr(member, "can_pin_messages", False)))
            self._may_pin[chat] = known
        return known

    async def pin(self, chat: str, message_id: str) -> None:
        """Pin a message quietly, if the bot may (else ``CannotPin``)."""
        if not await self.may_pin(chat):
            raise CannotPin("not allowed to pin here")
        try:
            await self._call(chat, lambda: self.bot.pin_chat_message(
                int(chat), int(message_id), disable_notification=True))
        except Permanent as exc:  # e.g. the rights were taken away meanwhile
            self._may_pin[chat] = False
            raise CannotPin(str(exc)) from exc

    async def unpin(self, chat: str, message_id: str) -> None:
        if self._may_pin.get(chat) is False:
            return
        await self._call(chat, lambda: self.bot.unpin_chat_message(
            int(chat), message_id=int(message_id)))


class OutboxSender:
    """An asyncio task that delivers the outbox whenever woken, and at least every second.

    Each pass claims the chats it delivers (``ClaimingOutbox``: other processes sharing the
    database skip them) and serves the chats concurrently (each chat's items in order). A chat
    served is recorded and given back within ``record_gather`` seconds, in a small transaction
    with the chats served meanwhile (or while the previous one committed): a process killed
    mid-pass sends again only what it had under way (and what was answered in those last
    milliseconds). The pass's last chats are recorded with the bot-wide window
    (``ClaimingOutbox.finish``): chats served together cost one transaction, as before. Woken,
    it waits ``gather`` seconds more so that the views of inputs arriving together go out in
    one pass (one pass per input cost more than the sending itself)."""

    def __init__(self, store: OutboxStore, transport: TelegramTransport,
                 limits: Limits | None = None,
                 run: Callable[..., Any] | None = None, gather: float = 0.005,
                 holder: str | None = None, record_gather: float = 0.005) -> None:
        self.store, self.transport = store, transport
        self.record_gather = record_gather  # a chat served waits that long for others
        self.run = run or asyncio.to_thread  # how database calls leave the event loop
        self.outbox = ClaimingOutbox(store, limits or Limits(), holder)
        self.worker = Worker("outbox-sender", self.pass_once, log, what="outbox pass",
                             longest=1.0, gather=gather, at_once=True, stop_timeout=5)
        self.wake = self.worker.wake

    def start(self) -> None:
        self.worker.start()

    async def stop(self) -> None:
        await self.worker.stop()

    async def pass_once(self) -> float:
        """Deliver what may go now; returns how long until something else may go (0: go on
        at once, the pass could not take everything)."""
        claim: Claim = await self.run(self.outbox.claim)
        if not claim.chats:
            return claim.wait
        by_chat: dict[str, list[Item]] = {}
        for item in claim.items:
            by_chat.setdefault(item.chat, []).append(item)
        waits: list[float] = []
        outcomes: list[Delivered] = []
        calls: dict[str, list[float]] = {}
        shown = SlotMessages()
        served: list[tuple[str, list[Delivered]]] = []  # chats waiting to be recorded
        recording = asyncio.Lock()
        unserved = len(by_chat)

        async def record(chat: str, done: list[Delivered]) -> None:
            """The chat's outcomes recorded, with those of the chats served within
            ``record_gather`` seconds or while the previous record committed (if by then every
            chat is served, ``finish`` records them all in one transaction)."""
            served.append((chat, done))
            async with recording:
                if served and unserved and self.record_gather > 0:
                    await asyncio.sleep(self.record_gather)
                if not unserved:
                    return
                batch = served[:]
                served.clear()
                if batch:
                    await self.run(self.outbox.record, claim, [o for _, d in batch for o in d],
                                   calls, [c for c, _ in batch])

        async def serve(chat: str, chat_items: list[Item]) -> None:
            nonlocal unserved
            done: list[Delivered] = []
            for item in chat_items:
                shown.before(item)
                if item.plan == "keep":
                    done.append((item, item.message_id, None))
                    outcomes.append(done[-1])
                    metrics.observe_delivery(self.store.platform, "kept")
                    continue
                if time.monotonic() > claim.until:  # the lease runs out soon: next pass
                    waits.append(0.0)
                    break
                self.transport.begin(item)
                message_id, error = await deliver_async(item, self.transport)
                shown.after(item, message_id, error)
                # (the limits count it: on the store's clock, which the claim's windows are
                # checked against — a simulated clock in tests, the real one otherwise)
                calls.setdefault(item.chat, []).append(self.store.clock().timestamp())
                done.append((item, message_id, error))
                outcomes.append(done[-1])  # (``finish`` records it if the pass is cancelled)
                metrics.observe_delivery(self.store.platform, "sent" if error is None else
                                         "retry" if isinstance(error, Retry) else "failed")
                if isinstance(error, Retry):
                    waits.append(error.after)
                    log.info("outbox %s to %s: %s", item.id, item.chat, error)
                    break
            unserved -= 1
            if unserved:  # (the last is recorded by ``finish``, with the window)
                await record(chat, done)

        try:
            results = await asyncio.gather(*(serve(c, v) for c, v in by_chat.items()),
                                           return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException):
                    log.error("outbox delivery failed", exc_info=result)
        finally:  # record the rest and give the chats back (also when cancelled)
            await self.run(self.outbox.finish, claim, outcomes, calls)
        if len(claim.chats) >= CHATS_PER_PASS:
            return 0.0
        return min([claim.wait, *waits])
