"""Thinking past one machine: slow CPU decisions as jobs on a task queue (Celery on RabbitMQ).

A decision is a pure function of plain values (``fsm.cpu_action_from_json``,
``fsm.advice_from_json``, ``fsm.play_out_from_json``), so it can be thought anywhere. With
``THINKING=queue`` the bot sends each one as a job to ``THINKING_URL`` (``QueueThinking``, the
``api.Thinking`` of ``Settings.thinking``) and waits for the answer; workers started with
``stammtisch think`` (``run_worker``) take the jobs, on this machine or any other.

What holds it together:

* a job is acknowledged only when its answer is sent (``task_acks_late``), so the job of a
  worker that died — its process killed, its machine gone — goes back to the queue at once
  (the broker sees the connection close, or the worker sees its child die) and another worker
  takes it;
* each job carries its deadline: the bot waits the decision's thinking time plus a margin
  (``THINKING_MARGIN``), then plays a fallback (``cpu.Decisions``); a worker thinks no longer
  than the deadline allows, and drops a job whose deadline passed in the queue (``expires``);
* JSON only, never pickle: a job names one of the three functions and their plain arguments.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from typing import Any, TypeVar

from celery import Celery
from celery.exceptions import TimeoutError as CeleryTimeout
from kombu.exceptions import KombuError

import fsm
from engine.bots.coach import Advice
from engine.bots.experte import BUDGET

TASK = "stammtisch.think"
DEFAULT_QUEUE = "stammtisch.thinking"
DEFAULT_MARGIN = 2.0  # seconds the bot waits beyond a decision's thinking time
REPLY_RESERVE = 0.15  # seconds a worker keeps free before the deadline, for the answer's way
NO_BUDGET_WAIT = 20.0  # seconds a call that names no thinking time may take
WAITERS = 64  # decisions one bot process may wait for at once
WORK: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    fsm.cpu_action_from_json, fsm.advice_from_json, fsm.play_out_from_json)}
BUDGET_ARG = {"cpu_action_from_json": 4, "advice_from_json": 3}  # where each takes its budget
T = TypeVar("T")


class Expired(Exception):
    """A job taken after its deadline: the bot has played its fallback already."""


def make_app(url: str, queue: str = DEFAULT_QUEUE) -> Celery:
    """The Celery app of the bot and of the workers: the broker at ``url``, answers by the
    ``rpc://`` backend (messages back to the asking process, no other server), jobs on
    ``queue``."""
    app = Celery("stammtisch", broker=url, backend="rpc://", set_as_current=False)
    app.conf.update(
        task_serializer="json", result_serializer="json", accept_content=["json"],
        task_acks_late=True,  # acknowledged after the answer: a dead worker's job is redone
        task_reject_on_worker_lost=True,  # a killed child's job goes back to the queue
        worker_prefetch_multiplier=1,  # a worker holds no job it cannot start yet
        task_default_queue=queue,
        task_default_delivery_mode="transient",  # a job outlives no broker restart: its
        # deadline is seconds away
        broker_connection_timeout=1.0,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=True,
        worker_send_task_events=False,
        task_ignore_result=False,
        result_expires=None,
    )
    app.task(name=TASK, acks_late=True)(think_job)
    return app


def think_job(name: str, args: list[Any], deadline: float) -> Any:
    """A worker's job: ``WORK[name](*args)`` within the deadline (seconds since the epoch):
    the thinking time is cut to what is left of it; the answer in JSON's terms."""
    left = deadline - time.time() - REPLY_RESERVE
    if left <= 0:
        raise Expired(f"{name}: the deadline passed before the job started")
    work = WORK[name]
    if name in BUDGET_ARG:
        at = BUDGET_ARG[name]
        args = list(args) + [None] * max(0, at + 1 - len(args))
        args[at] = max(0.01, min(args[at] if args[at] is not None else BUDGET, left))
    return _to_wire(work(*args))


def _to_wire(result: Any) -> Any:
    if isinstance(result, Advice):
        return dataclasses.asdict(result)
    return result


def _from_wire(name: str, value: Any) -> Any:
    if name == "advice_from_json":
        return Advice(**value)
    if name == "play_out_from_json":
        return {int(version): code for version, code in value.items()}
    return value


class QueueThinking:
    """``api.Thinking`` on the task queue: each call a job, answered by whichever worker
    takes it; ``TimeoutError`` when the answers are not all back within the calls' thinking
    time plus ``margin`` (no worker, a broker that cannot be reached).

    The jobs are sent and waited for on threads of this object's own (``waiters``, kept for
    the process's life): Celery's ``rpc://`` answers come to a reply queue named after the
    thread that asked, and a thread that ended leaves its consumer behind on that queue — a
    new thread of the same id would lose answers to it."""

    def __init__(self, url: str, queue: str = DEFAULT_QUEUE, margin: float = DEFAULT_MARGIN,
                 waiters: int = WAITERS) -> None:
        self.app = make_app(url, queue)
        self.queue = queue
        self.margin = margin
        self._waiters = ThreadPoolExecutor(waiters, thread_name_prefix="thinking-queue")

    def think(self, work: Callable[..., T], calls: Sequence[tuple[Any, ...]],
              seconds: float | None) -> list[T]:
        name = work.__name__
        if WORK.get(name) is not work:
            raise TypeError(f"{name} is not thought on the queue")
        deadline = time.time() + (NO_BUDGET_WAIT if seconds is None else seconds) + self.margin
        asked = [self._waiters.submit(self._ask, name, list(args), deadline) for args in calls]
        try:
            return [job.result(timeout=max(0.01, deadline - time.time())) for job in asked]
        except FutureTimeout as exc:  # (a waiter still busy at the deadline)
            raise TimeoutError(f"no thinking worker answered {name} in time") from exc
        finally:
            for job in asked:
                job.cancel()  # (not started yet: no job sent)

    def _ask(self, name: str, args: list[Any], deadline: float) -> Any:
        """Send one job and wait for its answer (on a waiter thread)."""
        try:
            job = self.app.send_task(
                TASK, args=(name, args, deadline), queue=self.queue,
                expires=datetime.fromtimestamp(deadline, UTC), retry=True,
                retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.1})
            return _from_wire(name, job.get(timeout=max(0.01, deadline - time.time())))
        except CeleryTimeout as exc:
            raise TimeoutError(f"no thinking worker answered {name} in time") from exc
        except (KombuError, OSError) as exc:
            raise TimeoutError(f"the thinking queue cannot be reached: {exc}") from exc


def run_worker(url: str, queue: str = DEFAULT_QUEUE, concurrency: int | None = None,
               loglevel: str = "INFO") -> None:
    """A thinking worker (``stammtisch think``): ``concurrency`` processes (one per core by
    default), each thinking one job at a time, until SIGTERM (a warm shutdown: the jobs under
    way are finished) or SIGKILL (their jobs go back to the queue)."""
    app = make_app(url, queue)
    app.worker_main([
        "worker", f"--concurrency={concurrency or os.cpu_count() or 1}",
        f"--queues={queue}", f"--loglevel={loglevel}", f"--hostname=think-{os.getpid()}@%h",
        "--without-gossip", "--without-mingle", "--pool=prefork"])
