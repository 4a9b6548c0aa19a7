"""Where the bot's event loop is held up: stalls of the loop while Experte tables think.

    python bench/loop_stalls.py [--ks 2] [--setup "/new schwimmen 2 experte"] [--seconds 12]
                                [--threshold 0.06] [--top 5]

Runs ``bench/cpu_load.py``'s case (the pool) with a sampler thread loaded into the bot process
(a ``sitecustomize`` module on its ``PYTHONPATH``): every 2 ms it reads the event loop
thread's stack (``sys._current_frames``); a run of samples outside ``selectors``' wait that
lasts longer than ``--threshold`` seconds is a stall, kept with the tasks it ran (the frames
under asyncio's ``Handle._run``) and its innermost frames. Prints the longest stalls. A stall
is wall-clock time: a loop that merely waits for a core, or runs a queue of short inputs, shows
too — read the frames (one long input shows one task throughout). The sampler runs only when
the loop lets go of the interpreter lock (a database driver's call, the switch interval), so
the frames it sees lean towards those. Found the ⏩ skip that thought an Experte play-out on
the loop. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cpu_load import EXPERTE_SETUP, case  # noqa: E402

SAMPLER = '''
import os, sys, threading, time, traceback
from collections import Counter

OUT, LIMIT = os.environ["STALL_DIR"], float(os.environ["STALL_THRESHOLD"])


def _where(frames):
    return " <- ".join(f"{f.name} ({os.path.basename(f.filename)}:{f.lineno})" for f in frames)


def _sample(loop_thread):
    start, tasks, inner, n = None, Counter(), Counter(), 0
    while True:
        time.sleep(0.002)
        frame = sys._current_frames().get(loop_thread)
        if frame is None:
            continue
        stack = traceback.extract_stack(frame)
        now = time.monotonic()
        if not (stack[-1].name == "select" and stack[-1].filename.endswith("selectors.py")):
            if start is None:
                start, tasks, inner = now, Counter(), Counter()
            runs = [i for i, f in enumerate(stack)
                    if f.name == "_run" and f.filename.endswith("events.py")]
            tasks[_where(stack[runs[-1] + 1:runs[-1] + 5][::-1]) if runs else "?"] += 1
            inner[_where(stack[-6:][::-1])] += 1
            continue
        if start is not None and now - start > LIMIT:
            n += 1
            with open(os.path.join(OUT, f"stall-{n:05d}.txt"), "w") as out:
                out.write(f"{now - start:.3f}\\n")
                out.writelines(f"task {c} {k}\\n" for k, c in tasks.most_common(6))
                out.writelines(f"inner {c} {k}\\n" for k, c in inner.most_common(6))
        start = None


if os.path.basename(sys.argv[0]) == "stammtisch":
    threading.Thread(target=_sample, args=(threading.main_thread().ident,), daemon=True,
                     name="stall-sampler").start()
'''


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ks", type=int, nargs="+", default=[2])
    parser.add_argument("--setup", default=EXPERTE_SETUP)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--threshold", type=float, default=0.06)
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args(argv)
    for k in args.ks:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "sitecustomize.py").write_text(SAMPLER)
            stalls = Path(tmp) / "stalls"
            stalls.mkdir()
            case("pool", k, args.tables, args.rate, args.seconds, setup=args.setup,
                 extra_env={"PYTHONPATH": tmp, "STALL_DIR": str(stalls),
                            "STALL_THRESHOLD": str(args.threshold)})
            found = sorted(((float(p.read_text().split("\n", 1)[0]), p)
                            for p in stalls.glob("stall-*.txt")), reverse=True)
            print(f"K={k} {args.setup!r}: {len(found)} stalls over {args.threshold * 1000:.0f} ms"
                  " (the bot's start included)")
            for seconds, path in found[:args.top]:
                print(f"  {seconds * 1000:7.0f} ms")
                for line in path.read_text().splitlines()[1:]:
                    print(f"      {line[:160]}")


if __name__ == "__main__":
    main()
