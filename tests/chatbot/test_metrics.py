"""``/metrics`` and ``/healthz`` (``chatbot.runtime.health``) over real HTTP, on real databases: the
counters of ``chatbot.runtime.metrics`` move with real service calls, Bot API calls and deadlines, and
the health checks fail when the database, the poller or the event loop does.

The metrics live on prometheus-client's default registry, shared by every test of the process:
each test uses a platform name of its own and compares counters before and after. The health
server is served by ``tests/chatbot/health_serving.py``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import Engine

from chatbot.runtime import metrics
from chatbot.runtime.health import (
    Health,
    LagProbe,
    bound_port,
    health_settings_from_env,
)
from chatbot.service import ChatRef, UserRef
from chatbot.telegram.request import AiohttpRequest
from storage.db import make_engine
from tests.chatbot.health_serving import serving
from tests.conftest import FakeClock, Postman, make_service

ALICE = UserRef("alice", "Alice", language="de")
FAMILIES = {"stammtisch_inputs": "counter", "stammtisch_input_seconds": "histogram",
            "stammtisch_outbox_pending": "gauge",
            "stammtisch_outbox_oldest_pending_seconds": "gauge",
            "stammtisch_outbox_delivered": "counter", "stammtisch_bot_api_calls": "counter",
            "stammtisch_bot_api_429": "counter", "stammtisch_deadlines_fired": "counter",
            "stammtisch_experte_decision_seconds": "histogram", "stammtisch_leader": "gauge",
            "stammtisch_thinking_fallbacks": "counter"}


def platform() -> str:
    """A platform name of this test's own (the column holds 16 characters)."""
    return "m" + uuid.uuid4().hex[:10]


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


# ---------------------------------------------------------------------------------- /metrics


def test_metrics_lists_every_family(sqlite_engine: Engine) -> None:
    """Every metric is declared on /metrics in Prometheus's text format, whether or not it has
    counted anything yet."""
    with serving(Health(sqlite_engine, platform())) as served:
        status, content_type, body = served.get("/metrics")
    assert status == 200 and content_type == CONTENT_TYPE_LATEST
    declared = {f.name: f.type for f in text_string_to_metric_families(body)
                if f.name.startswith("stammtisch_")}
    assert FAMILIES.items() <= declared.items()  # (the parser adds the *_created series)


def _first_move(postman: Postman, chat: ChatRef, table_id: int) -> str:
    """The data of the first move button the chat shows for the table."""
    postman.deliver()
    shown = [d for _label, d in postman.transport.buttons(chat.external_id, table_id)]
    moves = [d for d in shown if d.split(":", 3)[3].split(".")[0] in ("swap", "all", "pass",
                                                                       "knock", "next")]
    assert moves, shown
    return moves[-1]


