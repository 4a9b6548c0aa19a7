"""The page draws the view of docs/webapp-api.md (tests/browser/fixture_view.json, served by
a route of the browser itself, no server): the players with their marks and the turn clock,
the middle, the hand (only the selectable cards tappable), the moves, the log and a result;
a refused move's answer as a toast."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from chatbot.webapp.server import STATIC

from .conftest import ANNA, LIGHT, RECORD_BRIDGE, needs_playwright

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

FIXTURE = json.loads((Path(__file__).with_name("fixture_view.json")).read_text())
BASE = "http://stammtisch.invalid"


def _page(browser: Any, view: dict[str, Any], answers: dict[str, Any]) -> Any:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_init_script(RECORD_BRIDGE)
    page = context.new_page()

    def handle(route: Any) -> None:
        path = route.request.url.removeprefix(BASE).split("?")[0]
        if path == "/webapp/":
            route.fulfill(path=str(STATIC / "index.html"))
        elif path.startswith("/webapp/static/"):
            route.fulfill(path=str(STATIC / path.removeprefix("/webapp/static/")))
        elif path == "/webapp/api/table":
            route.fulfill(json=view)
        elif path in answers:
            status, body = answers[path]
            route.fulfill(status=status, json=body)
        else:
            route.fulfill(status=404, body="")

    page.route(f"{BASE}/**", handle)
    page.goto(f"{BASE}/webapp/?t=12#tgWebAppData={quote(ANNA.init(), safe='')}"
              f"&tgWebAppVersion=8.0&tgWebAppPlatform=unknown"
              f"&tgWebAppThemeParams={quote(json.dumps(LIGHT), safe='')}")
    return page


def test_the_contract_view_is_drawn(browser: Any) -> None:
    view = {**FIXTURE, "turn": {**FIXTURE["turn"], "deadline": time.time() + 30}}
    view["players"] = [*view["players"][:2], {**view["players"][2], "away": True}]
    refused = {**view, "ok": False, "answer": "Das war nicht mehr aktuell"}
    page = _page(browser, view, {
        "/webapp/api/select": (200, {"text": "Paar 7 – schlägt den Tisch",
                                     "move": {"code": "p.7", "label": "Paar 7"}}),
        "/webapp/api/move": (409, refused)})
    expect(page.locator("#opponents .player")).to_have_count(2)
    expect(page.locator("#me .player .badge.you")).to_have_count(1)
    expect(page.locator("#opponents .badge.away")).to_have_count(1)
    expect(page.locator("#me .clock")).to_have_text(re.compile(r"⏱ 0:(2\d|30)"))
    expect(page.locator("#middle-cards .card")).to_have_count(4)
    expect(page.locator("#middle-text")).to_have_text("Paarfolge 5–6 von Ben")
    expect(page.locator("#hand .card")).to_have_count(12)
    expect(page.locator("#hand .card.can")).to_have_count(5)
    expect(page.locator("#hand .card.dim")).to_have_count(7)
    expect(page.locator('#moves button[data-move="pass"]')).to_have_text("Passen")
    expect(page.locator("#log summary")).to_have_text("Verlauf")
    # a dimmed card does nothing; a selectable one is selected and named by the server
    page.locator('#hand .card[data-code="3S"]').click(position={"x": 6, "y": 12}, force=True)
    expect(page.locator("#hand .card.on")).to_have_count(0)
    page.locator('#hand .card[data-code="7C"]').click(position={"x": 6, "y": 12})
    expect(page.locator("#seltext")).to_have_text("Paar 7 – schlägt den Tisch")
    expect(page.locator("#play")).to_have_text("Paar 7")
    page.locator("#play").click()
    expect(page.locator("#toast")).to_have_text("Das war nicht mehr aktuell")
    # over: the result's lines
    page.context.close()
    over = {**view, "version": 8, "over": True, "turn": None, "selectable": [],
            "result": ["Anna gewinnt die Runde", "Ben −3"], "moves": []}
    page = _page(browser, over, {})
    expect(page.locator("#result p")).to_have_count(2)
    expect(page.locator("#result")).to_contain_text("Anna gewinnt die Runde")
    expect(page.locator("#play")).to_be_hidden()
    page.context.close()
