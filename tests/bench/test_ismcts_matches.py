"""bench/ismcts_matches.sh: chunks already kept are skipped, and two processes started on the
same match share its chunks (a chunk is claimed by creating its .tmp file) — each played once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_ARENA = """#!{python}
import json, os, sys, time
args = sys.argv[2:]  # after bench/arena.py
first = args[args.index("--first") + 1]
out = args[args.index("--json") + 1]
with open(os.environ["PLAYED"], "a") as f:
    f.write(first + "\\n")
time.sleep(0.3)
with open(out, "w") as f:
    json.dump({{"first": int(first)}}, f)
"""


def _tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "bench").mkdir()
    shutil.copy(ROOT / "bench" / "ismcts_matches.sh", tmp_path / "bench")
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_ARENA.format(python=sys.executable))
    fake.chmod(0o755)
    env = {**os.environ, "PYTHON": str(fake), "PLAYED": str(tmp_path / "played")}
    return tmp_path / "bench" / "ismcts_matches.sh", env


def test_two_processes_share_the_chunks_of_a_match(tmp_path):
    script, env = _tree(tmp_path)
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
                    "experte"], env=env, check=True, capture_output=True, timeout=60)
    assert (tmp_path / "played").read_text().split() == ["6"]
