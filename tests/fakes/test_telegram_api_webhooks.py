"""Tests for the fake Telegram Bot API: webhook delivery to several targets (round robin past
failures, max_connections, order), with small HTTP servers standing in for bot processes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.fakes.telegram_api import RemoteFakeBotApi

pytestmark = [
    pytest.mark.timeout(30),
    # PTB 22 warns whenever a RetryAfter is built (retry_after becomes a timedelta later)
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]


# --------------------------------------------------------------------------- webhook fan-out


class _Gauge:
    """POSTs under way at once (over one or several webhook servers)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.most_active = 0

    def __enter__(self) -> None:
        with self.lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)

    def __exit__(self, *exc) -> None:
        with self.lock:
            self.active -= 1


class _Hook:
    """A tiny webhook server (stdlib, a thread per connection, keep-alive): records the
    update ids it accepted, answers ``status``, takes ``delay`` seconds per POST, and counts
    the most POSTs it had under way at once (in ``gauge``, which several may share)."""

    def __init__(self, status: int = 200, delay: float = 0.0, gauge: _Gauge | None = None):
        self.status = status
        self.delay = delay
        self.received: list[int] = []
        self.secrets: set[str | None] = set()
        self.gauge = gauge or _Gauge()
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with hook.gauge:
                    with hook.lock:
                        hook.secrets.add(self.headers.get("X-Telegram-Bot-Api-Secret-Token"))
                    time.sleep(hook.delay)
                with hook.lock:
                    if hook.status == 200:
                        hook.received.append(json.loads(body)["update_id"])
                self.send_response(hook.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/telegram"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hooks():
    made: list[_Hook] = []

    def make(**kwargs) -> _Hook:
        made.append(_Hook(**kwargs))
        return made[-1]

    yield make
    for hook in made:
        hook.close()


def _closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/telegram"


def _set_webhook(fake, url: str, **params) -> None:
    status, body = fake.call_api("setWebhook", {"url": url, "secret_token": "geheim", **params})
    assert status == 200, body


@pytest.mark.parametrize("broken", ["500", "closed"])
def test_webhook_fan_out_round_robin_past_a_failing_target(fake, hooks, broken):
    good = [hooks(), hooks()]
    bad_url = hooks(status=500).url if broken == "500" else _closed_url()
    targets = [good[0].url, bad_url, good[1].url]
    fake.webhook_targets(targets)
    uids = [fake.send_text(42, 42, f"vorher {i}") for i in range(3)]
    time.sleep(0.3)
    assert fake.webhook_deliveries() == []  # no webhook set yet: nothing is posted
    proxy = "http://127.0.0.1:9/telegram"  # what the bots registered (the proxy's URL)
    _set_webhook(fake, proxy)
    uids += [fake.send_text(42, 42, f"text {i}") for i in range(27)]
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")

    received = good[0].received + good[1].received
    assert sorted(received) == uids  # each update accepted exactly once, by a good target
    assert good[0].received and good[1].received
    assert good[0].secrets == good[1].secrets == {"geheim"}
    deliveries = fake.webhook_deliveries()
    assert {d["target"] for d in deliveries} == set(targets)
    assert all(d["url"] == proxy for d in deliveries)
    ok = [d for d in deliveries if d["error"] is None]
    assert sorted(d["update_id"] for d in ok) == uids
    assert all(d["target"] != bad_url and 200 <= d["status"] < 300 for d in ok)
    failed = [d for d in deliveries if d["error"] is not None]
    assert failed and all(d["target"] == bad_url for d in failed)
    assert all(d["status"] == (500 if broken == "500" else 0) for d in failed)
    info = fake.call_api("getWebhookInfo")[1]["result"]
    assert info["url"] == proxy and info["pending_update_count"] == 0
    assert info["last_error_date"] > 0 and info["last_error_message"]

    fake.webhook_targets(None)  # back to the registered URL (nobody listens there)
    fake.send_text(42, 42, "danach")
    fake.wait_for(lambda: any(d["target"] == proxy for d in fake.webhook_deliveries()), 10)
    assert len(fake.pending_updates()) == 1


def test_webhook_posts_up_to_max_connections_at_once(fake, hooks):
    gauge = _Gauge()
    slow = [hooks(delay=0.3, gauge=gauge), hooks(delay=0.3, gauge=gauge)]
    fake.webhook_targets([h.url for h in slow])
    _set_webhook(fake, "http://127.0.0.1:9/telegram", max_connections=4)
    with fake.held():
        uids = [fake.send_text(-100, 7, f"text {i}") for i in range(16)]
    start = time.monotonic()
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    elapsed = time.monotonic() - start
    assert sorted(slow[0].received + slow[1].received) == uids
    assert gauge.most_active == 4  # up to 4 at once, and no more
    assert slow[0].received and slow[1].received  # round robin over both
    assert 16 / 4 * 0.3 <= elapsed < 16 * 0.3 * 0.75  # 4 rounds of 4, not one at a time
    assert fake.state()["webhook_in_flight"] == 0


def test_webhook_single_connection_keeps_the_order_through_failures(fake, hooks):
    hook = hooks(status=503)
    _set_webhook(fake, hook.url, max_connections=1)
    uids = [fake.send_text(42, 42, f"text {i}") for i in range(5)]
    fake.wait_for(lambda: len(fake.webhook_deliveries()) >= 2, 5)
    hook.status = 200  # the webhook is back: the same (oldest) update is posted again
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    assert hook.received == uids and hook.gauge.most_active == 1
    failed = [d["update_id"] for d in fake.webhook_deliveries() if d["error"]]
    assert set(failed) == {uids[0]}
    # the default max_connections (40) posts several at once to one URL, too
    hook.delay = 0.2
    _set_webhook(fake, hook.url)
    with fake.held():
        more = [fake.send_text(42, 42, f"mehr {i}") for i in range(8)]
    fake.wait_for(lambda: not fake.pending_updates(), 10, message="all updates delivered")
    assert sorted(hook.received[5:]) == more and hook.gauge.most_active >= 4


def test_remote_webhook_targets_and_parallel_send_message_ids(fake, hooks):
    remote = RemoteFakeBotApi(fake.url)
    hook = hooks()
    remote.webhook_targets([hook.url])
    assert remote.state()["webhook_targets"] == [hook.url]
    with pytest.raises(RuntimeError):
        remote.webhook_targets(["ftp://nope"])
    _set_webhook(fake, "http://127.0.0.1:9/telegram")
    uid = remote.send_text(5, 5, "hallo")
    # (the delivery is recorded once its POST is answered, just after the hook saw it)
    fake.wait_for(lambda: hook.received == [uid] and bool(remote.webhook_deliveries()), 5)
    assert remote.webhook_deliveries()[0]["target"] == hook.url
    remote.webhook_targets(None)
    assert remote.state()["webhook_targets"] == []

    # several processes sending at once still get distinct message ids per chat
    def send(i: int) -> tuple[int, int]:
        chat = -1 if i % 2 else -2
        status, body = fake.call_api("sendMessage", {"chat_id": chat, "text": f"m{i}"})
        assert status == 200
        return chat, body["result"]["message_id"]

    with ThreadPoolExecutor(8) as pool:
        sent = list(pool.map(send, range(200)))
    assert len(set(sent)) == 200
    calls = remote.calls("sendMessage")
    assert all(isinstance(c["time"], float) for c in calls)
    assert [c["time"] for c in calls] == sorted(c["time"] for c in calls)
