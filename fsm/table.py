"""The table lifecycle as one shared ``transitions`` machine.

The definition is data (``STATES``, ``TRANSITIONS``) so the diagram can be generated from it.
A ``TableModel`` carries one table's FSM state and engine state; ``fire`` runs a trigger on it
through the shared machine. Guards ask the engine: a move is legal only when the engine says so,
and where a move leads (next turn, final round, showdown) is read from the engine's new state.
No database, no chat: the service persists the model's fields after a successful trigger.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine, MachineError

from engine import GAMES, IllegalAction
from engine.bots import get_bot
from engine.bots.coach import Advice, advise
from engine.bots.standin import StandIn
from engine.protocol import (
    DEALING,
    EXCHANGE,
    FINAL_ROUND,
    FINISHED,
    PAYOUT,
    PHASES,
    SHOWDOWN,
    TURN,
    Event,
)

# The engine's phases (``engine.protocol``) are the machine's states while a game is played;
# only the table has a life before the game and an end without one.
LOBBY = "lobby"
ABANDONED = "abandoned"

STATES = [LOBBY, *PHASES, ABANDONED]
PLAYING = (DEALING, EXCHANGE, TURN, FINAL_ROUND, SHOWDOWN, PAYOUT)
OPEN = (LOBBY, *PLAYING)
CLOSED = (FINISHED, ABANDONED)

# Where a move may lead from each state (the engine's new phase decides which).
_MOVE_DESTINATIONS = {
    EXCHANGE: [(EXCHANGE, "in_exchange"), (TURN, "in_turn")],
    TURN: [(SHOWDOWN, "round_over"), (FINAL_ROUND, "in_final_round"), (TURN, "in_turn")],
    FINAL_ROUND: [(SHOWDOWN, "round_over"), (FINAL_ROUND, "in_final_round")],
}


def _move_transitions(trigger: str) -> list[dict[str, Any]]:
    """A move (or a timeout's stand-in move): legal per engine; its destination per engine."""
    return [
        {"trigger": trigger, "source": src, "dest": dest, "prepare": "compute",
         "conditions": ["is_legal", guard], "after": "commit"}
        for src, dests in _MOVE_DESTINATIONS.items() for dest, guard in dests
    ]


TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "start", "source": LOBBY, "dest": DEALING, "conditions": ["seats_ok"],
     "after": "deal_first"},
    {"trigger": "dealt", "source": DEALING, "dest": SHOWDOWN, "conditions": ["round_over"]},
    {"trigger": "dealt", "source": DEALING, "dest": EXCHANGE, "conditions": ["in_exchange"]},
    {"trigger": "dealt", "source": DEALING, "dest": TURN, "conditions": ["in_turn"]},
    *_move_transitions("act"),
    *_move_transitions("timeout"),
    {"trigger": "settle", "source": SHOWDOWN, "dest": PAYOUT},
    {"trigger": "next_round", "source": PAYOUT, "dest": DEALING, "conditions": ["game_goes_on"],
     "after": "deal_next"},
    {"trigger": "finish", "source": PAYOUT, "dest": FINISHED, "conditions": ["game_over"]},
    {"trigger": "stop", "source": list(OPEN), "dest": ABANDONED},
    # a person gives up a game they play alone against CPUs: it ends, as their loss
    {"trigger": "resign", "source": list(PLAYING), "dest": FINISHED},
]


class TransitionRefused(Exception):
    """A trigger that does not apply in this state, or a move the engine refuses."""


