"""The match table of docs/arena.md from the arena's kept runs (``bench/arena.py --json``).

    python bench/arena_table.py [bench/results/ismcts]
    python bench/arena_table.py --write docs/arena.md [bench/results/ismcts]

``--write`` puts the tables between the file's ``<!-- arena_table -->`` and
``<!-- /arena_table -->`` lines instead of printing them.

    python bench/arena_table.py --enough GAME BUDGET SEAT... [--dir D]

exits 0 when the kept runs of that match already give its first seat's share of games won an
interval of at most ±7 points (half the Wilson interval's width, after at least 60 games), 1 when
more games are needed; ``bench/ismcts_matches.sh`` asks it before every chunk.

Runs of the same game, seats, seed, budget and settings are merged (they must not overlap);
every match gives one Markdown row for its first seat's level ("one Experte, 2 ISMCTS"): games,
share of games won with the 95 % Wilson interval and whether it is clear of the equal share,
the means per game (and per hand in Run Fast and the climbing game), and decision times.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.arena import summarize  # noqa: E402

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "ismcts")
NAMES = {"experte": "Experte", "ismcts": "ISMCTS", "normal": "Normal", "anfaenger": "Anfänger"}
UNITS = {"schwimmen": "coins left/game", "scat": "players outlasted/game",
         "runfast": "points/game", "climbing": "points/game"}
ORDER = ("schwimmen", "scat", "runfast", "climbing")


def load(directory: str) -> dict[tuple, list[dict[str, Any]]]:
    """The kept runs by match (game, seats, seed, budget, playouts, settings)."""
    runs: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path) as f:
            run = json.load(f)
        key = (run["game"], tuple(run["seats"]), run["seed"], run["budget"], run["playouts"],
               json.dumps(run.get("ismcts"), sort_keys=True))
        runs[key].append(run)
    return runs


def merged(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every game of the runs, once; overlapping runs are refused."""
    spans = sorted((r.get("first", 0), r.get("first", 0) + r["games"]) for r in runs)
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:], strict=False)):
        raise SystemExit("runs of one match overlap (the same games twice)")
    return [g for r in sorted(runs, key=lambda r: r.get("first", 0)) for g in r["results"]]


TARGET = 0.07  # half-width of the 95 % interval the matches are played to
LEAST = 60  # games before a match may stop: every deal in every seat several times


def half_width(directory: str, game: str, budget: float, seats: list[str]) -> tuple[int, float]:
    """Games kept so far of the match (seed 1) and half its first seat's interval width."""
    runs = [r for k, rs in load(directory).items() for r in rs
            if k[:5] == (game, tuple(seats), 1, budget, None)]
    if not runs:
        return 0, 0.5
    summary = summarize(game, list(seats), merged(runs))
    lo, hi = summary[seats[0]]["win_ci"]
    return summary[seats[0]]["games"], (hi - lo) / 2


def enough(directory: str, game: str, budget: float, seats: list[str],
           target: float = TARGET, least: int = LEAST) -> bool:
    """Whether the kept runs of the match reach the interval the issue asks for."""
    games, half = half_width(directory, game, budget, seats)
    return games >= least and half <= target


def _seats(levels: tuple[str, ...]) -> str:
    first = levels[0]
    others = [lv for lv in levels if lv != first]
    text = f"one {NAMES[first]}"
    if others:
        text += f", {len(others)} {NAMES[others[0]]}"
    return text


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def row(key: tuple, results: list[dict[str, Any]]) -> str:
    game, levels, _seed, _budget, _playouts, _settings = key
    summary = summarize(game, list(levels), results)
    me = summary[levels[0]]
    others = [e for lv, e in summary.items() if lv != levels[0]]
    lo, hi = me["win_ci"]
    clear = ("above" if lo > me["equal_share"] else "below" if hi < me["equal_share"]
             else "not clear")
    also = f"{me['points_mean']:.2f} [{me['points_ci'][0]:.2f}, {me['points_ci'][1]:.2f}] " \
           f"{UNITS[game]}"
    if others:
        also += f" (others {others[0]['points_mean']:.2f})"
    if "hands" in me:
        hlo, hhi = me["hand_win_ci"]
        plo, phi = me["hand_points_ci"]
        also += (f"; hands won {_pct(me['hand_win_share'])} % [{_pct(hlo)}, {_pct(hhi)}] of "
                 f"{me['hands']}, {me['hand_points_mean']:+.2f} [{plo:+.2f}, {phi:+.2f}] "
                 "points/hand")
    times = f"{1000 * me['time_p50']:.0f} / {1000 * me['time_p95']:.0f}"
    if others:
        times += f" · {1000 * others[0]['time_p50']:.0f} / {1000 * others[0]['time_p95']:.0f}"
    return (f"| {game}, {len(levels)} | {_seats(levels)} | {me['games']} | "
            f"**{_pct(me['win_share'])} %** [{_pct(lo)}, {_pct(hi)}] | "
            f"{_pct(me['equal_share'])} % | {clear} | {also} | {times} |")


HEADER = ("| game, players | seats | games | share of games won [95 % CI] | equal share | "
          "interval | also | p50 / p95 ms (this level · the others) |\n"
          "|---|---|---|---|---|---|---|---|")


def table(directory: str) -> str:
    """The Markdown tables, one per budget, matches in the order of the games."""
    runs = load(directory)
    out: list[str] = []
    for budget in sorted({k[3] for k in runs}):
        keys = sorted((k for k in runs if k[3] == budget),
                      key=lambda k: (ORDER.index(k[0]), k[1][0] != "experte", k[1]))
        out.append(f"**{budget:g} s per decision**, seed {keys[0][2]}:\n")
        out.append(HEADER)
        out.extend(row(k, merged(runs[k])) for k in keys)
        out.append("")
    return "\n".join(out)


BEGIN, END = "<!-- arena_table -->", "<!-- /arena_table -->"


def write(path: str, text: str) -> None:
    """Replace the lines between the markers in ``path`` with ``text``."""
    with open(path) as f:
        lines = f.read().split("\n")
    if lines.count(BEGIN) != 1 or lines.count(END) != 1 or lines.index(BEGIN) > lines.index(END):
        raise SystemExit(f"{path}: needs one {BEGIN} line and one {END} line after it")
    a, b = lines.index(BEGIN), lines.index(END)
    with open(path, "w") as f:
        f.write("\n".join(lines[:a + 1] + ["", text.strip(), ""] + lines[b:]))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--enough"]:
        directory = DEFAULT_DIR
        if "--dir" in argv:
            i = argv.index("--dir")
            directory, argv = argv[i + 1], argv[:i] + argv[i + 2:]
        if len(argv) < 4:
            raise SystemExit("--enough needs GAME BUDGET SEAT...")
        game, budget, seats = argv[1], float(argv[2]), argv[3:]
        games, half = half_width(directory, game, budget, seats)
        print(f"{game} {' '.join(seats)} {budget:g} s: {games} games, ±{100 * half:.1f} points")
        raise SystemExit(0 if enough(directory, game, budget, seats) else 1)
    target = None
    if argv[:1] == ["--write"]:
        if len(argv) < 2:
            raise SystemExit("--write needs a file")
        target, argv = argv[1], argv[2:]
    text = table(argv[0] if argv else DEFAULT_DIR)
    if target is None:
        print(text)
    else:
        write(target, text)


if __name__ == "__main__":
    main()
