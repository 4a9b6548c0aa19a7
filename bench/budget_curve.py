"""Strength against budget: the Experte at a budget *b* against the 2026 Experte at 1 s.

    python bench/budget_curve.py run --game G --budget B [--games 12] [--first K] [--jobs 2]
    python bench/budget_curve.py plan [--budgets 0.1 0.03 0.3 1] [--games scat …] [--chunk 12]
    python bench/budget_curve.py table [--write docs/arena.md] [--plot docs/budget_curve.png]

One table per game: the Experte (level ``experte``) at *b* seconds per decision against the
2026 Experte (``experte_2026``, ``engine/bots/experte_2026/``) at 1 s — heads-up in Schwimmen
and Scat, with Normal players in the seats the game needs more (Run Fast one, three seats; the
climbing game two, four seats). The games
are the arena's (``bench/arena.py``'s ``play_one``): game ``i`` deals with seed ``(seed,
i // seats)`` and rotates the levels by ``i % seats``, so every deal is played once with each
level in each seat (duplicate style), and every budget plays the same deals.

The budgets are **CPU seconds** of the deciding thread (``time.thread_time`` as the bots'
clock, load factor 1): on a shared machine a decision gets the same work done however many
other processes run, so the curve does not depend on the machine's load (it does on the
core's speed). The decision times reported are CPU seconds too.

``run`` plays games ``K … K+N-1`` of one match and keeps them in ``bench/results/budget/``,
stamped with a digest of the Experte's code (``version``: runs of other code are not merged);
``plan`` plays one deal at a time (every level in every seat) of the match furthest behind,
the first budget given counting double, until every match is at ±5 points (half the 95 %
Wilson interval of the Experte's share of games won, after at least 60 games) — start it once
per core: the processes share the work, a deal being claimed by its ``.part`` file; ``table`` merges the kept runs into the Markdown table (``--write`` puts it
between the ``<!-- budget_table -->`` lines of a page) and draws the curve (``--plot``, with
matplotlib, the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.arena import mean_ci, play_one, summarize  # noqa: E402
from bench.code_version import version  # noqa: E402
from engine.bots import EXPERTE, NORMAL, get_bot, register  # noqa: E402
from engine.bots.experte_2026 import BOTS as EXPERTE_2026_BOTS  # noqa: E402
from engine.bots.experte_2026 import LEVEL as OLD  # noqa: E402

register(*EXPERTE_2026_BOTS)  # the yardstick plays in the arena only, never in chat

NEW = EXPERTE
OLD_BUDGET = 1.0
BUDGETS = (0.03, 0.1, 0.3, 1.0)
ORDER = ("schwimmen", "scat", "runfast", "climbing")
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "budget")
TARGET = 0.05  # half-width of the 95 % interval of the Experte's share the matches go to
LEAST = 60
CHUNK = 12  # games of a ``run`` by default: a multiple of 3 and 4, whole deals rotated


CURVE_SEATS = {"schwimmen": 2, "scat": 2, "runfast": 3, "climbing": 4}  # heads-up where it can


def seats(game_id: str) -> list[str]:
    """The levels at the table: both Experte levels, Normal in the seats the game needs more."""
    return [NEW, OLD] + [NORMAL] * (CURVE_SEATS[game_id] - 2)


class _Timed:
    """A bot whose decisions' CPU seconds are kept (decisions with more than one legal move)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.cpu: list[float] = []

    def choose(self, obs: Any, rng: Any) -> Any:
        t = time.thread_time()
        action = self.bot.choose(obs, rng)
        if len(obs.legal) > 1:
            self.cpu.append(time.thread_time() - t)
        return action


def play(game_id: str, budget: float, index: int, seed: int) -> dict[str, Any]:
    """Game ``index`` of the match at ``budget``; the arena's record plus CPU seconds per
    decision of both Experte levels."""
    timed: dict[str, list[_Timed]] = defaultdict(list)

    def make(level: str) -> Any:
        cls = type(get_bot(game_id, level))
        if level == NEW:
            bot = _Timed(cls(budget=budget, load=1.0, clock=time.thread_time))
        elif level == OLD:
            bot = _Timed(cls(budget=OLD_BUDGET, load=1.0, clock=time.thread_time))
        else:
            return cls()
        timed[level].append(bot)
        return bot

    result = play_one(game_id, seats(game_id), index, seed, None, None, None, make=make)
    result["cpu"] = {lv: [x for b in bots for x in b.cpu] for lv, bots in timed.items()}
    return result


