"""``Service``: the use cases of the bot over one database, as the adapters call them.

Every input runs in one transaction (``transaction``) that locks its chat and table; a
repeated update id is ignored; a stale or foreign press changes nothing and gets a short
answer. The work itself lives in the layers below (see the package's docstring): a press
goes to ``router``, a command to ``commands``, a due deadline to ``deadlines``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from storage import retention
from storage.db import utcnow
from storage.models import Chat, GameTable, Player

from .. import buttons
from ..i18n import DEFAULT_LANGUAGE, pick_language, tr
from ..runtime import metrics
from . import coach, commands, cpu, daily, outgoing, play, ratings, router, spectate, store
from .api import Change, ChatRef, Outcome, Refusal, Settings, UserRef
from .deadlines import Deadlines
from .flood import Flood, Verdict
from .queries import Queries
from .reads import Reads
from .transaction import Ctx, Transactions

log = logging.getLogger(__name__)
Press = tuple[ChatRef, UserRef, str | buttons.Press | None, str | None]
SWEEP_EVERY = 3600.0  # seconds between two retention sweeps of a process
_TRIES = 2  # an input that meets a unique-key race runs once more (it then sees the winner)


class Service(Reads):
    """The use cases of the bot, over one database."""

    def __init__(self, engine: Engine, settings: Settings | None = None,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.settings = settings or Settings()
        self.clock = clock
        # Told after each commit with effects (outbox rows, deadlines): adapters wake their
        # outbox sender and arm the deadlines. Called on the thread that ran the input.
        self.listeners: list[Callable[[list[Change]], None]] = []
        self.tx = Transactions(engine)
        self.decisions = cpu.Decisions(self.settings)
        self.deadlines = Deadlines(self.tx, self.settings, self.decisions, clock, self._notify)
        self.queries = Queries(self.tx)
        self._swept: float | None = None  # when ``sweep_old`` last ran
        self.flood = Flood(self.settings.input_rate) if self.settings.input_rate else None

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
            chat = store.chat_for(session, chat_ref, now)
            player = None if user is None else \
                store.player_for(session, chat_ref.platform, user, chat_ref, now)
            if player is not None and chat.kind == "group":  # (private inputs: nothing)
                store.note_member(session, chat, player, now)
            lang = pick_language(chat.language, user.language if user else None,
                                 self.settings.default_language)
            ctx = Ctx(session, chat_ref.platform, lang, now, self.settings, self.decisions,
                      input_chat=chat_ref.external_id,
                      thread=chat_ref.thread if chat.kind == "group" else None)
            outgoing.seed_language(ctx, chat, player)
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
                self._notify(ctx)
                result = "ok" if out.ok else "refused"
                return out
            raise AssertionError("unreachable")
        finally:
            if kind is not None:
                metrics.observe_input(chat_ref.platform, kind, result,
                                      time.perf_counter() - started)

    def command(self, chat_ref: ChatRef, user: UserRef, name: str, args: str = "",
                update_key: str | None = None) -> Outcome:
        """A slash command (``start``, ``help``, ``rules``, ``language``, ``new``, ``stop``)."""
        held = self._held(chat_ref, user, (chat_ref.external_id, name, args.strip()))
        if held is not None:
            return held
        handler = commands.COMMANDS.get(name)

        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            if handler is None:
                return Outcome(tr(ctx.lang, "unknown_command"), ok=False)
            return handler(ctx, chat, player, user, args.strip())
        return self._run(chat_ref, user, update_key, work, Outcome(None, ok=True), "command")

    def press(self, chat_ref: ChatRef, user: UserRef, data: str | buttons.Press | None,
              update_key: str | None = None,
              planned: dict[tuple[int, int], str] | None = None) -> Outcome:
        """A button press with its (untrusted) data, or the press an adapter decoded from it
        (``buttons.decode``: the data is parsed once). A ⏩ skip's play-out is thought first,
        outside the transaction (``plan_skip``), unless the adapter did (``planned``)."""
        held = self._held(chat_ref, user, None)
        if held is not None:
            return held
        lang = pick_language(None, user.language, self.settings.default_language)
        try:
            press = data if isinstance(data, buttons.Press) else buttons.decode(data)
        except buttons.BadButton:
            metrics.observe_input(chat_ref.platform, "press", "stale", 0.0)
            return Outcome(tr(lang, "stale_button"), ok=False, alert=True)

        if press.code in ("tip", "review") and press.table_id:
            return self._coach(chat_ref, user, update_key, press, lang)

        if planned is None and press.code in spectate.SKIP_CODES:
            planned = self.plan_skip(chat_ref, user, press)

        def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
            if planned:
                ctx.planned.update(planned)
            return router.route(ctx, chat, player, user, press)
        return self._run(chat_ref, user, update_key, work,
                         Outcome(tr(lang, "already_handled"), ok=True), "press")

    def plan_skip(self, chat_ref: ChatRef, user: UserRef,
                  press: buttons.Press) -> dict[tuple[int, int], str]:
        """The CPU moves a ⏩ skip press will play, thought now, outside any transaction (in
        the thinking pool; an adapter calls it where waiting is harmless, then passes the
        result to ``press``): ``{(table id, version): code}``, empty when there is nothing to
        think beforehand (``spectate.plan``)."""
        return spectate.plan(self.tx, self.decisions, chat_ref.platform, user.external_id,
                             press.table_id)

    def _coach(self, chat_ref: ChatRef, user: UserRef, update_key: str | None,
               press: buttons.Press, lang: str) -> Outcome:
        """"💡 Tip" and "🔎 Where could I have played better?": read what to think about,
        think outside any transaction (where the Experte's moves are thought), then say it
        in the press's own transaction (which checks the table again)."""
        if press.code == "tip":
            with self.tx.read() as session:
                job = coach.hint_job(session, press)
            advice = None if job is None else \
                self.decisions.advise(job.game, job.state_json, job.seat)

            def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
                return coach.tip(ctx, chat, player, press, job, advice)
        else:
            with self.tx.read() as session:
                review = coach.review_job(session, press)
            advices = None if review is None else self.decisions.advise_many(
                review.game, list(review.positions), coach.REVIEW_SHARE)

            def work(ctx: Ctx, chat: Any, player: Any) -> Outcome:
                return coach.review_press(ctx, chat, player, user, press, review, advices)
        return self._run(chat_ref, user, update_key, work,
                         Outcome(tr(lang, "already_handled"), ok=True), "press")

    def press_many(self, presses: list[Press]) -> list[Outcome | BaseException]:
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
        self._tell(list(batch.touched.values()))
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
            ctx = Ctx(session, platform, outgoing.language_of(chat, self.settings),
                      self.clock(), self.settings, self.decisions)
            outgoing.withdraw_private_views(ctx, chat)  # (a hand queued for one is not sent)
            people = []
            for player in session.exec(select(Player).where(
                    Player.platform == platform,
                    Player.private_chat_id == chat_external_id)).all():
                player.private_chat_id = None
                people.append(player.external_id)
            table_id = store.open_table(session, chat)
            table = store.lock_table(session, table_id) if table_id is not None else None
            if table is not None and table.is_private:
                play.stop_table(ctx, table)
        self._notify(ctx)
        return people

    def thread_gone(self, platform: str, chat_external_id: str, thread: str) -> list[int]:
        """A chat's topic or thread takes no more messages (a Telegram forum topic closed or
        deleted): its open tables end (abandoned; their players are told privately) and what
        was still to go there is dropped - nothing is tried again. Returns the ended tables."""
        with self.tx.tx() as session:
            chat = session.exec(select(Chat).where(
                Chat.platform == platform, Chat.external_id == chat_external_id)).first()
            if chat is None:
                return []
            ctx = Ctx(session, platform, outgoing.language_of(chat, self.settings),
                      self.clock(), self.settings, self.decisions)
            ended = []
            for table in store.open_tables_in(session, chat, thread):
                play.thread_gone(ctx, table)
                ended.append(table.id)
            dropped = outgoing.drop_thread(ctx, chat, thread)
        log.info("%s %s: thread %s gone; tables %s ended, %d messages dropped", platform,
                 chat_external_id, thread, ended, dropped)
        self._notify(ctx)
        return ended  # type: ignore[return-value]

    # ------------------------------------------------------------------ after a commit
    def _notify(self, ctx: Ctx | None) -> None:
        touched = {} if ctx is None else ctx.touched
        batch = self.tx.batch
        if batch is not None:  # told once the batch has committed
            batch.touched.update(touched)
            return
        self._tell(list(touched.values()))

    def _tell(self, tables: list[GameTable]) -> None:
        """Tell the listeners which tables a commit changed (new version, next deadline)."""
        changes = [Change(t.id, t.version, t.next_deadline) for t in tables]  # type: ignore[arg-type]
        for listener in self.listeners:
            try:
                listener(changes)
            except Exception:  # a listener must never break an input
                log.exception("listener failed")

    # ------------------------------------------------------------------ deadlines
    def due(self, now: datetime | None = None, limit: int = 100) -> list[tuple[int, int]]:
        """Tables whose deadline has passed: (table id, version) to claim with ``fire_due``."""
        return self.deadlines.due(now, limit)

    def next_deadlines(self, limit: int = 1000) -> list[tuple[int, int, datetime]]:
        """Upcoming deadlines (table id, version, when), soonest first: for arming jobs."""
        return self.deadlines.upcoming(limit)

    def fire_due(self, table_id: int, version: int, *, may_think: bool = True,
                 planned: str | None = None) -> bool | None:
        """Claim and run a table's deadline, once (see ``Deadlines.fire``)."""
        return self.deadlines.fire(table_id, version, may_think=may_think, planned=planned)

    def plan_due(self, table_id: int, version: int) -> str | None:
        """Decide a due CPU move without claiming it (see ``Deadlines.plan``)."""
        return self.deadlines.plan(table_id, version)

    def evenings_due(self, now: datetime | None = None) -> list[tuple[int, int]]:
        """Stammtisch evenings whose next step is due: (id, version) for ``fire_evening``."""
        return self.deadlines.evenings_due(now)

    def fire_evening(self, evening_id: int, version: int) -> bool:
        """Claim and run an evening's due step, once (see ``Deadlines.fire_evening``)."""
        return self.deadlines.fire_evening(evening_id, version)

    def fire_evenings(self) -> int:
        """Every due evening step, each claimed once (the adapters' sweeps call this)."""
        return self.deadlines.fire_evenings()

    def catch_up_stats(self, limit: int = ratings.PERIODIC) -> int:
        """Read new results into the stats and ratings (a bounded, short transaction; the
        adapters call it from their periodic sweeps, so a large backlog — e.g. after an
        upgrade — drains in the background instead of inside somebody's /stats)."""
        with self.tx.tx() as session:
            return ratings.catch_up(session, self.clock().timestamp(), limit)

    def post_daily(self, platform: str) -> int:
        """Post yesterday's daily-deal winners to the groups whose morning post is due
        (each once, ``daily.post_due``); the adapters call it from their periodic sweeps."""
        with self.tx.tx() as session:
            ctx = Ctx(session, platform, self.settings.default_language, self.clock(),
                      self.settings, self.decisions)
            return daily.post_due(ctx, platform)

    def sweep_old(self, every: float = SWEEP_EVERY) -> dict[str, int] | None:
        """Delete rows the retention policy no longer keeps (``storage.retention``), at most
        once per ``every`` seconds of this process; adapters call it from their periodic
        sweeps. Returns the counts, or ``None`` when it was not yet time."""
        now = time.monotonic()
        if self._swept is not None and now - self._swept < every:
            return None
        self._swept = now
        counts = retention.sweep(self.engine, self.clock(), self.settings.retention)
        if any(counts.values()):
            log.info("retention: deleted %s", ", ".join(f"{n} {k}" for k, n in counts.items()
                                                        if n))
        return counts

    def decision_load(self) -> float:
        """The load factor of a CPU decision (see ``cpu.Decisions.load``)."""
        return self.decisions.load()

    def resend(self, table_id: int) -> None:
        """Queue the table's views again (e.g. when a console resumes a table)."""
        with self.tx.tx() as session:
            table = session.get(GameTable, table_id)
            if table is None:
                return
            chat = store.get_chat(session, table.chat_id)
            ctx = Ctx(session, chat.platform if chat else "?",
                      outgoing.language_of(chat, self.settings, session), self.clock(),
                      self.settings, self.decisions)
            play.show(ctx, table)
        self._notify(ctx)


__all__ = ["DEFAULT_LANGUAGE", "Service"]
