"""The bot process of the Telegram end-to-end tests: ``stammtisch telegram`` started and stopped
against the fake Bot API (``BotProcess``), its environment (``bot_env``), and the constants
of the tests (token, waiting time, move heads, traceback markers, card symbols).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.telegram_api import FakeBotApi

ROOT = Path(__file__).resolve().parents[2]
# ``stammtisch`` as the running interpreter starts it: any venv, tox or a system install
STAMMTISCH = (sys.executable, "-m", "chatbot.cli")
TOKEN = "123456:TEST-token"
WAIT = 60.0  # generous: the suite must never depend on speed

MOVE_HEADS = ("swap", "all", "pass", "knock")
TRACEBACK_MARKERS = ("Traceback", 'File "', "Exception", "Error:", "sqlalchemy", "psycopg")
_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")


def card_symbols(value: str) -> set[str]:
    """Every card symbol (``K♥``, ``10♠``) written in a text."""
    return {m.group(1) + m.group(2) for m in _CARD_RE.finditer(value)}


# ------------------------------------------------------------------------------ the bot process


@dataclass
class BotProcess:
    """One run of ``stammtisch telegram`` with its own log file."""

    env: dict[str, str]
    cwd: Path
    log_path: Path
    proc: subprocess.Popen | None = None

    def start(self, fake: FakeBotApi, timeout: float = WAIT) -> BotProcess:
        since = fake.last_seq()
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen([*STAMMTISCH, "telegram"], env=self.env, cwd=self.cwd,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.wait_ready(fake, since, timeout)
        return self

    def wait_ready(self, fake: FakeBotApi, since: int, timeout: float = WAIT) -> None:
        """Ready = the commands were registered (the last step before polling begins)."""

        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.log()}")
            calls = fake.calls("setMyCommands", since=since)
            langs = {c["params"].get("language_code") for c in calls}
            return {"de", "en", None} <= langs

        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot did not get ready:\n{self.log()}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown at all."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        """Terminate, and kill if it does not end in time."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"


def bot_env(fake: FakeBotApi, db_url: str, **overrides: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TELEGRAM_", "DATABASE_URL", "TURN_", "CPU_", "NEXT_ROUND",
                                "DEFAULT_LANGUAGE", "LOG_LEVEL"))}
    env.update({
        "TELEGRAM_TOKEN": TOKEN,
        "TELEGRAM_BASE_URL": fake.url,
        "DATABASE_URL": db_url,
        "CPU_DELAY": "0.05",
        "TURN_TIMEOUT": "60",
        "NEXT_ROUND_DELAY": "0.2",
        "TELEGRAM_CHAT_INTERVAL": "0.02",
        "TELEGRAM_GROUP_PER_MINUTE": "100000",
        "TELEGRAM_GLOBAL_PER_SECOND": "100000",
        "DEFAULT_LANGUAGE": "de",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "INPUT_RATE": "off",  # the players here are scripts (tests of flood control set it)
    })
    env.update({k: str(v) for k, v in overrides.items()})
    return env
