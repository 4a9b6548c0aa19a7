"""The stand-in: who plays for a person whose turn clock ran out or who is away.

It plays like Normal, but safely (docs/rules.md §3 names Normal; players expect the stand-in not to
take decisions that are theirs): it never knocks (Schwimmen, Scat: that ends the round for
everyone), never throws a bomb (Run Fast) and never a joker or a four (the climbing game) —
cards the person may have kept for later — unless the rules leave no other move. Among the
moves left it chooses as Normal does.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

from ..protocol import Action
from ..runfast import Plays
from ..schwimmen import half_points
from .levels import NORMAL
from .registry import get_bot
from .schwimmen import hand_after


def _knock(action: Any) -> bool:
    return action.kind == "knock"


def _bomb(action: Any) -> bool:
    return action.kind == "bomb"


def _joker_or_four(action: Any) -> bool:
    return action.kind == "four" or any(c.is_joker for c in getattr(action, "cards", ()))


UNSAFE: dict[str, Callable[[Any], bool]] = {
    "schwimmen": _knock,
    "scat": _knock,
    "runfast": _bomb,
    "climbing": _joker_or_four,
}


def _safe_legal(game_id: str, legal: Any, unsafe: Callable[[Any], bool]) -> Any | None:
    """The legal moves without the unsafe ones, in the form the game's bots read (None: no
    safe move, or nothing to take away)."""
    families = getattr(legal, "families", None)
    if families is not None:  # Run Fast: a lazy sequence of play families
        kept = [f for f in families if f.kind != "bomb"]
        return Plays(kept) if kept and len(kept) < len(families) else None
    kept = tuple(a for a in legal if not unsafe(a))
    return kept if kept and len(kept) < len(legal) else None


class StandIn:
    """Normal, minus the moves that are the person's own to decide (see the module)."""

    level = "stand-in"

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.normal = get_bot(game_id, NORMAL)
        self.unsafe = UNSAFE.get(game_id, lambda action: False)

    def choose(self, obs: Any, rng: random.Random) -> Action:
        choice = self.normal.choose(obs, rng)
        if not self.unsafe(choice):
            return choice
        safe = _safe_legal(self.game_id, obs.legal, self.unsafe)
        if safe is None:  # the rules leave nothing else
            return choice
        choice = self.normal.choose(dataclasses.replace(obs, legal=safe), rng)
        if choice in safe and not self.unsafe(choice):
            return choice
        return _fallback(self.game_id, obs, list(safe))  # Normal insisted (it knocks by itself)


def _fallback(game_id: str, obs: Any, safe: list[Any]) -> Action:
    """A safe move when Normal's own logic wants the unsafe one anyway: in Schwimmen the
    exchange that leaves the best hand (or keeping it, where passing is allowed); else the
    first safe move (drawing, in Scat)."""
    if game_id == "schwimmen":
        swaps = [a for a in safe if a.kind in ("swap", "swap_all")]
        keep = [a for a in safe if a.kind == "pass"]
        best = max(swaps, key=lambda a: half_points(*hand_after(obs, a)[0]), default=None)
        if keep and (best is None or half_points(*hand_after(obs, best)[0]) <= half_points(*obs.hand)):
            return keep[0]
        if best is not None:
            return best
    return safe[0]
