"""Schwimmen: complete random games for 2, 3 and 4 players end with one winner holding everything."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import schwimmen as S
from engine.protocol import FINISHED

GAMES_PER_SEAT_COUNT = 300
MAX_MOVES = 20_000


def random_policy(state: S.State, rng: random.Random) -> S.SwimAction:
    return rng.choice(S.legal_actions(state))


def greedy_policy(state: S.State, rng: random.Random) -> S.SwimAction:
    """Take the swap that gives the best hand; knock on a good hand; sometimes pass."""
    legal = S.legal_actions(state)
    if legal == (S.DEAL,):
        return S.DEAL
    seat = state.to_act
    hand = state.hands[seat]
    now = S.hand_value(hand)
    if now >= 26 and S.KNOCK in legal and rng.random() < 0.7:
        return S.KNOCK
    if S.PASS in legal and rng.random() < 0.2:
        return S.PASS
    best, best_value = S.SWAP_ALL, S.hand_value(state.middle)
    for a in legal:
        if a.kind == "swap":
            v = S.hand_value(tuple(a.take if c is a.give else c for c in hand))
            if v > best_value:
                best, best_value = a, v
    if best_value <= now:
        return S.KNOCK if rng.random() < 0.5 else rng.choice(legal)
    return best


def run_game(seats: int, seed: int, policy) -> tuple[S.State, Counter]:
    state = S.new_game(seats, seed=seed)
    total = 3 * seats
    rng = random.Random(seed ^ 0x5EED)
    reasons: Counter = Counter()
    rounds = 0
    for _ in range(MAX_MOVES):
        if S.is_over(state):
            break
        state, events = S.apply(state, policy(state, rng))
        assert sum(state.coins) + state.pot == total
        for e in events:
            if e.kind == "showdown":
                reasons[e.data["reason"]] += 1
                rounds += 1
    else:
        raise AssertionError(f"game {seats=} {seed=} did not end")
    # a dealt 31 in the first round is recorded in the initial state, not as an event
    reasons["rounds"] = rounds
    return state, reasons


def assert_one_winner_with_everything(state: S.State) -> None:
    n = state.seats
    assert state.phase == FINISHED
    assert S.is_over(state)
    assert state.winner is not None
    assert [s for s in range(n) if not state.out[s]] == [state.winner]
    assert state.coins[state.winner] == 3 * n  # all coins plus the pot
    assert state.pot == 0
    assert all(state.coins[s] == 0 for s in range(n) if s != state.winner)
    assert state.to_act is None
    assert S.legal_actions(state) == ()
    assert state.result is not None
    assert state.result.eliminated  # the last round put the last opponent out
    assert not state.result.draw


@pytest.mark.parametrize("policy", [random_policy, greedy_policy], ids=["random", "greedy"])
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_complete_random_games_end_with_one_winner(seats, policy):
    reasons: Counter = Counter()
    winners: Counter = Counter()
    for seed in range(GAMES_PER_SEAT_COUNT):
        final, r = run_game(seats, seed * 7919 + seats, policy)
        assert_one_winner_with_everything(final)
        reasons.update(r)
        winners[final.winner] += 1
    # the games went through the interesting endings, and every seat can win
    assert reasons["knock"] > 0
    assert reasons["31"] > 0
    assert reasons["dealt_31"] > 0
    assert set(winners) == set(range(seats))
