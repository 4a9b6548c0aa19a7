"""Arena: CPU levels against each other in fixed-seed matches with the seats rotated.

    python bench/arena.py --game schwimmen --seats experte normal normal --games 300 --seed 1

Game ``i`` deals with seed ``(seed, i // seats)`` and seats the levels rotated by ``i % seats``,
so every deal is played once with each level in each seat. Prints, per level: the share of
games won (shared wins count by fraction) with a 95 % Wilson interval against the equal share
(seats of that level / seats), the mean points per game with a 95 % t interval (Schwimmen: coins
at the end, the pot included; Scat: players outlasted; Run Fast: match points; climbing: game
points), for Run Fast and climbing also the share of hands (rounds) won — went out first — and
the mean points per hand, and the decision time p50/p95 of the level (decisions with more than
one legal move). ``--budget`` sets the Experte's seconds per decision, ``--playouts`` a fixed
number of sampled worlds instead; ``--jobs`` plays games in parallel processes.

Long matches can be split: ``--first K`` starts at game ``K`` (same deals and rotation as in one
run), ``--json F`` keeps every game's record, and ``--merge F1 F2 …`` reports the runs together.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import GAMES  # noqa: E402
from engine.bots import EXPERTE, LEVELS, get_bot, register  # noqa: E402
from engine.bots.ismcts import BOTS as ISMCTS_BOTS  # noqa: E402
from engine.bots.ismcts import ISMCTS  # noqa: E402

register(*ISMCTS_BOTS)  # ISMCTS plays in the arena only, not in chat: production never loads it
ARENA_LEVELS = (*LEVELS, ISMCTS)

SEATS = {"schwimmen": 3, "scat": 3, "runfast": 3, "climbing": 4}
MAX_MOVES = 200_000


def make_bot(game_id: str, level: str, budget: float | None, playouts: int | None,
             ismcts: dict[str, Any] | None = None) -> Any:
    bot = get_bot(game_id, level)
    if level == EXPERTE:
        bot = type(bot)(budget=budget, playouts=playouts, load=1.0)
    elif level == ISMCTS:  # the same budget; --playouts K gives it 10 K iterations
        bot = type(bot)(budget=budget, iterations=None if playouts is None else 10 * playouts,
                        load=1.0, **(ismcts or {}))
    return bot


def play_one(game_id: str, levels: list[str], index: int, seed: int, budget: float | None,
             playouts: int | None, options: dict[str, Any] | None,
             make: Callable[[str], Any] | None = None,
             ismcts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play game ``index``: returns per seat level, points, win share and per hand figures.
    ``make(level)`` builds the bot of a seat (default: the level's bot, see ``make_bot``)."""
    game = GAMES[game_id]
    n = len(levels)
    deal = seed * 1_000_003 + index // n
    rot = index % n
    seat_levels = [levels[(s - rot) % n] for s in range(n)]
    bots = [make(lv) if make is not None else make_bot(game_id, lv, budget, playouts, ismcts)
            for lv in seat_levels]
    rngs = [random.Random(deal * 31 + s) for s in range(n)]
    state = game.new_game(n, options, seed=deal)
    times: dict[str, list[float]] = defaultdict(list)
    hands: list[dict[str, Any]] = []  # per hand (round): winner seat and points per seat
    eliminated: list[int] = []  # seats in the order they went out (Schwimmen, Scat)
    for move in range(MAX_MOVES):
        if game.is_over(state):
            break
        seat = game.to_act(state)
        if seat is None:
            state, _ = game.apply(state, "deal")
            continue
        obs = game.observation(state, seat)
        t = time.perf_counter()
        decide = getattr(bots[seat], "from_state", None)  # (``--pool``: in a worker process)
        action = decide(state, f"{deal}:{seat}:{move}") if decide else \
            bots[seat].choose(obs, rngs[seat])
        dt = time.perf_counter() - t
        if len(obs.legal) > 1:
            times[seat_levels[seat]].append(dt)
        before = state
        state, _ = game.apply(state, action)
        if game.phase(state) in ("payout", "finished"):
            hands.append(_hand_figures(game_id, state))
            for s in _newly_out(game_id, before, state):
                eliminated.append(s)
    else:
        raise RuntimeError("game did not end")
    winners = _winners(game_id, state)
    points = _points(game_id, state, eliminated)
    return {"levels": seat_levels, "winners": winners, "points": points, "hands": hands,
            "times": dict(times)}


def _newly_out(game_id: str, before: Any, after: Any) -> list[int]:
    if game_id not in ("schwimmen", "scat"):
        return []
    return [s for s in range(after.seats) if after.out[s] and not before.out[s]]


def _hand_figures(game_id: str, state: Any) -> dict[str, Any]:
    r = state.result
    if game_id == "runfast":
        return {"winner": r.winner, "points": list(r.delta)}
    if game_id == "climbing":
        return {"winner": r.order[0], "points": list(r.points)}
    if game_id == "scat":  # lives (tokens) each seat lost in the round
        return {"winner": None, "points": None, "lost": list(r.lost)}
    return {"winner": None, "points": None,
            "lost": [1 if s in r.losers else 0 for s in range(state.seats)]}


