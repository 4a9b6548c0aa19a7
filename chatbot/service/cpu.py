"""Deciding CPU moves: the move for a CPU seat (or for a person whose clock ran out or who
is away), which levels think against a clock, and the load factor their thinking sees.
Playing the move is ``play``'s."""

from __future__ import annotations

import os
import random
import threading
import time

import fsm
from engine.bots import EXPERTE, get_bot
from storage.models import GameTable, Seat

from ..runtime import metrics
from .api import Settings

_SLOW_LEVELS: dict[tuple[str, str], bool] = {}


def system_load() -> float:
    """The one-minute load average per core (at least 1): a load factor from the machine."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except (OSError, AttributeError):
        return 1.0


class Decisions:
    """Decides CPU moves; counts the decisions under way in this process (they share one
    interpreter), which is the Experte's load factor."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.thinking = 0
        self._lock = threading.Lock()

    def load(self) -> float:
        """The load factor of a decision: decisions under way here, or the machine's load
        per core if that is higher."""
        return max(float(self.thinking), system_load())

    def decide(self, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> str:
        """The move for the seat on turn: its own level, or the stand-in for a person whose
        clock ran out or who is away (Normal, RULES.md §1, but never a knock, bomb or joker
        that is the person's to decide: ``engine.bots.standin``). Seeded by the table and version, so a replay
        decides the same."""
        seat = on_turn(seats, model)
        rng = random.Random(f"{table.seed}:{table.version}")
        with self._lock:
            self.thinking += 1
        started = time.perf_counter()
        try:
            if not seat.is_cpu:  # a person whose clock ran out, or who is away
                return fsm.standin_action(model, rng)
            return fsm.cpu_action(model, level(seat), rng, budget=self.settings.experte_budget,
                                  load=self.load)
        finally:
            with self._lock:
                self.thinking -= 1
            if level(seat) == EXPERTE:
                metrics.observe_experte(table.game, time.perf_counter() - started)


def on_turn(seats: list[Seat], model: fsm.TableModel) -> Seat:
    seat_no = model.game.to_act(model.engine_state)
    return next(s for s in seats if s.seat_no == seat_no)


def level(seat: Seat) -> str:
    """The level a CPU plays a seat at: its own, or Normal for a person (RULES.md §1)."""
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