@dataclass
class TableModel:
    """One table as the machine sees it. ``state`` is the FSM state (the machine's attribute)."""

    game_id: str
    state: str = LOBBY
    seats: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    engine_state: Any = None
    events: list[Event] = field(default_factory=list)
    error: str | None = None
    _candidate: Any = None

    @property
    def game(self) -> Any:
        return GAMES[self.game_id]

    # --- guards (all ask the engine) -------------------------------------------------------
    def seats_ok(self, event: Any) -> bool:
        g = self.game
        return g.MIN_SEATS <= self.seats <= g.MAX_SEATS

    def _phase(self) -> str:
        st = self._candidate if self._candidate is not None else self.engine_state
        return self.game.phase(st)

    def round_over(self, event: Any) -> bool:
        return self._phase() in (PAYOUT, FINISHED)

    def in_final_round(self, event: Any) -> bool:
        return self._phase() == FINAL_ROUND

    def in_turn(self, event: Any) -> bool:
        return self._phase() == TURN

    def in_exchange(self, event: Any) -> bool:
        return self._phase() == EXCHANGE

    def is_legal(self, event: Any) -> bool:
        return self._candidate is not None

    def game_over(self, event: Any) -> bool:
        return self.game.is_over(self.engine_state)

    def game_goes_on(self, event: Any) -> bool:
        return not self.game.is_over(self.engine_state)

    # --- callbacks ---------------------------------------------------------------------------
    def compute(self, event: Any) -> None:
        """Ask the engine to apply the move; keep the result until ``commit``."""
        if self._candidate is not None:
            return  # already computed for an earlier transition of the same trigger
        action = event.kwargs["action"]
        try:
            self._candidate, self.events = self.game.apply(self.engine_state, action)
            self.error = None
        except IllegalAction as exc:
            self._candidate, self.error = None, str(exc)

    def commit(self, event: Any) -> None:
        self.engine_state, self._candidate = self._candidate, None

    def deal_first(self, event: Any) -> None:
        self.engine_state = self.game.new_game(self.seats, self.options, self.seed)
        self.events = [Event("game_start", None, {"seats": self.seats})]

    def deal_next(self, event: Any) -> None:
        self.engine_state, self.events = self.game.apply(self.engine_state, "deal")


MACHINE = Machine(
    model=None, states=STATES, transitions=TRANSITIONS, initial=LOBBY,
    auto_transitions=False, send_event=True,
)


def fire(model: TableModel, trigger: str, **kwargs: Any) -> list[Event]:
    """Run one trigger on a table through the shared machine; returns the engine's events.

    Raises ``TransitionRefused`` (with the engine's reason for an illegal move) and leaves the
    model unchanged when the trigger does not apply.
    """
    model.events, model.error, model._candidate = [], None, None
    event = MACHINE.events.get(trigger)
    if event is None:
        raise TransitionRefused(f"unknown trigger {trigger!r}")
    try:
        ok = event.trigger(model, **kwargs)
    except MachineError as exc:
        raise TransitionRefused(f"{trigger} is not possible while the table is {model.state}") \
            from exc
    finally:
        model._candidate = None
    if not ok:
        raise TransitionRefused(model.error or f"{trigger} refused while {model.state}")
    return model.events


def settle(model: TableModel) -> list[Event]:
    """Run the automatic steps after a move or a deal: deal→turn, showdown→payout, →finished."""
    events: list[Event] = []
    while True:
        if model.state == DEALING:
            events += fire(model, "dealt")
        elif model.state == SHOWDOWN:
            events += fire(model, "settle")
        elif model.state == PAYOUT and model.game.is_over(model.engine_state):
            events += fire(model, "finish")
        else:
            return events


def cpu_action(model: TableModel, level: str, rng: random.Random, budget: float | None = None,
               load: float | Callable[[], float] | None = None) -> str:
    """The action code a CPU player of ``level`` takes for the seat on turn.

    ``budget`` (seconds per decision) and ``load`` (a factor ≥ 1 that shrinks the budget) reach
    the levels that think against a clock (Experte); the others ignore them."""
    return _choose(model.game_id, model.engine_state, level, rng, budget, load)


def cpu_action_from_json(game_id: str, state_json: str, level: str, rng_seed: str,
                         budget: float | None = None, load: float | None = None) -> str:
    """``cpu_action`` from plain values — the engine state in its JSON form, the random
    generator's seed — for a worker process that shares nothing with the caller."""
    state = GAMES[game_id].from_json(state_json)
    return _choose(game_id, state, level, random.Random(rng_seed), budget, load)


def _choose(game_id: str, state: Any, level: str, rng: random.Random, budget: float | None,
            load: float | Callable[[], float] | None) -> str:
    game = GAMES[game_id]
    seat = game.to_act(state)
    if seat is None:
        raise TransitionRefused("nobody is on turn")
    obs = game.observation(state, seat)
    bot = get_bot(game_id, level)
    if budget is not None and hasattr(bot, "budget"):
        bot.budget = budget  # type: ignore[attr-defined]
    if load is not None and hasattr(bot, "load"):
        bot.load = load  # type: ignore[attr-defined]
    return bot.choose(obs, rng).code


