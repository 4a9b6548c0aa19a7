"""Schwimmen Experte: determinized Monte Carlo over the unseen hands (see ``experte.py``).

World sampling: every card a player was seen to take from the middle (a one-card swap, or the
whole middle with "swap all") and has not laid down again is in that player's hand; the rest of
each hand comes from the cards nobody has seen (hands and the unused rest of the deck alike).
Playouts: the Normal bot for every seat, from its own observation of the sampled world, to the
end of the round. Outcome: the chance to win the game from the coins left (``win_chances``:
coins + 1 lives, the swimming player has one), 1 or 0 when the game is decided.
"""

from __future__ import annotations

import random
from typing import Any

from .. import schwimmen as S
from ..cards import BY_CODE, Card
from ..protocol import FINAL_ROUND, TURN
from .experte import Experte, GameSearch, game_outcome, win_chances
from .schwimmen import Normal

_DECK_BY_ID = sorted(S.DECK, key=lambda c: c.id)
_W = 64  # card ids are below 64: a hand of three ids is the index a * _W * _W + b * _W + c
_HP = [0] * (_W * _W * _W)  # half points of every hand of three Schwimmen cards, in any order
_POT = [0.0] * (_W * _W * _W)  # Normal's potential of that hand (two of a suit: 1.5)
for _a in S.DECK:
    for _b in S.DECK:
        for _c in S.DECK:
            if len({_a, _b, _c}) == 3:
                _k = (_a.id * _W + _b.id) * _W + _c.id
                _HP[_k] = S.half_points(_a, _b, _c)
                _suits = sorted((_a.suit, _b.suit, _c.suit))
                _POT[_k] = 1.5 if _suits[0] == _suits[1] or _suits[1] == _suits[2] else 0.0
                if _suits[0] == _suits[2]:
                    _POT[_k] = 0.0
_VALUE = S.CARD_VALUE
_SWAP = S._SWAPS


MISS_KIND = 0.1  # weight of another player's move of another kind than Normal would make
MISS_SWAP = 0.5  # … of another swap than Normal's
KNOCK, PASS, ALL, SWAP = 0, 1, 2, 3  # the kinds of move ``decide`` returns


