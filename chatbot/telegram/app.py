"""The Telegram adapter: python-telegram-bot handlers that delegate to the service.

Updates become service calls (on SQLite on the event loop, elsewhere on a few threads; a CPU
that must think does so on a worker thread); polled button presses come raw from ``leanbot``.
Answers to button presses are short alerts; everything else the bot says goes through the
outbox and the rate-limited sender. Deadlines from the database are armed as JobQueue
(APScheduler) jobs after each commit (one that is already due fires at once) and swept every
couple of seconds, so a restart loses none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, TypeVar

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
from ..heap import freeze_startup_heap
from ..i18n import pick_language, tr
from ..outbox import OutboxStore
from ..service import Change, ChatRef, Outcome, Service, UserRef
from .leanbot import LeanBot, TrackingUpdateProcessor, press_fields
from .sender import Limits, OutboxSender, TelegramTransport, raw_call

log = logging.getLogger(__name__)
PLATFORM = "telegram"
COMMANDS = ("start", "help", "rules", "language", "new", "stop")
MANAGE_CODES = ("start", "stop", "kick", "fill", "clock", "cur", "opt", "lvl")
SWEEP_SECONDS = 2.0
POOL_SIZE = 256  # concurrent Bot API calls (answers and outbox deliveries), as PTB's default
MAX_PRESSES = 256  # button presses handled at once on the raw path (as PTB's concurrent updates)
PRESS_BATCH = 16  # polled presses sharing one SQLite transaction (a bigger batch goes in parts)
T = TypeVar("T")

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
        # Where the inputs' database work runs (see ``_db``): the event loop itself on SQLite
        # (``run`` moves its WAL checkpoints to a thread of their own), a few threads elsewhere.
        # A CPU turn that may think (Experte) runs on a worker thread.
        sqlite = service.engine.dialect.name == "sqlite"
        self.db = None if sqlite else ThreadPoolExecutor(4, thread_name_prefix="stammtisch-db")
        self.store = OutboxStore(service.engine, PLATFORM)
        self.transport = TelegramTransport(app.bot, on_forbidden=self._forbidden)
        self.sender = OutboxSender(self.store, self.transport, limits, run=self._db)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._jobs: dict[int, Any] = {}  # table id -> its armed deadline job
        self._tasks: set[asyncio.Task] = set()  # raw presses and deadlines fired at once
        self._press_slots = asyncio.Semaphore(MAX_PRESSES)
        self._polled: list[tuple[ChatRef, UserRef, dict[str, Any]]] = []  # presses to batch
        service.listeners.append(self._on_commit)
        if isinstance(app.bot, LeanBot):
            app.bot.set_raw_handler(self._raw_update)
        app.add_handler(CommandHandler(list(COMMANDS), self.on_command))
        app.add_handler(CallbackQueryHandler(self.on_press))
        app.add_handler(MessageHandler(filters.COMMAND, self.on_unknown_command))
        app.add_handler(MessageHandler(filters.TEXT & filters.ChatType.PRIVATE, self.on_text))
        app.add_error_handler(self.on_error)

    # ------------------------------------------------------------------ lifecycle
    async def post_init(self, app: Application) -> None:
        self.loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
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
        upcoming = await self._db(self.service.next_deadlines)
        self._arm([Change(t, v, when) for t, v, when in upcoming])
        log.info("telegram bot @%s ready (Bot API client: %s); %d start-up objects frozen",
                 username, http_client(), freeze_startup_heap())

    async def post_stop(self, app: Application) -> None:
        if self._tasks:  # raw presses and due deadlines finish before the sender stops
            await asyncio.wait(list(self._tasks), timeout=10)
        await self.sender.stop()
        if self.db is not None:
            self.db.shutdown(wait=False)

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run an input's database work: on SQLite right here on the event loop (a few
        hundred microseconds; handing it to a thread would cost more than it takes), on other
        databases on the inputs' threads (they wait on the network)."""
        if self.db is None:
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.db, functools.partial(fn, *args, **kwargs))

    # ------------------------------------------------------------------ deadlines
    def _on_commit(self, changes: list[Change]) -> None:
        """Called on a worker thread after each commit: wake the sender, arm deadlines."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self._loop_thread:
            loop.call_soon(self._committed, changes)
        else:
            loop.call_soon_threadsafe(self._committed, changes)

    def _committed(self, changes: list[Change]) -> None:
        self.sender.wake.set()
        if changes:
            self._arm(changes)

    def _arm(self, changes: list[Change]) -> None:
        """(Re)arm each changed table's deadline: one JobQueue job per table; a deadline that
        is already due (a CPU turn without delay) fires straight away."""
        jq = self.app.job_queue
        now = datetime.now(UTC)
        for change in changes:
            old = self._jobs.pop(change.table_id, None)
            if old is not None:
                old.schedule_removal()
            if change.deadline is None:
                continue
            when = change.deadline if change.deadline.tzinfo else \
                change.deadline.replace(tzinfo=UTC)
            if when <= now:
                self._track(self._fire(change.table_id, change.version))
                continue
            self._jobs[change.table_id] = jq.run_once(
                self._deadline_job, when=when, name=f"deadline:{change.table_id}",
                data=(change.table_id, change.version))

    def _track(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _fire(self, table_id: int, version: int) -> None:
        try:
            await self._fire_due(table_id, version)
        except Exception:  # the sweep finds the deadline again
            log.exception("table %s: deadline failed", table_id)

    async def _fire_due(self, table_id: int, version: int) -> None:
        """Fire a deadline where inputs run; a CPU that must think first does so on a worker
        thread (it may take a second, and the loop goes on meanwhile)."""
        if await self._db(self.service.fire_due, table_id, version, may_think=False) is None:
            await asyncio.to_thread(self.service.fire_due, table_id, version)

    async def _deadline_job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        table_id, version = context.job.data  # type: ignore[union-attr,misc]
        job = self._jobs.get(table_id)
        if job is not None and job is context.job:
            del self._jobs[table_id]
        await self._fire_due(table_id, version)

    async def _sweep(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Overdue deadlines (after a restart, or a missed job) are fired here, once."""
        for table_id, version in await self._db(self.service.due):
            await self._fire_due(table_id, version)

    def _forbidden(self, chat: str) -> None:
        if not chat.startswith("-"):
            self.service.forget_private_chat(PLATFORM, chat)

    # ------------------------------------------------------------------ updates
    @staticmethod
    def _refs(update: Update, is_admin: bool = False) -> tuple[ChatRef, UserRef]:
        chat, user = update.effective_chat, update.effective_user
        assert chat is not None and user is not None
        return refs(chat.id, chat.type, chat.title, user.id, user.first_name, user.last_name,
                    user.username, user.language_code, is_admin)

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
        outcome = await self._db(self.service.command, chat_ref, user, name, args,
                                 str(update.update_id))
        if outcome.text:
            await self._db(self.service.reply, chat_ref, outcome.text)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or update.effective_user is None or update.effective_chat is None:
            if query is not None:
                await query.answer()
            return
        admin = _code(query.data or "") in MANAGE_CODES and await self._is_admin(update)
        chat_ref, user = self._refs(update, admin)
        await self._press(chat_ref, user, query.data or "", update.update_id, query.id)

    async def _press(self, chat_ref: ChatRef, user: UserRef, data: str, update_id: int,
                     query_id: str) -> None:
        """A button press, from either path: the service decides, the press is answered."""
        try:
            outcome = await self._db(self.service.press, chat_ref, user, data, str(update_id))
        finally:
            if isinstance(self.app.bot, LeanBot):  # committed: the update may be confirmed
                self.app.bot.finished(update_id)
        await self._answer(query_id, outcome)

    async def _answer(self, query_id: str, outcome: Outcome) -> None:
        text = (outcome.text or "")[:200] or None
        try:
            await raw_call(self.app.bot, "answerCallbackQuery", {
                "callback_query_id": query_id, "text": text,
                "show_alert": (outcome.alert and bool(text)) or None})
        except Exception as exc:  # a too-old query cannot be answered; the press still counts
            log.info("table %s: could not answer callback: %s", outcome.table_id, exc)

    @staticmethod
    def _plain_press(raw: dict[str, Any]) -> tuple[ChatRef, UserRef, dict[str, Any]] | None:
        """A raw update that is a plain button press (one that needs no admin check): who
        pressed where, and the press's fields; ``None`` for anything else."""
        fields = press_fields(raw)
        if fields is None:
            return None
        if _code(fields["data"]) in MANAGE_CODES and fields["chat_type"] != ChatType.PRIVATE:
            return None
        chat_ref, user = refs(fields["chat_id"], fields["chat_type"], fields["chat_title"],
                              fields["user_id"], fields["first_name"], fields["last_name"],
                              fields["username"], fields["language_code"])
        return chat_ref, user, fields

    def _raw_update(self, raw: dict[str, Any]) -> bool:
        """The polling bot's raw first look (see ``leanbot``): take a plain button press;
        everything else goes the PTB way."""
        press = self._plain_press(raw)
        if press is None:
            return False
        chat_ref, user, fields = press
        if self.db is not None:  # other databases: each press on an input thread
            self._track(self._raw_press(chat_ref, user, fields))
            return True
        if not self._polled:  # once the polled batch has been looked at
            asyncio.get_running_loop().call_soon(self._flush_polled)
        self._polled.append((chat_ref, user, fields))
        return True

    def _flush_polled(self) -> None:
        polled, self._polled = self._polled, []
        if len(polled) == 1:
            self._track(self._raw_press(*polled[0]))
        elif polled:
            self._track(self._raw_presses(polled))

    async def _raw_presses(self, polled: list[tuple[ChatRef, UserRef, dict[str, Any]]]) -> None:
        """Presses polled together, on SQLite: up to ``PRESS_BATCH`` share a transaction
        (``press_many``); each part is answered as soon as it is committed."""
        answers: list[asyncio.Future[None]] = []
        for start in range(0, len(polled), PRESS_BATCH):
            if start:
                await asyncio.sleep(0)  # the previous part's answers go out first
            part = polled[start:start + PRESS_BATCH]
            outcomes: list[Outcome | BaseException]
            try:
                outcomes = self.service.press_many(
                    [(chat_ref, user, f["data"], str(f["update_id"]))
                     for chat_ref, user, f in part])
            except Exception as exc:  # the commit failed: none of them counted
                outcomes = [exc] * len(part)
            finally:
                if isinstance(self.app.bot, LeanBot):  # committed: they may be confirmed
                    for _chat, _user, f in part:
                        self.app.bot.finished(f["update_id"])
            for (_chat, _user, f), outcome in zip(part, outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    outcome = self._failed(f, outcome)
                answers.append(asyncio.ensure_future(self._answer(f["query_id"], outcome)))
        await asyncio.gather(*answers)

    @staticmethod
    def _failed(fields: dict[str, Any], exc: BaseException) -> Outcome:
        """Log a press that failed (with its table id); the short answer it gets."""
        log.error("table %s: update %s failed: %s", _table(fields["data"]),
                  fields["update_id"], exc, exc_info=exc)
        return Outcome("⚠️", ok=False, alert=False)

    async def _raw_press(self, chat_ref: ChatRef, user: UserRef, fields: dict[str, Any]) -> None:
        async with self._press_slots:
            try:
                await self._press(chat_ref, user, fields["data"], fields["update_id"],
                                  fields["query_id"])
            except Exception as exc:
                await self._answer(fields["query_id"], self._failed(fields, exc))

    async def handle_update(self, raw: dict[str, Any]) -> None:
        """One update from the webhook, handled to the end (committed, press answered) before
        this returns: a plain button press the raw way, everything else through PTB."""
        press = self._plain_press(raw)
        if press is not None:
            await self._raw_press(*press)
            return
        update = Update.de_json(raw, self.app.bot)
        if update is None:
            return
        self.app.bot.insert_callback_data(update)  # type: ignore[attr-defined]
        await self.app.process_update(update)

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
        await self._db(self.service.reply, chat_ref, tr(lang, "unknown_command"))

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Plain text in a private chat: a short pointer to the commands."""
        if update.effective_user is None or update.effective_chat is None:
            return
        chat_ref, user = self._refs(update)
        lang = pick_language(None, user.language, self.service.settings.default_language)
        await self._db(self.service.reply, chat_ref, tr(lang, "unknown_command"))

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("update %s failed: %s", getattr(update, "update_id", "?"), context.error,
                  exc_info=context.error)
        if isinstance(update, Update) and update.callback_query is not None:
            with contextlib.suppress(Exception):
                await update.callback_query.answer("⚠️", show_alert=False)


def _code(data: str) -> str:
    """The code part of button data (``v1:<table>:<version>:<code>[.<arg>]``)."""
    return data.split(":", 3)[-1].split(".")[0]


def _table(data: str) -> str:
    """The table id in button data, for logs ("?" if the data names none)."""
    parts = data.split(":", 3)
    return parts[1] if len(parts) == 4 and parts[1].isdigit() else "?"


def refs(chat_id: int, chat_type: str | None, title: str | None, user_id: int,
         first_name: str | None, last_name: str | None, username: str | None,
         language: str | None, is_admin: bool = False) -> tuple[ChatRef, UserRef]:
    """The service's view of who wrote where."""
    kind = "private" if chat_type == ChatType.PRIVATE else "group"
    name = " ".join(p for p in (first_name, last_name) if p) or str(user_id)
    return (ChatRef(PLATFORM, str(chat_id), kind, title),
            UserRef(str(user_id), name[:64], username, language, is_admin))


def build(cfg: Config, service: Service, limits: Limits | None = None) -> TelegramBot:
    """The application with its handlers, ready to run."""
    if not cfg.telegram_token:
        raise SystemExit("TELEGRAM_TOKEN is not set")
    request: Any
    client = http_client()
    if client == "lean":
        from .leanhttp import LeanRequest

        request, polling = LeanRequest(POOL_SIZE), LeanRequest(1)
    elif client == "aiohttp":
        from .request import AiohttpRequest

        request, polling = AiohttpRequest(POOL_SIZE), AiohttpRequest(1)
    else:
        from telegram.request import HTTPXRequest

        request, polling = HTTPXRequest(POOL_SIZE), HTTPXRequest(1)
    base = api_base(cfg.telegram_base_url)
    urls = {"base_url": base, "base_file_url": base.rsplit("/bot", 1)[0] + "/file/bot"} \
        if base else {}
    bot = LeanBot(cfg.telegram_token, request=request, get_updates_request=polling, **urls)
    builder: Any = ApplicationBuilder().bot(bot).concurrent_updates(
        TrackingUpdateProcessor(bot, MAX_PRESSES))
    holder: dict[str, TelegramBot] = {}

    async def post_init(app: Application) -> None:
        await holder["bot"].post_init(app)

    async def post_stop(app: Application) -> None:
        await holder["bot"].post_stop(app)

    app = builder.post_init(post_init).post_stop(post_stop).build()
    holder["bot"] = TelegramBot(service, app, limits)
    return holder["bot"]


def http_client() -> str:
    """``TELEGRAM_HTTP_CLIENT``: ``lean`` (the default, ``leanhttp``), ``aiohttp``, or
    ``httpx`` (PTB's own backend; the one to pick for a proxy)."""
    import os

    name = os.environ.get("TELEGRAM_HTTP_CLIENT", "lean").strip().lower()
    return name if name in ("aiohttp", "httpx") else "lean"


def limits_from_env() -> Limits:
    import os

    return Limits(
        per_chat_interval=float(os.environ.get("TELEGRAM_CHAT_INTERVAL", 1.0)),
        group_per_minute=int(os.environ.get("TELEGRAM_GROUP_PER_MINUTE", 20)),
        global_per_second=int(os.environ.get("TELEGRAM_GLOBAL_PER_SECOND", 30)),
    )


def run(cfg: Config) -> int:
    """``stammtisch telegram``: long polling, or a webhook when TELEGRAM_WEBHOOK_URL is set."""
    from ..wiring import build_service

    service = build_service(cfg, background_checkpoints=True)
    bot = build(cfg, service, limits_from_env())
    allowed = ["message", "callback_query"]
    if cfg.telegram_webhook_url:  # Telegram's POST is answered once the update is handled
        from .webhook import serve

        asyncio.run(serve(bot, cfg, allowed))
    else:
        bot.app.run_polling(allowed_updates=allowed, poll_interval=0.0, timeout=10)
    return 0
