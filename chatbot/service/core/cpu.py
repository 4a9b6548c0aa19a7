"""Deciding CPU moves: the move for a CPU seat (or for a person whose clock ran out or who
is away), which levels think against a clock, and the load factor their thinking sees.
Playing the move is ``play``'s.

The levels that think against a clock (the Experte) think in a pool of worker processes
(``concurrent.futures.ProcessPoolExecutor``, one worker per core, at a lower priority), the
engine state passed in its JSON form: a thinking Experte never holds the interpreter lock the
bot's event loop needs. ``Settings.cpu_workers = 0`` thinks on the calling thread instead.
Where a decision is thought is one seam, ``api.Thinking``: the pool (``LocalPool``), the
calling thread (``OnThread``), or ``Settings.thinking`` — a task queue whose workers run on
other machines (``chatbot.runtime.thinking``). A place that does not answer in time
(``TimeoutError``) gets a fallback here: a Normal move, a shorter hint thought here, a
play-out at Normal; logged and counted (``stammtisch_thinking_fallbacks_total``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

import fsm
from engine.bots import EXPERTE, get_bot
from engine.bots.coach import Advice
from engine.bots.experte import BUDGET
from storage.models import GameTable, Seat

from ...runtime import metrics
from .api import Settings, Thinking

log = logging.getLogger(__name__)
_SLOW_LEVELS: dict[tuple[str, str], bool] = {}
WORKER_NICENESS = 10  # the thinking processes yield the cores to the bot's own process
_POOLS: dict[int, ProcessPoolExecutor] = {}  # one pool per size, shared by this process
_POOLS_LOCK = threading.Lock()
T = TypeVar("T")
PLAY_OUT_SECONDS = 20.0  # how long a ⏩ play-out may think elsewhere before it is played here
FALLBACK_SHARE = 0.25  # of the budget: a hint thought here when the thinking place is late


def system_load() -> float:
    """The one-minute load average per core (at least 1): a load factor from the machine."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (OSError, AttributeError):
        return 1.0


def _pool(workers: int) -> ProcessPoolExecutor:
    """The process pool of ``workers`` thinking processes (started on first use; ``spawn``:
    a worker inherits no thread, lock or connection of the bot)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=os.nice, initargs=(WORKER_NICENESS,))
        return pool


def _drop_pool(workers: int, pool: ProcessPoolExecutor) -> None:
    with _POOLS_LOCK:
        if _POOLS.get(workers) is pool:
            del _POOLS[workers]
    pool.shutdown(wait=False, cancel_futures=True)


class LocalPool:
    """``api.Thinking`` in this machine's pool of ``workers`` processes; waits as long as
    it takes. A pool whose worker died is replaced once; then the calls run here."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def think(self, work: Callable[..., T], calls: Sequence[tuple[Any, ...]],
              seconds: float | None) -> list[T]:
        for _ in range(2):
            pool = _pool(self.workers)
            try:
                futures = [pool.submit(work, *args) for args in calls]
                return [f.result() for f in futures]
            except BrokenProcessPool:
                log.warning("a thinking process died; starting the pool anew")
                _drop_pool(self.workers, pool)
        return [work(*args) for args in calls]


class OnThread:
    """``api.Thinking`` on the calling thread, one call after the other."""

    def think(self, work: Callable[..., T], calls: Sequence[tuple[Any, ...]],
              seconds: float | None) -> list[T]:
        return [work(*args) for args in calls]


