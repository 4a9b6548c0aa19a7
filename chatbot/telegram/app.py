"""The Telegram adapter: python-telegram-bot handlers that delegate to the service.

Updates become service calls (on SQLite on the event loop, elsewhere on a few threads; a CPU
that must think does so on a worker thread). Every update goes through PTB's ``Update`` and its
handlers; button presses that arrive together share SQLite transactions (``presses``), and an
update is confirmed to Telegram only once it is handled (``polling``, ``webhook``).
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
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC
from typing import Any, TypeVar

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from storage.keyvalue import get_value, put_value

from .. import buttons
from ..delivery import OutboxStore
from ..i18n import pick_language, tr
from ..runtime.heap import freeze_startup_heap
from ..service import Change, ChatRef, Outcome, PressPolicy, Service, UserRef
from ..webapp.links import direct_link, start_link
from .command_menu import command_menus, command_names
from .inline import InlineMode, chat_of_press, note_me
from .limits import Limits
from .polling import ConfirmingBot
from .presses import PressBatch
from .rights import ChatAdmins
from .sender import OutboxSender, TelegramTransport
from .topics import ForumTopics
from .updates import PLATFORM, migration, newest, refs, too_old, topic_name, topic_of

log = logging.getLogger(__name__)
NEWEST_KEY = "telegram:newest_update"  # key_value: the newest update id fetched, and when
SWEEP_SECONDS = 2.0
THINKING_AT_ONCE = 64  # deadlines waiting at once for a CPU that thinks
T = TypeVar("T")



class TelegramBot:
    """Wires the service into a python-telegram-bot Application."""

    def __init__(self, service: Service, app: Application, limits: Limits | None = None,
                 client: str = "aiohttp") -> None:
        self.service, self.app, self.client = service, app, client
        self.short_name: str | None = None  # the Mini App's short name (WEBAPP_SHORT_NAME)
        # Where the inputs' database work runs (see ``_db``): the event loop itself on SQLite
        # (``run`` moves its WAL checkpoints to a thread of their own), a few threads elsewhere.
        # A CPU turn that may think (Experte) runs on a worker thread.
        sqlite = service.engine.dialect.name == "sqlite"
        self.db = None if sqlite else ThreadPoolExecutor(4, thread_name_prefix="stammtisch-db")
        self.store = OutboxStore(service.engine, PLATFORM, clock=service.clock)
        self.transport = TelegramTransport(app.bot, on_forbidden=self._forbidden,
                                           on_thread_gone=self._thread_gone,
                                           on_chat_moved=self._chat_moved)
        self.admins = ChatAdmins(app.bot, lambda: service.clock().timestamp())
        # The sender's database work has a thread of its own on PostgreSQL: queued behind a
        # flood of inputs, a pass could outlast its lease (and another process send again).
        self._sender_db = None if sqlite else ThreadPoolExecutor(
            1, thread_name_prefix="stammtisch-outbox")
        self.sender = OutboxSender(self.store, self.transport, limits, run=self._sender_run)
        # Deadlines whose CPU thinks first wait for their decision on threads of their own
        # (the thinking itself runs in the service's process pool): asyncio's default pool
        # stays free for the rest (DNS lookups, the sweeps).
        self._thinkers = ThreadPoolExecutor(THINKING_AT_ONCE, thread_name_prefix="stammtisch-think")
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._jobs: dict[int, Any] = {}  # table id -> its armed deadline job
        self._tasks: set[asyncio.Task] = set()  # deadlines fired at once
        self.presses = PressBatch(service) if sqlite else None  # presses sharing transactions
        self._before_start: tuple[int, float] | None = None  # NEWEST_KEY as the last run left it
        self._saved_newest: tuple[int, float] | None = None
        service.listeners.append(self._on_commit)
        app.add_handler(CommandHandler(command_names(service), self.on_command))
        app.add_handler(CallbackQueryHandler(self.on_press))
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.on_migrate))
        app.add_handlers(ForumTopics(service, self.transport, self._db).handlers())
        app.add_handlers(InlineMode(service, self._db, service.settings.webapp_page).handlers())
        app.add_handler(MessageHandler(filters.COMMAND, self.on_unknown_command))
        app.add_handler(MessageHandler(filters.TEXT & filters.ChatType.PRIVATE, self.on_text))
        app.add_error_handler(self.on_error)

    # ------------------------------------------------------------------ lifecycle
    async def post_init(self, app: Application) -> None:
        self.loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        me = await app.bot.get_me()
        username = me.username
        note_me(self.service.settings, me)  # inline mode, topics in private chats
        self.service.settings.start_link = lambda table_id: f"https://t.me/{username}?start=t{table_id}"
        if self.service.settings.webapp_url:
            self.service.settings.webapp_link = direct_link(username, self.short_name)
            self.service.settings.webapp_start_link = start_link(username, self.short_name)
        for scope, commands, lang in command_menus(self.service):
            await app.bot.set_my_commands(commands, scope=scope, language_code=lang)
        self._before_start = newest(await self._db(get_value, self.service.engine, NEWEST_KEY))
        self.sender.start()
        app.job_queue.run_repeating(self._sweep, interval=SWEEP_SECONDS, first=0.1,
                                    name="deadline-sweep")
        upcoming = await self._db(self.service.next_deadlines)
        self._arm([Change(t, v, when) for t, v, when in upcoming])
        log.info("telegram bot @%s ready (Bot API client: %s); %d start-up objects frozen",
                 username, self.client, freeze_startup_heap())

    async def post_stop(self, app: Application) -> None:
        if self._tasks:  # due deadlines finish before the sender stops
            await asyncio.wait(list(self._tasks), timeout=10)
        await self.sender.stop()
        if self.db is not None:
            self.db.shutdown(wait=False)
        if self._sender_db is not None:
            self._sender_db.shutdown(wait=False)
        self._thinkers.shutdown(wait=False, cancel_futures=True)

    async def _sender_run(self, fn: Callable[..., T], *args: Any) -> T:
        if self._sender_db is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._sender_db, fn, *args)

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
        now = self.service.clock()  # (the tests' clock may run ahead: a delay, not a moment)
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
                self._deadline_job, when=(when - now).total_seconds(), name=f"deadline:{change.table_id}",
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
        """Fire a deadline where inputs run; a CPU that must think first is waited for on a
        thinking thread (it may take a second, and the loop goes on meanwhile), and its move
        is then played where inputs run, like a press: on SQLite a claim from another thread
        would hold the database's write lock against the event loop's own transactions."""
        if await self._db(self.service.fire_due, table_id, version, may_think=False) is not None:
            return
        loop = asyncio.get_running_loop()
        planned = await loop.run_in_executor(self._thinkers, self.service.plan_due,
                                             table_id, version)
        if planned is not None:
            await self._db(self.service.fire_due, table_id, version, planned=planned)
        else:  # not due any more, or the decision failed: the full path decides what is left
            await loop.run_in_executor(self._thinkers, self.service.fire_due, table_id, version)

    async def _deadline_job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        table_id, version = context.job.data  # type: ignore[union-attr,misc]
        job = self._jobs.get(table_id)
        if job is not None and job is context.job:
            del self._jobs[table_id]
        await self._fire_due(table_id, version)

    async def _sweep(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """What the service says is due (``Service.tick``: overdue deadlines after a restart
        or a missed job, every feature's scheduled steps), each where it belongs; then the
        newest update fetched is noted (see ``too_old``)."""
        for due in await self._db(self.service.tick, PLATFORM):
            if due.step is None:
                await self._fire_due(due.table_id, due.version)  # type: ignore[arg-type]
            elif due.step.on_thread:
                await asyncio.to_thread(self.service.run_step, due.step, PLATFORM)
            else:
                await self._db(self.service.run_step, due.step, PLATFORM)
        newest = getattr(self.app.bot, "newest", None)
        if newest is not None and newest != self._saved_newest:
            await self._db(put_value, self.service.engine, NEWEST_KEY,
                           f"{newest[0]} {newest[1]:.3f}")
            self._saved_newest = newest

    def _forbidden(self, chat: str) -> None:
        if not chat.startswith("-"):
            self.service.forget_private_chat(PLATFORM, chat)

    # ------------------------------------------------------------------ updates
    async def _thread_gone(self, chat: str, thread: str) -> None:
        """Telegram refused a message into a closed or deleted forum topic: its table ends."""
        await self._db(self.service.thread_gone, PLATFORM, chat, thread)

    @staticmethod
    def _refs(update: Update, is_admin: bool = False) -> tuple[ChatRef, UserRef]:
        chat, user = update.effective_chat, update.effective_user
        press = update.callback_query
        inline = chat_of_press(press.inline_message_id) if press is not None else None
        if chat is None and inline is not None and user is not None:  # an inline message
            return inline, refs(user.id, None, None, user.id, user.first_name,
                                user.last_name, user.username, user.language_code)[1]
        assert chat is not None and user is not None
        chat_ref, user_ref = refs(chat.id, chat.type, chat.title, user.id, user.first_name,
                                  user.last_name, user.username, user.language_code, is_admin)
        thread = topic_of(bool(chat.is_forum), update.effective_message)
        return (replace(chat_ref, thread=thread, thread_name=topic_name(
            update.effective_message)) if thread else chat_ref), user_ref

    async def _is_admin(self, update: Update) -> bool:
        """Whether the person administers the group (``ChatAdmins``: asked on every use,
        the answer trusted for half a minute)."""
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None or chat.type == ChatType.PRIVATE:
            return False
        return await self.admins.is_admin(chat.id, user.id)

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A basic group became a supergroup (``migrate_to_chat_id`` in the old chat,
        ``migrate_from_chat_id`` in the new one): its tables, evenings and settings move to the
        new id (once, whichever comes first, however often)."""
        message = update.effective_message
        moved = migration(message)
        if moved is not None:
            await self._db(self.service.chat_moved, PLATFORM, *moved,
                           title=message.chat.title if message is not None else None)

    async def _chat_moved(self, old: str, new: str) -> None:
        """Telegram refused a call naming a group's old id (``ChatMigrated``)."""
        await self._db(self.service.chat_moved, PLATFORM, old, new)

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or not message.text or update.effective_user is None:
            return
        name = message.text.split()[0].lstrip("/").split("@")[0].lower()
        args = " ".join(context.args or [])
        admin = self.service.asks_admin(name, args) and await self._is_admin(update)
        chat_ref, user = self._refs(update, admin)
        outcome = await self._db(self.service.command, chat_ref, user, name, args,
                                 str(update.update_id))
        if outcome.text:
            await self._db(self.service.reply, chat_ref, outcome.text)

    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button press: the service decides (on SQLite together with the presses that
        arrived with it), the update counts as handled once that is committed, then the press
        is answered."""
        query = update.callback_query
        if query is None:
            return
        if update.effective_user is None or (update.effective_chat is None
                                             and not query.inline_message_id):
            await query.answer()  # (nothing it could be pressed in)
            return
        data = query.data or ""
        try:  # decoded once, here; the service gets the press (or the data it refuses)
            press: buttons.Press | str = buttons.decode(data)
        except buttons.BadButton:
            press = data
        try:
            policy = self.service.press_policy(press)
            admin = policy.admin and await self._is_admin(update)
            chat_ref, user = self._refs(update, admin)
            outcome = await self._press(chat_ref, user, press, str(update.update_id), policy)
        except Exception as exc:
            outcome = self._failed(press, update.update_id, exc)
        finally:
            if isinstance(self.app.bot, ConfirmingBot):  # committed: it may be confirmed
                self.app.bot.handled(update.update_id)
        if too_old(update.update_id, self._before_start, time.time()):
            log.info("update %s: press applied, not answered (older than Telegram's answer "
                     "window)", update.update_id)
            return
        await self._answer(query.id, outcome)

    async def _press(self, chat_ref: ChatRef, user: UserRef, data: buttons.Press | str,
                     update_key: str, policy: PressPolicy) -> Outcome:
        if policy.thinks:
            # (the coach, ⏩): thought on a thinking thread (the Experte in its pool), then
            # the press runs where inputs run, with what was thought
            plan = await asyncio.get_running_loop().run_in_executor(
                self._thinkers, self.service.think, chat_ref, user, data)
            return await self._db(self.service.press, chat_ref, user, data, update_key, plan)
        if self.presses is not None and policy.batches:
            return await self.presses.press(chat_ref, user, data, update_key)
        return await self._db(self.service.press, chat_ref, user, data, update_key)

    async def _answer(self, query_id: str, outcome: Outcome) -> None:
        text = (outcome.text or "")[:200] or None
        try:
            await self.app.bot.answer_callback_query(
                query_id, text=text, show_alert=(outcome.alert and bool(text)) or None)
        except Exception as exc:  # a too-old query cannot be answered; the press still counts
            log.info("table %s: could not answer callback: %s", outcome.table_id, exc)

    @staticmethod
    def _failed(press: buttons.Press | str, update_id: int, exc: BaseException) -> Outcome:
        """Log a press that failed (with its table id); the short answer it gets."""
        table = press.table_id if isinstance(press, buttons.Press) else "?"
        log.error("table %s: update %s failed: %s", table, update_id, exc, exc_info=exc)
        return Outcome("⚠️", ok=False, alert=False)

    async def handle_update(self, raw: dict[str, Any]) -> None:
        """One update from the webhook, through PTB's handlers to the end (committed, a press
        answered) before this returns."""
        update = Update.de_json(raw, self.app.bot)
        if update is not None:
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
