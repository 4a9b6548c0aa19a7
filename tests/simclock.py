"""The bot process's simulated clock in the end-to-end tests of long games: the test writes
an offset in seconds to the file the process's ``STAMMTISCH_CLOCK_FILE`` names (read by
``chatbot.runtime.simclock``); the process's now is the real time plus that offset."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path


class SimClock:
    """The bot process's clock: real time plus an offset the test sets (it runs on at the
    real pace between jumps)."""

    def __init__(self, path: Path, start: datetime) -> None:
        self.path = path
        self.set(start)

    def offset(self) -> float:
        return float(self.path.read_text())

    def now(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self.offset())

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (the file is replaced whole: the process never reads half)."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(repr((when - datetime.now(UTC)).total_seconds()))
        os.replace(tmp, self.path)

    def env(self) -> dict[str, str]:
        return {"STAMMTISCH_CLOCK_FILE": str(self.path)}
