"""Experte: determinized Monte Carlo search over what the bot cannot see.

For one decision the Experte repeatedly

1. samples a *world*: a full engine state consistent with its observation (its own cards, the
   cards everybody has seen, card counts, the public move history — cards taken from the middle
   or the discard pile, who passed on what);
2. plays every candidate action in that world and then the rest of the round (hand) to its end
   with a strong playout policy (the Normal bot, or a fast equivalent, for *every* seat, each
   deciding from its own observation in the sampled world — nobody peeks in a playout either);
3. scores the end of the round for its own seat (the game's own outcome: the chance to win the
   game given the coins / tokens left, the points of the hand).

All candidates are played out in the same sampled worlds with the same playout dice (common
random numbers), so their comparison is paired; a candidate that is clearly worse than the
leader is dropped early and the time goes to the close ones. The search stops after a time
budget (``BUDGET`` seconds, default 0.3; ``budget=`` per bot; divided by the load factor — the
engine under load gives each decision less time — but never below ``MIN_BUDGET``, 0.1 s; how
strong it is there against the 2026 Experte at 1 s is measured in docs/arena.md, "Strength
against budget") or after a fixed number of sampled worlds
(``playouts=``: deterministic, for tests). The clock is a parameter of the bot object
(``clock=``; by default ``work_clock()`` for each decision: the CPU time the thinking thread
spent on it, or a third of the real time if that is more — on a busy machine a decision gets
the work its budget buys, in at most three times the budget); the engine's game modules stay
clock-free.

The per-game parts (``sample_world``, the playout policy, the outcome) live in the game's
``engine/bots/<game>_experte.py`` module as a ``GameSearch`` subclass.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..protocol import FINISHED, PAYOUT, Action
from .levels import EXPERTE

# Seconds of thinking per decision (before the load factor). Overridable per bot and, for whole
# test runs or deployments, with the environment variable STAMMTISCH_EXPERTE_BUDGET. Set from
# the strength-against-budget curve (bench/budget_curve.py, docs/arena.md).
BUDGET: float = float(os.environ.get("STAMMTISCH_EXPERTE_BUDGET", "0.3"))
# The load factor never cuts a decision below this (or below the budget, when that is smaller):
# under load a decision waits longer for a thinking process rather than thinking less.
MIN_BUDGET: float = 0.1


def _no_load() -> float:
    return 1.0


# The engine's load factor (≥ 1): the budget of a decision is BUDGET / LOAD(). The engine reads
# no load itself: the caller supplies it (``load=`` per bot, or this default; the chat service
# passes, e.g., the number of CPU decisions waiting or the machine's load).
LOAD: Callable[[], float] = _no_load
KEEP_Z = 1.5  # another move than the prior's needs to be better by this many standard errors
POOL = 400  # particles (weighted worlds) of a particle filter per second of time budget


WALL_FACTOR = 3.0  # a decision thinks at most this many times its budget in real time


def work_clock(wall_factor: float = WALL_FACTOR) -> Callable[[], float]:
    """A clock for one decision, from 0: the seconds of CPU the calling thread has spent since,
    or the real seconds since divided by ``wall_factor`` if that is more. A budget on this
    clock buys the same search on an idle and on a busy machine (where the thread gets less
    than a core), but never takes more than ``wall_factor`` times the budget."""
    cpu0, wall0 = time.thread_time(), time.perf_counter()

    def now() -> float:
        return max(time.thread_time() - cpu0, (time.perf_counter() - wall0) / wall_factor)
    return now


class GameSearch:
    """The game-specific half of the Experte (subclass per game)."""

    game: Any  # the engine module

    def candidates(self, obs: Any, rng: random.Random) -> list[Action]:
        """The actions worth searching, the most promising first (ties go to the earlier)."""
        return list(obs.legal)

    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        """A full engine state consistent with everything ``obs`` shows."""
        raise NotImplementedError

    def long_round(self, obs: Any) -> bool:
        """Whether the round has gone on so long that the search plays Normal's move (the
        first candidate) without searching. Normal settles for less the longer a round lasts,
        so a table of searching players still ends its round; without this, searching players
        that each expect the *others* (Normal in their playouts) to knock could swap forever."""
        return False

    def rollout(self, world: Any, action: Action, seat: int, rng: random.Random) -> float:
        """Play ``action`` in ``world``, then the round to its end; the outcome for ``seat``."""
        raise NotImplementedError

    def world_pool(self, obs: Any, rng: random.Random, size: int) -> list[tuple[Any, float]] | None:
        """Weighted worlds built all at once (e.g. by a particle filter over the round), or
        ``None`` to sample them one by one with ``sample_world`` (and ``weight``)."""
        return None

    def refresh(self, world: Any, rng: random.Random) -> Any:
        """A world drawn from the pool again, with what nobody could know re-dealt (e.g. the
        order of the stock)."""
        return world

    def weight(self, obs: Any, world: Any, rng: random.Random) -> float | None:
        """How well the others' observed moves fit a sampled world (a likelihood under a model
        of their play, up to a constant); ``None``: every consistent world is as likely."""
        return None


class Experte:
    """A determinized Monte Carlo player on top of a ``GameSearch``."""

    level = EXPERTE
    search_class: type[GameSearch] = GameSearch
    game_id = ""

    def __init__(self, budget: float | None = None, load: float | Callable[[], float] | None = None,
                 playouts: int | None = None, clock: Callable[[], float] | None = None,
                 search: GameSearch | None = None) -> None:
        self.budget = budget
        self.load = load
        self.playouts = playouts
        self.clock = clock
        self._clock: Callable[[], float] = clock or time.perf_counter  # this decision's
        self.search = search if search is not None else self.search_class()
        self.last_stats: dict[str, Any] = {}
        self._proposals = 0

    # ---------------------------------------------------------------------------------------
    def time_budget(self) -> float:
        """The seconds this decision may take: the budget divided by the load factor, but not
        less than ``MIN_BUDGET`` (the whole budget, if that is less)."""
        budget = BUDGET if self.budget is None else self.budget
        load = self.load if self.load is not None else LOAD
        factor = load() if callable(load) else load
        return max(min(budget, MIN_BUDGET), budget / max(1.0, float(factor)))

    def choose(self, obs: Any, rng: random.Random) -> Action:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        search = self.search
        candidates = search.candidates(obs, rng)
        if len(candidates) == 1 or search.long_round(obs):
            return candidates[0]
        return self._search(obs, candidates, rng)

    def _search(self, obs: Any, cands: Sequence[Action], rng: random.Random) -> Action:
        search = self.search
        seat = obs.seat
        clock = self._clock = self.clock or work_clock()
        start = clock()
        limit = self.playouts
        deadline = start + self.time_budget() * 0.92 if limit is None else math.inf
        k = len(cands)
        draw = self.world_source(obs, rng, start, deadline)
        values: list[list[float]] = [[] for _ in range(k)]
        active = list(range(k))
        worlds = 0
        rollouts = 0
        per_rollout = 0.0
        done = False
        while not done:
            world = draw()
            dice = rng.getrandbits(64)
            row: list[tuple[int, float]] = []
            for i in active:
                if limit is None and worlds and clock() + per_rollout > deadline:
                    done = True
                    break
                row.append((i, search.rollout(world, cands[i], seat, random.Random(dice))))
                rollouts += 1
            else:
                for i, v in row:
                    values[i].append(v)
                worlds += 1
                if limit is None:
                    per_rollout = (clock() - start) / rollouts
                    done = clock() + per_rollout > deadline
                else:
                    done = worlds >= limit
                if not done and worlds >= 4:
                    active = _prune(active, values)
                    done = len(active) == 1
        if not worlds:  # not even one world in the time: the prior's choice
            return cands[0]
        best = max(active, key=lambda i: (sum(values[i]) / len(values[i]), -i))
        if best != 0 and 0 in active and not _clearly_better(values[best], values[0], KEEP_Z):
            best = 0  # the prior's choice, unless another move is clearly better
        self.last_stats = {"means": [round(sum(v) / len(v), 3) if v else None for v in values],
                           "codes": [c.code for c in cands],
                           "proposals": self._proposals, "worlds": worlds, "rollouts": rollouts,
                           "candidates": k,
                           "left": len(active), "seconds": clock() - start}
        return cands[best]


    def world_source(self, obs: Any, rng: random.Random, start: float,
                      deadline: float) -> Callable[[], Any]:
        """Where the sampled worlds come from: straight from ``sample_world``, or — when the game
        weighs worlds by the others' moves — resampled by weight from a pool of proposals
        (built with at most a quarter of the time, or 4 × ``playouts`` proposals)."""
        search = self.search
        if self.playouts is None:  # about a quarter of the time for the particles
            size = max(24, min(POOL, round(POOL * (deadline - start))))
        else:
            size = 2 * self.playouts
        pool = search.world_pool(obs, rng, size)
        if pool is not None:
            return self._resampler([w for w, _ in pool], [x for _, x in pool], rng)
        first = search.sample_world(obs, rng)
        w = search.weight(obs, first, rng)
        if w is None:
            self._proposals = 0
            pending = [first]

            def plain() -> Any:
                return pending.pop() if pending else search.sample_world(obs, rng)
            return plain
        pool = [first]
        weights = [w]
        if self.playouts is not None:
            target, until = 4 * self.playouts, math.inf
        else:
            target, until = 400, start + (deadline - start) * 0.25
        clock = self._clock
        while len(pool) < target and (len(pool) < 8 or clock() < until):
            world = search.sample_world(obs, rng)
            pool.append(world)
            weights.append(search.weight(obs, world, rng) or 0.0)
        return self._resampler(pool, weights, rng)

    def _resampler(self, pool: list[Any], weights: list[float],
                   rng: random.Random) -> Callable[[], Any]:
        """Draw worlds from ``pool`` in proportion to ``weights``."""
        search = self.search
        self._proposals = len(pool)
        total = sum(weights)
        if total <= 0:
            weights = [1.0] * len(pool)
            total = float(len(pool))
        cum = []
        acc = 0.0
        for x in weights:
            acc += x
            cum.append(acc)

        def resample() -> Any:
            r = rng.random() * total
            lo, hi = 0, len(cum) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if cum[mid] < r:
                    lo = mid + 1
                else:
                    hi = mid
            return search.refresh(pool[lo], rng)
        return resample


def _clearly_better(a: list[float], b: list[float], z: float) -> bool:
    """Is ``a`` better than ``b`` (paired over the same worlds) by more than ``z`` standard
    errors of the mean difference?"""
    n = min(len(a), len(b))
    if n < 2:
        return False
    d = [a[w] - b[w] for w in range(n)]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    return mean > z * math.sqrt(var / n) + 1e-12


def _prune(active: list[int], values: list[list[float]], z: float = 2.5) -> list[int]:
    """Drop the candidates whose paired difference to the leader is clearly negative."""
    means = {i: sum(values[i]) / len(values[i]) for i in active}
    lead = max(active, key=lambda i: (means[i], -i))
    lv = values[lead]
    keep = []
    for i in active:
        if i == lead:
            keep.append(i)
            continue
        vi = values[i]
        n = len(vi)
        if n < 4:
            keep.append(i)
            continue
        d = [vi[w] - lv[w] for w in range(n)]
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        se = math.sqrt(var / n)
        if mean + z * se + 1e-9 < 0 or (se == 0 and mean < 0 and n >= 6):
            continue
        keep.append(i)
    return keep


# ---------------------------------------------------------------------------------------------
# Game values from lives: the chance to win a last-one-standing game


_WIN_CACHE: dict[tuple[int, ...], tuple[float, ...]] = {}


def play_round_out(game: Any, state: Any, choose: Callable[..., Action],
                   rng: random.Random) -> Any:
    """Play the round of ``state`` to its end (payout or game over) with ``choose`` for every
    seat, each deciding from its own observation; the state at the end."""
    apply, observation = game.apply, game.observation
    while state.phase not in (PAYOUT, FINISHED):
        state, _ = apply(state, choose(observation(state, state.to_act), rng))
    return state


def game_outcome(state: Any, seat: int, tokens: Sequence[int]) -> float:
    """The value of a round's end for ``seat`` in a last-one-standing game (Schwimmen, Scat):
    1 or 0 when the game is decided, else the chance to win with ``tokens`` + 1 lives per
    player still in (``win_chances``)."""
    if state.phase == FINISHED:
        return 1.0 if state.winner == seat else 0.0
    if state.out[seat]:
        return 0.0
    lives = [0 if state.out[s] else tokens[s] + 1 for s in range(state.seats)]
    return win_chances(lives)[seat]


def win_chances(lives: Sequence[int]) -> tuple[float, ...]:
    """Each player's chance to be the last one standing when every round one player, chosen
    uniformly, loses a life (a player without lives is out). ``lives`` of 0 = already out.
    A coarse but useful model of Schwimmen and Scat between equally strong players."""
    order = sorted(range(len(lives)), key=lambda i: lives[i])
    table = _win_sorted(tuple(lives[i] for i in order))
    out = [0.0] * len(lives)
    for pos, i in enumerate(order):
        out[i] = table[pos]
    return tuple(out)


def _win_sorted(key: tuple[int, ...]) -> tuple[float, ...]:
    hit = _WIN_CACHE.get(key)
    if hit is not None:
        return hit
    n = len(key)
    alive = [i for i in range(n) if key[i] > 0]
    if len(alive) <= 1:
        out = tuple(1.0 if key[i] > 0 else 0.0 for i in range(n))
    else:
        acc = [0.0] * n
        for j in alive:
            nxt = list(key)
            nxt[j] -= 1
            sub = win_chances(nxt)
            for i in range(n):
                acc[i] += sub[i]
        out = tuple(a / len(alive) for a in acc)
    _WIN_CACHE[key] = out
    return out
