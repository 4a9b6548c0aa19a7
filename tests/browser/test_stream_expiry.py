"""Issue 38, item 3: the server ends an event stream when its initData grows older than the max
age (an ``expired`` event); the page opens the stream again at once with the initData its
client holds then, and the person sees nothing of it: no "offline", no error, no toast, and
the table goes on live over the new stream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.engine import Engine

from chatbot.service import Service, Settings
from tests import dealing

from .conftest import ANNA, TOKEN, Live, needs_playwright
from .server import serve

needs_playwright()
from playwright.sync_api import expect  # noqa: E402

MAX_AGE = 60
LEFT = 20  # seconds the page's first initData is still good for: ample to load the page

# The client hands out a newer initData once it has one (``window.__initData``), as
# ``Telegram.WebApp.initData``; everything else of the WebApp object is Telegram's own.
FRESH_INIT_DATA = """
(() => {
  const telegram = {};
  let webApp = null;
  Object.defineProperty(telegram, "WebApp", {
    configurable: true, enumerable: true,
    get() { return webApp; },
    set(app) {
      webApp = new Proxy(app, {get: (target, key) =>
        key === "initData" && window.__initData ? window.__initData : Reflect.get(target, key)});
    },
  });
  window.Telegram = telegram;
})();
"""

# Whatever the person is shown besides the table: the offline mark, an error, a toast.
WATCH_NOTICES = """() => {
  window.__shown = [];
  for (const id of ["offline", "error", "toast"]) {
    new MutationObserver(() => {
      if (!document.getElementById(id).hidden) window.__shown.push(id);
    }).observe(document.getElementById(id), {attributes: true, attributeFilter: ["hidden"]});
  }
}"""


@pytest.fixture
def live(sqlite_engine: Engine) -> Iterator[Live]:
    """The real server with a short initData max age (a minute)."""
    service = Service(sqlite_engine, Settings(cpu_delay=0))
    with serve(service, TOKEN, max_age=MAX_AGE) as base:
        yield Live(service, base)


def _a_private_game(service: Service) -> int:
    assert service.command(ANNA.chat, ANNA.ref, "start").ok
    assert service.command(ANNA.chat, ANNA.ref, "new", "schwimmen 1 anfänger").ok
    table = service.unfinished_tables("telegram", ANNA.chat.external_id)[0].id
    assert table is not None
    dealing.to_a_turn(service, ANNA.chat, ANNA.ref, table)
    return table


def test_an_expired_stream_is_opened_again_with_fresh_initdata_and_says_nothing(
        open_page: Any, live: Live) -> None:
    service = live.service
    table = _a_private_game(service)
    signed_at = int(time.time()) - (MAX_AGE - LEFT)
    old = ANNA.init(auth_date=str(signed_at))
    statuses: list[tuple[str, int]] = []
    page = open_page(table, ANNA, init=old, client=FRESH_INIT_DATA,
                     on_response=lambda r: statuses.append((urlsplit(r.url).path, r.status)))
    page.evaluate(WATCH_NOTICES)
    app = page.locator("#app")
    expect(app).to_have_attribute("data-version", str(service.table(table).version))  # type: ignore[union-attr]

    fresh = ANNA.init(query_id="AAHfresh")  # what the client holds by the time it expires
    page.evaluate("init => { window.__initData = init; }", fresh)

    def reopened(request: Any) -> bool:
        query = parse_qs(urlsplit(request.url).query)
        return request.url.split("?")[0].endswith("/api/events") and \
            query.get("initData") == [fresh]

    # the old stream ends at its initData's max age; the page opens the next one at once
    with page.expect_response(lambda r: reopened(r.request),
                              timeout=(LEFT + 30) * 1000) as answer:
        pass
    assert answer.value.status == 200
    assert time.time() >= signed_at + MAX_AGE - 1  # (not before: it was the expiry)

    # the table goes on live over the new stream: a move made elsewhere (in the chat) shows
    game, state, seat = dealing.to_a_turn(service, ANNA.chat, ANNA.ref, table)
    assert seat == 0
    code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
    version = service.table(table).version  # type: ignore[union-attr]
    assert service.press(ANNA.chat, ANNA.ref, f"v1:{table}:{version}:{code}").ok
    expect(app).to_have_attribute("data-version", str(service.table(table).version))  # type: ignore[union-attr]

    assert page.evaluate("window.__shown") == []  # nothing said: no offline, error, toast
    assert page.locator("#offline").is_hidden() and page.locator("#error").is_hidden()
    assert not [s for s in statuses if s[1] >= 400], statuses
    assert not page.js_errors
