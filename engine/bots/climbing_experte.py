"""Climbing-game Experte: determinized Monte Carlo over the hidden hands (see ``experte.py``).

World sampling: the cards neither played nor in the own hand are dealt to the others with their
card counts, keeping what is public or was seen: in the first play of the game the leader holds
3♠; in the exchange, the card the last gave the first (seen by both) and the card given back
stay with their new holders until played; "no exchange because of both jokers" means the last
holds both jokers; "nothing given back" means the first holds no card from 4 to 10; and the
first knows the last holds nothing above the card it received. Playouts: the Normal bot for
every seat, from its own view of the sampled world, to the end of the round. Outcome: the
points of the round for the own seat (3, 2, 1, 0 by the order of going out).
"""

from __future__ import annotations

import random
from typing import Any

from .. import climbing as C
from ..cards import Card
from ..protocol import EXCHANGE, TURN
from .climbing import ACE, Normal, cost_of_mask, penalty, plan
from .experte import Experte, GameSearch

MAX_CANDIDATES = 8  # plays searched besides Normal's and the pass (by Normal's own order)
TRIES = 24
_DECK_BY_ID = sorted(C.DECK, key=lambda c: c.id)
_GIVE_BACK = set(C.GIVE_BACK_RANKS)


class _View:
    """The parts of an observation the Normal bot reads, straight from a state (playouts)."""

    __slots__ = ("legal", "hand", "phase", "counts", "seat", "seats", "table", "owner",
                 "opening")

    def __init__(self, state: C.State) -> None:
        s = state.to_act
        self.legal = C.legal_actions(state)
        self.hand = state.hands[s]  # type: ignore[index]
        self.phase = state.phase
        self.counts = tuple(len(h) for h in state.hands)
        self.seat = s
        self.seats = state.seats
        self.table = state.table
        self.owner = state.owner
        self.opening = state.opening


_PLANS: dict[int, list[tuple[str, int, int, int]]] = {}  # hand mask → (kind, rank, mask, n)


def _plan_of(hand: tuple[Card, ...], hand_mask: int) -> list[tuple[str, int, int, int]]:
    """Normal's plan of a hand (``climbing.plan``) with each unit's card mask, remembered by
    the hand's mask (a state's hands are sorted, so the mask fixes the plan)."""
    hit = _PLANS.get(hand_mask)
    if hit is None:
        if len(_PLANS) > 100_000:
            _PLANS.clear()
        hit = []
        for kind, r, cards in plan(hand):
            m = 0
            for c in cards:
                m |= 1 << c.id
            hit.append((kind, r, m, len(cards)))
        _PLANS[hand_mask] = hit
    return hit


def normal_move(state: C.State, rng: random.Random) -> C.ClimbAction:
    """Normal's move (``climbing.Normal.choose``) for the seat on turn, straight from the
    state — the same decision for the same dice — with the hands' costs and plans remembered
    by card mask. It reads only what the seat's observation shows."""
    if state.phase != TURN:
        return _NORMAL.choose(_View(state), rng)  # type: ignore[arg-type]
    s: int = state.to_act  # type: ignore[assignment]
    hand = state.hands[s]
    hand_mask = 0
    for c in hand:
        hand_mask |= 1 << c.id
    return _decide(s, hand, hand_mask, state.hands, C.legal_actions(state), state.table,
                   state.owner, state.opening, rng)


def _decide(s: int, hand: tuple[Card, ...], hand_mask: int, hands: Any,
            legal: Any, table: Any, owner: int | None, opening: bool,
            rng: random.Random) -> C.ClimbAction:
    """Normal's move from the parts of the position it reads (``normal_move``)."""
    size = len(hand)
    for a in legal:
        if a.length == size and a is not C.PASS:
            return a  # out in one go
    danger = False
    for x, h in enumerate(hands):
        if x != s and h and len(h) <= 2:
            danger = True
    if table is None:
        return _lead(opening, legal, hand, hand_mask, danger)
    before = cost_of_mask(hand_mask) + 0.35
    if danger:
        before += 0.8
    if owner is not None and len(hands[owner]) <= 3:
        before += 0.5
    best, best_score = C.PASS, before
    random_ = rng.random
    for a in legal:
        if a is C.PASS:
            continue
        score = cost_of_mask(hand_mask & ~a.mask) + penalty(a, size, danger) + random_() * 0.01
        if score < best_score:
            best, best_score = a, score
    return best