def decide(hand: list[int], middle: list[int], final: bool, turns: int, active: int,
           swimming: bool, may_pass: bool, rng: random.Random) -> tuple[int, int, int]:
    """Normal's move (``schwimmen.Normal.choose``) from card ids: (kind, hand index, middle
    index) — the same decision for the same dice, hand values from a table of all hands."""
    h0, h1, h2 = hand
    now = _HP[(h0 * _W + h1) * _W + h2]
    if not final:
        threshold = Normal.KNOCK_AT[min(4, max(2, active))]
        if turns < active:
            threshold += Normal.FIRST_TURN_EXTRA
        threshold -= 2 * max(0, turns // active - 3)
        if swimming:
            threshold += 2
        if now >= threshold:
            return KNOCK, 0, 0
    m0, m1, m2 = middle
    best_score = -1.0
    best = (ALL, 0, 0)
    random_ = rng.random
    for gi in range(3):
        g = hand[gi]
        for ti in range(3):
            t = middle[ti]
            k = ((t * _W + h1) * _W + h2 if gi == 0 else (h0 * _W + t) * _W + h2 if gi == 1
                 else (h0 * _W + h1) * _W + t)
            value = _HP[k]
            if value == 62:
                return SWAP, gi, ti  # 31 ends the round at once
            if final:
                score = float(value)
            else:
                top = max(_VALUE[g if ti == 0 else m0], _VALUE[g if ti == 1 else m1],
                          _VALUE[g if ti == 2 else m2])
                score = value + _POT[k] - (0.25 * (top - 9) if top > 9 else 0.0)
            score += random_() * 0.01
            if score > best_score:
                best_score, best = score, (SWAP, gi, ti)
    k = (m0 * _W + m1) * _W + m2  # swap all
    value = _HP[k]
    if value == 62:
        return ALL, 0, 0
    if final:
        score = float(value)
    else:
        top = max(_VALUE[h0], _VALUE[h1], _VALUE[h2])
        score = value + _POT[k] - (0.25 * (top - 9) if top > 9 else 0.0)
    score += random_() * 0.01
    if score > best_score:
        best_score, best = score, (ALL, 0, 0)
    keep = now + (0.0 if final else _POT[(h0 * _W + h1) * _W + h2])
    if best_score > keep + 0.5:
        return best
    if may_pass and not final and now < 50:
        return PASS, 0, 0
    if final:
        return (KNOCK, 0, 0) if best_score <= now else best
    if now >= 46 or turns >= 6 * active:
        return KNOCK, 0, 0
    return best


def normal_move(state: S.State, rng: random.Random) -> S.SwimAction:
    """Normal's move for the seat on turn straight from the state (``decide``; it reads only
    what the seat's observation shows)."""
    seat: int = state.to_act  # type: ignore[assignment]
    hand = state.hands[seat]
    middle = state.middle
    out = state.out
    kind, gi, ti = decide([c.id for c in hand], [c.id for c in middle], state.phase != TURN,
                          state.turns, len(out) - sum(out), state.coins[seat] == 0,
                          not state.passed[seat], rng)
    if kind == SWAP:
        return S.swap(hand[gi], middle[ti])
    return (S.KNOCK, S.PASS, S.SWAP_ALL)[kind]


def rollout_value(state: S.State, seat: int, rng: random.Random) -> float:
    """The rest of the round played by Normal players (``decide``) on lists of card ids — the
    engine's rules of a turn, the 31, the last round after a knock and the showdown — and
    ``outcome`` for ``seat`` at its end (the same as playing it with ``schwimmen.apply``)."""
    if state.phase != TURN and state.phase != FINAL_ROUND:
        return outcome(state, seat)
    n = state.seats
    out = list(state.out)
    hands = [[c.id for c in h] if h else [] for h in state.hands]
    middle = [c.id for c in state.middle]
    passed = list(state.passed)
    final = state.phase == FINAL_ROUND
    final_left = state.final_left
    turns = state.turns
    s: int = state.to_act  # type: ignore[assignment]
    active = n - sum(out)
    coins = state.coins
    while True:
        hand = hands[s]
        kind, gi, ti = decide(hand, middle, final, turns, active, coins[s] == 0, not passed[s],
                              rng)
        was_final = final
        done = False
        if kind == SWAP:
            hand[gi], middle[ti] = middle[ti], hand[gi]
            done = _HP[(hand[0] * _W + hand[1]) * _W + hand[2]] == 62
        elif kind == ALL:
            hands[s], middle = middle, hand
            hand = hands[s]
            done = _HP[(hand[0] * _W + hand[1]) * _W + hand[2]] == 62
        elif kind == PASS:
            passed[s] = True
        elif not final:
            final, final_left = True, active - 1
        if was_final:
            final_left -= 1
        turns += 1
        s = (s + 1) % n
        while out[s]:
            s = (s + 1) % n
        if done or (final and final_left == 0):
            break
    values = [_HP[(h[0] * _W + h[1]) * _W + h[2]] if h and not out[x] else 99
              for x, h in enumerate(hands)]
    low = min(values)
    losers = [x for x in range(n) if values[x] == low]
    lives = [0 if out[x] else coins[x] + 1 for x in range(n)]
    if len(losers) < active:
        for x in losers:
            lives[x] -= 1
    if lives[seat] == 0:
        return 0.0
    if sum(1 for v in lives if v) == 1:
        return 1.0
    return win_chances(lives)[seat]


def known_cards(history: tuple[str, ...], seats: int) -> list[set[Card]]:
    """For each seat, the cards it is publicly known to hold (taken from the middle, not laid
    down again), replayed from the public move history of the round."""
    known: list[set[Card]] = [set() for _ in range(seats)]
    for entry in history:
        who, _, code = entry.partition(":")
        s = int(who)
        if code.startswith("swap."):
            _, give, take = code.split(".")
            known[s].discard(BY_CODE[give])
            known[s].add(BY_CODE[take])
        elif code.startswith("all."):
            known[s] = {BY_CODE[c] for c in code.split(".")[1:]}
    return known


LONG_ROUND = 12  # turns of every active player after which Normal's move is played (see
# GameSearch.long_round; a round of three players lasts about 8 turns, rarely more than 25)


class SchwimmenSearch(GameSearch):
    game = S

    def __init__(self) -> None:
        self.policy = Normal()

    def candidates(self, obs: S.Observation, rng: random.Random) -> list[Any]:
        legal = list(obs.legal)
        first = self.policy.choose(obs, random.Random(0))
        legal.remove(first)
        return [first] + legal

    def long_round(self, obs: S.Observation) -> bool:
        active = sum(1 for o in obs.out if not o)
        return obs.phase == TURN and obs.turns >= LONG_ROUND * active

    def sample_world(self, obs: S.Observation, rng: random.Random) -> S.State:
        n = obs.seats
        me = obs.seat
        known = known_cards(obs.history, n)
        taken = set(obs.hand) | set(obs.middle)
        for s in range(n):
            if s != me:
                known[s] -= taken
                taken |= known[s]
        pool = [c for c in _DECK_BY_ID if c not in taken]
        rng.shuffle(pool)
        hands: list[tuple[Card, ...]] = []
        for s in range(n):
            if obs.out[s]:
                hands.append(())
            elif s == me:
                hands.append(obs.hand)
            else:
                mine = sorted(known[s], key=lambda c: c.id)[:3]
                while len(mine) < 3:
                    mine.append(pool.pop())
                hands.append(tuple(mine))
        return S.State(
            seats=n, options=tuple(sorted(S.DEFAULT_OPTIONS.items())), seed=0,
            round_no=obs.round_no, coins=obs.coins, out=obs.out, pot=obs.pot,
            hands=tuple(hands), middle=obs.middle, phase=obs.phase, to_act=obs.to_act,
            starter=obs.starter, passed=obs.passed, knocker=obs.knocker,
            final_left=obs.final_left, turns=obs.turns, result=None, winner=None,
            history=obs.history,
        )

    def weight(self, obs: S.Observation, world: S.State, rng: random.Random) -> float | None:
        """The likelihood of the others' moves this round if they played like Normal: the
        round is replayed from its start (hands and middle undone move by move from the
        sampled world); a move of another kind than Normal's (knock, pass, swap) counts
        ``MISS_KIND``, another swap of the same kind ``MISS_SWAP``."""
        history = obs.history
        if not history:
            return 1.0
        me = obs.seat
        hands = [list(h) for h in world.hands]
        middle = list(world.middle)
        moves = []
        for entry in reversed(history):
            who, _, code = entry.partition(":")
            s = int(who)
            if code.startswith("swap."):
                _, give, take = code.split(".")
                g, t = BY_CODE[give], BY_CODE[take]
                hands[s][hands[s].index(t)] = g
                middle[middle.index(g)] = t
                moves.append((s, S.swap(g, t)))
            elif code.startswith("all."):
                hands[s], middle = middle, [BY_CODE[c] for c in code.split(".")[1:]]
                moves.append((s, S.SWAP_ALL))
            else:
                moves.append((s, S.parse_action(code)))
        moves.reverse()
        state = world._replace(
            hands=tuple(tuple(h) for h in hands), middle=tuple(middle), phase=TURN,
            to_act=obs.starter, passed=(False,) * obs.seats, knocker=None, final_left=0,
            turns=0, history=())
        if any(len(h) == 3 and S.half_points(*h) == 62 for h in state.hands):
            return 0.0  # a dealt 31 would have ended the round at once
        w = 1.0
        for s, action in moves:
            if state.phase not in (TURN, FINAL_ROUND):
                return 0.0  # a 31 on the way would have ended the round
            if s != me:
                model = normal_move(state, random.Random(0))
                if model is not action:
                    w *= MISS_SWAP if model.kind == action.kind else MISS_KIND
            state, _ = S.apply(state, action)
        if state.phase not in (TURN, FINAL_ROUND):
            return 0.0
        return w

    def rollout(self, world: S.State, action: Any, seat: int, rng: random.Random) -> float:
        state, _ = S.apply(world, action)
        return rollout_value(state, seat, rng)


def outcome(state: S.State, seat: int) -> float:
    """The chance to win the game after the round (coins + 1 lives per player still in)."""
    return game_outcome(state, seat, state.coins)


class SchwimmenExperte(Experte):
    """Searches the unseen cards: samples deals consistent with what it saw, plays each move
    out with Normal players to the end of the round and keeps the best chance to win."""

    game_id = "schwimmen"
    search_class = SchwimmenSearch