def test_metrics_move_with_real_inputs(db_engine: Engine) -> None:
    """Commands and presses through the service count by kind and outcome, with their time;
    the outbox backlog is read from the database on each scrape."""
    p = platform()
    chat = ChatRef(p, "p-alice", "private")
    clock = FakeClock()
    service = make_service(db_engine, clock, cpu_delay=0.0)
    postman = Postman(db_engine, platform=p, clock=clock)
    with serving(Health(db_engine, p)) as served:
        before = served.scrape()
        assert value(before, "stammtisch_outbox_pending", platform=p) == 0
        assert value(before, "stammtisch_outbox_oldest_pending_seconds", platform=p) == 0

        service.reply(chat, "hello")  # one outbox row (a reply is no input of its own)
        samples = served.scrape()
        assert value(samples, "stammtisch_outbox_pending", platform=p) == 1
        assert value(samples, "stammtisch_outbox_oldest_pending_seconds", platform=p) >= 0
        assert postman.deliver() == 1
        assert value(served.scrape(), "stammtisch_outbox_pending", platform=p) == 0

        out = service.command(chat, ALICE, "new", "schwimmen 2 anfaenger", update_key="k1")
        assert out.ok and out.table_id
        assert service.command(chat, ALICE, "new", "schwimmen 2 anfaenger",
                               update_key="k1").ok  # the same update again
        data = _first_move(postman, chat, out.table_id)
        assert service.press(chat, ALICE, data, update_key="k2").changed
        assert not service.press(chat, ALICE, data, update_key="k3").ok  # drawn for an older table
        assert not service.press(chat, ALICE, "v1:garbage", update_key="k4").ok
        samples = served.scrape()

    def inputs(kind: str, outcome: str) -> float:
        return value(samples, "stammtisch_inputs_total", platform=p, kind=kind, outcome=outcome)

    assert inputs("command", "ok") == 1
    assert inputs("command", "duplicate") == 1
    assert inputs("press", "ok") == 1
    assert inputs("press", "stale") == 2  # the older button, and one that is no button
    assert inputs("press", "error") == inputs("press", "refused") == 0
    assert value(samples, "stammtisch_input_seconds_count", platform=p, kind="press") == 3
    assert value(samples, "stammtisch_input_seconds_count", platform=p, kind="command") == 2
    assert value(samples, "stammtisch_input_seconds_sum", platform=p, kind="command") > 0


def test_refused_inputs_are_counted_apart(sqlite_engine: Engine) -> None:
    """A command the service turns down counts as refused."""
    p = platform()
    chat = ChatRef(p, "g-1", "group", "Stammtisch")
    service = make_service(sqlite_engine)
    assert not service.command(chat, ALICE, "stop").ok  # no table to stop
    assert not service.command(chat, ALICE, "nonsense").ok
    with serving(Health(sqlite_engine, p)) as served:
        samples = served.scrape()
    assert value(samples, "stammtisch_inputs_total", platform=p, kind="command",
                 outcome="refused") == 2


def test_deadlines_and_experte_decisions_are_counted(db_engine: Engine) -> None:
    """A CPU turn fired by its deadline counts under its kind; an Experte's decision is timed
    by game."""
    p = platform()
    chat = ChatRef(p, "p-alice", "private")
    clock = FakeClock()
    service = make_service(db_engine, clock, experte_budget=0.02)
    postman = Postman(db_engine, platform=p, clock=clock)
    with serving(Health(db_engine, p)) as served:
        before = served.scrape()
        table_id = service.command(chat, ALICE, "new", "schwimmen 2 experte").table_id
        assert table_id
        for _ in range(20):  # the person moves until an Experte is due
            table = service.table(table_id)
            assert table is not None
            if table.deadline_kind == "cpu":
                break
            assert service.press(chat, ALICE, _first_move(postman, chat, table_id)).ok
        else:
            raise AssertionError("no CPU turn came")
        clock.set(table.next_deadline)  # type: ignore[arg-type]
        assert service.fire_due(table_id, table.version) is True
        after = served.scrape()
    assert value(after, "stammtisch_deadlines_fired_total", kind="cpu") == \
        value(before, "stammtisch_deadlines_fired_total", kind="cpu") + 1
    assert value(after, "stammtisch_experte_decision_seconds_count", game="schwimmen") >= \
        value(before, "stammtisch_experte_decision_seconds_count", game="schwimmen") + 1


