"""A DEBUG run of the real bot leaves no secret in its log (issue 15, item 8): the token that
python-telegram-bot puts into every request URL it logs, and the webhook secret."""

from __future__ import annotations

from collections.abc import Callable

from chatbot.runtime.redact import MASK

from .harness import TOKEN, BotProcess, greet


def test_a_debug_run_logs_no_token(fake, sqlite_url: str,  # type: ignore[no-untyped-def]
                                   start_bot: Callable[..., BotProcess]) -> None:
    secret = "webhook-secret-never-logged-42"
    bot = start_bot(sqlite_url, LOG_LEVEL="DEBUG", TELEGRAM_WEBHOOK_SECRET=secret)
    greet(fake, 501, "Alice")
    fake.send_text(501, 501, "/new")
    bot.stop()
    text = bot.log()
    assert "DEBUG" in text and "getUpdates" in text  # the requests were logged ...
    assert MASK in text  # ... with the token masked
    assert TOKEN not in text and TOKEN.split(":")[1] not in text and secret not in text
