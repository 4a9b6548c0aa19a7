"""Schwimmen CPU players: Anfänger (greedy, a little careless) and Normal (greedy with a
feel for the table: knocks when ahead, keeps good cards away from the next player)."""

from __future__ import annotations

import random

from ..protocol import TURN
from ..schwimmen import CARD_VALUE, KNOCK, PASS, SWAP_ALL, Observation, SwimAction, half_points
from .levels import ANFAENGER, NORMAL


def hand_after(obs: Observation, action: SwimAction) -> tuple:
    """Hand and middle after an action (for swaps), else unchanged."""
    hand, middle = obs.hand, obs.middle
    if action.kind == "swap":
        hand = tuple(action.take if c is action.give else c for c in hand)
        middle = tuple(action.give if c is action.take else c for c in middle)
    elif action.kind == "swap_all":
        hand, middle = middle, hand
    return hand, middle


def _potential(hand) -> float:
    """How promising a hand is beyond its value: two cards of a suit leave room to grow."""
    suits: dict[int, int] = {}
    for c in hand:
        suits[c.suit] = suits.get(c.suit, 0) + 1
    return 1.5 if max(suits.values()) == 2 else 0.0


class Anfaenger:
    """Takes the swap that raises its hand most, now and then a worse one; knocks at about 26."""

    game_id = "schwimmen"
    level = ANFAENGER

    def choose(self, obs: Observation, rng: random.Random) -> SwimAction:
        legal = obs.legal
        now = half_points(*obs.hand)
        patience = max(0, obs.turns // max(1, obs.seats) - 3)  # gets bored after a while
        if obs.phase == TURN and now >= 2 * (rng.choice((25, 26, 27)) - 2 * patience):
            return KNOCK
        swaps = [a for a in legal if a.kind in ("swap", "swap_all")]
        scored = sorted(((half_points(*hand_after(obs, a)[0]), a.code, a) for a in swaps), reverse=True)
        best_value, _, best = scored[0]
        if rng.random() < 0.15:  # a beginner's slip
            return rng.choice(swaps)
        if best_value > now:
            return best
        if PASS in legal:
            return PASS
        if obs.phase == TURN:
            return KNOCK if now >= 40 else best
        return KNOCK  # final round: a renewed knock keeps the hand


class Normal:
    """Weighs value, potential and what the next player could take from the middle."""

    game_id = "schwimmen"
    level = NORMAL
    # Knock thresholds in half points, tuned by simulation (bench/tune.py, docs/arena.md):
    # patience pays — 30 (29 with four players), and 31 in the first turn of each player.
    KNOCK_AT = {2: 60, 3: 60, 4: 58}
    FIRST_TURN_EXTRA = 2
    POSITION_SHIFT = 0  # half points per seat after the starter (swept: no measurable gain)

    def choose(self, obs: Observation, rng: random.Random) -> SwimAction:
        legal = obs.legal
        final = obs.phase != TURN
        now = half_points(*obs.hand)
        active = sum(1 for o in obs.out if not o)
        if not final and KNOCK in legal:
            threshold = self.KNOCK_AT[min(4, max(2, active))]
            if obs.turns < active:
                threshold += self.FIRST_TURN_EXTRA
            threshold += self.POSITION_SHIFT * ((obs.seat - obs.starter) % obs.seats)
            threshold -= 2 * max(0, obs.turns // active - 3)  # a long round: settle for less
            if obs.coins[obs.seat] == 0:
                threshold += 2  # swimming: knock only on a strong hand
            if now >= threshold:
                return KNOCK
        best_score, best = None, None
        for action in legal:
            if action.kind not in ("swap", "swap_all"):
                continue
            hand, middle = hand_after(obs, action)
            value = half_points(*hand)
            if value == 62:
                return action  # 31 ends the round at once
            score = value + (0 if final else _potential(hand))
            if not final:  # do not leave a strong middle for the next player
                score -= 0.25 * max(0, max(CARD_VALUE[c.id] for c in middle) - 9)
            score += rng.random() * 0.01
            if best_score is None or score > best_score:
                best_score, best = score, action
        keep = now + (0 if final else _potential(obs.hand))
        if best is not None and best_score is not None and best_score > keep + 0.5:
            return best
        if PASS in legal and now < 50:
            return PASS
        if final:
            return KNOCK if best is None or best_score <= now else best  # type: ignore[operator]
        if now >= 46 or obs.turns >= 6 * active:
            return KNOCK
        return best if best is not None else SWAP_ALL