def test_bot_api_calls_are_counted_by_method_and_status(sqlite_engine: Engine) -> None:
    """Each Bot API call of ``AiohttpRequest`` counts by method and HTTP status; a 429 also
    as rate limited; a call that gets no answer as "network"."""
    async def answer(request: web.Request) -> web.Response:
        if request.match_info["method"] == "sendMessage":
            return web.json_response({"ok": False, "error_code": 429,
                                      "parameters": {"retry_after": 1}}, status=429)
        return web.json_response({"ok": True, "result": True})

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead_port = closed.getsockname()[1]
    closed.close()  # nothing listens there now

    async def scenario() -> None:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        base = f"http://127.0.0.1:{bound_port(runner)}/bot123:T"
        request = AiohttpRequest(4)
        await request.initialize()
        try:
            assert (await request.do_request(f"{base}/getMe", "POST"))[0] == 200
            assert (await request.do_request(f"{base}/getMe", "POST"))[0] == 200
            assert (await request.do_request(f"{base}/sendMessage", "POST"))[0] == 429
            with pytest.raises(Exception, match="aiohttp"):
                await request.do_request(f"http://127.0.0.1:{dead_port}/bot123:T/editMessageText",
                                         "POST")
        finally:
            await request.shutdown()
            await runner.cleanup()

    with serving(Health(sqlite_engine, platform())) as served:
        before = served.scrape()
        asyncio.run(scenario())
        after = served.scrape()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("stammtisch_bot_api_calls_total", method="getMe", status="200") == 2
    assert moved("stammtisch_bot_api_calls_total", method="sendMessage", status="429") == 1
    assert moved("stammtisch_bot_api_429_total", method="sendMessage") == 1
    assert moved("stammtisch_bot_api_429_total", method="getMe") == 0
    assert moved("stammtisch_bot_api_calls_total", method="editMessageText",
                 status="network") == 1


def test_leader_and_delivery_helpers(sqlite_engine: Engine) -> None:
    with serving(Health(sqlite_engine, platform())) as served:
        metrics.set_leader("telegram-poll", True)
        metrics.set_leader("matrix-sync", False)
        metrics.observe_delivery("mx", "sent")
        samples = served.scrape()
        assert value(samples, "stammtisch_leader", role="telegram-poll") == 1
        assert value(samples, "stammtisch_leader", role="matrix-sync") == 0
        assert value(samples, "stammtisch_outbox_delivered_total", platform="mx",
                     result="sent") >= 1
        metrics.set_leader("telegram-poll", False)
        assert value(served.scrape(), "stammtisch_leader", role="telegram-poll") == 0
        names = {name for name, _labels in served.scrape()}
    # Only what this test itself observed: a labelled counter nobody touched in this
    # worker has no sample yet (the API-call counter has its own test above).
    assert {"stammtisch_leader", "stammtisch_outbox_delivered_total"} <= names


# ---------------------------------------------------------------------------------- /healthz


def test_healthz_is_ok_on_a_working_database(db_engine: Engine) -> None:
    health = Health(db_engine, platform(), last_poll_age=lambda: 3.0, is_leader=lambda: True)
    with serving(health) as served:
        status, body = served.healthz()
    assert status == 200, body
    assert body["ok"] is True
    assert body["checks"]["database"]["ok"] and body["checks"]["loop"]["ok"]
    assert body["checks"]["poll"] == {"ok": True, "polling": True, "age": 3.0}
    assert body["checks"]["leader"] == {"ok": True, "held": True}


def test_healthz_fails_when_the_database_is_gone(tmp_path: Path) -> None:
    """A SQLite file whose directory was removed: 503 naming the database; /metrics still
    answers (without the outbox's gauges being refreshed)."""
    directory = tmp_path / "gone"
    engine = make_engine(f"sqlite:///{directory / 'db.sqlite'}")
    with engine.connect():
        pass
    engine.dispose()
    shutil.rmtree(directory)
    try:
        with serving(Health(engine, platform())) as served:
            status, body = served.healthz()
            assert served.get("/metrics")[0] == 200
    finally:
        engine.dispose()
    assert status == 503, body
    assert body["ok"] is False
    assert body["checks"]["database"]["ok"] is False
    assert "OperationalError" in body["checks"]["database"]["reason"]
    assert body["checks"]["loop"]["ok"] is True


