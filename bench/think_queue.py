"""Thinking on a task queue: do two worker processes think twice the decisions of one?

    python bench/think_queue.py [--workers 1 2] [--decisions 60] [--playouts 60] [--runs 3]
                                [--url amqp://guest:guest@127.0.0.1:5672//]

For each worker count N: N ``stammtisch think --concurrency 1`` processes (real processes on
the broker at ``--url``, a queue of the run's own), then ``--decisions`` Experte decisions sent
through ``QueueThinking`` — the bot's side of ``THINKING=queue`` — by 2N threads at once, each
decision a hint search of a fixed ``--playouts`` sampled worlds (``fsm.advice_from_json``), so
that it is a fixed amount of CPU rather than a fixed time (the Experte's own moves think for
their budget of seconds, and would count seconds, not work). The wall time from the first send
to the last answer gives decisions per second; ``--runs`` runs of each N, their mean and spread
(min–max), and the ratio to N=1. Positions: Schwimmen deals of 3 seats, the same for every N.
Needs as many free cores as workers for a fair figure: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fsm  # noqa: E402
from chatbot.runtime.thinking import QueueThinking  # noqa: E402
from engine import GAMES  # noqa: E402


def positions(count: int) -> list[tuple[str, int]]:
    """``count`` Schwimmen positions (state JSON, the seat on turn)."""
    game, out, seed = GAMES["schwimmen"], [], 1
    while len(out) < count:
        state = game.new_game(3, {}, seed)
        seed += 1
        if game.to_act(state) is not None:
            out.append((game.to_json(state), game.to_act(state)))
    return out


def start_workers(url: str, queue: str, count: int, logs: Path) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "LOG_LEVEL": "WARNING", "THINKING_URL": url}
    procs = []
    for n in range(count):
        with (logs / f"think-{queue}-{n}.log").open("wb") as out:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "chatbot.cli", "think", "--queue", queue,
                 "--concurrency", "1"], cwd=ROOT, env=env, stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def one_run(thinking: QueueThinking, jobs: list[tuple[str, int]], playouts: int,
            threads: int) -> float:
    """Decisions per second for ``jobs`` sent by ``threads`` threads."""
    def decide(job: tuple[str, int]) -> str:
        state_json, seat = job
        (advice,) = thinking.think(fsm.advice_from_json,
                                   [("schwimmen", state_json, seat, 60.0, 1.0, playouts)], 60.0)
        return advice.code

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        codes = list(pool.map(decide, jobs))
    elapsed = time.perf_counter() - started
    assert all(codes)
    return len(jobs) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--playouts", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--logs", default=None, help="keep the workers' output in this folder")
    parser.add_argument("--url", default=os.environ.get("THINKING_URL")
                        or "amqp://guest:guest@127.0.0.1:5672//")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    jobs = positions(args.decisions)
    rates: dict[int, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(args.logs or tmp)
        logs.mkdir(parents=True, exist_ok=True)
        for count in args.workers:
            queue = f"bench.thinking.{uuid.uuid4().hex[:8]}"
            thinking = QueueThinking(args.url, queue, margin=60.0)
            procs = start_workers(args.url, queue, count, logs)
            try:
                one_run(thinking, jobs[: 4 * count], args.playouts, 2 * count)  # warm up
                rates[count] = [one_run(thinking, jobs, args.playouts, 2 * count)
                                for _ in range(args.runs)]
            finally:
                stop_workers(procs)
                from kombu import Connection

                with Connection(args.url) as conn:
                    conn.default_channel.queue_delete(queue)
            r = rates[count]
            print(f"{count} worker process(es): {statistics.mean(r):6.2f} decisions/s "
                  f"(runs {', '.join(f'{x:.2f}' for x in r)}; spread {min(r):.2f}–{max(r):.2f})",
                  flush=True)
    base = rates.get(1)
    if base:
        for count, r in rates.items():
            if count != 1:
                ratios = [x / y for x in r for y in base]
                print(f"{count} vs 1: {statistics.mean(r) / statistics.mean(base):.2f}× "
                      f"(pairwise {min(ratios):.2f}–{max(ratios):.2f}×)")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
