"""No secret reaches a log (issue 15, item 8): the filter masks the bot token (and its secret
half), the webhook secret and Matrix credentials in messages, arguments, exception texts and
stack traces of every logger; a DEBUG run of the real bot is grepped in
``tests/telegram/test_redacted_log.py``."""

from __future__ import annotations

import io
import logging

import pytest

from chatbot.runtime.redact import MASK, RedactSecrets

TOKEN = "123456:AAH-secret-part-of-the-token"
SECRET = "webhook-secret-0123456789"


@pytest.fixture
def logged() -> tuple[logging.Logger, io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    redact = RedactSecrets()
    redact.add(TOKEN, SECRET, None, "")
    handler.addFilter(redact)
    root = logging.getLogger("redact-test")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield root, out
    root.removeHandler(handler)


def test_secrets_are_masked_in_messages_args_and_tracebacks(logged) -> None:  # type: ignore[no-untyped-def]
    log, out = logged
    child = log.getChild("telegram.ext.ExtBot")  # any logger below the handler's
    child.debug("POST https://api.telegram.org/bot%s/getUpdates", TOKEN)
    child.info(f"secret header {SECRET} and half {TOKEN.split(':')[1]}")
    try:
        raise ValueError(f"bad url http://x/bot{TOKEN}/getMe")
    except ValueError:
        child.exception("request failed")
    child.warning("where", stack_info=True)
    text = out.getvalue()
    assert TOKEN not in text and TOKEN.split(":")[1] not in text and SECRET not in text
    assert text.count(MASK) >= 4 and "ValueError: bad url http://x/bot" in text


def test_short_values_are_not_treated_as_secrets() -> None:
    redact = RedactSecrets()
    redact.add("abc")
    assert redact.redact("abc def") == "abc def"
