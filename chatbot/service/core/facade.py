"""``Service``: the use cases of the bot over one database, as the adapters call them.

Every input runs in one transaction (``transaction``) that locks its chat and table; a
repeated update id is ignored; a stale or foreign press changes nothing and gets a short
answer. The work itself lives in the layers below (see the package's docstring) and in the
features the service is given (``registry``): a command is looked up in the registry, a press
goes to ``router``, what is due to ``Ticking`` (``tick``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from storage.db import aware, utcnow
from storage.models import Chat, GameTable, Player

from ... import buttons
from ...i18n import DEFAULT_LANGUAGE, pick_language, tr
from ...runtime import metrics
from . import cpu, languages, outgoing, personal, play, records, router
from .api import Change, ChatRef, Outcome, PressInput, Refusal, Settings, UserRef
from .basics import BASICS
from .deadlines import Deadlines
from .events import PersonSeen
from .flood import Flood, Verdict
from .queries import Queries
from .reads import Reads
from .registry import Feature, Parts, PressPolicy, Registry
from .ticking import Ticking
from .transaction import Ctx, Transactions

log = logging.getLogger(__name__)
_TRIES = 2  # an input that meets a unique-key race runs once more (it then sees the winner)


class Service(Reads, Ticking, Parts):
    """The use cases of the bot, over one database, with the features it is given (the
    core's ``BASICS`` always first)."""

    def __init__(self, engine: Engine, settings: Settings | None = None,
                 clock: Callable[[], datetime] = utcnow,
                 features: Sequence[Feature] = ()) -> None:
        self.engine = engine
        self.settings = settings or Settings()
        self.clock = clock
        self.registry = Registry((BASICS, *features))
        # Told after each commit with effects (outbox rows, deadlines): adapters wake their
        # outbox sender and arm the deadlines. Called on the thread that ran the input.
        self.listeners: list[Callable[[list[Change]], None]] = []
        self.tx = Transactions(engine)
        self.decisions = cpu.Decisions(self.settings)
        self.deadlines = Deadlines(self)
        self.queries = Queries(self.tx)
        self._ran: dict[str, float] = {}  # a scheduled step's name → when it last ran here
        self.flood = Flood(self.settings.input_rate) if self.settings.input_rate else None

    def ctx(self, session: Session, platform: str, lang: str, **kwargs: Any) -> Ctx:
        """An input's context in ``session`` (``now``: the service's clock unless given)."""
        now = kwargs.pop("now", None) or self.clock()
        return Ctx(session, platform, lang, now, self.settings, self.decisions, self.registry,
                   **kwargs)

    # ------------------------------------------------------------------ inputs
    @contextmanager
    def _input(self, chat_ref: ChatRef, user: UserRef | None,
               update_key: str | None) -> Iterator[tuple[Ctx, Any, Player | None] | None]:
        """An input's transaction with its context, chat and person; ``None`` when the
        update was handled before."""
        with self.tx.tx() as session:
            now = self.clock()
            if self.tx.seen(session, chat_ref.platform, update_key, now):
                yield None
                return
            chat, player = records.chat_and_player(session, chat_ref, user, now)
            lang = pick_language(chat.language, user.language if user else None,
                                 self.settings.default_language)
            if player is not None and player.language is None and user is not None \
                    and user.language is None:  # the platform says none (Matrix): this
                player.language = lang  # chat's (the time zone of quiet hours follows it)
            group = chat.kind == "group"
            ctx = self.ctx(session, chat_ref.platform, lang, now=now,
                           input_chat=chat_ref.external_id,
                           thread=chat_ref.thread if group else None,
                           thread_name=chat_ref.thread_name if group else None)
            if player is not None and chat.kind == "group":  # (private inputs: nothing)
                records.note_member(session, chat, player, now)
                if self.registry.bus.listens(PersonSeen):
                    ctx.publish(PersonSeen(chat, player))
            languages.seed_language(ctx, chat, player)
            yield ctx, chat, player

    def _run(self, chat_ref: ChatRef, user: UserRef | None, update_key: str | None,
             work: Callable[[Ctx, Any, Any], Outcome], repeated: Outcome,
             kind: str | None = None) -> Outcome:
        """Run an input: refusals change nothing; a unique-key race is run once more. An
        input of a ``kind`` is counted in the metrics with what came of it and its time."""
        started, result = time.perf_counter(), "error"
        try:
            for attempt in range(_TRIES):
                try:
                    with self._input(chat_ref, user, update_key) as got:
                        if got is None:
                            result = "duplicate"
                            return repeated
                        ctx, chat, player = got
                        out = work(ctx, chat, player)
                except Refusal as exc:
                    result = "stale" if isinstance(exc, play.Stale) else "refused"
                    return Outcome(exc.text, ok=False, alert=exc.alert)
                except IntegrityError:
                    if attempt + 1 == _TRIES:
                        raise
                    log.info("input in %s met a concurrent insert; running it again",
                             chat_ref.external_id)
                    continue
                self.notify(ctx)
                result = "ok" if out.ok else "refused"
                return out
            raise AssertionError("unreachable")
        finally:
            if kind is not None:
                metrics.observe_input(chat_ref.platform, kind, result,
                                      time.perf_counter() - started)

    def command(self, chat_ref: ChatRef, user: UserRef, name: str, args: str = "",
                update_key: str | None = None, answer_to: str | None = None) -> Outcome:
        """A command by any of its names (``registry``), with the words after it
        (``answer_to``: its message, which the answers in its chat reply to)."""
        held = self._held(chat_ref, user, (chat_ref.external_id, name, args.strip()))
        if held is not None:
            return held
        declared = self.registry.command(name)
        words = args.strip()

        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            ctx.answer_to = answer_to
            if declared is None:
                return Outcome(tr(ctx.lang, "unknown_command"), ok=False)
            sub = self.registry.subcommand(declared.name, words)
            if sub is not None and (sub.where == "anywhere" or sub.where == chat.kind):
                return sub.run(ctx, chat, player, user, words)
            if not declared.offered_in(chat.kind):
                raise Refusal(tr(ctx.lang, declared.elsewhere or f"{declared.where}_only"),
                              alert=False)
            return declared.run(ctx, chat, player, user, words)
        return self._run(chat_ref, user, update_key, work, Outcome(None, ok=True), "command")

    def command_words(self) -> dict[str, str]:
        """Every name a command of this service is typed by → the command's name."""
        return {typed: c.name for typed, c in self.registry.commands.items()}

    def asks_admin(self, name: str, words: str) -> bool:
        """Whether an adapter asks the platform for the person's rights before the command
        ``name`` runs with ``words`` (declared with the command)."""
        return self.registry.asks_admin(name, words)

    def press_policy(self, data: str | buttons.Press | None) -> PressPolicy:
        """How an adapter handles a press before the service decides it (ask for the
        presser's rights, think first, may share a transaction): one policy, declared with
        each button (``registry.Button``). Data that is no button: the plain policy."""
        press = _decoded(data)
        return PressPolicy() if press is None else self.registry.policy(press.table_id,
                                                                         press.code)

    def think(self, chat_ref: ChatRef, user: UserRef,
              data: str | buttons.Press | None) -> Any:
        """What a press's button thinks before its transaction and outside it (a ⏩ skip's
        play-out, the coach's advice): an adapter calls it where waiting is harmless (a
        thinking thread) and passes the result to ``press`` as ``plan``. ``None``: the button
        thinks nothing."""
        press = _decoded(data)
        if press is None:
            return None
        button = self.registry.button(press.table_id, press.code)
        if button is None or button.think is None:
            return None
        return button.think(self, chat_ref, user, press)

    def press(self, chat_ref: ChatRef, user: UserRef, data: str | buttons.Press | None,
              update_key: str | None = None, plan: Any = None) -> Outcome:
        """A button press with its (untrusted) data, or the press an adapter decoded from it
        (``buttons.decode``: the data is parsed once). A button that thinks first
        (``press_policy``) has ``think`` run here, unless the adapter did (``plan``)."""
        held = self._held(chat_ref, user, None)
        if held is not None:
            return held
        lang = pick_language(None, user.language, self.settings.default_language)
        press = _decoded(data)
        if press is None:
            metrics.observe_input(chat_ref.platform, "press", "stale", 0.0)
            return Outcome(tr(lang, "stale_button"), ok=False, alert=True)
        if plan is None:
            plan = self.think(chat_ref, user, press)

        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            ctx.plan = plan
            return router.route(ctx, chat, player, user, press)
        return self._run(chat_ref, user, update_key, work,
                         Outcome(tr(lang, "already_handled"), ok=True), "press")

    def press_many(self, presses: list[PressInput]) -> list[Outcome | BaseException]:
        """Several button presses (chat, user, data, update key) in one transaction, each in
        a savepoint of its own: a refused or failing press changes nothing and the others
        still count; one commit for all (on SQLite most of an input's cost is its commit and
        transaction set-up). Returns each press's outcome, or the exception it raised.
        Listeners hear of the changes after the commit; if the commit fails, it raises and
        none of the presses counted."""
        if len(presses) == 1:
            try:
                return [self.press(*presses[0])]
            except Exception as exc:
                return [exc]
        results: list[Outcome | BaseException] = []
        with self.tx.batched() as batch:
            for chat_ref, user, data, key in presses:
                try:
                    results.append(self.press(chat_ref, user, data, key))
                except Exception as exc:  # (rolled back to its savepoint)
                    results.append(exc)
        self._tell(list(batch.touched.values()), batch.think_ahead)
        return results

    def _held(self, chat_ref: ChatRef, user: UserRef,
              command: tuple[str, ...] | None) -> Outcome | None:
        """The answer to an input held back by flood control (``None``: go on)."""
        if self.flood is None:
            return None
        verdict = self.flood.check(chat_ref.platform, user.external_id, command)
        if verdict is Verdict.OK:
            return None
        metrics.observe_input(chat_ref.platform, "press" if command is None else "command",
                              "refused", 0.0)  # (held back by flood control)
        if verdict is Verdict.SLOW_DOWN:
            lang = pick_language(None, user.language, self.settings.default_language)
            log.info("%s %s: over the input rate", chat_ref.platform, user.external_id)
            return Outcome(tr(lang, "slow_down"), ok=False, alert=True)
        return Outcome(None, ok=False)  # a repeat, or quiet after "slow down"

    def reply(self, chat_ref: ChatRef, text: str, reply_to: str | None = None) -> None:
        """Queue a plain message to a chat (e.g. the answer to a refused command; with
        ``reply_to`` as the answer to that message: ``"<id>"`` or ``"<thread root> <id>"``)."""
        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            outgoing.say(ctx, chat, text, reply_to=reply_to)
            return Outcome(None)
        self._run(chat_ref, None, None, work, Outcome(None))

    def forget_private_chat(self, platform: str, chat_external_id: str) -> None:
        """The user blocked us or never started us: stop sending private views there."""
        with self.tx.tx() as session:
            for player in session.exec(select(Player).where(
                    Player.platform == platform,
                    Player.private_chat_id == chat_external_id)).all():
                player.private_chat_id = None

    def chat_no_longer_private(self, platform: str, chat_external_id: str) -> list[str]:
        """A direct chat gained more people (a Matrix direct room a third member joined): it
        is a group from now on. Private views stop going there and a private game in it is
        closed (its view keeps no hand); the private views queued for it and not yet sent
        are dropped. Returns the external ids of the people whose private
        chat it was (the adapter opens a new direct chat for them)."""
        with self.tx.tx() as session:
            chat = session.exec(select(Chat).where(
                Chat.platform == platform, Chat.external_id == chat_external_id)).first()
            if chat is None or chat.kind != "private":
                return []
            chat.kind = "group"
            ctx = self.ctx(session, platform, languages.language_of(chat, self.settings))
            outgoing.withdraw_private_views(ctx, chat)  # (a hand queued for one is not sent)
            people = []
            for player in session.exec(select(Player).where(
                    Player.platform == platform,
                    Player.private_chat_id == chat_external_id)).all():
                player.private_chat_id = None
                people.append(player.external_id)
            table_id = records.open_table(session, chat)
            table = records.lock_table(session, table_id) if table_id is not None else None
            if table is not None and table.is_private:
                play.stop_table(ctx, table)
        self.notify(ctx)
        return people

    def thread_gone(self, platform: str, chat_external_id: str, thread: str,
                    closed: bool = False) -> list[int]:
        """A chat's topic or thread takes no more messages (a Telegram forum topic closed or
        deleted; ``closed``: known to be closed, from Telegram's service message): its open
        tables end (abandoned; their players are told privately) and what was still to go
        there is dropped - nothing is tried again. Returns the ended tables."""
        with self.tx.tx() as session:
            chat = session.exec(select(Chat).where(
                Chat.platform == platform, Chat.external_id == chat_external_id)).first()
            if chat is None:
                return []
            ctx = self.ctx(session, platform, languages.language_of(chat, self.settings))
            ended = []
            for table in records.open_tables_in(session, chat, thread):
                play.thread_gone(ctx, table, closed)
                ended.append(table.id)
            if chat.kind == "private":  # a long table's own topic: its table plays on
                personal.private_topic_gone(ctx, chat, thread)
            dropped = outgoing.drop_thread(ctx, chat, thread)
        log.info("%s %s: thread %s gone; tables %s ended, %d messages dropped", platform,
                 chat_external_id, thread, ended, dropped)
        self.notify(ctx)
        return ended  # type: ignore[return-value]

    def thread_named(self, chat_ref: ChatRef, update_key: str | None = None) -> None:
        """A chat's topic or thread was named or renamed (``chat_ref.thread_name``; a Telegram
        forum topic's service message): its open tables are named by it from now on."""
        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            for table in records.open_tables_in(ctx.session, chat, chat_ref.thread or ""):
                records.set_options(table, records.options(table).but(
                    thread_name=chat_ref.thread_name))
            return Outcome(None)
        if chat_ref.thread and chat_ref.thread_name:
            self._run(chat_ref, None, update_key, work, Outcome(None))

    # ------------------------------------------------------------------ after a commit
    def notify(self, ctx: Ctx | None) -> None:
        touched = {} if ctx is None else ctx.touched
        ahead = set() if ctx is None else ctx.think_ahead
        batch = self.tx.batch
        if batch is not None:  # told once the batch has committed
            batch.touched.update(touched)
            batch.think_ahead |= ahead
            return
        self._tell(list(touched.values()), ahead)

    def decision_load(self) -> float:
        """The load factor of a CPU decision (see ``cpu.Decisions.load``)."""
        return self.decisions.load()

    def _tell(self, tables: list[GameTable], ahead: set[int] | frozenset[int] = frozenset()
              ) -> None:
        """Tell the listeners which tables a commit changed (new version, next deadline);
        start the decisions of the CPUs that think during their visible delay (``ahead``)."""
        now = self.clock()
        for t in tables:
            if (t.id in ahead and t.deadline_kind == "cpu" and t.next_deadline is not None
                    and aware(t.next_deadline) > now):
                self.deadlines.think_ahead(t.id, t.version)  # type: ignore[arg-type]
        changes = [Change(t.id, t.version, t.next_deadline) for t in tables]  # type: ignore[arg-type]
        for listener in self.listeners:
            try:
                listener(changes)
            except Exception:  # a listener must never break an input
                log.exception("listener failed")

    def resend(self, table_id: int) -> None:
        """Queue the table's views again (e.g. when a console resumes a table)."""
        with self.tx.tx() as session:
            table = session.get(GameTable, table_id)
            if table is None:
                return
            chat = records.get_chat(session, table.chat_id)
            ctx = self.ctx(session, chat.platform if chat else "?",
                           languages.language_of(chat, self.settings, session))
            play.show(ctx, table)
        self.notify(ctx)


def _decoded(data: str | buttons.Press | None) -> buttons.Press | None:
    """The press a button's (untrusted) data makes, or the press an adapter decoded already;
    ``None``: no button of ours."""
    if isinstance(data, buttons.Press):
        return data
    try:
        return buttons.decode(data)
    except buttons.BadButton:
        return None


__all__ = ["DEFAULT_LANGUAGE", "Service"]
