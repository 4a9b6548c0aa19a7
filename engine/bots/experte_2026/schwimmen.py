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

from ... import schwimmen as S
from ...cards import BY_CODE, Card
from ...protocol import FINAL_ROUND, TURN
from ..schwimmen import Normal
from .search import Experte, GameSearch, game_outcome, play_round_out

_DECK_BY_ID = sorted(S.DECK, key=lambda c: c.id)
MISS_KIND = 0.1  # weight of another player's move of another kind than Normal would make
MISS_SWAP = 0.5  # … of another swap than Normal's


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
        choose = self.policy.choose
        for s, action in moves:
            if state.phase not in (TURN, FINAL_ROUND):
                return 0.0  # a 31 on the way would have ended the round
            if s != me:
                model = choose(S.observation(state, s), random.Random(0))
                if model is not action:
                    w *= MISS_SWAP if model.kind == action.kind else MISS_KIND
            state, _ = S.apply(state, action)
        if state.phase not in (TURN, FINAL_ROUND):
            return 0.0
        return w

    def rollout(self, world: S.State, action: Any, seat: int, rng: random.Random) -> float:
        state, _ = S.apply(world, action)
        return outcome(play_round_out(S, state, self.policy.choose, rng), seat)


def outcome(state: S.State, seat: int) -> float:
    """The chance to win the game after the round (coins + 1 lives per player still in)."""
    return game_outcome(state, seat, state.coins)


class SchwimmenExperte(Experte):
    """Searches the unseen cards: samples deals consistent with what it saw, plays each move
    out with Normal players to the end of the round and keeps the best chance to win."""

    game_id = "schwimmen"
    search_class = SchwimmenSearch
