"""Webhook mode: the real bot process serves a webhook, the fake Bot API server posts to it."""

from __future__ import annotations

import socket

import pytest

from .harness import WAIT

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_webhook_mode_receives_updates_and_answers(fake, start_bot, sqlite_url) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/tg"
    start_bot(sqlite_url, TELEGRAM_WEBHOOK_URL=url, TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
              TELEGRAM_WEBHOOK_PORT=str(port), TELEGRAM_WEBHOOK_SECRET="s3cr3t-token")
    hook = fake.wait_for_call("setWebhook", timeout=WAIT)
    assert hook["params"]["url"] == url
    assert hook["params"]["secret_token"] == "s3cr3t-token"
    since = fake.last_seq()
    fake.send_text(4242, 4242, "/start")
    sent = fake.wait_for_call(
        "sendMessage", lambda c: str(c["params"].get("chat_id")) == "4242", since=since,
        timeout=WAIT)
    assert "Stammtisch" in sent["params"]["text"]
    # (an update posted before the server listens is retried, as Telegram does)
    deliveries = fake.webhook_deliveries()
    assert deliveries and deliveries[-1]["status"] == 200, deliveries
    assert not fake.calls("getUpdates", since=since)  # no polling in webhook mode
