"""bench/ismcts_matches.sh: chunks already kept are skipped, two processes started on the
same match share its chunks (a chunk is claimed by creating its .tmp file) — each played once —
and a match stops once its kept runs reach an interval of ±7 points (bench/arena_table.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_ARENA = """#!{python}
import json, os, subprocess, sys, time
if sys.argv[1].endswith("arena_table.py"):  # the real table: is the match long enough?
    sys.exit(subprocess.call([{python!r}, {table!r}, *sys.argv[2:]]))
args = sys.argv[2:]  # after bench/arena.py
first = args[args.index("--first") + 1]
games = int(args[args.index("--games") + 1])
seats = args[args.index("--seats") + 1:args.index("--games")]
out = args[args.index("--json") + 1]
with open(os.environ["PLAYED"], "a") as f:
    f.write(first + "\\n")
time.sleep(0.3)
game = {{"levels": seats, "winners": [0], "points": [1.0] + [0.0] * (len(seats) - 1),
        "hands": [], "times": {{}}}}  # the first seat's level wins every game
with open(out, "w") as f:
    json.dump({{"game": args[args.index("--game") + 1], "seats": seats, "games": games,
               "seed": 1, "budget": float(args[args.index("--budget") + 1]), "playouts": None,
               "ismcts": None, "first": int(first), "results": [game] * games}}, f)
"""


def _tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "bench").mkdir()
    shutil.copy(ROOT / "bench" / "ismcts_matches.sh", tmp_path / "bench")
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_ARENA.format(python=sys.executable,
                                      table=str(ROOT / "bench" / "arena_table.py")))
    fake.chmod(0o755)
    env = {**os.environ, "PYTHON": str(fake), "PLAYED": str(tmp_path / "played")}
    return tmp_path / "bench" / "ismcts_matches.sh", env


def test_two_processes_share_the_chunks_of_a_match(tmp_path):
    script, env = _tree(tmp_path)
    env["ENOUGH"] = "0"  # every chunk, however clear the match already is
    args = ["bash", str(script), "0.25", "runfast", "36", "6", "experte", "ismcts", "ismcts"]
    workers = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
               for _ in range(2)]
    outputs = [w.communicate(timeout=60)[0] for w in workers]
    assert all(w.returncode == 0 for w in workers)
    played = sorted(int(x) for x in (tmp_path / "played").read_text().split())
    assert played == [0, 6, 12, 18, 24, 30]  # every chunk once
    assert all(out.strip() for out in outputs)  # both worked
    kept = sorted(p.name for p in (tmp_path / "bench" / "results" / "ismcts").iterdir())
    assert kept == [f"runfast-experte-ismcts-ismcts-0.25-s1-{n:04d}.json"
                    for n in (0, 6, 12, 18, 24, 30)]  # no .tmp left


def test_kept_chunks_are_skipped(tmp_path):
    script, env = _tree(tmp_path)
    out = tmp_path / "bench" / "results" / "ismcts"
    out.mkdir(parents=True)
    (out / "scat-ismcts-experte-experte-1.0-s1-0000.json").write_text("{}")
    subprocess.run(["bash", str(script), "1.0", "scat", "12", "6", "ismcts", "experte",
                    "experte"], env={**env, "ENOUGH": "0"}, check=True, capture_output=True,
                   timeout=60)
    assert (tmp_path / "played").read_text().split() == ["6"]


def test_a_match_stops_at_seven_points(tmp_path):
    """The first seat wins every game: after 60 games its interval is [94.0, 100] (±3 points),
    so the match stops there instead of playing all 120, and a second start plays nothing."""
    script, env = _tree(tmp_path)
    args = ["bash", str(script), "1.0", "runfast", "120", "12", "experte", "ismcts", "ismcts"]
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=120)
    assert [int(x) for x in (tmp_path / "played").read_text().split()] == [0, 12, 24, 36, 48]
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=60)  # again: nothing
    assert len((tmp_path / "played").read_text().split()) == 5
