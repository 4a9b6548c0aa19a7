"""Helpers of the fake Bot API's tests: the token, a python-telegram-bot ``Bot`` bound to a fake,
an inline keyboard, and running one coroutine with that bot.
"""

from __future__ import annotations

import asyncio

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

TOKEN = "123:ABC"


def make_bot(fake) -> Bot:
    return Bot(TOKEN, base_url=fake.base_url, base_file_url=fake.base_file_url)


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d.title(), callback_data=d) for d in data]])


def run(coro_fn, fake):
    async def main():
        async with make_bot(fake) as bot:
            return await coro_fn(bot)

    return asyncio.run(main())
