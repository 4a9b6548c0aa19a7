"""Tests for the fake Telegram Bot API, driven by real python-telegram-bot objects: a PTB
``Application`` with handlers, by long polling and by webhook.
"""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from telegram import Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakes.ptb_helpers import TOKEN, keyboard

pytestmark = [
    pytest.mark.timeout(30),
    # PTB 22 warns whenever a RetryAfter is built (retry_after becomes a timedelta later)
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]


# --------------------------------------------------------------------------- Application


async def _start_handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.effective_message.reply_text(
        f"Servus {update.effective_user.first_name}!", reply_markup=keyboard("join")
    )


async def _press_handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    await query.answer("Du bist dabei")
    await query.edit_message_text(f"{query.from_user.first_name} spielt mit ({query.data})")


def _build_app(fake) -> Application:
    app = (
        Application.builder()
        .token(TOKEN)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
        .build()
    )
    app.add_handler(CommandHandler("start", _start_handler))
    app.add_handler(CallbackQueryHandler(_press_handler))
    return app


def test_application_long_polling_command_and_callback(fake):
    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                fake.send_text(42, 42, "/start", user_first_name="Anna")
                sent = await fake.async_wait_for_call("sendMessage", timeout=5)
                mid = sent["response"]["result"]["message_id"]

                mark = fake.last_seq()
                uid = fake.press(42, 42, mid, "join", user_first_name="Anna")
                edit = await fake.async_wait_for_call("editMessageText", timeout=5, since=mark)
                await fake.async_wait_for(lambda: fake.query_answer(uid)["answered"], timeout=5)

                # group chat, command addressed to the bot
                fake.send_text(-500, 7, "/start@stammtisch_test_bot", user_first_name="Bert")
                group = await fake.async_wait_for_call(
                    "sendMessage", lambda c: c["params"]["chat_id"] == -500, timeout=5
                )
            finally:
                await app.updater.stop()
                await app.stop()
        return sent, edit, group

    t0 = time.monotonic()
    sent, edit, group = asyncio.run(main())
    assert time.monotonic() - t0 < 10
    assert sent["params"]["text"] == "Servus Anna!"
    assert sent["params"]["reply_markup"] == keyboard("join").to_dict()
    assert edit["params"]["text"] == "Anna spielt mit (join)"
    assert fake.message(42, 2)["text"] == "Anna spielt mit (join)"  # 1 is the user's /start
    assert fake.message(42, 2)["reply_markup"] is None
    assert group["response"]["result"]["chat"] == {
        "id": -500,
        "type": "group",
        "title": "Stammtisch Test 500",
    }
    # everything was confirmed by the final getUpdates(offset=...) on shutdown
    assert fake.pending_updates() == []


def test_application_receives_duplicate_update(fake):
    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                uid = fake.send_text(42, 42, "/start")
                await fake.async_wait_for(lambda: len(fake.calls("sendMessage")) == 1, timeout=5)
                # wait until PTB confirmed it (its next getUpdates has offset > uid)
                await fake.async_wait_for(lambda: not fake.pending_updates(), timeout=5)
                assert fake.redeliver(uid) == uid
                await fake.async_wait_for(lambda: len(fake.calls("sendMessage")) == 2, timeout=5)
            finally:
                await app.updater.stop()
                await app.stop()
        return uid

    uid = asyncio.run(main())
    delivered = [
        u["update_id"]
        for c in fake.calls("getUpdates")
        if c["status"] == 200
        for u in c["response"]["result"]
    ]
    assert delivered.count(uid) == 2


def test_application_webhook_mode(fake):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def main():
        app = _build_app(fake)
        async with app:
            await app.start()
            await app.updater.start_webhook(
                listen="127.0.0.1",
                port=port,
                url_path="tg",
                webhook_url=f"http://127.0.0.1:{port}/tg",
                secret_token="geheim",
            )
            try:
                fake.send_text(42, 42, "/start", user_first_name="Carla")
                return await fake.async_wait_for_call("sendMessage", timeout=5)
            finally:
                await app.updater.stop()
                await app.stop()

    sent = asyncio.run(main())
    assert sent["params"]["text"] == "Servus Carla!"
    assert fake.webhook_deliveries()[0]["status"] == 200
    assert fake.calls("setWebhook")[0]["params"]["secret_token"] == "geheim"
