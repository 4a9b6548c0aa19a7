"""A python-telegram-bot ``ExtBot`` whose long polling hands button presses over raw.

Button presses are most of a card table's traffic. Parsing each into PTB's object tree (the
press carries the whole table message with its keyboard) costs more CPU than deciding the move,
so ``get_updates`` offers every raw update to ``raw_handler`` first: what it takes is handled
from the plain JSON, the rest is parsed and goes through the Application's handlers as usual.
Offsets are kept exactly as PTB's Updater keeps them: when the newest update was taken raw, a
bare ``Update`` with its id closes the batch, so the Updater confirms it like any other.

Fetching the next batch confirms the previous one to Telegram, which then forgets it. So the
next batch is fetched only once every update of the previous ones has been handled (its input
committed): a crash at any moment loses no update; at worst one is delivered again, and the
service's update log makes a repeat change nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.ext import ExtBot, SimpleUpdateProcessor

log = logging.getLogger(__name__)
HANDLE_TIMEOUT = 30.0  # longest wait for earlier updates before fetching (and confirming) more

RawHandler = Callable[[JSONDict], bool]


class LeanBot(ExtBot):
    """``ExtBot`` with a raw first look at polled updates (see the module docstring)."""

    __slots__ = ("raw_handler", "_unfinished", "_raw", "_idle")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        with self._unfrozen():  # PTB freezes its objects after __init__
            self.raw_handler: RawHandler | None = None
            self._unfinished: set[int] = set()  # fetched, not yet handled (update ids)
            self._raw: set[int] = set()  # of those, the ones taken raw
            self._idle = asyncio.Event()

    def finished(self, update_id: int) -> None:
        """An update has been handled (its input committed, or nothing to do)."""
        self._raw.discard(update_id)
        self._unfinished.discard(update_id)
        if not self._unfinished:
            self._idle.set()

    def processed(self, update: Update) -> None:
        """PTB's handlers are through with an update (the bare marker of an update taken raw
        does not count: the raw path says when that one is handled)."""
        if update.update_id not in self._raw:
            self.finished(update.update_id)

    async def _earlier_handled(self) -> None:
        if not self._unfinished:
            return
        self._idle.clear()
        try:
            await asyncio.wait_for(self._idle.wait(), HANDLE_TIMEOUT)
        except TimeoutError:
            log.warning("updates %s still unhandled after %.0f s; fetching on",
                        sorted(self._unfinished), HANDLE_TIMEOUT)
            self._unfinished.clear()
            self._raw.clear()

    def set_raw_handler(self, handler: RawHandler | None) -> None:
        with self._unfrozen():
            self.raw_handler = handler

    async def get_updates(  # type: ignore[override]
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: TimePeriod | None = None,
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update, ...]:
        handler = self.raw_handler
        if handler is None:
            return await super().get_updates(
                offset=offset, limit=limit, timeout=timeout, allowed_updates=allowed_updates,
                read_timeout=read_timeout, write_timeout=write_timeout,
                connect_timeout=connect_timeout, pool_timeout=pool_timeout,
                api_kwargs=api_kwargs)
        await self._earlier_handled()
        # As Bot.get_updates: the long-poll timeout extends the read timeout.
        base = (self._request[0].read_timeout or 0) if isinstance(read_timeout, DefaultValue) \
            else (read_timeout or 0)
        wait = timeout.total_seconds() if isinstance(timeout, dtm.timedelta) else (timeout or 0)
        result: list[JSONDict] = await self._post(
            "getUpdates",
            {"timeout": timeout, "offset": offset, "limit": limit,
             "allowed_updates": allowed_updates},
            read_timeout=base + wait, write_timeout=write_timeout,
            connect_timeout=connect_timeout, pool_timeout=pool_timeout, api_kwargs=api_kwargs)
        updates: list[Update] = []
        last_taken: int | None = None
        for raw in result or ():
            self._unfinished.add(raw["update_id"])
            taken = False
            try:
                taken = handler(raw)
            except Exception:  # never lose an update to the fast path: PTB parses it instead
                log.exception("raw update %s: fast path failed", raw.get("update_id"))
            if taken:
                if raw["update_id"] in self._unfinished:  # not finished already
                    self._raw.add(raw["update_id"])
                last_taken = raw["update_id"]
                continue
            update = Update.de_json(raw, self)
            if update is None:
                self.finished(raw["update_id"])
            else:
                self.insert_callback_data(update)
                updates.append(update)
                last_taken = None
        if last_taken is not None:
            updates.append(Update(update_id=last_taken))
        return tuple(updates)


def press_fields(raw: JSONDict) -> dict[str, Any] | None:
    """What a button press needs, from a raw update; ``None`` unless it is a plain press on a
    message in a chat (inline-mode presses and game buttons go the PTB way)."""
    query = raw.get("callback_query")
    if not isinstance(query, dict):
        return None
    message, user, data = query.get("message"), query.get("from"), query.get("data")
    if not isinstance(message, dict) or not isinstance(user, dict) or not isinstance(data, str):
        return None
    chat = message.get("chat")
    if not isinstance(chat, dict) or "id" not in chat or "id" not in user or "id" not in query:
        return None
    return {
        "update_id": raw["update_id"], "query_id": str(query["id"]), "data": data,
        "chat_id": chat["id"], "chat_type": chat.get("type"), "chat_title": chat.get("title"),
        "user_id": user["id"], "first_name": user.get("first_name"),
        "last_name": user.get("last_name"), "username": user.get("username"),
        "language_code": user.get("language_code"),
    }


class TrackingUpdateProcessor(SimpleUpdateProcessor):
    """PTB's concurrent update processing, telling the bot when each update is handled."""

    __slots__ = ("bot",)

    def __init__(self, bot: LeanBot, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self.bot = bot

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        try:
            await coroutine
        finally:
            if isinstance(update, Update):
                self.bot.processed(update)
