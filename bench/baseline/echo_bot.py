"""A bare python-telegram-bot echo bot: the baseline for bench/telegram.py (kept in its own folder so that
``import telegram`` finds python-telegram-bot, not bench/telegram.py).

/start answers with a message carrying one button; a press is answered and the message is
edited to echo the press. No database, no rules: what PTB itself costs per update.
``ECHO_HTTP_CLIENT=aiohttp`` gives it the bot's aiohttp client (``chatbot/telegram/request.py``)
instead of PTB's default httpx one, so that the two bots differ only in what they do.
"""

from __future__ import annotations

import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes


def _keyboard(n: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("press", callback_data=f"v1:1:{n}:x")]])


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.effective_chat.send_message("echo", reply_markup=_keyboard(0))  # type: ignore[union-attr]


async def press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None and query.message is not None
    await query.answer("ok")
    n = int((query.data or "v1:1:0:x").split(":")[2]) + 1
    await query.edit_message_text(f"echo {n}", reply_markup=_keyboard(n))


def main() -> None:
    base = os.environ["TELEGRAM_BASE_URL"].rstrip("/")
    builder = (ApplicationBuilder().token(os.environ["TELEGRAM_TOKEN"]).base_url(base + "/bot")
               .base_file_url(base + "/file/bot").concurrent_updates(True))
    if os.environ.get("ECHO_HTTP_CLIENT") == "aiohttp":
        from chatbot.telegram.request import make_requests

        request, updates = make_requests("aiohttp", 256)
        builder = builder.request(request).get_updates_request(updates)
    app = builder.build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(press))
    app.run_polling(poll_interval=0.0, timeout=10)


if __name__ == "__main__":
    main()
