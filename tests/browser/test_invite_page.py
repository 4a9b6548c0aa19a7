"""Issue 50 item 3 in headless Chromium: the table's page offers 📨 (invitations to this
game elsewhere); a tap on one has the server prepare it through the Telegram adapter's real
``savePreparedInlineMessage`` call (against the fake Bot API) and the page hands the prepared
message's id to ``Telegram.WebApp.shareMessage`` (Telegram's own telegram-web-app.js, whose
call reaches the recorded client bridge as ``web_app_send_prepared_message``); when the client
says it was sent, the page says so. A client too old to share shows no button."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import telegram
from sqlalchemy.engine import Engine

from chatbot.service import Service, Settings
from chatbot.telegram.inline_results import preparer
from tests.fakes.telegram_api import FakeBotApi

from .conftest import ANNA, BEN, TOKEN, Live, group_game, needs_playwright
from .server import serve

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

SHARED = """() => (window.__tg || []).filter(e => e[0] === 'web_app_send_prepared_message')
  .map(e => JSON.parse(e[1]).id)"""


@pytest.fixture
def fake() -> Iterator[FakeBotApi]:
    with FakeBotApi(TOKEN) as api:
        yield api


@pytest.fixture
def live(sqlite_engine: Engine, fake: FakeBotApi) -> Iterator[Live]:
    """The page's server with the adapter's prepared messages (the page's ``open_page``)."""
    service = Service(sqlite_engine, Settings(cpu_delay=0, inline_mode=True))
    with serve(service, TOKEN, prepare=preparer(telegram.Bot(TOKEN, base_url=fake.base_url))) \
            as base:
        yield Live(service, base)


def test_the_invite_button_shares_a_prepared_invitation_to_the_tables_game(
        live: Live, fake: FakeBotApi, open_page) -> None:  # type: ignore[no-untyped-def]
    fake.send_text(ANNA.id, ANNA.id, "/start", user_first_name="Anna")  # (Telegram knows her)
    table = group_game(live.service, "schwimmen", [ANNA, BEN])
    page = open_page(table, ANNA)
    button = page.locator("#invite-open")
    expect(button).to_be_visible()
    assert button.get_attribute("aria-label") == "📨 Zu einem Spiel woanders einladen"
    button.click()
    offers = page.locator(".invite-offer")
    expect(offers).to_have_count(2)
    assert offers.nth(1).inner_text().splitlines() == [
        "Schwimmen", "Duell · beginnt, sobald eine zweite Person beitritt"]
    offers.nth(1).click()
    page.wait_for_function(f"({SHARED})().length === 1")
    shared = page.evaluate(SHARED)[0]
    prepared = fake.prepared_messages()[shared]
    assert prepared["user_id"] == ANNA.id and prepared["result"]["id"] == "g.schwimmen.2"
    assert json.dumps(prepared["result"]["reply_markup"]).count("inv.schwimmen.2") == 1
    page.evaluate("Telegram.WebView.receiveEvent('prepared_message_sent', {})")
    expect(page.locator("#toast")).to_have_text("📨 Einladung verschickt.")
    assert page.js_errors == []


def test_a_client_that_cannot_share_shows_no_invite_button(
        live: Live, open_page) -> None:  # type: ignore[no-untyped-def]
    table = group_game(live.service, "runfast", [ANNA, BEN], cpus=1)
    page = open_page(table, ANNA, version="7.10")  # (drawn: the page's setup has run)
    expect(page.locator("#invite-open")).to_be_hidden()
    assert page.evaluate(SHARED) == []