def _winners(game_id: str, state: Any) -> list[int]:
    if game_id in ("schwimmen", "scat"):
        return [state.winner]
    return list(state.winners)


def _points(game_id: str, state: Any, eliminated: list[int]) -> list[float]:
    n = state.seats
    if game_id == "schwimmen":
        return [float(c) for c in state.coins]
    if game_id == "scat":
        place = [0.0] * n  # players outlasted
        for k, s in enumerate(eliminated):
            place[s] = float(k)
        place[state.winner] = float(n - 1)
        return place
    return [float(x) for x in state.scores]


# ---------------------------------------------------------------------------------------------
# statistics


def wilson(k: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (mid - half, mid + half)


def t_quantile(df: int, z: float = 1.959964) -> float:
    """The 97.5 % quantile of Student's t (Cornish–Fisher expansion; exact enough for df ≥ 3)."""
    if df <= 0:
        return math.inf
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    n = len(xs)
    m = statistics.fmean(xs) if xs else float("nan")
    if n < 2:
        return (m, float("nan"), float("nan"))
    half = t_quantile(n - 1) * statistics.stdev(xs) / math.sqrt(n)
    return (m, m - half, m + half)


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def summarize(game_id: str, levels: list[str], results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(levels)
    per_level: dict[str, Any] = {}
    for lv in dict.fromkeys(levels):
        k = levels.count(lv)
        wins = 0.0
        pts: list[float] = []
        hand_wins = 0
        hand_n = 0
        hand_pts: list[float] = []
        times: list[float] = []
        for r in results:
            seats = [s for s in range(n) if r["levels"][s] == lv]
            wins += sum(1 for s in r["winners"] if s in seats) / len(r["winners"])
            pts.append(statistics.fmean(r["points"][s] for s in seats))
            for h in r["hands"]:
                if h["winner"] is None:
                    continue
                hand_n += 1
                hand_wins += h["winner"] in seats
                hand_pts.append(statistics.fmean(h["points"][s] for s in seats))
            times += r["times"].get(lv, [])
        games = len(results)
        lo, hi = wilson(wins, games)
        m, mlo, mhi = mean_ci(pts)
        entry: dict[str, Any] = {
            "seats": k, "equal_share": k / n, "games": games, "win_share": wins / games,
            "win_ci": [lo, hi], "points_mean": m, "points_ci": [mlo, mhi],
            "decisions": len(times), "time_p50": pct(times, 0.5), "time_p95": pct(times, 0.95),
            "time_max": max(times) if times else float("nan"),
        }
        if hand_n:
            hlo, hhi = wilson(hand_wins, hand_n)
            hm, hmlo, hmhi = mean_ci(hand_pts)
            entry.update({"hands": hand_n, "hand_win_share": hand_wins / hand_n,
                          "hand_win_ci": [hlo, hhi], "hand_points_mean": hm,
                          "hand_points_ci": [hmlo, hmhi]})
        per_level[lv] = entry
    return per_level


def report(game_id: str, levels: list[str], summary: dict[str, Any], args: Any,
           elapsed: float) -> str:
    unit = {"schwimmen": "coins", "scat": "outlasted", "runfast": "points",
            "climbing": "points"}[game_id]
    lines = [f"arena {game_id}: seats {' '.join(levels)}, {args.games} games, seed {args.seed}, "
             f"Experte budget {args.budget if args.playouts is None else 'fixed'} s"
             + (f", {args.playouts} playouts" if args.playouts else "")
             + f" ({elapsed:.0f} s)"]
    for lv, e in summary.items():
        lo, hi = e["win_ci"]
        verdict = "above" if lo > e["equal_share"] else "below" if hi < e["equal_share"] \
            else "not clear of"
        line = (f"  {lv:9s} x{e['seats']}: games won {100 * e['win_share']:5.1f} % "
                f"[{100 * lo:.1f}, {100 * hi:.1f}] ({verdict} equal share "
                f"{100 * e['equal_share']:.1f} %), {unit}/game {e['points_mean']:.2f} "
                f"[{e['points_ci'][0]:.2f}, {e['points_ci'][1]:.2f}]")
        if "hands" in e:
            hlo, hhi = e["hand_win_ci"]
            line += (f"; hands won {100 * e['hand_win_share']:.1f} % [{100 * hlo:.1f}, "
                     f"{100 * hhi:.1f}] of {e['hands']}, points/hand {e['hand_points_mean']:.2f} "
                     f"[{e['hand_points_ci'][0]:.2f}, {e['hand_points_ci'][1]:.2f}]")
        line += (f"; decision p50 {1000 * e['time_p50']:.1f} ms, p95 "
                 f"{1000 * e['time_p95']:.1f} ms, max {1000 * e['time_max']:.1f} ms "
                 f"({e['decisions']} decisions)")
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=sorted(SEATS))
    parser.add_argument("--seats", nargs="+", required=True, choices=ARENA_LEVELS,
                        help="the level of each seat (rotated over the games)")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=1.0,
                        help="Experte seconds per decision (default 1.0)")
    parser.add_argument("--playouts", type=int, default=None,
                        help="Experte: a fixed number of sampled worlds instead of a budget")
    parser.add_argument("--options", default=None, help="game options as JSON")
    parser.add_argument("--ismcts", default=None,
                        help='ISMCTS settings as JSON, e.g. {"exploration": 0.7, '
                             '"playout": "random"} (default: its module defaults)')
    parser.add_argument("--jobs", type=int, default=1, help="parallel processes")
    parser.add_argument("--pool", type=int, default=0, metavar="N",
                        help="the Experte decides as in the bot: fsm.cpu_action_from_json in a "
                             "pool of N worker processes (the state in its JSON form); --jobs "
                             "games are then played at once on threads")
    parser.add_argument("--json", default=None, help="also write the summary to this file")
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                        help="report earlier runs (their --json files) together; plays nothing")
    if argv is None:
        argv = sys.argv[1:]
    if "--merge" in argv:  # the game and seats come from the files
        merge_runs(argv[argv.index("--merge") + 1:])
        return
    args = parser.parse_args(argv)
    game = GAMES[args.game]
    if not game.MIN_SEATS <= len(args.seats) <= game.MAX_SEATS:
        parser.error(f"{args.game} needs {game.MIN_SEATS}..{game.MAX_SEATS} seats")
    options = json.loads(args.options) if args.options else None
    start = time.perf_counter()
    ismcts = json.loads(args.ismcts) if args.ismcts else None
    jobs = [(args.game, args.seats, i, args.seed, args.budget, args.playouts, options, None, ismcts)
            for i in range(args.first, args.first + args.games)]
    if args.pool:
        results = _at_the_pool(args, jobs)
    elif args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(_play_star, jobs, chunksize=1))
    else:
        results = [play_one(*j) for j in jobs]
    elapsed = time.perf_counter() - start
    summary = summarize(args.game, args.seats, results)
    print(report(args.game, args.seats, summary, args, elapsed))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "seats": args.seats, "games": args.games,
                       "seed": args.seed, "budget": args.budget, "playouts": args.playouts,
                       "ismcts": ismcts,
                       "first": args.first, "elapsed": elapsed, "levels": summary,
                       "results": results}, f)


