"""Building and running the Telegram bot: the python-telegram-bot application around
``TelegramBot`` (its HTTP client, the confirming poller, the handlers), its rate limits from
the environment, and ``stammtisch telegram`` in polling or webhook mode."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from telegram.ext import Application, ApplicationBuilder

from ..runtime.config import Config
from ..runtime.wiring import build_service
from ..service import Service
from .app import TelegramBot
from .limits import Limits
from .polling import ConfirmingBot, ConfirmingUpdateProcessor, serve_polling
from .request import http_client, make_requests
from .webhook import serve

POOL_SIZE = 256  # concurrent Bot API calls (answers and outbox deliveries), as PTB's default
MAX_UPDATES = 256  # updates handled at once (PTB's concurrent updates)


def api_base(url: str | None) -> str | None:
    """``TELEGRAM_BASE_URL`` as python-telegram-bot wants it (ending in ``/bot``)."""
    if not url:
        return None
    url = url.rstrip("/")
    return url if url.endswith("/bot") else url + "/bot"


def build(cfg: Config, service: Service, limits: Limits | None = None) -> TelegramBot:
    """The application with its handlers, ready to run."""
    if not cfg.telegram_token:
        raise SystemExit("TELEGRAM_TOKEN is not set")
    client = http_client()
    request, polling = make_requests(client, POOL_SIZE)
    base = api_base(cfg.telegram_base_url)
    urls = {"base_url": base, "base_file_url": base.rsplit("/bot", 1)[0] + "/file/bot"} \
        if base else {}
    bot = ConfirmingBot(cfg.telegram_token, request=request, get_updates_request=polling, **urls)
    builder: Any = ApplicationBuilder().bot(bot).concurrent_updates(
        ConfirmingUpdateProcessor(bot, MAX_UPDATES))
    holder: dict[str, TelegramBot] = {}

    async def post_init(app: Application) -> None:
        await holder["bot"].post_init(app)

    async def post_stop(app: Application) -> None:
        await holder["bot"].post_stop(app)

    app = builder.post_init(post_init).post_stop(post_stop).build()
    holder["bot"] = TelegramBot(service, app, limits, client)
    holder["bot"].short_name = cfg.webapp_short_name
    return holder["bot"]


def limits_from_env() -> Limits:
    """Telegram's outgoing rate limits from the environment."""
    return Limits(
        per_chat_interval=float(os.environ.get("TELEGRAM_CHAT_INTERVAL", 1.0)),
        group_per_minute=int(os.environ.get("TELEGRAM_GROUP_PER_MINUTE", 20)),
        global_per_second=int(os.environ.get("TELEGRAM_GLOBAL_PER_SECOND", 30)),
    )


def run(cfg: Config) -> int:
    """``stammtisch telegram``: long polling, or a webhook when TELEGRAM_WEBHOOK_URL is set."""
    service = build_service(cfg, background_checkpoints=True)
    bot = build(cfg, service, limits_from_env())
    allowed = ["message", "callback_query", "inline_query", "chosen_inline_result"]
    if cfg.telegram_webhook_url:  # Telegram's POST is answered once the update is handled
        asyncio.run(serve(bot, cfg, allowed))
    else:  # one process polls (the leader); every process delivers and fires deadlines
        asyncio.run(serve_polling(bot, allowed))
    return 0
