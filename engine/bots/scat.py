"""Scat (Einunddreißig) CPU players, deciding from the observation only.

Anfänger: takes the discard top when it improves the hand, else draws from the stock; discards
its worst card; knocks at about 26 (four-card Scat: 34).
Normal: weighs the discard top against the expected value of a stock draw over the cards it has
not seen (its hand and the discard pile are known), keeps the cards of the suit with the best
prospects (it commits to a suit), and knocks at a threshold that depends on the number of players,
the stage of the round and its own tokens.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import Card
from ..protocol import TURN
from ..scat import (
    DECK,
    DRAW,
    KNOCK,
    PASS,
    TAKE,
    Observation,
    ScatAction,
    _value2,
    best_discard,
    drop,
)
from . import ANFAENGER, NORMAL, register


def _take_value(obs: Observation) -> int:
    """Half-point value after taking the discard top and discarding the best other card."""
    top = obs.discard[-1]
    return best_discard(obs.hand + (top,), obs.trio_bonus, keep=top)[0]


def _unseen(obs: Observation) -> list[Card]:
    known = set(obs.hand) | set(obs.discard)
    return [c for c in DECK if c not in known]


def _draw_expectation(hand: Sequence[Card], unseen: Sequence[Card], trio: bool) -> float:
    """Expected half-point value after drawing a random unseen card and discarding the worst."""
    base = _value2(hand, trio)
    if not unseen:
        return float(base)
    subs = [tuple(d for d in hand if d is not h) for h in hand]
    total = 0
    for c in unseen:
        best = base  # the drawn card itself may go again
        for sub in subs:
            v = _value2(sub + (c,), trio)
            if v > best:
                best = v
        total += best
    return total / len(unseen)


@register("scat", ANFAENGER)
class Anfaenger:
    """Greedy and simple: the discard top if it helps, else the stock; knocks at about 26."""

    game_id = "scat"
    level = ANFAENGER

    def choose(self, obs: Observation, rng: random.Random) -> ScatAction:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        trio = obs.trio_bonus
        if obs.drawn is not None:  # discard the worst card
            keep = obs.drawn if obs.from_pile else None
            return drop(best_discard(obs.hand, trio, keep)[1])
        now = _value2(obs.hand, trio)
        extra = 8 if obs.hand_size == 4 else 0
        threshold = 2 * (rng.choice((25, 26, 27)) + extra)
        if KNOCK in legal and now >= threshold:
            return KNOCK
        if TAKE in legal and _take_value(obs) > now:
            return TAKE
        if DRAW in legal:
            return DRAW
        if KNOCK in legal and now >= threshold - 12:
            return KNOCK  # empty stock: the round ends anyway, knock on a fair hand
        return PASS if PASS in legal else legal[0]


@register("scat", NORMAL)
class Normal:
    """Compares the discard top with the expected stock draw, keeps the suit with the best
    prospects, knocks by a threshold that depends on players, stage and tokens."""

    game_id = "scat"
    level = NORMAL

    def threshold2(self, obs: Observation) -> int:
        """Knock threshold in half points."""
        players = len(obs.players)
        base = 27 if players == 2 else 26 if players <= 4 else 25
        if obs.turns < players:
            base -= 1  # the others have hardly improved yet
        if obs.lives[obs.seat] <= 1:
            base -= 1  # close to the end: knock earlier and take the small win
        if obs.hand_size == 4:
            base += 8
        return 2 * base

    def choose(self, obs: Observation, rng: random.Random) -> ScatAction:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        trio = obs.trio_bonus
        unseen = _unseen(obs)
        if obs.drawn is not None:
            return self._discard(obs, unseen, rng)
        now = _value2(obs.hand, trio)
        take = _take_value(obs) if TAKE in legal else -1
        expect = _draw_expectation(obs.hand, unseen, trio) if DRAW in legal else float(now)
        threshold = self.threshold2(obs)
        if KNOCK in legal and now >= threshold and (expect - now < 3 or now >= threshold + 4):
            return KNOCK
        if take > now and take + 0.5 >= expect:
            return TAKE
        if DRAW in legal:
            return DRAW
        # the stock is empty: a knock or a pass ends the round at once
        if KNOCK in legal and now >= threshold - 6:
            return KNOCK
        if take > now:
            return TAKE
        return PASS if PASS in legal else legal[0]

    def _discard(self, obs: Observation, unseen: list[Card], rng: random.Random) -> ScatAction:
        trio = obs.trio_bonus
        keep = obs.drawn if obs.from_pile else None
        last_turn = obs.phase != TURN  # after a knock only the value counts
        best_score, best_card = None, None
        for c in obs.hand:
            if c is keep:
                continue
            rest = tuple(d for d in obs.hand if d is not c)
            value = _value2(rest, trio)
            score = float(value)
            if not last_turn:  # keep the cards with the best prospects: commit to a suit
                score += _draw_expectation(rest, unseen, trio) - value
            score += rng.random() * 0.01
            if best_score is None or score > best_score:
                best_score, best_card = score, c
        assert best_card is not None
        return drop(best_card)