def _play_star(job: tuple) -> dict[str, Any]:
    return play(*job)


VERSIONS = {g: version(g) for g in ORDER}  # of the code this process has loaded


def path_of(game_id: str, budget: float, first: int, directory: str = DIR) -> str:
    return os.path.join(directory, f"{game_id}-{budget:g}-{first:05d}.json")


def run(game_id: str, budget: float, first: int, games: int, seed: int, jobs: int,
        directory: str = DIR) -> str:
    """Play games ``first …`` of the match and keep them; the file written."""
    start = time.perf_counter()
    job_list = [(game_id, budget, i, seed) for i in range(first, first + games)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_play_star, job_list, chunksize=1))
    else:
        results = [play(*j) for j in job_list]
    os.makedirs(directory, exist_ok=True)
    path = path_of(game_id, budget, first, directory)
    with open(path, "w") as f:
        json.dump({"game": game_id, "budget": budget, "old_budget": OLD_BUDGET, "seed": seed,
                   "version": VERSIONS[game_id],
                   "first": first, "games": games, "seats": seats(game_id),
                   "elapsed": time.perf_counter() - start, "results": results}, f)
    return path


def load(directory: str = DIR, seed: int = 1) -> dict[tuple[str, float], list[dict[str, Any]]]:
    """Every kept game by match (game, budget), each game once."""
    out: dict[tuple[str, float], dict[int, dict[str, Any]]] = defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path) as f:
            run_ = json.load(f)
        if (run_["seed"] != seed or run_["old_budget"] != OLD_BUDGET
                or run_.get("version") != VERSIONS[run_["game"]]
                or run_["seats"] != seats(run_["game"])):
            continue  # another match, or the Experte's code has changed since
        for k, game in enumerate(run_["results"]):
            out[(run_["game"], run_["budget"])][run_["first"] + k] = game
    return {key: [games[i] for i in sorted(games)] for key, games in out.items()}


