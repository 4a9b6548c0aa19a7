"""CPU players that think, and everybody else's presses: does a thinking Experte slow anyone down?

    python bench/cpu_load.py [--ks 0 2 8 32] [--rate 100] [--seconds 20] [--tables 100]

One real bot process (``stammtisch telegram``) against the fake Bot API server, SQLite. Besides
``--tables`` private Schwimmen tables against one Anfänger, K private tables against two
Experte players are kept thinking: a keeper presses the person's move there as soon as one is
offered, so the Experte's turns (``EXPERTE_BUDGET`` each, the default 0.3 s unless the
environment sets it) follow each other. Meanwhile
presses at ``--rate`` a second go to the Anfänger tables, and their latency (update handed to
the bot → its answer) is measured, as in ``bench/telegram.py``'s steady case. Each K runs twice
in the same run: the Experte thinking on threads of the bot's process (``CPU_WORKERS=0``, as
before issue 39) and in the process pool (one worker per core). Prints p50/p99 of the other
presses, how many were answered within Telegram's answer window (10 s), the Experte decisions
made and their mean and p95 time (the bot's ``/metrics``), the thinking processes' CPU per
decision (pool mode: the effective search time), the bot's CPU per press, and how
much of the offered seconds the bot's event loop ran on a core and waited in the run queue for
one (Linux schedstat: the cores' share, which no code of the bot's decides). Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.telegram_cases import NOT_MOVES, _Control, offer  # noqa: E402
from bench.telegram_harness import (  # noqa: E402
    _bin,
    _cpu_all,
    _cpu_seconds,
    _free_ports,
    _latencies,
    _running_bots,
    _table_message,
    _wait,
)

ANSWER_WINDOW = 10.0  # seconds: a press answered later is lost to the person
EXPERTE_SETUP = "/new schwimmen 2 experte"
# The keeper presses moves only: no resigning (it ended the game: no more thinking) and no
# move log (📜 keeps the version, and the keeper presses each version once: the table stood).
KEEPER_SKIPS = [*NOT_MOVES, "resign", "resign.y", "resign.n", "log"]
METRIC = "stammtisch_experte_decision_seconds"


def _experte_stats(port: int) -> tuple[float, float, dict[float, float]]:
    """The Experte decision histogram of the bot's /metrics: (count, sum, {le: cumulative})."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    count = total = 0.0
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if not line.startswith(METRIC):
            continue
        name, value = line.rsplit(" ", 1)
        if name.startswith(METRIC + "_count"):
            count += float(value)
        elif name.startswith(METRIC + "_sum"):
            total += float(value)
        elif name.startswith(METRIC + "_bucket"):
            le = name.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            buckets[bound] = buckets.get(bound, 0.0) + float(value)
    return count, total, buckets


def _p95(before: dict[float, float], after: dict[float, float]) -> float:
    """The 95th percentile's bucket bound of the decisions between two histograms."""
    diff = sorted((le, after.get(le, 0.0) - before.get(le, 0.0)) for le in after)
    total = diff[-1][1] if diff else 0.0
    for le, cumulative in diff:
        if total and cumulative >= 0.95 * total:
            return le
    return float("nan")


def _keep_thinking(url: str, chats: list[int], stop: threading.Event) -> None:
    """Press the person's move at each Experte table whenever a new one is offered: once per
    version of the view, as a person does (a button of a version already pressed is left
    alone, so the keeper adds no stale presses of its own)."""
    control = _Control(url)
    pressed: dict[int, str] = {}  # chat → "v1:<table>:<version>:" of the last press
    k = 0
    while not stop.is_set():
        for chat in chats:
            k += 1
            skip = ["v1:0:"] + ([pressed[chat]] if chat in pressed else [])
            uid = control.call("press_newest", {
                "chat_id": chat, "user_id": chat, "prefix": "v1:", "skip_prefix": skip,
                "skip_suffixes": KEEPER_SKIPS, "prefer_suffix": ":next",
                "seed": k})["update_id"]
            if uid is not None:
                data = control.call("get_update", {"update_id": uid})["callback_query"]["data"]
                pressed[chat] = data.rsplit(":", 1)[0] + ":"
        stop.wait(0.1)


def _children_cpu(pid: int) -> float:
    """CPU seconds of a process's children (the pool's thinking processes; Linux ``/proc``)."""
    kids: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids.update(int(x) for x in (task / "children").read_text().split())
        except OSError:
            continue
    return sum(_cpu_seconds(k) for k in kids)


def _main_thread_times(pid: int) -> tuple[float, float]:
    """Seconds the bot's main thread (the event loop) ran on a core and waited in the run
    queue for one (Linux ``/proc/<pid>/task/<pid>/schedstat``; zeros elsewhere)."""
    try:
        ran, waited, _ = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(ran) / 1e9, int(waited) / 1e9