_PLAYS: dict[tuple[int, str, bool, str], list[C.ClimbAction]] = {}  # legal moves by position


def round_points(state: C.State, seat: int, rng: random.Random) -> float:
    """The points of the round for ``seat`` after the rest of it is played by Normal players
    (``_decide``) — the engine's rules of a turn, a trick and the round's end, each position's
    legal moves remembered (``climbing.plays`` is a pure function of the hand and the table):
    the same as playing it with ``climbing.apply``, faster."""
    if state.phase != TURN:
        return float(state.result.points[seat])  # type: ignore[union-attr]
    n = state.seats
    hands = list(state.hands)
    masks = []
    for h in hands:
        m = 0
        for c in h:
            m |= 1 << c.id
        masks.append(m)
    table = state.table
    owner = state.owner
    passed = list(state.passed)
    out_order = list(state.out_order)
    opening = state.opening
    step = state.straight_step
    s: int = state.to_act  # type: ignore[assignment]
    cache = _PLAYS
    pass_ = C.PASS
    while True:
        hand = hands[s]
        mask = masks[s]
        key = (mask, "" if table is None else table.code, opening, step)
        legal = cache.get(key)
        if legal is None:
            if len(cache) > 200_000:
                cache.clear()
            legal = C.plays(hand, table, step, C.THREE_OF_SPADES if opening else None)
            if table is not None:
                legal.append(pass_)
            legal = cache[key] = legal
        action = _decide(s, hand, mask, hands, legal, table, owner, opening, rng)
        if action is pass_:
            passed[s] = True
            nxt = _next_active(hands, s)
            if nxt == owner or passed[nxt]:  # everybody else passed: the trick is the owner's
                s = owner if hands[owner] else _next_active(hands, owner)  # type: ignore[index]
                table, owner, passed = None, None, [False] * n
            else:
                s = nxt
            continue
        played = action.mask
        masks[s] = mask & ~played
        hands[s] = tuple(c for c in hand if not (played >> c.id) & 1)
        if not hands[s]:
            out_order.append(s)
            if len(out_order) == n - 1:
                break
        opening = False
        table, owner, passed = action, s, [False] * n
        s = _next_active(hands, s)
    out_order.append(next(x for x in range(n) if hands[x]))
    return float(C.POINTS[out_order.index(seat)])


def _next_active(hands: list[tuple[Card, ...]], seat: int) -> int:
    n = len(hands)
    nxt = (seat + 1) % n
    while not hands[nxt]:
        nxt = (nxt + 1) % n
    return nxt


def _lead(opening: bool, plays: Any, hand: tuple[Card, ...], hand_mask: int,
          danger: bool) -> C.ClimbAction:
    """``Normal._lead`` with the plan and costs remembered."""
    if opening:
        return min(plays, key=lambda a: (cost_of_mask(hand_mask & ~a.mask), -a.length, a.code))
    units = _plan_of(hand, hand_mask)
    by_mask = {a.mask: a for a in plays}
    candidates = []
    for kind, r, m, n in units:
        action = by_mask.get(m)
        if action is None:
            continue
        weak = kind != "four" and r < ACE
        candidates.append(((not weak, danger and kind == "single", r, -n), action))
    if len(units) == 2:
        strong = [a for key, a in candidates if key[0]]
        if strong:
            return strong[-1]
    if candidates:
        return min(candidates, key=lambda t: (t[0], t[1].code))[1]
    return min(plays, key=lambda a: (a.rank, a.code))


_NORMAL = Normal()


def _signature(a: C.ClimbAction) -> tuple[str, int, int]:
    """Suits never matter in the climbing game: plays of the same kind, rank and length are
    the same play."""
    return (a.kind, a.rank, a.length)