class Decisions:
    """Decides CPU moves; counts the decisions under way in this process, which makes the
    Experte's load factor (per worker process, or per interpreter when thinking on threads)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.thinking = 0
        self._lock = threading.Lock()

    @property
    def workers(self) -> int:
        """Thinking processes (0: think on the calling thread)."""
        wanted = self.settings.cpu_workers
        return (os.cpu_count() or 1) if wanted is None else max(0, wanted)

    @property
    def executor(self) -> Thinking:
        """Where the slow decisions are thought (``Settings.thinking``, else the pool, else
        the calling thread)."""
        if self.settings.thinking is not None:
            return self.settings.thinking
        return LocalPool(self.workers) if self.workers else OnThread()

    @property
    def elsewhere(self) -> bool:
        """Whether slow decisions are thought outside the calling thread."""
        return self.settings.thinking is not None or bool(self.workers)

    def load(self) -> float:
        """The load factor of a decision: the decisions under way per worker process; on
        threads, the decisions under way here or the machine's load per core if higher."""
        if self.workers:
            return max(1.0, self.thinking / self.workers)
        return max(float(self.thinking), system_load())

    def decide(self, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> str:
        """The move for the seat on turn: its own level, or the stand-in for a person whose
        clock ran out or who is away (Normal, docs/rules.md §3, but never a knock, bomb or joker
        that is the person's to decide: ``engine.bots.standin``; plain Normal once nobody
        plays their own seat: ``nobody_plays``). Seeded by the table and version, so a replay
        decides the same."""
        seat = on_turn(seats, model)
        rng_seed = f"{table.seed}:{table.version}"
        started = time.perf_counter()
        try:
            with self._counted():
                if not seat.is_cpu and nobody_plays(seats, model):  # (the game must end)
                    return fsm.cpu_action(model, "normal", random.Random(rng_seed))
                if not seat.is_cpu:  # a person whose clock ran out, or who is away
                    return fsm.standin_action(model, random.Random(rng_seed))
                if self.elsewhere and slow_level(table.game, level(seat)):
                    return self._in_pool(model, level(seat), rng_seed)
                return fsm.cpu_action(model, level(seat), random.Random(rng_seed),
                                      budget=self.settings.experte_budget, load=self.load)
        finally:
            if level(seat) == EXPERTE:
                metrics.observe_experte(table.game, time.perf_counter() - started)

    def _in_pool(self, model: fsm.TableModel, lvl: str, rng_seed: str) -> str:
        """Think in a worker process (the calling thread waits without the lock); a Normal
        move if the thinking place did not answer in time."""
        try:
            return self._think(fsm.cpu_action_from_json, (
                model.game_id, model.game.to_json(model.engine_state), lvl, rng_seed,
                self.settings.experte_budget, self.load()), self._budget())
        except TimeoutError as exc:
            _fell_back("decide", model.game_id, exc)
            return fsm.cpu_action(model, "normal", random.Random(rng_seed))

    def _budget(self, share: float = 1.0) -> float:
        """The seconds one Experte decision may think (``share`` of the budget)."""
        return (self.settings.experte_budget or BUDGET) * share

    @contextmanager
    def _counted(self) -> Iterator[None]:
        """A decision under way (it makes the load factor)."""
        with self._lock:
            self.thinking += 1
        try:
            yield
        finally:
            with self._lock:
                self.thinking -= 1

    def _think(self, work: Callable[..., T], args: tuple[Any, ...],
               seconds: float | None) -> T:
        """``work(*args)`` where slow decisions are thought (``executor``)."""
        return self.executor.think(work, [args], seconds)[0]

    def play_out(self, args: tuple[Any, ...]) -> dict[int, str]:
        """A ⏩ skip's play-out, ``fsm.play_out_from_json(*args)``: thought in a worker
        process (here when thinking on threads); played out here at Normal if the thinking
        place did not answer in time. Call it outside any transaction."""
        with self._counted():
            try:
                return self._think(fsm.play_out_from_json, args, PLAY_OUT_SECONDS)
            except TimeoutError as exc:
                _fell_back("play_out", args[0], exc)
                levels = [lvl if not slow_level(args[0], lvl) else "normal" for lvl in args[6]]
                return fsm.play_out_from_json(*args[:6], levels, *args[7:])

    def advise(self, game_id: str, state_json: str, seat: int) -> Advice:
        """The coach's hint for ``seat`` (``fsm.advice``): thought where the Experte's moves
        are, with the same budget and load factor. Call it outside any transaction."""
        started = time.perf_counter()
        try:
            with self._counted():
                args = (game_id, state_json, seat, self.settings.experte_budget, self.load())
                try:
                    return self._think(fsm.advice_from_json, args, self._budget())
                except TimeoutError as exc:
                    _fell_back("advise", game_id, exc)
                    return fsm.advice_from_json(game_id, state_json, seat,
                                                self._budget(FALLBACK_SHARE))
        finally:
            metrics.observe_experte(game_id, time.perf_counter() - started)


    def advise_many(self, game_id: str, positions: list[tuple[str, int, str]],
                    share: float = 1.0) -> list[Advice]:
        """The coach's advice for several positions (state JSON, seat, …), each with
        ``share`` of the Experte's budget, at once on the pool's workers (in order here when
        thinking on threads). Call it outside any transaction."""
        budget = self._budget(share)
        with self._counted():
            args = [(game_id, state_json, seat, budget, self.load())
                    for state_json, seat, _ in positions]
            try:
                return self.executor.think(fsm.advice_from_json, args, budget * len(args))
            except TimeoutError as exc:
                _fell_back("advise", game_id, exc)
                short = budget * FALLBACK_SHARE
                return [fsm.advice_from_json(game_id, state_json, seat, short)
                        for state_json, seat, _ in positions]


def _fell_back(kind: str, game_id: str, exc: BaseException) -> None:
    """A thinking place that did not answer in time: logged and counted."""
    log.warning("thinking (%s, %s) did not answer in time, falling back: %s", kind, game_id,
                exc)
    metrics.observe_thinking_fallback(kind)


def on_turn(seats: list[Seat], model: fsm.TableModel) -> Seat:
    seat_no = model.game.to_act(model.engine_state)
    return next(s for s in seats if s.seat_no == seat_no)


def nobody_plays(seats: list[Seat], model: fsm.TableModel) -> bool:
    """Whether no person plays their own seat any more (each is away, a CPU or out of the
    game): the stand-ins, who never knock, would play on forever, so they play as Normal."""
    out = getattr(model.engine_state, "out", None)
    return all(s.is_cpu or s.away or (out is not None and s.seat_no < len(out)
                                      and bool(out[s.seat_no])) for s in seats)


def level(seat: Seat) -> str:
    """The level a CPU plays a seat at: its own, or Normal for a person (docs/rules.md §3)."""
    return (seat.cpu_level or "normal") if seat.is_cpu else "normal"


def slow_level(game_id: str, name: str) -> bool:
    """A level whose bot thinks against a clock (it has a ``budget``); unknown ones count."""
    key = (game_id, name)
    slow = _SLOW_LEVELS.get(key)
    if slow is None:
        try:
            slow = hasattr(get_bot(game_id, name), "budget")
        except Exception:  # no such bot: let the planner find out
            slow = True
        _SLOW_LEVELS[key] = slow
    return slow


def thinks_long(table: GameTable, seats: list[Seat]) -> bool:
    """Whether a CPU decision at this table may take long (a level with a time budget)."""
    return any(slow_level(table.game, level(s)) for s in seats)
