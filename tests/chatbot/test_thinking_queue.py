"""Thinking past one machine (issue 49, item 4): with ``THINKING=queue`` the Experte's decisions
are jobs on a task queue (Celery on RabbitMQ), thought by ``stammtisch think`` workers — real
processes started here on the real broker. A worker killed in the middle of a decision leaves
its job to another; with no worker at all (or no broker) the table gets a Normal move when the
decision's budget and margin are up, logged and counted in ``/metrics``."""

from __future__ import annotations

import logging
import random
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from celery.signals import before_task_publish
from prometheus_client import REGISTRY, generate_latest
from sqlalchemy.engine import Engine

import fsm
from chatbot import cli
from chatbot.runtime import config
from chatbot.runtime.thinking import QueueThinking
from chatbot.service import Settings
from chatbot.service.core import cpu, records
from engine import GAMES
from tests.chatbot.service.harness import Harness, experte_table, until_a_cpu_turn
from tests.chatbot.thinking_workers import own_queue, require_broker, workers
from tests.conftest import FakeClock

pytestmark = pytest.mark.e2e
MARGIN = 10.0  # where an answer is expected: waited for only as long as it takes (a busy CI)


def _fallbacks(kind: str) -> float:
    return REGISTRY.get_sample_value("stammtisch_thinking_fallbacks_total",
                                     {"kind": kind}) or 0.0


def _play(h: Harness, table_id: int, version: int, planned: str) -> None:
    """The move thought is played where inputs run, and the table goes on past it."""
    before = len(h.moves(table_id))
    assert h.service.fire_due(table_id, version, planned=planned) is True
    h.step()
    move = h.moves(table_id)[before]
    assert (move.actor, move.code) == ("cpu", planned)
    assert h.table(table_id).version > version


def test_an_experte_move_is_thought_by_a_worker_on_the_queue(db_engine: Engine,
                                                              clock: FakeClock,
                                                              tmp_path: Path) -> None:
    with own_queue() as queue, workers(queue, tmp_path, 1) as (worker,):
        h = Harness(db_engine, clock, cpu_delay=0, experte_budget=0.05,
                    thinking=QueueThinking(require_broker(), queue, margin=MARGIN))
        table_id = experte_table(h)
        table = until_a_cpu_turn(h, table_id)
        h.clock.set(table.next_deadline)
        fallbacks = _fallbacks("decide")
        planned = h.service.plan_due(table_id, table.version)
        assert planned is not None and _fallbacks("decide") == fallbacks
        legal = {a.code for a in GAMES["schwimmen"].legal_actions(h.state(table_id))}
        assert planned in legal
        assert len(worker.received()) == 1  # thought by the worker, not here
        worker.wait_until(r"Task stammtisch\.think\[[0-9a-f-]+\] succeeded")
        _play(h, table_id, table.version, planned)


def test_a_decision_of_a_killed_worker_is_taken_by_another(db_engine: Engine, clock: FakeClock,
                                                           tmp_path: Path) -> None:
    """Two workers; the one that took the decision dies (SIGKILL to its processes) while it
    thinks: the job goes back to the queue, the other worker thinks it, and the answer is
    there within the decision's budget and margin — no fallback, the table goes on."""
    with own_queue() as queue, workers(queue, tmp_path, 2) as pair:
        h = Harness(db_engine, clock, cpu_delay=0, experte_budget=1.0,
                    thinking=QueueThinking(require_broker(), queue, margin=MARGIN))
        table_id = experte_table(h)
        table = until_a_cpu_turn(h, table_id)
        h.clock.set(table.next_deadline)
        fallbacks = _fallbacks("decide")
        with ThreadPoolExecutor(1) as thread:
            asked = thread.submit(h.service.plan_due, table_id, table.version)
            taker = None
            while taker is None:  # (polled: the job is taken within milliseconds)
                taker = next((w for w in pair if w.received()), None)
                assert not asked.done(), "answered before any worker took the job"
                time.sleep(0.01)
            job = taker.received()[0]
            taker.kill()
            planned = asked.result(timeout=60)
        other = next(w for w in pair if w is not taker)
        assert other.received() == [job]  # the same job, taken again by the other worker
        other.wait_until(rf"Task stammtisch\.think\[{job}\] succeeded")
        assert _fallbacks("decide") == fallbacks  # the Experte's answer, in time
        assert planned is not None
        _play(h, table_id, table.version, planned)


def _queue_is_empty(url: str, queue: str, within: float = 5.0) -> bool:
    """The queue holds no job, or none once the broker has dropped the expired ones: a job's
    time to live runs from when the broker took it, a few milliseconds after the bot's
    deadline was reckoned, so the last job may still be there for that long."""
    from kombu import Connection

    until = time.monotonic() + within
    with Connection(url, connect_timeout=3) as conn:
        while (job := conn.default_channel.basic_get(queue, no_ack=False)) is not None:
            conn.default_channel.basic_reject(job.delivery_info["delivery_tag"], requeue=True)
            if time.monotonic() > until:
                return False
            time.sleep(0.05)
    return True


