"""Issue 19, item 3: where the Mini App opens — the page URL per table, the direct Mini App
link for groups, and WEBAPP_URL read from the environment (https only, else the page on the
webhook's server in webhook mode)."""

from __future__ import annotations

import pytest

from chatbot.runtime.config import load
from chatbot.webapp.links import direct_link, page_url


def test_the_page_url_names_the_table() -> None:
    assert page_url("https://x.org/webapp/", 12) == "https://x.org/webapp/?t=12"
    assert page_url("https://x.org/webapp/?v=2", 12) == "https://x.org/webapp/?v=2&t=12"
    assert page_url("https://x.org", 3) == "https://x.org/?t=3"


def test_the_direct_link_carries_the_table_as_start_parameter() -> None:
    assert direct_link("stammtisch_bot", "tisch")(7) == \
        "https://t.me/stammtisch_bot/tisch?startapp=t7"
    assert direct_link("stammtisch_bot", None)(7) == "https://t.me/stammtisch_bot?startapp=t7"


@pytest.mark.parametrize(("env", "url"), [
    ({}, None),
    ({"WEBAPP_URL": "https://cards.example.org/webapp/"}, "https://cards.example.org/webapp/"),
    ({"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram"},
     "https://bot.example.org/webapp/"),
    ({"TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram", "WEBAPP_URL": "off"}, None),
])
def test_webapp_url_from_the_environment(monkeypatch, env, url) -> None:
    for key in ("WEBAPP_URL", "TELEGRAM_WEBHOOK_URL", "WEBAPP_SHORT_NAME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert load(None).webapp_url == url


def test_a_page_not_on_https_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("WEBAPP_URL", "http://cards.example.org/webapp/")
    with pytest.raises(ValueError, match="https"):
        load(None)