def figures(game_id: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The Experte's share of games won with its interval, the 2026 Experte's, CPU per
    decision, and the games where the Experte finished ahead of the 2026 Experte."""
    summary = summarize(game_id, seats(game_id), results)
    new, old = summary[NEW], summary[OLD]
    cpu = {lv: sorted(x for r in results for x in r["cpu"].get(lv, [])) for lv in (NEW, OLD)}
    ahead = 0.0
    for r in results:  # head to head: points (coins, players outlasted, match points)
        a = r["points"][r["levels"].index(NEW)]
        b = r["points"][r["levels"].index(OLD)]
        ahead += 1.0 if a > b else 0.5 if a == b else 0.0
    lo, hi = new["win_ci"]
    diffs = [_paired(game_id, r) for r in results]
    diff = mean_ci([d for d in diffs if d is not None])
    return {"diff": diff, "games": len(results), "share": new["win_share"], "ci": (lo, hi),
            "half": (hi - lo) / 2, "equal": new["equal_share"], "old_share": old["win_share"],
            "old_ci": old["win_ci"], "ahead": ahead / len(results) if results else 0.0,
            "cpu": {lv: (_q(xs, 0.5), _q(xs, 0.95), sum(xs) / len(xs) if xs else 0.0)
                    for lv, xs in cpu.items()}}


def _paired(game_id: str, r: dict[str, Any]) -> float | None:
    """One game's paired difference in the Experte's favour: lives (tokens) the 2026 Experte
    lost minus the Experte's over the game's rounds (Schwimmen, Scat), or the Experte's points
    per hand minus the 2026 Experte's (Run Fast, climbing); ``None`` for a record without
    them."""
    a, b = r["levels"].index(NEW), r["levels"].index(OLD)
    hands = r["hands"]
    if game_id in ("schwimmen", "scat"):
        if not hands or "lost" not in hands[0]:
            return None
        return float(sum(h["lost"][b] - h["lost"][a] for h in hands))
    if not hands:
        return None
    return sum(h["points"][a] - h["points"][b] for h in hands) / len(hands)


PAIRED = {"schwimmen": "lives lost by the 2026 Experte − the Experte's, per game",
          "scat": "tokens lost by the 2026 Experte − the Experte's, per game",
          "runfast": "points per hand, the Experte − the 2026 Experte",
          "climbing": "points per hand, the Experte − the 2026 Experte"}


def _q(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def verdict(f: dict[str, Any]) -> str:
    lo, hi = f["ci"]
    if lo > f["equal"] or hi < f["equal"]:
        return "stronger" if lo > f["equal"] else "weaker"
    if f["half"] > TARGET:  # an interval this wide says nothing either way
        return f"undecided (±{100 * f['half']:.0f} points, not yet ±{100 * TARGET:.0f})"
    return "as strong (within the interval)"


def table(directory: str = DIR) -> str:
    matches = load(directory)
    lines = ["| game, players | Experte's budget | games | Experte: games won [95 % CI] | "
             "equal share | 2026 Experte at 1 s | Experte ahead of it | verdict | "
             "paired difference [95 % CI] | "
             "CPU ms per decision p50 / p95 / mean (Experte · 2026 at 1 s) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for game_id in ORDER:
        for budget in sorted(b for g, b in matches if g == game_id):
            f = figures(game_id, matches[(game_id, budget)])
            (lo, hi), (olo, ohi) = f["ci"], f["old_ci"]
            c_new, c_old = f["cpu"][NEW], f["cpu"][OLD]
            lines.append(
                f"| {game_id}, {CURVE_SEATS[game_id]} | {budget:g} s | {f['games']} | "
                f"**{100 * f['share']:.1f} %** [{100 * lo:.1f}, {100 * hi:.1f}] | "
                f"{100 * f['equal']:.1f} % | {100 * f['old_share']:.1f} % [{100 * olo:.1f}, "
                f"{100 * ohi:.1f}] | {100 * f['ahead']:.1f} % | {verdict(f)} | "
                f"{f['diff'][0]:+.2f} [{f['diff'][1]:+.2f}, {f['diff'][2]:+.2f}] | "
                f"{1000 * c_new[0]:.0f} / {1000 * c_new[1]:.0f} / {1000 * c_new[2]:.0f} · "
                f"{1000 * c_old[0]:.0f} / {1000 * c_old[1]:.0f} / {1000 * c_old[2]:.0f} |")
    lines.append("")
    lines.append("Paired difference (the same game, both Experte levels at the table; positive: "
                 "the Experte did better): " + "; ".join(f"{g}: {t}" for g, t in PAIRED.items())
                 + ".")
    return "\n".join(lines)


def plot(path: str, directory: str = DIR) -> None:
    """The curve: the Experte's share of games won over its budget (log scale), relative to
    the equal share, one line per game, with the 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matches = load(directory)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for k, game_id in enumerate(ORDER):
        budgets = sorted(b for g, b in matches if g == game_id)
        if not budgets:
            continue
        fs = [figures(game_id, matches[(game_id, b)]) for b in budgets]
        x = [b * (1 + 0.04 * (k - 1.5)) for b in budgets]  # apart a little, to read the bars
        y = [100 * (f["share"] / f["equal"]) for f in fs]
        err = [[100 * (f["share"] - f["ci"][0]) / f["equal"] for f in fs],
               [100 * (f["ci"][1] - f["share"]) / f["equal"] for f in fs]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                    label=f"{game_id} ({CURVE_SEATS[game_id]} players)")
    ax.axhline(100, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xticks(list(BUDGETS), [f"{b:g}" for b in BUDGETS])
    ax.set_xlabel("Experte's budget per decision (CPU seconds)")
    ax.set_ylabel("games won, % of the equal share")
    ax.set_title("The Experte against the 2026 Experte at 1 s (100 = as strong)")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)


def _write(path: str, text: str) -> None:
    begin, end = "<!-- budget_table -->", "<!-- /budget_table -->"
    with open(path) as f:
        page = f.read()
    if page.count(begin) != 1 or page.count(end) != 1:
        raise SystemExit(f"{path}: needs one {begin} line and one {end} line after it")
    head, rest = page.split(begin)
    _, tail = rest.split(end)
    with open(path, "w") as f:
        f.write(f"{head}{begin}\n\n{text}\n\n{end}{tail}")


def _claim(path: str) -> bool:
    """Claim a chunk for this process (its ``.part`` file, holding the process id); False if
    kept or claimed by a process that still runs."""
    if os.path.exists(path):
        return False
    part = path + ".part"
    try:
        fd = os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            with open(part) as f:
                pid = int(f.read() or 0)
            if pid > 0:
                os.kill(pid, 0)  # the claiming process is still there
                return False
            if time.time() - os.path.getmtime(part) < 60:
                return False  # just claimed: its process id is being written
            raise ValueError("no process id")
        except (OSError, ValueError):  # it is gone: the chunk is free again
            with open(part, "w") as f:
                f.write(str(os.getpid()))
            return True
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    return True


def _kept_or_claimed(game_id: str, budget: float, directory: str) -> int:
    """Games of a match kept or being played (by the ``.part`` files)."""
    pattern = os.path.join(directory, f"{game_id}-{budget:g}-*.json")
    return CURVE_SEATS[game_id] * len(glob.glob(pattern) + glob.glob(pattern + ".part"))


def plan(budgets: list[float], games: list[str], seed: int, jobs: int,
         directory: str = DIR) -> None:
    """Play one deal at a time (in every seat rotation) of the match furthest behind — the
    first budget given counts double — until every match is at ±``TARGET`` (at least
    ``LEAST`` games)."""
    os.makedirs(directory, exist_ok=True)
    while True:
        matches = load(directory, seed)
        open_ = []
        for rank, budget in enumerate(budgets):
            for game_id in games:
                kept = matches.get((game_id, budget), [])
                if len(kept) >= LEAST and figures(game_id, kept)["half"] <= TARGET:
                    continue
                weight = 2.0 if rank == 0 else 1.0
                behind = _kept_or_claimed(game_id, budget, directory) / weight
                open_.append((behind, rank, ORDER.index(game_id), game_id, budget))
        if not open_:
            print("every match is at ±5 points", flush=True)
            return
        _, _, _, game_id, budget = min(open_)
        chunk = CURVE_SEATS[game_id]  # one deal, every level in every seat
        first = 0
        while not _claim(path_of(game_id, budget, first, directory)):
            first += chunk
        t = time.perf_counter()
        try:
            run(game_id, budget, first, chunk, seed, jobs, directory)
        finally:
            os.remove(path_of(game_id, budget, first, directory) + ".part")
        f = figures(game_id, load(directory, seed)[(game_id, budget)])
        print(f"{game_id} {budget:g} s: games {first}..{first + chunk - 1} in "
              f"{time.perf_counter() - t:.0f} s; now {f['games']} games, "
              f"{100 * f['share']:.1f} % ± {100 * f['half']:.1f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="play games of one match and keep them")
    p_run.add_argument("--game", required=True, choices=ORDER)
    p_run.add_argument("--budget", type=float, required=True)
    p_run.add_argument("--games", type=int, default=CHUNK)
    p_run.add_argument("--first", type=int, default=0)
    p_plan = sub.add_parser("plan", help="play chunks until every match is at ±5 points")
    p_plan.add_argument("--budgets", type=float, nargs="+", default=[0.1, 0.03, 0.3, 1.0])
    p_plan.add_argument("--games", nargs="+", choices=ORDER, default=list(ORDER))
    for p in (p_run, p_plan):
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--jobs", type=int, default=1, help="parallel processes")
        p.add_argument("--dir", default=DIR)
    p_table = sub.add_parser("table", help="the Markdown table (and the plot) of the kept runs")
    p_table.add_argument("--write", default=None, metavar="PAGE")
    p_table.add_argument("--plot", default=None, metavar="PNG")
    p_table.add_argument("--dir", default=DIR)
    args = parser.parse_args(argv)
    if args.command == "run":
        print(run(args.game, args.budget, args.first, args.games, args.seed, args.jobs,
                  args.dir))
    elif args.command == "plan":
        plan(args.budgets, args.games, args.seed, args.jobs, args.dir)
    else:
        text = table(args.dir)
        if args.write:
            _write(args.write, text)
        else:
            print(text)
        if args.plot:
            plot(args.plot, args.dir)


if __name__ == "__main__":
    main()
