"""The coach: the Experte's move for a seat, from that seat's observation only, with what its
search measured for every move it weighed (``advise``).

Pure like the rest of the engine: an observation and a random generator in, an ``Advice``
out. The hint of a private game against the CPU (``chatbot.service``) runs it where CPU moves
run, and the review after a round compares a person's move with the Experte's by its
figures. What a figure means depends on the game (``MEASURES``): Schwimmen and Scat score the
chance to win the game after the round, Run Fast and the climbing game the round's points.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .levels import EXPERTE
from .registry import get_bot

MEASURES = {"schwimmen": "chance", "scat": "chance", "runfast": "points",
            "climbing": "points"}
CLEAR = {"chance": 0.08, "points": 2.0}  # a move this far below the best is clearly worse


@dataclass(frozen=True)
class Advice:
    """The Experte's move and the mean outcome of each move it searched (``values``: action
    code → the mean over the sampled worlds; moves dropped early keep their mean so far)."""

    code: str
    values: dict[str, float]
    worlds: int
    measure: str  # "chance" (0..1, to win the game) or "points" (of the round)

    def value(self, code: str) -> float | None:
        return self.values.get(code)

    def clearly_below(self, code: str) -> bool:
        """Whether ``code`` scored clearly below the advised move (both measured)."""
        mine, best = self.values.get(code), self.values.get(self.code)
        if mine is None or best is None or code == self.code:
            return False
        return best - mine >= CLEAR[self.measure]


def advise(game_id: str, obs: Any, rng: random.Random, *, budget: float | None = None,
           load: float | Callable[[], float] | None = None,
           playouts: int | None = None) -> Advice:
    """The Experte's choice for the seat of ``obs`` and its per-move figures. A decision
    with one sensible move (or late in a long round) is not searched: ``values`` is empty."""
    bot = get_bot(game_id, EXPERTE)
    if budget is not None:
        bot.budget = budget  # type: ignore[attr-defined]
    if load is not None:
        bot.load = load  # type: ignore[attr-defined]
    if playouts is not None:
        bot.playouts = playouts  # type: ignore[attr-defined]
    code = bot.choose(obs, rng).code
    stats: dict[str, Any] = getattr(bot, "last_stats", {}) or {}
    values = {c: float(m) for c, m in zip(stats.get("codes", []), stats.get("means", []),
                                          strict=False) if m is not None}
    return Advice(code, values, int(stats.get("worlds", 0)), MEASURES.get(game_id, "points"))