class _PoolExperte:
    """An Experte seat that decides the way the bot does (``chatbot/service/cpu.py``): the
    engine state in its JSON form to ``fsm.cpu_action_from_json`` in a worker process."""

    def __init__(self, pool: ProcessPoolExecutor, game_id: str, budget: float | None) -> None:
        self.pool, self.game_id, self.budget = pool, game_id, budget

    def from_state(self, state: Any, rng_seed: str) -> str:
        import fsm

        state_json = GAMES[self.game_id].to_json(state)
        return self.pool.submit(fsm.cpu_action_from_json, self.game_id, state_json, EXPERTE,
                                rng_seed, self.budget, 1.0).result()


def _at_the_pool(args: Any, jobs: list[tuple]) -> list[dict[str, Any]]:
    """The games with every Experte decision in a process pool of ``args.pool`` workers,
    ``args.jobs`` games at once (threads that wait for the pool)."""
    from concurrent.futures import ThreadPoolExecutor

    with ProcessPoolExecutor(args.pool) as pool, ThreadPoolExecutor(max(1, args.jobs)) as games:
        def make(level: str) -> Any:
            if level == EXPERTE:
                return _PoolExperte(pool, args.game, args.budget)
            return make_bot(args.game, level, args.budget, args.playouts)

        return list(games.map(lambda j: play_one(*j[:7], make=make), jobs))


def merge_runs(paths: list[str]) -> None:
    """Print one report over several runs of the same game, seats, seed and Experte setting."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    first = runs[0]
    for run in runs[1:]:
        for key in ("game", "seats", "seed", "budget", "playouts", "ismcts"):
            if run.get(key) != first.get(key):
                raise SystemExit(f"{key} differs between {paths[0]} and the other runs")
    indices = [(r.get("first", 0), r.get("first", 0) + r["games"]) for r in runs]
    indices.sort()
    if any(a[1] > b[0] for a, b in zip(indices, indices[1:], strict=False)):
        raise SystemExit("the runs overlap (the same games twice)")
    results = [g for r in runs for g in r["results"]]
    args = argparse.Namespace(games=len(results), seed=first["seed"], budget=first["budget"],
                              playouts=first["playouts"])
    summary = summarize(first["game"], first["seats"], results)
    print(report(first["game"], first["seats"], summary, args,
                 sum(r["elapsed"] for r in runs)))


def _play_star(job: tuple) -> dict[str, Any]:
    return play_one(*job)


if __name__ == "__main__":
    main()
