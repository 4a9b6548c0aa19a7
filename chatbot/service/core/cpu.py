"""Deciding CPU moves: the move for a CPU seat (or for a person whose clock ran out or who
is away), which levels think against a clock, and the load factor their thinking sees.
Playing the move is ``play``'s.

The levels that think against a clock (the Experte) think in a pool of worker processes
(``concurrent.futures.ProcessPoolExecutor``, one worker per core, at a lower priority), the
engine state passed in its JSON form: a thinking Experte never holds the interpreter lock the
bot's event loop needs. ``Settings.cpu_workers = 0`` thinks on the calling thread instead.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
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
from .api import Settings

log = logging.getLogger(__name__)
_SLOW_LEVELS: dict[tuple[str, str], bool] = {}
WORKER_NICENESS = 10  # the thinking processes yield the cores to the bot's own process
_POOLS: dict[int, ProcessPoolExecutor] = {}  # one pool per size, shared by this process
_POOLS_LOCK = threading.Lock()
T = TypeVar("T")


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

    def load(self) -> float:
        """The load factor of a decision: the decisions under way per worker process; on
        threads, the decisions under way here or the machine's load per core if higher."""
        if self.workers:
            return max(1.0, self.thinking / self.workers)
        return max(float(self.thinking), system_load())

    def decide(self, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> str:
        """The move for the seat on turn: its own level, or the stand-in for a person whose
        clock ran out or who is away (Normal, docs/rules.md §3, but never a knock, bomb or joker
        that is the person's to decide: ``engine.bots.standin``). Seeded by the table and
        version, so a replay decides the same."""
        seat = on_turn(seats, model)
        rng_seed = f"{table.seed}:{table.version}"
        started = time.perf_counter()
        try:
            with self._counted():
                if not seat.is_cpu:  # a person whose clock ran out, or who is away
                    return fsm.standin_action(model, random.Random(rng_seed))
                if self.workers and slow_level(table.game, level(seat)):
                    return self._in_pool(model, level(seat), rng_seed)
                return fsm.cpu_action(model, level(seat), random.Random(rng_seed),
                                      budget=self.settings.experte_budget, load=self.load)
        finally:
            if level(seat) == EXPERTE:
                metrics.observe_experte(table.game, time.perf_counter() - started)

    def _in_pool(self, model: fsm.TableModel, lvl: str, rng_seed: str) -> str:
        """Think in a worker process (the calling thread waits without the lock)."""
        return self._think(fsm.cpu_action_from_json, (
            model.game_id, model.game.to_json(model.engine_state), lvl, rng_seed,
            self.settings.experte_budget, self.load()))

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

    def _run(self, work: Callable[..., T], args: tuple[Any, ...]) -> T:
        """``work(*args)`` in a worker process (``_think``), or here when thinking on threads."""
        return self._think(work, args) if self.workers else work(*args)

    def _think(self, work: Callable[..., T], args: tuple[Any, ...]) -> T:
        """``work(*args)`` in a worker process. A pool whose worker died is replaced once;
        then it runs here."""
        for _ in range(2):
            pool = _pool(self.workers)
            try:
                return pool.submit(work, *args).result()
            except BrokenProcessPool:
                log.warning("a thinking process died; starting the pool anew")
                _drop_pool(self.workers, pool)
        return work(*args)

    def play_out(self, args: tuple[Any, ...]) -> dict[int, str]:
        """A ⏩ skip's play-out, ``fsm.play_out_from_json(*args)``: thought in a worker
        process (here when thinking on threads). Call it outside any transaction."""
        with self._counted():
            return self._run(fsm.play_out_from_json, args)

    def advise(self, game_id: str, state_json: str, seat: int) -> Advice:
        """The coach's hint for ``seat`` (``fsm.advice``): thought where the Experte's moves
        are, with the same budget and load factor. Call it outside any transaction."""
        started = time.perf_counter()
        try:
            with self._counted():
                args = (game_id, state_json, seat, self.settings.experte_budget, self.load())
                return self._run(fsm.advice_from_json, args)
        finally:
            metrics.observe_experte(game_id, time.perf_counter() - started)


    def advise_many(self, game_id: str, positions: list[tuple[str, int, str]],
                    share: float = 1.0) -> list[Advice]:
        """The coach's advice for several positions (state JSON, seat, …), each with
        ``share`` of the Experte's budget, at once on the pool's workers (in order here when
        thinking on threads). Call it outside any transaction."""
        budget = (self.settings.experte_budget or BUDGET) * share
        with self._counted():
            args = [(game_id, state_json, seat, budget, self.load())
                    for state_json, seat, _ in positions]
            if not self.workers:
                return [fsm.advice_from_json(*a) for a in args]
            for _ in range(2):
                pool = _pool(self.workers)
                try:
                    futures = [pool.submit(fsm.advice_from_json, *a) for a in args]
                    return [f.result() for f in futures]
                except BrokenProcessPool:
                    log.warning("a thinking process died; starting the pool anew")
                    _drop_pool(self.workers, pool)
            return [fsm.advice_from_json(*a) for a in args]


def on_turn(seats: list[Seat], model: fsm.TableModel) -> Seat:
    seat_no = model.game.to_act(model.engine_state)
    return next(s for s in seats if s.seat_no == seat_no)


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
