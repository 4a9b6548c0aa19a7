"""Answers nothing reads are not built into objects (issue 49, item 5): through the bot's own
client (``AiohttpRequest``) a successful edit comes back as ``True`` — the message is edited
all the same — while the answers the bot reads (a sent message's id) and every refusal come
through as before. Against the fake Bot API over real HTTP."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import BadRequest

from chatbot.telegram.request import AiohttpRequest
from chatbot.telegram.runner import api_base
from tests.fakes.telegram_api import FakeBotApi

from .harness import TOKEN


def _keys(label: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=f"v1:1:1:{label}")]])


def test_an_edit_is_made_but_its_answer_is_not_built(fake: FakeBotApi) -> None:
    async def scenario() -> tuple[Message, object, object]:
        request = AiohttpRequest(8)
        bot = Bot(TOKEN, base_url=api_base(fake.url), request=request,
                  get_updates_request=AiohttpRequest(1))
        await bot.initialize()
        try:
            sent = await bot.send_message(42, "Runde 1", reply_markup=_keys("a"))
            edited = await bot.edit_message_text("Runde 2", chat_id=42,
                                                 message_id=sent.message_id,
                                                 reply_markup=_keys("b"))
            markup = await bot.edit_message_reply_markup(42, sent.message_id,
                                                         reply_markup=_keys("c"))
            with pytest.raises(BadRequest, match="(?i)not modified"):  # refusals still raise
                await bot.edit_message_reply_markup(42, sent.message_id,
                                                    reply_markup=_keys("c"))
            with pytest.raises(BadRequest, match="(?i)not found"):
                await bot.edit_message_text("x", chat_id=42, message_id=9999)
            return sent, edited, markup
        finally:
            await bot.shutdown()

    sent, edited, markup = asyncio.run(scenario())
    assert isinstance(sent, Message) and sent.text == "Runde 1"  # read: built as before
    assert edited is True and markup is True  # not read: no Message built
    stored = fake.message(42, sent.message_id)
    assert stored is not None and stored["text"] == "Runde 2"
    assert stored["reply_markup"]["inline_keyboard"][0][0]["text"] == "c"
    assert fake.calls("editMessageText")[0]["response"]["result"]["text"] == "Runde 2"


def test_a_client_asked_to_keep_every_answer_builds_the_edited_message(fake: FakeBotApi) -> None:
    async def scenario() -> object:
        request = AiohttpRequest(8, unread_answers=frozenset())
        bot = Bot(TOKEN, base_url=api_base(fake.url), request=request,
                  get_updates_request=AiohttpRequest(1))
        await bot.initialize()
        try:
            sent = await bot.send_message(43, "Runde 1")
            return await bot.edit_message_text("Runde 2", chat_id=43,
                                               message_id=sent.message_id)
        finally:
            await bot.shutdown()

    edited = asyncio.run(scenario())
    assert isinstance(edited, Message) and edited.text == "Runde 2"
