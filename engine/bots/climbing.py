"""Climbing-game CPU players: Anfänger (plays its lowest cards, beats as cheaply as it can)
and Normal (plans its hand as few combinations as possible, keeps fours, jokers and 2s for
when they count, and stops a player who is about to go out)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import CARDS, Card
from ..climbing import (
    _VALUE_RANK,
    PASS,
    RANK,
    ClimbAction,
    Observation,
    max_high,
)
from ..protocol import EXCHANGE
from .levels import ANFAENGER, NORMAL

ACE, TWO, BLACK_JOKER = 11, 12, 13


def _lowest_give_back(obs: Observation, keep: set[Card] | None = None) -> ClimbAction:
    """The give-back action for the lowest eligible card (avoiding ``keep`` if possible)."""
    gives = sorted(obs.legal, key=lambda a: (a.cards[0] in (keep or ()), a.rank, a.cards[0].suit))
    return gives[0]


class Anfaenger:
    """Leads its lowest rank (all cards of it), answers with the cheapest play that beats,
    hesitates now and then and is shy of using its fours."""

    game_id = "climbing"
    level = ANFAENGER

    def choose(self, obs: Observation, rng: random.Random) -> ClimbAction:
        legal = obs.legal
        if obs.phase == EXCHANGE:
            return _lowest_give_back(obs)
        plays = [a for a in legal if a is not PASS]
        if obs.table is None:  # lead
            if rng.random() < 0.15:
                return rng.choice(plays)
            low = min(RANK[c.id] for a in plays for c in a.cards)
            group = [a for a in plays if a.kind != "straight" and a.rank == low]
            return max(group, key=lambda a: a.length) if group else plays[0]
        if not plays:
            return PASS
        normal = [a for a in plays if a.kind != "four"]
        few = len(obs.hand) <= 4
        if not normal:
            return plays[0] if few or rng.random() < 0.3 else PASS
        cheapest = min(normal, key=lambda a: (a.rank, a.code))
        if not few and rng.random() < 0.2:
            return PASS  # a beginner's hesitation
        if not few and cheapest.rank >= TWO and rng.random() < 0.5:
            return PASS
        return cheapest


# ---------------------------------------------------------------------------------------------
# Normal: hand planning


def plan(hand: Sequence[Card]) -> list[tuple[str, int, tuple[Card, ...]]]:
    """Split a hand into few combinations: fours, straights that save plays, then groups.

    Returns ``(kind, rank position of the lowest card, cards)`` units."""
    groups: list[list[Card]] = [[] for _ in range(15)]
    for c in hand:
        groups[RANK[c.id]].append(c)
    units: list[tuple[str, int, tuple[Card, ...]]] = []
    for r in range(13):
        if len(groups[r]) == 4:
            units.append(("four", r, tuple(groups[r])))
            groups[r] = []
    while True:  # take the straight that saves most plays, while one saves any
        best = None
        for low in range(1, 11):
            if not groups[_VALUE_RANK[low]]:
                continue
            singles = 0
            for high in range(low, max_high(low) + 1):
                g = groups[_VALUE_RANK[high]]
                if not g:
                    break
                singles += len(g) == 1
                if high - low >= 4:
                    gain = singles - 1
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, low, high)
        if best is None:
            break
        _, low, high = best
        cards = tuple(groups[_VALUE_RANK[v]].pop() for v in range(low, high + 1))
        units.append(("straight", RANK[cards[0].id] if low > 2 else -1, cards))
    for r in range(15):
        if groups[r]:
            kind = ("single", "pair", "triple")[len(groups[r]) - 1]
            units.append((kind, r, tuple(groups[r])))
    return units


_COST_CACHE: dict[int, float] = {}


def cost_of_mask(mask: int) -> float:
    """``_cost`` of the cards of a mask (card ids as bits), remembered: hands recur often."""
    hit = _COST_CACHE.get(mask)
    if hit is None:
        if len(_COST_CACHE) > 200_000:
            _COST_CACHE.clear()
        cards = []
        m = mask
        while m:
            low = m & -m
            cards.append(CARDS[low.bit_length() - 1])
            m ^= low
        hit = _COST_CACHE[mask] = _cost(cards)
    return hit


def _cost(hand: Sequence[Card]) -> float:
    """How hard a hand is to get rid of: its plays, low ones weigh more than high ones."""
    total = 0.0
    for kind, r, _cards in plan(hand):
        if kind == "four" or r >= BLACK_JOKER:
            total += 0.3  # a play that wins a trick almost surely
        elif r >= ACE:
            total += 0.7
        else:
            total += 1.0 + 0.02 * (10 - max(r, 0))
    return total


def penalty(action: ClimbAction, hand_size: int, danger: bool) -> float:
    """What spending the strong cards of a play costs (nothing when the hand is nearly out)."""
    if hand_size <= 3:
        return 0.0
    top = max(RANK[c.id] for c in action.cards)
    if action.kind == "four":
        return 0.5 if danger else 2.5
    return {ACE: 0.25, TWO: 0.45, BLACK_JOKER: 0.7, BLACK_JOKER + 1: 0.9}.get(top, 0.0)


class Normal:
    """Plans its hand, leads low combinations, beats when it keeps the plan intact."""

    game_id = "climbing"
    level = NORMAL

    def choose(self, obs: Observation, rng: random.Random) -> ClimbAction:
        legal = obs.legal
        hand = obs.hand
        if obs.phase == EXCHANGE:
            singles = {cards[0] for kind, _r, cards in plan(hand) if kind == "single"}
            return _lowest_give_back(obs, keep={c for c in hand if c not in singles})
        plays = [a for a in legal if a is not PASS]
        for a in plays:
            if a.length == len(hand):
                return a  # out in one go
        others = [obs.counts[s] for s in range(obs.seats) if s != obs.seat and obs.counts[s]]
        danger = bool(others) and min(others) <= 2
        if obs.table is None:
            return self._lead(obs, plays, danger)
        before = _cost(hand) + 0.35  # passing costs the tempo
        if danger:
            before += 0.8
        if obs.owner is not None and obs.counts[obs.owner] <= 3:
            before += 0.5
        best, best_score = PASS, before
        hand_mask = 0
        for c in hand:
            hand_mask |= 1 << c.id
        for a in plays:
            score = (cost_of_mask(hand_mask & ~a.mask) + penalty(a, len(hand), danger)
                     + rng.random() * 0.01)
            if score < best_score:
                best, best_score = a, score
        return best

    @staticmethod
    def _lead(obs: Observation, plays: list[ClimbAction], danger: bool) -> ClimbAction:
        hand = obs.hand
        if obs.opening:  # must include 3♠: the play that leaves the easiest hand
            return min(plays, key=lambda a: (_cost([c for c in hand if not (a.mask >> c.id) & 1]),
                                             -a.length, a.code))
        units = plan(hand)
        by_mask = {a.mask: a for a in plays}
        candidates = []
        for kind, r, cards in units:
            m = 0
            for c in cards:
                m |= 1 << c.id
            action = by_mask.get(m)
            if action is None:
                continue
            weak = kind != "four" and r < ACE
            # low first; in danger avoid singles a near-out player can answer
            key = (not weak, danger and kind == "single", r, -len(cards))
            candidates.append((key, action))
        if len(units) == 2:  # two plays left: lead the strong one, then the last
            strong = [a for key, a in candidates if key[0]]
            if strong:
                return strong[-1]
        if candidates:
            return min(candidates, key=lambda t: (t[0], t[1].code))[1]
        return min(plays, key=lambda a: (a.rank, a.code))