def test_healthz_fails_when_postgresql_is_unreachable() -> None:
    """Nothing listens where the engine points: 503 (the connection is refused at once)."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    engine = make_engine(f"postgresql://nobody@127.0.0.1:{port}/nothing?connect_timeout=2")
    try:
        with serving(Health(engine, platform())) as served:
            status, body = served.healthz()
    finally:
        engine.dispose()
    assert status == 503, body
    assert body["checks"]["database"]["ok"] is False


def test_healthz_fails_when_the_poller_is_stuck(sqlite_engine: Engine) -> None:
    ages: list[float | None] = [1000.0]
    health = Health(sqlite_engine, platform(), last_poll_age=lambda: ages[0],
                    max_poll_age=60.0)
    with serving(health) as served:
        status, body = served.healthz()
        assert status == 503, body
        assert body["checks"]["poll"]["ok"] is False
        assert "1000 s ago" in body["checks"]["poll"]["reason"]
        assert body["checks"]["database"]["ok"] is True
        ages[0] = None  # another process polls now
        status, body = served.healthz()
        assert status == 200, body
        assert body["checks"]["poll"] == {"ok": True, "polling": False}


def test_healthz_never_raises(sqlite_engine: Engine) -> None:
    def broken() -> float:
        raise RuntimeError("no idea")

    with serving(Health(sqlite_engine, platform(), last_poll_age=broken)) as served:
        status, body = served.healthz()
    assert status == 503
    assert body["checks"]["poll"] == {"ok": False, "reason": "RuntimeError: no idea"}


def test_healthz_fails_after_the_event_loop_was_blocked(sqlite_engine: Engine) -> None:
    """A callback that blocks the loop for 1.5 s (limit 0.5 s): the next answer is 503, and
    once the loop runs freely again, 200 (no timing is asserted beyond a generous wait)."""
    health = Health(sqlite_engine, platform(), max_loop_lag=0.5)
    with serving(health) as served:
        assert served.healthz()[0] == 200
        served.loop.call_soon_threadsafe(time.sleep, 1.5)
        status, body = served.healthz()
        assert status == 503, body
        assert body["checks"]["loop"]["ok"] is False
        assert body["checks"]["loop"]["lag"] > 0.5
        deadline = time.monotonic() + 60
        while (status := served.healthz()[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status == 200


def test_concurrent_probes_share_one_database_check(db_engine: Engine) -> None:
    """Eight probes at once, again and again (as a load balancer and an orchestrator probe
    together): every one answers 200, those that come while a ``SELECT 1`` is under way wait
    for its answer instead of failing."""
    health = Health(db_engine, platform())
    with serving(health) as served, \
            concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        def probe(gate: threading.Barrier) -> tuple[int, dict]:
            gate.wait(30)
            return served.healthz()

        for _round in range(5):
            gate = threading.Barrier(8)
            answers = list(pool.map(probe, [gate] * 8))
            failed = [body for status, body in answers if status != 200]
            assert not failed, failed


def test_lag_probe_counts_how_late_it_woke() -> None:
    probe = LagProbe(every=0.25, keep=3)
    probe.woke(100.0)
    assert probe.due == 100.25 and probe.current(100.1) == 0.0
    probe.woke(102.25)  # two seconds late
    assert probe.lag == 2.0 and probe.current(102.3) == 2.0
    assert probe.current(110.0) == 110.0 - 102.5  # overdue now
    for at in (102.5, 102.75, 103.0):
        probe.woke(at)
    assert probe.current(103.1) == 0.0  # the late one is out of the window


# ---------------------------------------------------------------------------------- settings


def test_settings_from_the_environment() -> None:
    assert health_settings_from_env({}) is None
    assert health_settings_from_env({"METRICS_PORT": ""}) is None
    assert health_settings_from_env({"METRICS_PORT": "9108"}) == ("127.0.0.1", 9108)
    assert health_settings_from_env({"METRICS_PORT": "0", "METRICS_HOST": "0.0.0.0"}) == \
        ("0.0.0.0", 0)
    for bad in ("http", "-1", "70000"):
        with pytest.raises(ValueError, match="METRICS_PORT"):
            health_settings_from_env({"METRICS_PORT": bad})
