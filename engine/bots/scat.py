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
from bisect import bisect_right
from collections.abc import Sequence

from ..cards import Card
from ..protocol import TURN
from ..scat import (
    CARD_VALUE,
    DECK,
    DRAW,
    KNOCK,
    PASS,
    TAKE,
    Observation,
    ScatAction,
    best_discard,
    drop,
    half_points,
)
from .levels import ANFAENGER, NORMAL


def _take_value(obs: Observation) -> int:
    """Half-point value after taking the discard top and discarding the best other card."""
    top = obs.discard[-1]
    return best_discard(obs.hand + (top,), obs.trio_bonus, keep=top)[0]


def _unseen(obs: Observation) -> list[Card]:
    known = set(obs.hand) | set(obs.discard)
    return [c for c in DECK if c not in known]


class Unseen:
    """The cards a seat has not seen, arranged for fast draw expectations: per suit the sorted
    values and their running sums, and the cards of each rank."""

    __slots__ = ("n", "vals", "sums", "by_rank")

    def __init__(self, cards: Sequence[Card]) -> None:
        self.n = len(cards)
        vals: list[list[int]] = [[], [], [], []]
        self.by_rank: dict[int, list[Card]] = {}
        for c in cards:
            vals[c.suit].append(CARD_VALUE[c.id])
            self.by_rank.setdefault(c.rank, []).append(c)
        self.vals = [sorted(v) for v in vals]
        self.sums = []
        for v in self.vals:
            acc = [0]
            for x in v:
                acc.append(acc[-1] + x)
            self.sums.append(acc)


def _draw_expectation(hand: Sequence[Card], unseen: Sequence[Card] | Unseen,
                      trio: bool) -> float:
    """Expected half-point value after drawing a random unseen card and discarding the worst.

    A drawn card can only raise its own suit: the best hand holding it is the card plus the
    best (size − 1) cards of its suit in the hand (or a trio with a pair of its rank). Summed
    per suit over the sorted unseen values (exact integer arithmetic)."""
    base = half_points(hand, trio)
    prof = unseen if isinstance(unseen, Unseen) else Unseen(unseen)
    if not prof.n:
        return float(base)
    size = len(hand)
    tops = [0, 0, 0, 0]
    for s in range(4):
        vals = sorted((CARD_VALUE[c.id] for c in hand if c.suit == s), reverse=True)
        tops[s] = sum(vals[:size - 1])
    total = 0
    for s in range(4):
        vals = prof.vals[s]
        if not vals:
            continue
        t = tops[s]
        k = len(vals) - bisect_right(vals, (base - 2 * t) // 2)  # these raise the hand
        total += 2 * (prof.sums[s][-1] - prof.sums[s][len(vals) - k] + k * t)
        total += base * (len(vals) - k)
    if trio and size == 3:
        r0, r1, r2 = (c.rank for c in hand)
        pair_rank = r0 if r0 in (r1, r2) else r1 if r1 == r2 else -1
        for c in prof.by_rank.get(pair_rank, ()):  # a third card of the pair's rank: 30½
            v = 2 * (CARD_VALUE[c.id] + tops[c.suit])
            before = v if v > base else base
            if v < 61:
                v = 61
            total += (v if v > base else base) - before
    return total / prof.n


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
        now = half_points(obs.hand, trio)
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


class Normal:
    """Compares the discard top with the expected stock draw, keeps the suit with the best
    prospects, knocks by a threshold that depends on players, stage and tokens."""

    game_id = "scat"
    level = NORMAL
    # Knock thresholds in points by the number of players (8 and more: the 7 entry), tuned by
    # simulation (bench/tune.py, docs/arena.md); one point less in the first turn of each player.
    KNOCK_AT = {2: 25, 3: 24, 4: 24, 5: 23, 6: 23, 7: 23}
    FIRST_TURN_EASE = 1  # (only with the first-turn knock allowed: option no_first_turn_knock)
    POSITION_SHIFT = 0  # points per seat after the starter (swept: no measurable gain)
    expectation = staticmethod(_draw_expectation)  # (the Experte's playouts: a faster twin)

    def threshold2(self, obs: Observation) -> int:
        """Knock threshold in half points."""
        players = len(obs.players)
        base = self.KNOCK_AT[min(7, max(2, players))]
        if obs.turns < players:
            base -= self.FIRST_TURN_EASE  # the others have hardly improved yet
        if self.POSITION_SHIFT:
            order = sorted(obs.players, key=lambda s: (s - obs.dealer - 1) % obs.seats)
            base += self.POSITION_SHIFT * order.index(obs.seat)
        if obs.lives[obs.seat] <= 1:
            base -= 1  # close to the end: knock earlier and take the small win
        if obs.hand_size == 4:
            base += 8
        return 2 * base

    def choose(self, obs: Observation, rng: random.Random) -> ScatAction:
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        return self._decide(obs, Unseen(_unseen(obs)), rng)

    def _decide(self, obs: Observation, unseen: Unseen, rng: random.Random) -> ScatAction:
        """The move, given the cards the seat has not seen (``Unseen``)."""
        legal = obs.legal
        trio = obs.trio_bonus
        if obs.drawn is not None:
            return self._discard(obs, unseen, rng)
        now = half_points(obs.hand, trio)
        take = _take_value(obs) if TAKE in legal else -1
        expect = self.expectation(obs.hand, unseen, trio) if DRAW in legal else float(now)
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

    def _discard(self, obs: Observation, unseen: Unseen, rng: random.Random) -> ScatAction:
        trio = obs.trio_bonus
        keep = obs.drawn if obs.from_pile else None
        last_turn = obs.phase != TURN  # after a knock only the value counts
        best_score, best_card = None, None
        for c in obs.hand:
            if c is keep:
                continue
            rest = tuple(d for d in obs.hand if d is not c)
            value = half_points(rest, trio)
            score = float(value)
            if not last_turn:  # keep the cards with the best prospects: commit to a suit
                score += self.expectation(rest, unseen, trio) - value
            score += rng.random() * 0.01
            if best_score is None or score > best_score:
                best_score, best_card = score, c
        assert best_card is not None
        return drop(best_card)
