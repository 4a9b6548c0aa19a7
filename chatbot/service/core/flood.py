"""What one person can make the bot do: the same command again within a few seconds is
answered once, and a person over the input rate gets one short "slow down" and is then
ignored for a moment. Counted per process with the ``limits`` library (a moving window)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from enum import Enum

from limits import parse, storage, strategies

REPEAT_SECONDS = 3.0  # the same command again within this is answered once
QUIET_SECONDS = 10.0  # after "slow down", further inputs are ignored this long


class Verdict(Enum):
    OK = "ok"
    REPEAT = "repeat"  # the same command just now: ignored
    SLOW_DOWN = "slow_down"  # over the rate: told once ...
    IGNORE = "ignore"  # ... then ignored for a moment


class Flood:
    """Per-person input limits. ``rate``: a ``limits`` rate string such as
    ``"30/10seconds"``; ``None`` switches the rate limit off (repeats still count once)."""

    def __init__(self, rate: str | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.item = parse(rate) if rate else None
        self.limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())
        self.clock = clock
        self._recent: dict[tuple[str, ...], float] = {}  # last time of a command
        self._quiet: dict[tuple[str, str], float] = {}  # warned people, until when
        self._pruned = clock()  # when the expired entries of ``_quiet`` were last dropped
        self._lock = threading.Lock()

    def check(self, platform: str, user: str, command: tuple[str, ...] | None = None) -> Verdict:
        """Count an input (``command``: the chat, name and arguments of a command)."""
        now = self.clock()
        who = (platform, user)
        with self._lock:
            if now - self._pruned >= QUIET_SECONDS:  # (people who did not come back)
                self._quiet = {k: t for k, t in self._quiet.items() if now < t}
                self._pruned = now
            until = self._quiet.get(who)
            if until is not None:
                if now < until:
                    return Verdict.IGNORE
                del self._quiet[who]
            if command is not None:
                key = (platform, user, *command)
                last = self._recent.get(key)
                self._recent[key] = now
                if len(self._recent) > 10_000:  # forget what is long past
                    self._recent = {k: t for k, t in self._recent.items()
                                    if now - t < REPEAT_SECONDS}
                if last is not None and now - last < REPEAT_SECONDS:
                    return Verdict.REPEAT
            if self.item is not None and not self.limiter.hit(self.item, platform, user):
                self._quiet[who] = now + QUIET_SECONDS
                return Verdict.SLOW_DOWN
        return Verdict.OK