class ClimbingSearch(GameSearch):
    game = C

    def __init__(self) -> None:
        self.policy = Normal()

    def candidates(self, obs: C.Observation, rng: random.Random) -> list[Any]:
        first = self.policy.choose(obs, random.Random(0))
        if obs.phase == EXCHANGE:
            seen = {first.cards[0].rank}
            out = [first]
            for a in obs.legal:  # one card of each rank to give back
                if a.cards[0].rank not in seen:
                    seen.add(a.cards[0].rank)
                    out.append(a)
            return out
        hand_mask = 0
        for c in obs.hand:
            hand_mask |= 1 << c.id
        seen_sig = {_signature(first)} if first is not C.PASS else set()
        scored = []
        for a in obs.legal:
            if a is C.PASS or a is first:
                continue
            sig = _signature(a)
            if sig in seen_sig:
                continue
            seen_sig.add(sig)
            scored.append((cost_of_mask(hand_mask & ~a.mask)
                           + penalty(a, len(obs.hand), False), a.code, a))
        scored.sort(key=lambda t: (t[0], t[1]))
        out = [first] + [a for _, _, a in scored[:MAX_CANDIDATES]]
        if first is not C.PASS and C.PASS in obs.legal:
            out.append(C.PASS)
        return out

    def sample_world(self, obs: C.Observation, rng: random.Random) -> C.State:
        me = obs.seat
        n = obs.seats
        played = set(obs.played)
        if obs.table is not None:
            played.update(obs.table.cards)
        mine = set(obs.hand)
        fixed: list[list[Card]] = [[] for _ in range(n)]
        banned: list[Any] = [None] * n  # a test a seat's cards must pass
        ex = obs.exchange
        if obs.opening and obs.leader != me and C.THREE_OF_SPADES not in mine:
            fixed[obs.leader].append(C.THREE_OF_SPADES)
        if ex is not None and obs.phase in (TURN, EXCHANGE):
            if ex.status == "jokers":
                for j in (C.BLACK_JOKER_CARD, C.RED_JOKER_CARD):
                    if j not in played and j not in mine and ex.last != me:
                        fixed[ex.last].append(j)
            if ex.status == "no_back" and ex.first != me:
                banned[ex.first] = lambda c: C.RANK[c.id] in _GIVE_BACK
            if ex.given is not None and ex.given not in played and ex.first != me:
                fixed[ex.first].append(ex.given)
            if ex.back is not None and ex.back not in played and ex.last != me:
                fixed[ex.last].append(ex.back)
            if me == ex.first and ex.given is not None and ex.last != me:
                top = C.sort_key(ex.given)
                banned[ex.last] = lambda c, top=top: C.sort_key(c) > top
        taken = played | mine
        for s in range(n):
            fixed[s] = [c for c in fixed[s] if c not in taken]
            taken.update(fixed[s])
        pool = [c for c in _DECK_BY_ID if c not in taken]
        need = [0 if s == me else obs.counts[s] - len(fixed[s]) for s in range(n)]
        best: tuple[int, list[list[Card]]] | None = None
        for _ in range(TRIES):
            rng.shuffle(pool)
            hands = [list(f) for f in fixed]
            hands[me] = list(obs.hand)
            free = list(pool)
            # a seat with a banned test takes its cards first from the allowed ones
            bad = 0
            for s in range(n):
                if s == me or banned[s] is None:
                    continue
                ok = [c for c in free if not banned[s](c)]
                take = ok[:need[s]]
                bad += need[s] - len(take)
                hands[s] += take
                chosen = set(take)
                free = [c for c in free if c not in chosen]
            for s in range(n):
                if s == me or banned[s] is not None:
                    continue
                hands[s] += free[:need[s]]
                free = free[need[s]:]
            for s in range(n):
                if s != me and banned[s] is not None and len(hands[s]) < obs.counts[s]:
                    k = obs.counts[s] - len(hands[s])
                    hands[s] += free[:k]
                    free = free[k:]
            if best is None or bad < best[0]:
                best = (bad, hands)
            if not bad:
                break
        assert best is not None
        hands = best[1]
        return C.State(
            seats=n, options=(("straight_step", obs.straight_step),), seed=0,
            round_no=obs.round_no, dealer=obs.dealer,
            hands=tuple(C.sort_cards(h) for h in hands), phase=obs.phase, to_act=obs.to_act,
            leader=obs.leader, table=obs.table, owner=obs.owner, passed=obs.passed,
            out_order=obs.out_order, played=obs.played, opening=obs.opening,
            exchange=obs.exchange, scores=obs.scores, target=obs.target, turns=obs.turns,
            result=None, winners=(),
        )

    def rollout(self, world: C.State, action: Any, seat: int, rng: random.Random) -> float:
        state, _ = C.apply(world, action)
        while state.phase == EXCHANGE:
            state, _ = C.apply(state, normal_move(state, rng))
        return round_points(state, seat, rng)


class ClimbingExperte(Experte):
    """Searches the hidden hands: samples deals consistent with what it saw, plays its best
    plays out with Normal players to the end of the round, keeps the most points."""

    game_id = "climbing"
    search_class = ClimbingSearch