def test_without_any_worker_a_decision_falls_back_to_a_normal_move_in_time(
        db_engine: Engine, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    """Nobody thinks: the bot waits the budget plus the margin, no longer (the job expires
    then, so no worker thinks it later), plays the Normal move, logs and counts it."""
    budget, margin = 0.05, 0.4
    with own_queue() as queue:
        h = Harness(db_engine, clock, cpu_delay=0, experte_budget=budget,
                    thinking=QueueThinking(require_broker(), queue, margin=margin))
        table_id = experte_table(h)
        table = until_a_cpu_turn(h, table_id)
        h.clock.set(table.next_deadline)
        fallbacks = _fallbacks("decide")
        sent: list[dict[str, Any]] = []

        def record(headers: dict[str, Any], **_: Any) -> None:
            sent.append(headers)
        before_task_publish.connect(record, weak=False)
        before = datetime.now().astimezone()
        try:
            with caplog.at_level(logging.WARNING, logger="chatbot.service.core.cpu"):
                planned = h.service.plan_due(table_id, table.version)
        finally:
            before_task_publish.disconnect(record)
        after = datetime.now().astimezone()
        normal = fsm.cpu_action(records.model(table, h.seats(table_id)), "normal",
                                random.Random(f"{table.seed}:{table.version}"))
        assert planned == normal
        assert _fallbacks("decide") == fallbacks + 1
        assert 'stammtisch_thinking_fallbacks_total{kind="decide"}' in generate_latest().decode()
        assert "did not answer in time" in caplog.text
        (job,) = sent
        expires = datetime.fromisoformat(job["expires"])  # the deadline the job carried
        asked = expires.timestamp() - (budget + margin)
        assert before.timestamp() - 0.01 <= asked <= after.timestamp()
        assert _queue_is_empty(require_broker(), queue)  # dropped then: nobody thinks it later
        _play(h, table_id, table.version, planned)


def test_an_unreachable_broker_gives_a_hint_thought_here() -> None:
    """No broker at the URL: the hint is thought on the calling thread, shorter, and counted."""
    game = GAMES["schwimmen"]
    state = game.new_game(3, {}, 7)
    decisions = cpu.Decisions(Settings(experte_budget=0.04, thinking=QueueThinking(
        "amqp://guest:guest@127.0.0.1:1//", "nowhere", margin=0.2)))
    fallbacks = _fallbacks("advise")
    advice = decisions.advise("schwimmen", game.to_json(state), game.to_act(state))
    assert advice.code in {a.code for a in game.legal_actions(state)}
    assert _fallbacks("advise") == fallbacks + 1


def test_hints_reviews_and_play_outs_come_back_from_a_worker_as_thought(tmp_path: Path) -> None:
    """Each kind of job travels as JSON and comes back as the caller knows it: a hint, a
    review's hints in order, a ⏩ play-out's moves by table version; to callers on threads
    that end and new ones (whose ids the system may give again) as well."""
    game = GAMES["schwimmen"]
    states = [s for s in (game.new_game(3, {}, seed) for seed in (7, 8, 9))
              if game.to_act(s) is not None]
    with own_queue() as queue, workers(queue, tmp_path, 1) as (worker,):
        decisions = cpu.Decisions(Settings(experte_budget=0.04, thinking=QueueThinking(
            require_broker(), queue, margin=MARGIN)))
        fallbacks = {k: _fallbacks(k) for k in ("advise", "play_out")}
        one = decisions.advise("schwimmen", game.to_json(states[0]), game.to_act(states[0]))
        assert one.code in {a.code for a in game.legal_actions(states[0])} and one.values
        review = decisions.advise_many(
            "schwimmen", [(game.to_json(s), game.to_act(s), "pass") for s in states], 0.5)
        for state, advice in zip(states, review, strict=True):
            assert advice.code in {a.code for a in game.legal_actions(state)}
        moves = decisions.play_out(("schwimmen", fsm.TURN, 3, {}, 7, game.to_json(states[0]),
                                    ["experte", "experte", "experte"], 5, 0.01, 5_000))
        assert moves and min(moves) == 5 and all(isinstance(v, int) for v in moves)
        for _ in range(3):  # callers on threads that come and go get their answers too
            with ThreadPoolExecutor(2) as callers:
                hints = list(callers.map(lambda s: decisions.advise(
                    "schwimmen", game.to_json(s), game.to_act(s)), states))
            assert [h.code for h in hints] and all(h.values for h in hints)
        assert {k: _fallbacks(k) for k in fallbacks} == fallbacks
        assert len(worker.received()) == 1 + len(states) + 1 + 3 * len(states)


def test_think_without_a_broker_says_what_to_set(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("THINKING_URL", raising=False)
    monkeypatch.chdir(Path(__file__).parent)  # (no .env here)
    assert cli.main(["think"]) == 2
    assert "THINKING_URL" in capsys.readouterr().err


@pytest.mark.parametrize(("thinking", "url", "problem"), [
    ("queue", "", "needs THINKING_URL"), ("cloud", "amqp://x//", "local or queue")])
def test_a_thinking_setting_that_cannot_work_is_refused_at_start(
        monkeypatch: pytest.MonkeyPatch, thinking: str, url: str, problem: str) -> None:
    monkeypatch.setenv("THINKING", thinking)
    monkeypatch.setenv("THINKING_URL", url)
    with pytest.raises(ValueError, match=problem):
        config.load(env_file=None)


def test_the_local_pool_stays_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("THINKING", "THINKING_URL"):
        monkeypatch.delenv(name, raising=False)
    cfg = config.load(env_file=None)
    assert cfg.thinking == "local"
    assert isinstance(cpu.Decisions(Settings(cpu_workers=1)).executor, cpu.LocalPool)
