"""The process's clock, which the end-to-end tests of long games move: ``STAMMTISCH_CLOCK_FILE``
names a file holding an offset in seconds (a float); the service, its outbox and its deadline
timers then read now as the real time plus that offset (the file is read again when it
changes). A test writes the file to jump hours or days ahead; the deadline sweep fires what
became due. Unset (always, outside the tests): the real time (``storage.db.utcnow``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from storage.db import utcnow

ENV = "STAMMTISCH_CLOCK_FILE"


class OffsetClock:
    """Now as the real time plus the offset the file holds (0 while it is missing)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._offset = 0.0

    def offset(self) -> float:
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_ino, st.st_size)  # (a new file: a new inode)
        except OSError:
            return self._offset
        with self._lock:
            if stamp != self._stamp:
                try:
                    with open(self.path, encoding="ascii") as f:
                        self._offset = float(f.read().strip() or 0)
                    self._stamp = stamp
                except (OSError, ValueError):  # (caught mid-write: the next call reads it)
                    pass
            return self._offset

    def __call__(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self.offset())


def process_clock(path: str | None) -> Callable[[], datetime]:
    """The clock of a process: moved by the file at ``path`` if one is named."""
    return OffsetClock(path) if path else utcnow
