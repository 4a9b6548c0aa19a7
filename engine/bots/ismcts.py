"""ISMCTS: single-observer information-set Monte Carlo tree search, the field's reference.

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2),
2012: SO-ISMCTS, the single-observer variant). One tree for the deciding seat's information set; every
iteration

1. draws one *determinization*: a full state consistent with the observation, from the same
   world source as the 2026 Experte of that game (``experte_2026/<game>.py``, the Experte as the
   ISMCTS matches of docs/arena.md met it: the same samplers, and the
   same weighting of worlds by how well the others' moves fit a Normal player — Schwimmen's
   weights, Scat's particle filter);
2. descends the tree with that determinization: at a node the children *available* in it are
   the legal actions of the determinized state (the deciding seat's and, single observer, the
   others' moves too — they are nodes of the same tree, keyed by action code); every available
   child's availability count goes up by one, and the mover picks the child with the highest
   UCB ``mean + c · sqrt(ln(availability) / visits)`` (the mean is the mover's own reward), until
   a node has an available action without a child, which is added (one per iteration: the
   move Normal would make there if it is one of them, else one at random — ``expand="normal"``,
   the default; ``expand="random"`` is the paper's), or the round ends;
3. plays the round out from there (``playout="random"``, the paper's, or ``"normal"``: the
   Normal bot for every seat, as in the Experte's playouts);
4. scores the end of the round for every seat in [0, 1] with the Experte's outcome measure
   (the chance to win the game from the coins or tokens left in Schwimmen and Scat; the points
   of the hand in Run Fast, normalised; the points of the round in the climbing game, / 3) and
   adds each node's mover's reward along the path.

The move is the root child with the most visits; in a round that has gone on very long (the
Experte's ``GameSearch.long_round``: Schwimmen, Scat) Normal's move, as the Experte does, so
that a table of searching players ends its rounds. Time: the Experte's budget and load factor
(``budget=`` seconds per decision, default 1 s, ``experte_2026.search.BUDGET``; ``load=``; stop at
92 % of it),
or a fixed number of iterations (``iterations=``: deterministic, for tests).

The arena's reference player only: nothing in the engine or the chat imports this module, and
it does not enter the bot registry by itself — ``bench/arena.py`` imports it and registers
``BOTS`` (one class per game) as level ``ismcts``, which is not a level offered in chat
(``engine.bots.LEVELS``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from .. import GAMES
from ..protocol import EXCHANGE, FINAL_ROUND, TURN, Action
from .climbing import Normal as ClimbingNormal
from .experte_2026 import BOTS as EXPERTE_2026
from .experte_2026 import search as E
from .experte_2026.climbing import _View
from .experte_2026.runfast import normal_playout
from .levels import NORMAL
from .registry import get_bot
from .runfast import normal_play

ISMCTS = "ismcts"
EXPLORATION = 0.7  # the paper's UCB constant for rewards in [0, 1]
EXPAND = "normal"  # which untried move a node adds first: "normal" (Normal's move, if untried;
# else one at random) or "random" (the paper's); tuned: see docs/arena.md
RUNFAST_SCALE = 40.0  # Run Fast: reward 0.5 + points of the hand / this, clipped to [0, 1]
_IN_ROUND = (TURN, FINAL_ROUND, EXCHANGE)


class Node:
    """A node of the single-observer tree: reached by ``mover`` playing an action."""

    __slots__ = ("children", "visits", "avail", "reward", "mover")

    def __init__(self, mover: int) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0  # summed reward of ``mover`` (the seat whose action led here)
        self.mover = mover


# ---------------------------------------------------------------------------------------------
# per game: rewards at the end of a round, and the Normal playout


def _rewards_lives(tokens: str) -> Callable[[Any], list[float]]:
    def rewards(state: Any) -> list[float]:
        return [E.game_outcome(state, s, getattr(state, tokens)) for s in range(state.seats)]
    return rewards


def _rewards_runfast(state: Any) -> list[float]:
    return [min(1.0, max(0.0, 0.5 + d / RUNFAST_SCALE)) for d in state.result.delta]


def _rewards_climbing(state: Any) -> list[float]:
    return [p / 3.0 for p in state.result.points]


REWARDS: dict[str, Callable[[Any], list[float]]] = {
    "schwimmen": _rewards_lives("coins"),
    "scat": _rewards_lives("lives"),
    "runfast": _rewards_runfast,
    "climbing": _rewards_climbing,
}


def _normal_playout(game_id: str) -> Callable[[Any, random.Random], Any]:
    """The round played to its end by Normal players (each from its own view of the state)."""
    game = GAMES[game_id]
    if game_id == "runfast":
        return normal_playout
    if game_id == "climbing":
        choose = ClimbingNormal().choose

        def climbing(state: Any, rng: random.Random) -> Any:
            apply = game.apply
            while state.phase in (TURN, EXCHANGE):
                state, _ = apply(state, choose(_View(state), rng))
            return state
        return climbing
    choose = get_bot(game_id, NORMAL).choose

    def lives(state: Any, rng: random.Random) -> Any:
        return E.play_round_out(game, state, choose, rng)
    return lives


def _normal_step(game_id: str) -> Callable[[Any, random.Random], Action]:
    """Normal's move for the seat to act in a full state (from that seat's own view)."""
    game = GAMES[game_id]
    if game_id == "runfast":
        R = game

        def runfast(state: Any, rng: random.Random) -> Action:
            fams = R.play_families(state)
            if not fams:
                return R.PASS
            s = state.to_act
            hands = state.hands
            fam, mask = normal_play(fams, hands[s], tuple(h.bit_count() for h in hands), s,
                                    state.table is None, rng)
            return R.play_action(mask, fam.kind)
        return runfast
    if game_id == "climbing":
        choose = ClimbingNormal().choose
        return lambda state, rng: choose(_View(state), rng)
    choose = get_bot(game_id, NORMAL).choose
    observation = game.observation
    return lambda state, rng: choose(observation(state, state.to_act), rng)


def _random_playout(game_id: str) -> Callable[[Any, random.Random], Any]:
    game = GAMES[game_id]
    apply, legal_actions = game.apply, game.legal_actions

    def play(state: Any, rng: random.Random) -> Any:
        while state.phase in _IN_ROUND:
            acts = legal_actions(state)
            state, _ = apply(state, acts[rng.randrange(len(acts))] if len(acts) > 1 else acts[0])
        return state
    return play


PLAYOUTS = {"normal": _normal_playout, "random": _random_playout}


# ---------------------------------------------------------------------------------------------


class Ismcts:
    """Single-observer ISMCTS over the Experte's world samplers (see the module text)."""

    level = ISMCTS
    game_id = ""

    def __init__(self, budget: float | None = None, load: float | Callable[[], float] | None = None,
                 iterations: int | None = None, clock: Callable[[], float] = time.perf_counter,
                 exploration: float = EXPLORATION, playout: str = "normal",
                 expand: str = EXPAND) -> None:
        self.budget = budget
        self.load = load
        self.iterations = iterations
        self.clock = clock
        self.exploration = exploration
        self.playout_name = playout
        self.game = GAMES[self.game_id]
        self._playout = PLAYOUTS[playout](self.game_id)
        if expand not in ("random", "normal"):
            raise ValueError(f"unknown expansion {expand!r}")
        self.expand = expand
        self._step = _normal_step(self.game_id) if expand == "normal" else None
        self._rewards = REWARDS[self.game_id]
        self._experte = next(b for b in EXPERTE_2026 if b.game_id == self.game_id)
        self._search = self._experte().search
        self._normal = get_bot(self.game_id, NORMAL)
        self.last_stats: dict[str, Any] = {}
        self.last_root: Node | None = None

    def time_budget(self) -> float:
        """The seconds this decision may take: the budget divided by the load factor (as the
        Experte's)."""
        budget = E.BUDGET if self.budget is None else self.budget
        load = self.load if self.load is not None else E.LOAD
        factor = load() if callable(load) else load
        return budget / max(1.0, float(factor))

    def _worlds(self, obs: Any, rng: random.Random, start: float,
                deadline: float) -> Callable[[], Any]:
        """The Experte's world source for this observation (its sampler and weighting)."""
        experte = self._experte(playouts=self.iterations, clock=self.clock)
        return experte.world_source(obs, rng, start, deadline)

    def choose(self, obs: Any, rng: random.Random) -> Action:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if self._search.long_round(obs):  # as the Experte: a very long round ends by Normal
            return self._normal.choose(obs, rng)
        clock = self.clock
        start = clock()
        limit = self.iterations
        deadline = start + self.time_budget() * 0.92 if limit is None else math.inf
        draw = self._worlds(obs, rng, start, deadline)
        root = Node(-1)
        done = 0
        per_iter = 0.0
        began = clock()
        while True:
            if limit is not None:
                if done >= limit:
                    break
            elif done and clock() + per_iter > deadline:
                break
            self._iterate(root, draw(), rng)
            done += 1
            if limit is None:
                per_iter = (clock() - began) / done
        self.last_root = root
        by_code = {a.code: a for a in legal}
        best = None
        for code, child in root.children.items():
            key = (child.visits, child.reward / child.visits if child.visits else 0.0)
            if code in by_code and (best is None or key > best[0]):
                best = (key, code)
        self.last_stats = {"iterations": done, "seconds": clock() - start,
                           "children": len(root.children)}
        if best is None:  # not even one iteration in the time
            return legal[0]
        return by_code[best[1]]

    def _iterate(self, root: Node, state: Any, rng: random.Random) -> None:
        game = self.game
        apply, legal_actions = game.apply, game.legal_actions
        c = self.exploration
        node = root
        path = [root]
        while state.phase in _IN_ROUND:
            acts = legal_actions(state)
            mover = state.to_act
            children = node.children
            untried = []
            best = None
            best_score = -math.inf
            for a in acts:
                child = children.get(a.code)
                if child is None:
                    untried.append(a)
                    continue
                child.avail += 1
                score = child.reward / child.visits + c * math.sqrt(
                    math.log(child.avail) / child.visits)
                if score > best_score:
                    best_score, best = score, (child, a)
            if untried:
                a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                if self._step is not None and len(untried) > 1:
                    guide = self._step(state, rng).code  # Normal's move first, if untried
                    a = next((u for u in untried if u.code == guide), a)
                child = Node(mover)
                child.avail = 1
                children[a.code] = child
                state, _ = apply(state, a)
                path.append(child)
                break
            assert best is not None
            node, a = best
            state, _ = apply(state, a)
            path.append(node)
        if state.phase in _IN_ROUND:
            state = self._playout(state, rng)
        rewards = self._rewards(state)
        for n in path:
            n.visits += 1
            if n.mover >= 0:
                n.reward += rewards[n.mover]


def _make(game_id: str) -> type[Ismcts]:
    return type(f"{game_id.capitalize()}Ismcts", (Ismcts,), {"game_id": game_id})


SchwimmenIsmcts = _make("schwimmen")
ScatIsmcts = _make("scat")
RunFastIsmcts = _make("runfast")
ClimbingIsmcts = _make("climbing")
BOTS = (SchwimmenIsmcts, ScatIsmcts, RunFastIsmcts, ClimbingIsmcts)  # the arena registers these
