"""The Telegram adapter: python-telegram-bot handlers that delegate to the service.

Updates become service calls (run off the event loop); answers to button presses are short
alerts; everything else the bot says goes through the outbox and the rate-limited sender.
Deadlines from the database are armed as JobQueue (APScheduler) jobs after each commit and
swept every couple of seconds, so a restart loses none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from telegram import BotCommand, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from ..config import Config
from ..i18n import pick_language, tr
from ..outbox import OutboxStore
from ..service import Change, ChatRef, Service, UserRef
from .sender import Limits, OutboxSender, TelegramTransport

log = logging.getLogger(__name__)
PLATFORM = "telegram"
COMMANDS = ("start", "help", "rules", "language", "new", "stop")
MANAGE_CODES = ("start", "stop", "kick", "fill", "clock", "cur", "opt", "lvl")
SWEEP_SECONDS = 2.0
POOL_SIZE = 256  # concurrent Bot API calls (answers and outbox deliveries), as PTB's default

_COMMAND_TEXT = {
    "de": {"start": "Begrüßung und Hilfe", "help": "Hilfe", "rules": "Spielregeln",
           "language": "Sprache wählen", "new": "Neues Spiel", "stop": "Tisch beenden"},
    "en": {"start": "Welcome and help", "help": "Help", "rules": "Game rules",
           "language": "Choose language", "new": "New game", "stop": "Close the table"},
}


def api_base(url: str | None) -> str | None:
    """``TELEGRAM_BASE_URL`` as python-telegram-bot wants it (ending in ``/bot``)."""
    if not url:
        return None
    url = url.rstrip("/")
    return url if url.endswith("/bot") else url + "/bot"


class TelegramBot:
    """Wires the service into a python-telegram-bot Application."""

    def __init__(self, service: Service, app: Application, limits: Limits | None = None) -> None:
        self.service, self.app = service, app
        self.store = OutboxStore(service.engine, PLATFORM)
        self.transport = TelegramTransport(app.bot, on_forbidden=self._forbidden)
        self.sender = OutboxSender(self.store, self.transport, limits)
        self.loop: asyncio.AbstractEventLoop | None = None
        service.listeners.append(self._on_commit)
        app.add_handler(CommandHandler(list(COMMANDS), self.on_command))
        app.add_handler(CallbackQueryHandler(self.on_press))
        app.add_handler(MessageHandler(filters.COMMAND, self.on_unknown_command))
        app.add_handler(MessageHandler(filters.TEXT & filters.ChatType.PRIVATE, self.on_text))
        app.add_error_handler(self.on_error)

    # ------------------------------------------------------------------ lifecycle
    async def post_init(self, app: Application) -> None:
        self.loop = asyncio.get_running_loop()
        me = await app.bot.get_me()
        username = me.username
        self.service.settings.start_link = lambda table_id: f"https://t.me/{username}?start=t{table_id}"
        for lang in ("de", "en"):
            cmds = [BotCommand(c, _COMMAND_TEXT[lang][c]) for c in COMMANDS]
            await app.bot.set_my_commands(cmds, language_code=lang)
        await app.bot.set_my_commands(
            [BotCommand(c, _COMMAND_TEXT[self.service.settings.default_language][c])
             for c in COMMANDS])
        self.sender.start()
        app.job_queue.run_repeating(self._sweep, interval=SWEEP_SECONDS, first=0.1,
                                    name="deadline-sweep")
        upcoming = await asyncio.to_thread(self.service.next_deadlines)
        self._arm([Change(t, v, when) for t, v, when in upcoming])
        log.info("telegram bot @%s ready (Bot API client: %s)", username, http_client())

    async def post_stop(self, app: Application) -> None:
        await self.sender.stop()

    # ------------------------------------------------------------------ deadlines
    def _on_commit(self, changes: list[Change]) -> None:
        """Called on a worker thread after each commit: wake the sender, arm deadlines."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.sender.wake.set)
        if changes:
            loop.call_soon_threadsafe(self._arm, changes)

    def _arm(self, changes: list[Change]) -> None:
        jq = self.app.job_queue
        for change in changes:
            name = f"deadline:{change.table_id}"
            for job in jq.get_jobs_by_name(name):
                job.schedule_removal()
            if change.deadline is None:
                continue
            when = change.deadline if change.deadline.tzinfo else \
                change.deadline.replace(tzinfo=UTC)
            if when <= datetime.now(UTC):
                when = datetime.now(UTC)
            jq.run_once(self._deadline_job, when=when, name=name,
                        data=(change.table_id, change.version))

    async def _deadline_job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        table_id, version = context.job.data  # type: ignore[union-attr,misc]
        await asyncio.to_thread(self.service.fire_due, table_id, version)

    async def _sweep(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Overdue deadlines (after a restart, or a missed job) are fired here, once."""
        for table_id, version in await asyncio.to_thread(self.service.due):
            await asyncio.to_thread(self.service.fire_due, table_id, version)

    def _forbidden(self, chat: str) -> None:
        if not chat.startswith("-"):
            self.service.forget_private_chat(PLATFORM, chat)

    # ------------------------------------------------------------------ updates
    @staticmethod
    def _refs(update: Update, is_admin: bool = False) -> tuple[ChatRef, UserRef]:
        chat, user = update.effective_chat, update.effective_user
        assert chat is not None and user is not None
        kind = "private" if chat.type == ChatType.PRIVATE else "group"
        name = " ".join(p for p in (user.first_name, user.last_name) if p) or str(user.id)
        return (ChatRef(PLATFORM, str(chat.id), kind, chat.title),
                UserRef(str(user.id), name[:64], user.username, user.language_code, is_admin))

    async def _is_admin(self, update: Update) -> bool:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None or chat.type == ChatType.PRIVATE:
            return False
        try:
            member = await self.app.bot.get_chat_member(chat.id, user.id)
        except Exception:
            return False
        return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or not message.text or update.effective_user is None:
            return
        name = message.text.split()[0].lstrip("/").split("@")[0].lower()
        args = " ".join(context.args or [])
        admin = name in ("stop", "language") and await self._is_admin(update)
        chat_ref, user = self._refs(update, admin)
        outcome = await asyncio.to_thread(self.service.command, chat_ref, user, name, args,
                                          str(update.update_id))
        if outcome.text:
            await asyncio.to_thread(self.service.reply, chat_ref, outcome.text)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or update.effective_user is None or update.effective_chat is None:
            if query is not None:
                await query.answer()
            return
        code = (query.data or "").split(":", 3)[-1].split(".")[0]
        admin = code in MANAGE_CODES and await self._is_admin(update)
        chat_ref, user = self._refs(update, admin)
        outcome = await asyncio.to_thread(self.service.press, chat_ref, user, query.data,
                                          str(update.update_id))
        text = (outcome.text or "")[:200] or None
        try:
            await query.answer(text=text, show_alert=outcome.alert and bool(text))
        except Exception as exc:  # a too-old query cannot be answered; the press still counts
            log.info("table %s: could not answer callback: %s", outcome.table_id, exc)

    async def on_unknown_command(self, update: Update,
                                 context: ContextTypes.DEFAULT_TYPE) -> None:
        chat = update.effective_chat
        if chat is None or update.effective_user is None or update.effective_message is None:
            return
        text = update.effective_message.text or ""
        target = text.split()[0].split("@")[1] if "@" in text.split()[0] else None
        if target and target.lower() != (self.app.bot.username or "").lower():
            return  # a command for another bot
        if chat.type != ChatType.PRIVATE and target is None:
            return  # in groups, only answer commands addressed to us
        chat_ref, user = self._refs(update)
        lang = pick_language(None, user.language, self.service.settings.default_language)
        await asyncio.to_thread(self.service.reply, chat_ref, tr(lang, "unknown_command"))

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Plain text in a private chat: a short pointer to the commands."""
        if update.effective_user is None or update.effective_chat is None:
            return
        chat_ref, user = self._refs(update)
        lang = pick_language(None, user.language, self.service.settings.default_language)
        await asyncio.to_thread(self.service.reply, chat_ref, tr(lang, "unknown_command"))

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("update %s failed: %s", getattr(update, "update_id", "?"), context.error,
                  exc_info=context.error)
        if isinstance(update, Update) and update.callback_query is not None:
            with contextlib.suppress(Exception):
                await update.callback_query.answer("⚠️", show_alert=False)


def build(cfg: Config, service: Service, limits: Limits | None = None) -> TelegramBot:
    """The application with its handlers, ready to run."""
    if not cfg.telegram_token:
        raise SystemExit("TELEGRAM_TOKEN is not set")
    builder: Any = ApplicationBuilder().token(cfg.telegram_token).concurrent_updates(True)
    if http_client() == "aiohttp":
        from .request import AiohttpRequest

        builder = builder.request(AiohttpRequest(connection_pool_size=POOL_SIZE)) \
            .get_updates_request(AiohttpRequest(connection_pool_size=1))
    base = api_base(cfg.telegram_base_url)
    if base:
        builder = builder.base_url(base).base_file_url(base.rsplit("/bot", 1)[0] + "/file/bot")
    holder: dict[str, TelegramBot] = {}

    async def post_init(app: Application) -> None:
        await holder["bot"].post_init(app)

    async def post_stop(app: Application) -> None:
        await holder["bot"].post_stop(app)

    app = builder.post_init(post_init).post_stop(post_stop).build()
    holder["bot"] = TelegramBot(service, app, limits)
    return holder["bot"]


def http_client() -> str:
    """``TELEGRAM_HTTP_CLIENT``: ``aiohttp`` (the default) or ``httpx`` (PTB's own backend)."""
    import os

    name = os.environ.get("TELEGRAM_HTTP_CLIENT", "aiohttp").strip().lower()
    return "httpx" if name == "httpx" else "aiohttp"


def limits_from_env() -> Limits:
    import os

    return Limits(
        per_chat_interval=float(os.environ.get("TELEGRAM_CHAT_INTERVAL", 1.0)),
        group_per_minute=int(os.environ.get("TELEGRAM_GROUP_PER_MINUTE", 20)),
        global_per_second=int(os.environ.get("TELEGRAM_GLOBAL_PER_SECOND", 30)),
    )


def run(cfg: Config) -> int:
    """``stammtisch telegram``: long polling, or a webhook when TELEGRAM_WEBHOOK_URL is set."""
    from ..cli import _service

    service = _service(cfg)
    bot = build(cfg, service, limits_from_env())
    allowed = ["message", "callback_query"]
    if cfg.telegram_webhook_url:
        url = cfg.telegram_webhook_url.rstrip("/")
        path = url.rsplit("/", 1)[-1] if url.count("/") > 2 else "telegram"
        bot.app.run_webhook(listen=cfg.telegram_webhook_listen, port=cfg.telegram_webhook_port,
                            url_path=path, webhook_url=url,
                            secret_token=cfg.telegram_webhook_secret,
                            allowed_updates=allowed)
    else:
        bot.app.run_polling(allowed_updates=allowed, poll_interval=0.0, timeout=10)
    return 0
