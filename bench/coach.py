"""The coach's hint (issue 41): how long it thinks, and how often it differs from Normal.

    python bench/coach.py [--positions 200] [--budget 1.0] [--games schwimmen scat ...]

For each game, ``--positions`` random positions (a random seed, Normal players for every seat
up to a random move, the seat on turn having more than one legal move): the hint
(``fsm.advice``, the Experte from the seat's observation, with the production budget per
decision, load factor 1) and Normal's move from the same observation. Prints per game the
hint's decision time p50/p95 (wall clock, this process, no pool), the share of positions
where the hint differs from Normal's move, and the share where the search ran (a position
with one sensible move is answered without searching). Asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fsm  # noqa: E402
from engine import GAMES  # noqa: E402
from engine.bots import NORMAL, get_bot  # noqa: E402


def position(game_id: str, rng: random.Random) -> tuple[object, int]:
    """A random position of a game where the seat on turn has a choice."""
    game = GAMES[game_id]
    seats = max(3, game.MIN_SEATS) if game.MAX_SEATS >= 3 else game.MIN_SEATS
    normal = get_bot(game_id, NORMAL)
    while True:
        state = game.new_game(seats, None, rng.randrange(2**52))
        stop = rng.randrange(40)
        for step in range(200):
            seat = game.to_act(state)
            if seat is None:
                break
            obs = game.observation(state, seat)
            if step >= stop and len(obs.legal) > 1:
                return state, seat
            state, _ = game.apply(state, normal.choose(obs, rng))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--games", nargs="*", default=sorted(GAMES))
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    print(f"positions per game: {args.positions}, budget {args.budget} s, load factor 1")
    print(f"{'game':<10} {'p50 s':>7} {'p95 s':>7} {'differs':>8} {'searched':>9}")
    for game_id in args.games:
        rng = random.Random(f"{args.seed}:{game_id}")
        times, differs, searched = [], 0, 0
        for _ in range(args.positions):
            state, seat = position(game_id, rng)
            obs = GAMES[game_id].observation(state, seat)
            started = time.perf_counter()
            advice = fsm.advice(game_id, state, seat, budget=args.budget, load=1.0)
            times.append(time.perf_counter() - started)
            normal = get_bot(game_id, NORMAL).choose(obs, random.Random(rng.random())).code
            differs += advice.code != normal
            searched += bool(advice.values)
        n = args.positions
        print(f"{game_id:<10} {statistics.median(times):7.2f} {percentile(times, 0.95):7.2f} "
              f"{100 * differs / n:7.0f}% {100 * searched / n:8.0f}%", flush=True)


if __name__ == "__main__":
    main()
