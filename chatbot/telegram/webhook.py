"""Webhook mode that confirms an update to Telegram only once it is handled.

python-telegram-bot's own webhook server answers Telegram's POST as soon as the update is
queued; a crash between that answer and the input's commit loses the update (Telegram never
sends it again). Here the POST is answered after the update has been handled — a button press
committed and answered, a command through its handler — so a crash at any moment leaves the
update unconfirmed and Telegram delivers it again; the service's update log makes the repeat
change nothing. A handler that fails is logged and confirmed anyway, as in polling mode (a
poison update must not be delivered for ever).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import web

from ..runtime.leadership import Election
from ..runtime.redact import add_secret
from ..webapp.server import make_app as webapp
from ..webapp.server import webapp_limits_from_env
from .inline_results import preparer
from .lifecycle import bot_lock, running

if TYPE_CHECKING:
    from ..runtime.config import Config
    from .app import TelegramBot

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def webhook_paths(url: str) -> list[str]:
    """The paths the server takes POSTs on: the public URL's path and its last segment (a
    reverse proxy may pass either); ``/telegram`` if the URL has no path."""
    path = urlsplit(url).path.rstrip("/")
    if not path:
        return ["/telegram"]
    last = "/" + path.rsplit("/", 1)[-1]
    return [path] if last == path else [path, last]


def webhook_secret(configured: str | None, token: str = "") -> str:
    """The secret Telegram sends with every update: ``TELEGRAM_WEBHOOK_SECRET``, or one
    derived from the bot token (HMAC-SHA256, so every process of the bot has the same one and
    nobody without the token can compute it; a token-less test run gets a random one) — never
    none, or anybody who finds the URL could send updates in any user's name. Kept out of the
    logs."""
    if configured:
        secret = configured
    elif token:  # (A-Z a-z 0-9 _ -, as Telegram allows)
        digest = hmac.new(token.encode(), b"stammtisch webhook secret", hashlib.sha256)
        secret = base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")
    else:
        secret = secrets.token_urlsafe(32)
    add_secret(secret)
    return secret


def make_app(bot: TelegramBot, paths: list[str], secret: str) -> web.Application:
    """The aiohttp application serving Telegram's POSTs on ``paths``."""
    expected = secret.encode()

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, expected):  # (bytes: any header, no exception)
            return web.Response(status=403, text="wrong secret token")
        try:
            raw: Any = json.loads(await request.read())
        except ValueError:
            return web.Response(status=400, text="not JSON")
        if not isinstance(raw, dict) or not isinstance(raw.get("update_id"), int):
            return web.Response(status=400, text="not an update")
        try:
            await bot.handle_update(raw)
        except Exception:  # logged; confirmed like a failed update in polling mode
            log.exception("update %s failed", raw.get("update_id"))
        return web.Response(status=200)

    app = web.Application(client_max_size=4 * 1024 * 1024)
    for path in paths:
        app.router.add_post(path, receive)
    if bot.app.bot.token:  # the Mini App's API on the same server (behind the same proxy)
        max_age, max_streams = webapp_limits_from_env()  # (the same as on WEBAPP_PORT)
        app.add_subapp("/webapp", webapp(bot.service, bot.app.bot.token, max_age, max_streams,
                                         preparer(bot.app.bot)))
    return app


async def serve(bot: TelegramBot, cfg: Config, allowed_updates: list[str]) -> None:
    """Run the bot in webhook mode until SIGTERM/SIGINT. Every process sharing the database
    serves the webhook (a reverse proxy in front spreads Telegram's POSTs); exactly one, the
    leader (``storage.leader``), registers it with ``setWebhook`` — again whenever another
    process takes the lead."""
    assert cfg.telegram_webhook_url
    secret = webhook_secret(cfg.telegram_webhook_secret, cfg.telegram_token or "")
    if not cfg.telegram_webhook_secret:
        log.info("TELEGRAM_WEBHOOK_SECRET is not set: using one derived from the token")
    url = cfg.telegram_webhook_url

    async def register() -> None:
        await bot.app.bot.set_webhook(url, secret_token=secret, allowed_updates=allowed_updates)
        log.info("webhook registered at %s", url)

    election = Election(bot_lock(bot, "webhook"), "telegram-webhook", register)
    async with running(bot) as stop:
        runner = web.AppRunner(make_app(bot, webhook_paths(url), secret), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, cfg.telegram_webhook_listen,
                              cfg.telegram_webhook_port).start()
            log.info("webhook at %s, listening on %s:%s", url, cfg.telegram_webhook_listen,
                     cfg.telegram_webhook_port)
            election.start()
            await stop.wait()
        finally:
            await election.stop()
            await runner.cleanup()  # stops taking updates; those under way finish first
