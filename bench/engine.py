"""Engine benchmark: random complete rounds per second on one core, and the mean cost of one
``legal_actions`` + ``apply``. Run: ``python bench/engine.py [--seconds 5] [--profile]``.

Times are CPU time of this process (``time.process_time``), so a busy machine disturbs the
figures less than wall-clock time would. Rounds are played inside whole games (a round = deal
to showdown, a hand in the shedding games), with uniformly random legal moves; the round after
a game ends starts a new game. Prints its figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import GAMES  # noqa: E402

ROUND_OVER = ("payout", "finished")


def random_rounds(game_id: str, seats: int, seconds: float, seed: int = 1) -> dict[str, float]:
    """Play random rounds for ``seconds``; returns rounds/s, moves/round and µs per move."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    state = game.new_game(seats, seed=rng.randrange(2**40))
    rounds = moves = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        phase = game.phase(state)
        if phase in ROUND_OVER:
            rounds += 1
            if rounds % 64 == 0 and time.process_time() >= deadline:
                break
            if phase == "finished":
                state = game.new_game(seats, seed=rng.randrange(2**40))
            else:
                state, _ = game.apply(state, "deal")
            continue
        legal = game.legal_actions(state)
        state, _ = game.apply(state, legal[int(rng.random() * len(legal))])
        moves += 1
    elapsed = time.process_time() - start
    return {"rounds_per_s": rounds / elapsed, "moves_per_round": moves / rounds,
            "elapsed": elapsed, "rounds": rounds}


def step_cost(game_id: str, seats: int, steps: int = 200_000, seed: int = 2) -> float:
    """Mean µs of one ``legal_actions`` + ``apply`` on positions of random play."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    positions = []
    state = game.new_game(seats, seed=seed)
    while len(positions) < 2000:
        if game.phase(state) in ROUND_OVER:
            state = game.new_game(seats, seed=rng.randrange(2**40))
            continue
        positions.append(state)
        legal = game.legal_actions(state)
        state, _ = game.apply(state, rng.choice(legal))
    picks = [rng.random() for _ in range(len(positions))]
    legal_actions, apply = game.legal_actions, game.apply
    start = time.process_time()
    n = 0
    while n < steps:
        for pos, r in zip(positions, picks, strict=True):
            legal = legal_actions(pos)
            apply(pos, legal[int(r * len(legal))])
        n += len(positions)
    return (time.process_time() - start) / n * 1e6


def movegen_rate(game_id: str, seats: int, seconds: float, seed: int = 3) -> float:
    """Complete legal-move generations per second over positions of random play."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    positions = []
    state = game.new_game(seats, seed=seed)
    while len(positions) < 1000:
        if game.phase(state) in ROUND_OVER:
            state = game.new_game(seats, seed=rng.randrange(2**40))
            continue
        positions.append(state)
        state, _ = game.apply(state, rng.choice(game.legal_actions(state)))
    legal_actions = game.legal_actions
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for pos in positions:
            legal_actions(pos)
        n += len(positions)
    return n / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--movegen", type=float, default=2.0,
                        help="seconds for the legal-move generations/s figure")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, one core, pure Python")
    plan = {"schwimmen": [2, 3, 4], "scat": [2, 4, 7], "runfast": [3], "climbing": [4]}
    for game_id in args.games.split(","):
        for seats in plan.get(game_id, []):
            r = random_rounds(game_id, seats, args.seconds)
            cost = step_cost(game_id, seats)
            gens = movegen_rate(game_id, seats, args.movegen)
            print(f"{game_id:10s} {seats} players: {r['rounds_per_s']:8.0f} random complete "
                  f"rounds/s ({r['moves_per_round']:.1f} moves/round), "
                  f"legal_actions+apply {cost:.2f} µs, {gens:,.0f} legal-move generations/s")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        random_rounds("schwimmen", 3, 2.0)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
