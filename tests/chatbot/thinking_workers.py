"""Thinking workers for the tests of the task queue: the broker (RabbitMQ of ``TEST_THINKING_URL``,
else 127.0.0.1:5672 guest/guest; unreachable: skipped, or failed with ``CI=true``), a queue of
the test's own (deleted afterwards), and ``stammtisch think`` workers as real processes, each
in a process group of its own so that a test can kill it whole."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_URL = "amqp://guest:guest@127.0.0.1:5672//"
RECEIVED = re.compile(r"Task stammtisch\.think\[([0-9a-f-]+)\] received")
_status: dict[str, str | None] = {}


def broker_url() -> str:
    return os.environ.get("TEST_THINKING_URL") or DEFAULT_URL


def require_broker() -> str:
    """The broker's URL; the test is skipped (failed with ``CI=true``) when it cannot be
    reached."""
    if "error" not in _status:
        from kombu import Connection

        try:
            with Connection(broker_url(), connect_timeout=3) as conn:
                conn.ensure_connection(max_retries=1)
            _status["error"] = None
        except Exception as exc:  # any failure to connect means: no broker here
            _status["error"] = f"{type(exc).__name__}: {exc}"
    if _status["error"] is not None:
        message = f"the thinking queue's broker is unreachable at {broker_url()}: " \
                  f"{_status['error']}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return broker_url()


@contextmanager
def own_queue() -> Iterator[str]:
    """A queue name of this test's own; the queue is deleted afterwards."""
    url = require_broker()
    name = f"test.thinking.{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        from kombu import Connection

        with Connection(url, connect_timeout=3) as conn:
            conn.default_channel.queue_delete(name)


class Worker:
    """``stammtisch think --concurrency 1`` on ``queue``, its output in ``log``."""

    def __init__(self, queue: str, log: Path) -> None:
        self.log = log
        env = {**os.environ, "LOG_LEVEL": "INFO", "THINKING_URL": broker_url()}
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "chatbot.cli", "think", "--queue", queue,
                 "--concurrency", "1"], cwd=ROOT, env=env, stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_until(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        """The first match of ``pattern`` in the worker's output (polled every 20 ms)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.text())
            if found:
                return found
            if self.proc.poll() is not None:
                raise AssertionError(f"the worker ended:\n{self.text()}")
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r} from the worker:\n{self.text()}")

    def received(self) -> list[str]:
        """The ids of the jobs the worker took."""
        return RECEIVED.findall(self.text())

    def kill(self) -> None:
        """SIGKILL to the worker's process group: it dies in the middle of whatever it does."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def workers(queue: str, tmp_path: Path, count: int) -> Iterator[list[Worker]]:
    """``count`` workers on ``queue``, started side by side and ready; stopped afterwards."""
    started = [Worker(queue, tmp_path / f"think-{n}.log") for n in range(count)]
    try:
        for worker in started:
            worker.wait_until(r" ready\.")
        yield started
    finally:
        for worker in started:
            worker.stop()
