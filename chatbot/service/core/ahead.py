"""Thinking ahead: a CPU that thinks against a clock (the Experte) decides during its visible
delay (``Settings.cpu_delay``), not after it. When a commit leaves a table waiting for such a
CPU's move, its decision starts at once on a thread of this process (the thinking itself runs
where the Experte's always does, ``cpu.Decisions``); when the deadline fires, the move is
ready. Nothing of it is kept: a decision thought ahead is used only by this process, only for
the table's version it was thought for, and a restart or another process that fires the
deadline simply decides again — the claim checks the version either way (``deadlines``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor

from ...runtime import metrics

log = logging.getLogger(__name__)
AT_ONCE = 8  # decisions thought ahead at once (each thread mostly waits for a thinking process)
KEEP_SECONDS = 300.0  # a decision nobody took (another process fired the deadline) is dropped


class ThoughtAhead:
    """Decisions started before their deadline, one per table, by the version thought for."""

    def __init__(self, decide: Callable[[int, int], str | None]) -> None:
        self._decide = decide
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: dict[int, tuple[int, float, Future[str | None]]] = {}

    def start(self, table_id: int, version: int) -> None:
        """Start deciding the table's next CPU move (at ``version``), unless already begun."""
        with self._lock:
            old = self._ahead.get(table_id)
            if old is not None and old[0] == version:
                return
            if old is not None:
                old[2].cancel()  # (a stale version's decision that has not begun)
            self._prune()
            if self._pool is None:
                self._pool = ThreadPoolExecutor(AT_ONCE, thread_name_prefix="stammtisch-ahead")
            future = self._pool.submit(self._decide, table_id, version)
            self._ahead[table_id] = (version, time.monotonic(), future)

    def take(self, table_id: int, version: int, *, wait: bool) -> tuple[bool, str | None]:
        """The decision thought ahead for the table at ``version``: ``(True, move)`` once it
        is ready (``wait``: waits for one under way); ``(False, None)`` where there is none
        (never started, for another version, not begun yet, failed), which the caller then
        decides itself. Without ``wait`` a decision under way stays for a later call."""
        with self._lock:
            entry = self._ahead.get(table_id)
            if entry is None or entry[0] != version:
                return False, None
            future = entry[2]
            if not wait and not future.done():
                return False, None
            del self._ahead[table_id]
            if future.cancel():  # queued behind others and not begun: decided by the caller
                metrics.observe_thought_ahead("not_begun")
                return False, None
        try:
            move = future.result()
        except CancelledError:
            return False, None
        except Exception:
            log.exception("table %s: a decision thought ahead failed", table_id)
            metrics.observe_thought_ahead("failed")
            return False, None
        metrics.observe_thought_ahead("used" if move is not None else "stale")
        return move is not None, move

    def shutdown(self) -> None:
        """Drop what was not taken; decisions under way finish on their own threads."""
        with self._lock:
            for _v, _t, future in self._ahead.values():
                future.cancel()
            self._ahead.clear()
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _prune(self) -> None:
        """Drop decisions nobody took for a while (their deadline fired elsewhere)."""
        old = time.monotonic() - KEEP_SECONDS
        for table_id in [t for t, (_v, at, f) in self._ahead.items() if at < old and f.done()]:
            del self._ahead[table_id]
            metrics.observe_thought_ahead("dropped")
