"""Tune a Normal bot's knock threshold by simulation: one seat plays a variant, the others play
the standard Normal, seats rotated over fixed-seed deals.

    python bench/tune.py --game schwimmen --players 3 --param KNOCK_AT --values 56 58 60 62 64
    python bench/tune.py --game scat --players 4 --param FIRST_TURN_EASE --values 0 1 2

``--param`` names a class attribute of the game's Normal bot: a dict keyed by the number of
players (``KNOCK_AT``: the value for ``--players`` is replaced) or a number. For every value it
prints the variant's share of games won with a 95 % Wilson interval against the equal share
(1 / players); the best value is the one to keep. Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.arena import play_one, wilson  # noqa: E402
from engine.bots import NORMAL, get_bot  # noqa: E402

VARIANT = "variant"


def variant(game_id: str, param: str, players: int, value: int) -> Any:
    """A Normal bot of ``game_id`` with ``param`` set to ``value`` (for ``players``)."""
    base = type(get_bot(game_id, NORMAL))
    current = getattr(base, param)
    if isinstance(current, dict):
        new: Any = dict(current)
        new[players] = value
    else:
        new = type(current)(value)
    return type(f"{base.__name__}_{param}_{value}", (base,), {param: new})()


def play(job: tuple[str, str, int, int, int, int]) -> float:
    """One game (the arena's deals and seat rotation): the variant's share of the win."""
    game_id, param, players, value, seed, index = job

    def make(level: str) -> Any:
        return variant(game_id, param, players, value) if level == VARIANT \
            else get_bot(game_id, NORMAL)

    levels = [VARIANT] + [NORMAL] * (players - 1)
    result = play_one(game_id, levels, index, seed, None, None, None, make=make)
    seat = result["levels"].index(VARIANT)
    return result["winners"].count(seat) / len(result["winners"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=("schwimmen", "scat"))
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--param", default="KNOCK_AT")
    parser.add_argument("--values", type=int, nargs="+", required=True)
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    equal = 1 / args.players
    current = getattr(type(get_bot(args.game, NORMAL)), args.param)
    if isinstance(current, dict):
        current = current.get(args.players)
    print(f"tune {args.game}, {args.players} players, {args.param} (now {current}), "
          f"{args.games} games per value, seed {args.seed}; equal share {100 * equal:.1f} %")
    for value in args.values:
        start = time.perf_counter()
        jobs = [(args.game, args.param, args.players, value, args.seed, i)
                for i in range(args.games)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                shares = list(pool.map(play, jobs, chunksize=50))
        else:
            shares = [play(j) for j in jobs]
        won = sum(shares)
        lo, hi = wilson(won, len(shares))
        print(f"  {args.param}={value:3d}: games won {100 * won / len(shares):5.1f} % "
              f"[{100 * lo:.1f}, {100 * hi:.1f}] ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
