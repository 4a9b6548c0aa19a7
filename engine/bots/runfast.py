"""Run Fast CPU players: Anfänger (leads low, answers with the lowest play that beats, now and
then wastes a bomb) and Normal (sheds many cards at once, keeps pairs and triples together,
takes control when an opponent is about to go out). Both pick from the observation's legal
plays only, so they obey every rule."""

from __future__ import annotations

import random

from ..runfast import BOMB, CARD_POWER, SINGLE, Family, Observation, RFAction, play_action
from .levels import ANFAENGER, NORMAL

_POWER_OF_BIT = {1 << i: p for i, p in enumerate(CARD_POWER) if p >= 0}


def _powers(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(_POWER_OF_BIT[low])
        mask ^= low
    return out


def _cheapest(fam: Family, hand: int, weight=None) -> int:  # type: ignore[no-untyped-def]
    """The mask of a family that gives away the least (lowest kickers, fewest broken ranks)."""
    masks = fam.masks
    if len(masks) == 1:
        return masks[0]
    best, best_score = masks[0], None
    for x in masks:
        score = sum(_powers(x)) if weight is None else weight(x, hand)
        if best_score is None or score < best_score:
            best, best_score = x, score
    return best


def _families(obs: Observation) -> list[Family]:
    return list(getattr(obs.legal, "families", []))


def _size(fam: Family) -> int:
    return next(iter(fam.masks)).bit_count()


def _action(fam: Family, mask: int) -> RFAction:
    return play_action(mask, fam.kind)


class Anfaenger:
    """Leads its lowest combination, answers with the lowest play that beats; sometimes throws
    a bomb in where a smaller play would do."""

    game_id = "runfast"
    level = ANFAENGER

    def choose(self, obs: Observation, rng: random.Random) -> RFAction:
        legal = obs.legal
        fams = _families(obs)
        if not fams:
            return legal[0]  # pass or deal: the only move
        for f in fams:  # going out is obvious even to a beginner
            if obs.hand_mask in f.masks:
                return _action(f, obs.hand_mask)
        bombs = [f for f in fams if f.kind == BOMB]
        others = [f for f in fams if f.kind != BOMB]
        if bombs and (not others or rng.random() < 0.12):
            fam = min(bombs, key=lambda f: f.power)
            return _action(fam, fam.masks[0])
        if obs.current is None:
            # the lowest card first; often with the biggest combination that holds it
            def low(f: Family) -> int:
                return min(_powers(next(iter(f.masks))))
            lowest = min(low(f) for f in others)
            pool = [f for f in others if low(f) == lowest]
            if rng.random() < 0.5:
                fam = max(pool, key=lambda f: (_size(f), -f.power))
            else:
                fam = min(pool, key=lambda f: (_size(f), f.power))
        else:
            fam = min(others, key=lambda f: f.power)
        return _action(fam, _cheapest(fam, obs.hand_mask))


# per rank nibble: (cards in it, power of its rank); the cost of leaving ``left`` cards of a
# rank behind after a play that uses some of it
_NIB_POWER = tuple(CARD_POWER[4 * n] for n in range(13))
_LEFT_COST = (0.0, 1.5, 1.0, 1.0, 1.0)


def _structure_cost(mask: int, hand: int) -> float:
    """How much a play breaks up: cards of a rank left behind alone, kicker strength."""
    cost = 0.0
    powers = 0
    m = mask
    while m:
        sh = ((m & -m).bit_length() - 1) & ~3
        used = (mask >> sh) & 15
        m &= ~(15 << sh)
        cost += _LEFT_COST[((hand >> sh) & 15 & ~used).bit_count()]
        powers += used.bit_count() * _NIB_POWER[sh >> 2]
    return cost + 0.1 * powers


def normal_play(fams: list[Family], hand: int, counts: tuple[int, ...], seat: int,
                leading: bool, rng: random.Random) -> tuple[Family, int]:
    """The Normal player's play (a family and its mask) among legal ``fams`` (not empty)."""
    for f in fams:
        if hand in f.masks:
            return f, hand
    n_seats = len(counts)
    danger = min(counts[s] for s in range(n_seats) if s != seat) <= 2
    next_count = counts[(seat + 1) % n_seats]
    bombs = [f for f in fams if f.kind == BOMB]
    others = [f for f in fams if f.kind != BOMB]
    left = hand.bit_count()
    if bombs and (not others or danger or left <= 8):
        fam = min(bombs, key=lambda f: f.power)  # bombs pay +10: do not go out with one
        return fam, fam.masks[0]
    best: tuple[float, Family, int] | None = None
    for f in others:
        mask = _cheapest(f, hand, _structure_cost)
        n = mask.bit_count()
        score = _structure_cost(mask, hand) + 0.35 * f.power - 0.9 * n
        if leading:
            if f.kind == SINGLE and next_count <= 2:
                score += 6  # a single only helps a player about to go out
        elif danger:
            score -= 0.6 * f.power  # block with strength now
        score += rng.random() * 0.05
        if best is None or score < best[0]:
            best = (score, f, mask)
    assert best is not None
    return best[1], best[2]


class Normal:
    """Sheds as many low cards as it can, keeps groups together, bombs for points and control,
    and blocks an opponent who is down to one or two cards."""

    game_id = "runfast"
    level = NORMAL

    def choose(self, obs: Observation, rng: random.Random) -> RFAction:
        fams = _families(obs)
        if not fams:
            return obs.legal[0]
        fam, mask = normal_play(fams, obs.hand_mask, obs.counts, obs.seat, obs.current is None,
                                rng)
        return _action(fam, mask)
