"""Issue 19, item 3: where the Mini App opens — the page URL per table, the direct Mini App
link for groups, and WEBAPP_URL read from the environment (https only, else the page on the
webhook's server in webhook mode). Issue 38: links name a table by its token; a page's ``t``
is a token or an old link's number, nothing else."""

from __future__ import annotations

import re

import pytest

from chatbot.buttons import MAX_ID
from chatbot.runtime.config import load
from chatbot.webapp.links import direct_link, page_url, table_key
from storage.models import table_token

TOKEN = "Zq3_x-9AbCdEfGhIjKlMnO"


def test_the_page_url_names_the_table_by_its_token() -> None:
    assert page_url("https://x.org/webapp/", TOKEN) == f"https://x.org/webapp/?t={TOKEN}"
    assert page_url("https://x.org/webapp/?v=2", TOKEN) == f"https://x.org/webapp/?v=2&t={TOKEN}"
    assert page_url("https://x.org", TOKEN) == f"https://x.org/?t={TOKEN}"


def test_the_direct_link_carries_the_token_as_start_parameter() -> None:
    assert direct_link("stammtisch_bot", "tisch")(TOKEN) == \
        f"https://t.me/stammtisch_bot/tisch?startapp=t{TOKEN}"
    assert direct_link("stammtisch_bot", None)(TOKEN) == \
        f"https://t.me/stammtisch_bot?startapp=t{TOKEN}"


def test_a_token_fits_a_start_parameter_and_is_told_apart_from_a_number() -> None:
    for _ in range(200):
        token = table_token()
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,63}", token) and table_key(token) == token
    assert table_key("12") == 12 and table_key(str(MAX_ID)) == MAX_ID
    assert table_key("1" * 22) == "1" * 22  # (a token of digits only is still a token)
    for bad in ("", "0", str(MAX_ID + 1), "12a", "ab", "٣", "a" * 44, "x/y" * 8, "-1"):
        with pytest.raises(ValueError):
            table_key(bad)


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