def play_out(model: TableModel, levels: Sequence[str], version: int,
             budget: float | None = None, max_moves: int = 5_000) -> dict[int, str]:
    """The CPU moves that play a table's game to its end from here, each decided as the
    service decides a CPU move (seeded by ``seed:version``; a round's end deals the next, one
    version each): ``{table version the step is taken at: code}``, a deal's code ``"deal"``.
    ``levels``: each seat's level, by seat number. Plays on ``model`` (the caller's copy)."""
    moves: dict[int, str] = {}
    for _ in range(max_moves):
        if model.state not in PLAYING:
            break
        if model.state == PAYOUT:
            fire(model, "next_round")
            moves[version] = "deal"
        else:
            seat = model.game.to_act(model.engine_state)
            code = cpu_action(model, levels[seat], random.Random(f"{model.seed}:{version}"),
                              budget=budget)
            fire(model, "act", action=code)
            moves[version] = code
        settle(model)
        version += 1
    return moves


def play_out_from_json(game_id: str, fsm_state: str, seats: int, options: dict[str, Any],
                       seed: int | None, state_json: str, levels: Sequence[str], version: int,
                       budget: float | None = None, max_moves: int = 5_000) -> dict[int, str]:
    """``play_out`` from plain values (the engine state in its JSON form), for a worker
    process of the thinking pool."""
    model = TableModel(game_id=game_id, state=fsm_state, seats=seats, options=options,
                       seed=seed, engine_state=GAMES[game_id].from_json(state_json))
    return play_out(model, levels, version, budget, max_moves)


def advice(game_id: str, state: Any, seat: int, budget: float | None = None,
           load: float | Callable[[], float] | None = None,
           playouts: int | None = None) -> Advice:
    """The coach's advice for ``seat`` (``engine.bots.coach``): from its observation only, its
    dice seeded by that observation, so two deals that look the same from the seat get the
    same hint (with ``playouts``; a time budget also depends on the machine's speed)."""
    obs = GAMES[game_id].observation(state, seat)
    rng = random.Random(hashlib.sha256(repr(obs).encode()).hexdigest())
    return advise(game_id, obs, rng, budget=budget, load=load, playouts=playouts)


def advice_from_json(game_id: str, state_json: str, seat: int, budget: float | None = None,
                     load: float | None = None, playouts: int | None = None) -> Advice:
    """``advice`` from plain values, for a worker process of the thinking pool."""
    return advice(game_id, GAMES[game_id].from_json(state_json), seat, budget, load, playouts)


def standin_action(model: TableModel, rng: random.Random) -> str:
    """The action code the stand-in takes for a person on turn whose clock ran out or who is
    away: Normal's play, but never a knock, a bomb or a joker the person may have kept
    (``engine.bots.standin``)."""
    seat = model.game.to_act(model.engine_state)
    if seat is None:
        raise TransitionRefused("nobody is on turn")
    return StandIn(model.game_id).choose(model.game.observation(model.engine_state, seat),
                                         rng).code


def mermaid() -> str:
    """The machine as a Mermaid state diagram (generated from ``STATES``/``TRANSITIONS``)."""
    lines = ["stateDiagram-v2", f"    [*] --> {LOBBY}"]
    seen: set[tuple[str, str, str]] = set()
    for t in TRANSITIONS:
        sources = t["source"] if isinstance(t["source"], list) else [t["source"]]
        for src in sources:
            key = (src, t["dest"], t["trigger"])
            if key in seen:
                continue
            seen.add(key)
            guards = [c for c in t.get("conditions", []) if c != "is_legal"]
            label = t["trigger"] + (f" [{', '.join(guards)}]" if guards else "")
            lines.append(f"    {src} --> {t['dest']} : {label}")
    lines += [f"    {FINISHED} --> [*]", f"    {ABANDONED} --> [*]"]
    return "\n".join(lines) + "\n"


def diagram_markdown() -> str:
    """The docs page holding the diagram."""
    return (
        "# The table machine\n\n"
        "Generated by `stammtisch diagram` from `fsm/table.py`; do not edit by hand.\n"
        "Every move (`act`) and every timeout stand-in move (`timeout`) is legal only if the\n"
        "engine says so; where it leads is read from the engine's new state.\n"
        "Shedding games never reach `final_round`; the climbing game passes `exchange`.\n"
        "`resign`: the person of a private game gives up; the game ends as their loss.\n\n"
        "```mermaid\n" + mermaid() + "```\n"
    )
