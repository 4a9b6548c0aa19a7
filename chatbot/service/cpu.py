"""CPU turns: deciding a move for a CPU seat (or for a person whose clock ran out or who is
away), playing it, and playing on CPU moves that are due at once in the same transaction."""

from __future__ import annotations

import logging
import random
import threading
import time

import fsm
from engine.bots import EXPERTE, get_bot
from engine.bots.experte import system_load
from storage.models import GameTable, Seat

from .. import metrics
from . import outgoing, play
from .api import Refusal, Settings
from .transaction import Ctx

log = logging.getLogger(__name__)
CHAIN_LIMIT = 12  # CPU moves one input plays on at most; the deadline path does the rest
_SLOW_LEVELS: dict[tuple[str, str], bool] = {}


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


def turn(ctx: Ctx, table: GameTable, seats: list[Seat], timed_out: bool,
         planned: str | None = None, model: fsm.TableModel | None = None) -> None:
    """Play the CPU's move for the seat on turn (``planned`` if decided beforehand)."""
    model = model or play.model(table, seats)
    seat = on_turn(seats, model)
    code = planned if planned is not None else ctx.decisions.decide(table, seats, model)
    if seat.ui:
        seat.ui = {}  # a half-made selection does not survive a CPU stand-in move
    actor = "cpu" if seat.is_cpu else ("timeout" if timed_out else "away")
    if timed_out and not seat.is_cpu:
        seat.timeouts += 1
        outgoing.announce(ctx, table, "timed_out", name=seat.name)
        if seat.timeouts >= 2 and not seat.away:
            seat.away = True
            outgoing.announce(ctx, table, "now_away", name=seat.name)
    play.act(ctx, table, seats, model, seat.seat_no, code, actor,
             trigger="timeout" if not seat.is_cpu else "act")


def chain(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel) -> bool:
    """Play a CPU move that is due right away (no thinking delay set) in this same
    transaction, if the table's CPUs decide quickly: one commit and one view for the whole
    run of moves instead of one each. The move is the one the deadline would have played
    (same seed and version). ``False``: nothing played, the caller stores and emits."""
    if (table.deadline_kind != "cpu" or table.next_deadline is None
            or table.next_deadline > ctx.now or ctx.chained >= CHAIN_LIMIT
            or thinks_long(table, seats)):
        return False
    try:
        code = ctx.decisions.decide(table, seats, model)
    except Exception:  # the deadline path tries again and logs it with the table
        log.exception("table %s: CPU decision failed", table.id)
        return False
    ctx.chained += 1
    try:
        turn(ctx, table, seats, timed_out=False, planned=code, model=model)
    except Refusal as exc:  # refused before anything changed: leave it to the deadline
        log.warning("table %s: CPU move %s refused: %s", table.id, code, exc.text)
        return False
    return True
