"""The polling bot's raw path (chatbot.telegram.leanbot) against the fake Bot API over HTTP:
presses are taken raw, everything else is parsed by PTB, offsets advance as PTB's Updater
advances them, and a batch is confirmed to Telegram only once all of its updates are handled
(so a crash loses none)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from chatbot.telegram.app import api_base
from chatbot.telegram.leanbot import LeanBot, press_fields
from chatbot.telegram.request import AiohttpRequest
from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN


@contextlib.asynccontextmanager
async def _running(fake: FakeBotApi) -> AsyncIterator[tuple[LeanBot, list[int]]]:
    """A LeanBot whose raw handler takes every plain press (their ids land in the list)."""
    taken: list[int] = []
    bot = LeanBot(TOKEN, base_url=api_base(fake.url), request=AiohttpRequest(8),
                  get_updates_request=AiohttpRequest(1))

    def take(raw: dict) -> bool:
        if press_fields(raw) is None:
            return False
        taken.append(raw["update_id"])
        return True

    bot.set_raw_handler(take)
    await bot.initialize()
    try:
        yield bot, taken
    finally:
        await bot.shutdown()


async def _table(bot: LeanBot, chat: int) -> int:
    """A message with one button in the chat; its message id."""
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="v1:1:1:a")]])
    return (await bot.send_message(chat, "Tisch", reply_markup=keys)).message_id


async def _still_waiting(fetch: asyncio.Task) -> None:
    await asyncio.sleep(0.3)
    assert not fetch.done()


def test_presses_are_taken_raw_and_the_rest_parsed(fake: FakeBotApi) -> None:
    async def scenario() -> None:
        async with _running(fake) as (bot, taken):
            message_id = await _table(bot, 77)
            text_id = fake.send_text(77, 77, "hallo")
            press_id = fake.press(77, 77, message_id, "v1:1:1:a")
            updates = await bot.get_updates(timeout=0)
            assert taken == [press_id]
            # the text is parsed; the newest update was taken raw, so a bare update with its
            # id closes the batch (PTB's Updater confirms up to the last one it sees)
            assert [u.update_id for u in updates] == [text_id, press_id]
            assert updates[0].message is not None and updates[0].message.text == "hallo"
            assert updates[1].callback_query is None and updates[1].message is None
            fields = press_fields(fake.get_update(press_id) or {})
            assert fields is not None
            assert (fields["chat_id"], fields["user_id"], fields["data"], fields["chat_type"]) \
                == (77, 77, "v1:1:1:a", "private")

    asyncio.run(scenario())


def test_a_batch_is_confirmed_only_once_its_updates_are_handled(fake: FakeBotApi) -> None:
    async def scenario() -> None:
        async with _running(fake) as (bot, _taken):
            press_id = fake.press(78, 78, await _table(bot, 78), "v1:1:1:a")
            text_id = fake.send_text(78, 78, "hallo")
            updates = await bot.get_updates(timeout=0)
            assert [u.update_id for u in updates] == [text_id]
            bot.processed(updates[0])  # PTB's handlers are through with the text
            # the press is still being handled: the next fetch (which would confirm both)
            # waits, and Telegram still holds both updates
            nxt = asyncio.create_task(bot.get_updates(offset=text_id + 1, timeout=0))
            await _still_waiting(nxt)
            assert {u["update_id"] for u in fake.pending_updates()} == {press_id, text_id}
            bot.finished(press_id)  # its input is committed
            assert await asyncio.wait_for(nxt, 5) == ()
            assert fake.pending_updates() == []

    asyncio.run(scenario())


def test_a_bare_marker_does_not_count_as_the_raw_update_handled(fake: FakeBotApi) -> None:
    async def scenario() -> None:
        async with _running(fake) as (bot, _taken):
            press_id = fake.press(79, 79, await _table(bot, 79), "v1:1:1:a")
            (marker,) = await bot.get_updates(timeout=0)
            assert marker.update_id == press_id
            bot.processed(marker)  # PTB runs no handler for it; the press is not done yet
            nxt = asyncio.create_task(bot.get_updates(offset=press_id + 1, timeout=0))
            await _still_waiting(nxt)
            bot.finished(press_id)
            assert await asyncio.wait_for(nxt, 5) == ()

    asyncio.run(scenario())