def case(mode: str, k: int, tables: int, rate: float, seconds: float,
         workers: str = "", setup: str = EXPERTE_SETUP,
         extra_env: dict[str, str] | None = None) -> dict[str, float]:
    """One run: ``mode`` "thread" or "pool" (of ``workers`` processes; "": one per core),
    ``k`` Experte tables thinking, each opened with ``setup``; ``extra_env`` for the bot."""
    port = _free_ports(1)[0]
    env = {"CPU_DELAY": "0", "TELEGRAM_CHAT_INTERVAL": "0", "LOG_LEVEL": "WARNING",
           "INPUT_RATE": "off", "TELEGRAM_GLOBAL_PER_SECOND": "100000",
           "TELEGRAM_GROUP_PER_MINUTE": "100000", "METRICS_PORT": str(port),
           "CPU_WORKERS": "0" if mode == "thread" else workers, **(extra_env or {})}
    others = list(range(40_001, 40_001 + tables))
    experte = list(range(50_001, 50_001 + k))
    with tempfile.TemporaryDirectory() as tmp:
        env["DATABASE_URL"] = f"sqlite:///{tmp}/load.db"
        with _running_bots([_bin("stammtisch"), "telegram"], env, others,
                           "/new schwimmen 1 anfaenger", "aiohttp") as (fake, procs):
            for chat in experte:
                fake.send_text(chat, chat, setup)
            _wait(lambda: all(_table_message(fake, c) for c in experte), 120, "Experte tables")
            stop = threading.Event()
            keeper = threading.Thread(target=_keep_thinking, args=(fake.url, experte, stop))
            keeper.start()
            try:
                if k:  # the Experte players are under way: as many decisions made as
                    # tables (the pool started), then a second for the thinking to spread
                    _wait(lambda: _experte_stats(port)[0] >= k, 60, "Experte decisions",
                          every=0.25, fatal=False)
                    time.sleep(1.0)
                count0, sum0, hist0 = _experte_stats(port)
                cpu0 = _cpu_all(procs)
                think0 = _children_cpu(procs[0].pid)
                loop0, t0 = _main_thread_times(procs[0].pid), time.monotonic()
                uids = set(offer(fake.url, others, rate, seconds))
                loop1, t1 = _main_thread_times(procs[0].pid), time.monotonic()
                think1, count_mid = _children_cpu(procs[0].pid), _experte_stats(port)[0]
                # the bot's CPU over the offered seconds (the Experte tables' work included)
                cpu_ms = (_cpu_all(procs) - cpu0) / max(1, len(uids)) * 1000
                # every offered press answered (the keeper's presses are answered too: a
                # count of all answers since the offer began would stop before our slowest)
                _wait(lambda: len(_latencies(fake, uids)[0]) >= len(uids),
                      60, "answers", every=1.0, fatal=False)
                count1, sum1, hist1 = _experte_stats(port)
            finally:
                stop.set()
                keeper.join()
            lat, _first, _last = _latencies(fake, uids)
    lat_ms = sorted(x * 1000 for x in lat) or [float("nan")]
    in_time = sum(1 for x in lat_ms if x <= ANSWER_WINDOW * 1000)
    decisions = count1 - count0
    out = {"p50": statistics.median(lat_ms), "p99": lat_ms[int(len(lat_ms) * 0.99) - 1],
           "in_time": in_time, "offered": len(uids), "decisions": decisions,
           "decision_mean": (sum1 - sum0) / decisions if decisions else float("nan"),
           "decision_p95": _p95(hist0, hist1) if decisions else float("nan"),
           "search_ms": (think1 - think0) / (count_mid - count0) * 1000
           if count_mid > count0 and think1 > think0 else float("nan"),
           "cpu_ms": cpu_ms, "loop_ran": (loop1[0] - loop0[0]) / (t1 - t0),
           "loop_waited": (loop1[1] - loop0[1]) / (t1 - t0)}
    print(f"K={k:<3d} {mode:6s}  other presses p50 {out['p50']:7.1f} ms  p99 "
          f"{out['p99']:8.1f} ms  answered in time {in_time}/{len(uids)}  Experte "
          f"{decisions:4.0f} decisions, mean {out['decision_mean']:.2f} s, p95 ≤ "
          f"{out['decision_p95']:.2f} s, thinking processes' CPU per decision "
          f"{out['search_ms']:.0f} ms  CPU {cpu_ms:.2f} ms/press  event loop ran "
          f"{out['loop_ran']:.0%}, waited for a core {out['loop_waited']:.0%} of the time",
          flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ks", type=int, nargs="+", default=[0, 2, 8, 32])
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--modes", nargs="+", choices=("thread", "pool"),
                        default=["thread", "pool"])
    parser.add_argument("--workers", default="", help="the pool's processes (default: cores)")
    args = parser.parse_args(argv)
    print(f"{args.tables} Anfänger tables pressed at {args.rate:.0f}/s for {args.seconds:.0f} s "
          f"while K Experte tables think; thread = CPU_WORKERS=0, pool = "
          f"{args.workers or 'one'} worker(s) {'' if args.workers else 'per core'}")
    for k in args.ks:
        for mode in args.modes:
            case(mode, k, args.tables, args.rate, args.seconds, args.workers)


if __name__ == "__main__":
    main()
