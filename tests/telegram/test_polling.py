"""Long polling that confirms an update only once it is handled (``chatbot.telegram.polling``)
and presses that arrive together sharing transactions (``chatbot.telegram.presses``), against
the fake Bot API over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from chatbot.runtime import config
from chatbot.runtime.wiring import build_service
from chatbot.telegram import polling
from chatbot.telegram.app import TelegramBot
from chatbot.telegram.polling import ConfirmingBot, ConfirmingUpdateProcessor
from chatbot.telegram.request import AiohttpRequest
from chatbot.telegram.runner import api_base, build
from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN

DATA = "v1:1:1:a"


@contextlib.asynccontextmanager
async def _confirming(fake: FakeBotApi) -> AsyncIterator[ConfirmingBot]:
    bot = ConfirmingBot(TOKEN, base_url=api_base(fake.url), request=AiohttpRequest(8),
                        get_updates_request=AiohttpRequest(1))
    await bot.initialize()
    try:
        yield bot
    finally:
        await bot.shutdown()


async def _table(bot: ConfirmingBot, chat: int) -> int:
    """A message with one button in the chat; its message id."""
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data=DATA)]])
    return (await bot.send_message(chat, "Tisch", reply_markup=keys)).message_id


async def _still_waiting(fetch: asyncio.Task[Any]) -> None:
    await asyncio.sleep(0.3)
    assert not fetch.done()


def test_a_batch_is_confirmed_only_once_its_updates_are_handled(fake: FakeBotApi) -> None:
    """Every update is parsed by PTB (a press too); the next fetch, which would confirm the
    batch to Telegram, waits until each of them has been handled."""

    async def scenario() -> None:
        async with _confirming(fake) as bot:
            press_id = fake.press(78, 78, await _table(bot, 78), DATA)
            text_id = fake.send_text(78, 78, "hallo")
            press, text = await bot.get_updates(timeout=0)
            assert (press.update_id, text.update_id) == (press_id, text_id)
            assert press.callback_query is not None and press.callback_query.data == DATA
            assert text.message is not None and text.message.text == "hallo"
            bot.handled(text_id)
            nxt = asyncio.create_task(bot.get_updates(offset=text_id + 1, timeout=0))
            await _still_waiting(nxt)  # the press is still being handled ...
            assert {u["update_id"] for u in fake.pending_updates()} == {press_id, text_id}
            bot.handled(press_id)  # ... now it is committed
            assert await asyncio.wait_for(nxt, 5) == ()
            assert fake.pending_updates() == []

    asyncio.run(scenario())


def test_the_update_processor_says_when_handlers_are_done(fake: FakeBotApi) -> None:
    """The processor marks an update handled when its handlers end, also when they fail."""

    async def scenario() -> None:
        async with _confirming(fake) as bot:
            first = fake.send_text(79, 79, "eins")
            (update,) = await bot.get_updates(timeout=0)
            processor = ConfirmingUpdateProcessor(bot, 4)
            await processor.initialize()

            async def failing() -> None:
                raise RuntimeError("handler failed")

            with pytest.raises(RuntimeError):
                await processor.process_update(update, failing())
            assert await asyncio.wait_for(bot.get_updates(offset=first + 1, timeout=0), 5) == ()
            await processor.shutdown()

    asyncio.run(scenario())


def test_an_update_never_handled_holds_polling_up_only_for_a_while(
        fake: FakeBotApi, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(polling, "HANDLE_TIMEOUT", 0.3)

    async def scenario() -> None:
        async with _confirming(fake) as bot:
            stuck = fake.send_text(80, 80, "hängt")
            await bot.get_updates(timeout=0)
            started = time.monotonic()
            with caplog.at_level(logging.WARNING, logger="chatbot.telegram.polling"):
                assert await bot.get_updates(offset=stuck + 1, timeout=0) == ()
            assert time.monotonic() - started >= 0.3
            assert f"updates [{stuck}] still unhandled" in caplog.text

    asyncio.run(scenario())


@pytest.fixture
def telegram_bot(fake: FakeBotApi, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> TelegramBot:
    """The bot as ``stammtisch telegram`` builds it (SQLite), in this process."""
    for name, value in {"TELEGRAM_TOKEN": TOKEN, "TELEGRAM_BASE_URL": fake.url,
                        "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
                        "TELEGRAM_HTTP_CLIENT": "aiohttp"}.items():
        monkeypatch.setenv(name, value)
    cfg = config.load(env_file=None)
    return build(cfg, build_service(cfg))


def test_presses_polled_together_share_transactions(fake: FakeBotApi,
                                                    telegram_bot: TelegramBot) -> None:
    """20 presses in one getUpdates answer go through PTB's handlers and reach the service
    as ``press_many`` calls of 16 and 4; each is answered once, and all are confirmed."""
    service = telegram_bot.service
    batches: list[int] = []
    press_many = service.press_many

    def spy(presses: list[Any]) -> list[Any]:
        batches.append(len(presses))
        return press_many(presses)

    service.press_many = spy  # type: ignore[method-assign]
    app = telegram_bot.app

    async def scenario() -> None:
        await app.initialize()
        try:
            message_id = await _table(app.bot, 81)  # type: ignore[arg-type]
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1)
            with fake.held():
                uids = [fake.press(81, 81, message_id, DATA) for _ in range(20)]
            deadline = time.monotonic() + 30
            while len(fake.calls("answerCallbackQuery")) < 20 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            while fake.pending_updates() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await app.updater.stop()
            await app.stop()
        finally:
            await app.shutdown()
        assert batches == [16, 4]
        query_ids = [fake.get_update(uid)["callback_query"]["id"] for uid in uids]  # type: ignore[index]
        answered = [c["params"]["callback_query_id"] for c in fake.calls("answerCallbackQuery")]
        assert sorted(answered) == sorted(query_ids)
        assert fake.pending_updates() == []

    asyncio.run(scenario())


def test_a_webhook_update_goes_through_the_handlers(fake: FakeBotApi,
                                                    telegram_bot: TelegramBot) -> None:
    """``handle_update`` (the webhook's) parses the update and returns once the press has
    been committed and answered."""

    async def scenario() -> None:
        app = telegram_bot.app
        await app.initialize()
        try:
            uid = fake.press(82, 82, await _table(app.bot, 82), DATA)  # type: ignore[arg-type]
            await telegram_bot.handle_update(fake.get_update(uid))  # type: ignore[arg-type]
            query_id = fake.get_update(uid)["callback_query"]["id"]  # type: ignore[index]
            assert [c["params"]["callback_query_id"]
                    for c in fake.calls("answerCallbackQuery")] == [query_id]
        finally:
            await app.shutdown()

    asyncio.run(scenario())

