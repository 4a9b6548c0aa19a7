"""The bot process of the Matrix end-to-end tests: ``stammtisch matrix`` started and stopped
against the homeserver (``BotProcess``), its environment (``bot_env``), waiting for a
condition (``wait_for``), and the constants of the tests.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # generous: the suite must never depend on speed
TRACEBACK_MARKERS = ("Traceback", 'File "', "Exception", "Error:", "sqlalchemy", "psycopg")
_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")
_CHOICE = re.compile(r"^(\d+)\. (.*)$")
T = TypeVar("T")


def card_symbols(value: str) -> set[str]:
    """Every card symbol (``K♥``, ``10♠``) written in a text."""
    return {m.group(1) + m.group(2) for m in _CARD_RE.finditer(value or "")}


async def wait_for(probe: Callable[[], T | None], timeout: float = WAIT,
                   message: str = "a condition", every: float = 0.05) -> T:
    """Poll ``probe`` (while the clients keep syncing) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {message}")
        await asyncio.sleep(every)


# ------------------------------------------------------------------------------ the bot process


@dataclass
class BotProcess:
    """One run of ``stammtisch matrix`` with its own log file."""

    env: dict[str, str]
    cwd: Path
    log_path: Path
    proc: subprocess.Popen | None = None
    _offset: int = 0

    def start(self, timeout: float = WAIT) -> BotProcess:
        self._offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "chatbot.cli", "matrix"],
                                     env=self.env, cwd=self.cwd, stdout=log,
                                     stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while "matrix bot " not in self.run_log() or " ready" not in self.run_log():
            if self.proc.poll() is not None:
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot did not get ready:\n{self.log()}")
            time.sleep(0.05)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return None if proc is None else proc.returncode
        proc.send_signal(sig)
        try:
            return proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait(timeout=20)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"

    def run_log(self) -> str:
        """The log of this run only (a log file may hold several runs)."""
        return self.log()[self._offset:] if self._offset else self.log()

    def handled_events(self) -> list[str]:
        return re.findall(r"event (\$\S+) in \S+ from \S+: (?:text|reaction)", self.run_log())


def bot_env(homeserver: str, user: str, password: str, db_url: str, store: Path,
            **overrides: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MATRIX_", "TELEGRAM_", "DATABASE_URL", "TURN_", "CPU_",
                                "NEXT_ROUND"))}
    env.update({
        "MATRIX_HOMESERVER": homeserver,
        "MATRIX_USER": user,
        "MATRIX_PASSWORD": password,
        "MATRIX_STORE_PATH": str(store),
        "MATRIX_STORE_KEY": "a-test-store-key-0123456789",
        "DATABASE_URL": db_url,
        "CPU_DELAY": "0.05",
        "TURN_TIMEOUT": "120",
        "NEXT_ROUND_DELAY": "0.3",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(ROOT),
        "INPUT_RATE": "off",  # the players here are scripts (tests of flood control set it)
    })
    env.update({k: str(v) for k, v in overrides.items()})
    return env
