"""The browser tests of the tournament page and the league page: the real server on loopback
with a service on the fake clock (``tests.webapp.page_worlds`` makes the tournament and the
league week), and the page opened as a Telegram client opens a Mini App — from a group's
direct link (the start parameter in the signed initData) or a private chat's ``web_app``
button (``?p=``) — on a phone, light or dark, with the page's own clock under the test's hand
(Playwright's ``page.clock``) for its calm refresh."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy.engine import Engine

from chatbot.service import UserRef
from tests.chatbot.evenings import berlin
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock

from .conftest import LIGHT, PHONE, RECORD_BRIDGE, TOKEN, Person
from .server import serve

READY = ("document.getElementById('page').getAttribute('aria-busy') === 'false'"
         " || !document.getElementById('pg-error').hidden")


@pytest.fixture(name="served")
def served_fixture(sqlite_engine: Engine) -> Iterator[tuple[Harness, str]]:
    """A service on the fake clock (the league's first week's Sunday before) and the real
    server of the page in front of it."""
    h = Harness(sqlite_engine, FakeClock(berlin(-1, 10)), cpu_delay=0, next_round_delay=0)
    with serve(h.service, TOKEN) as base:
        yield h, base


@pytest.fixture(name="open_at")
def open_at_fixture(browser: Any, served: tuple[Harness, str]) -> Iterator[Callable[..., Any]]:
    """Opens a page for a person: ``start`` as a direct link's start parameter, else ``p``
    as a private chat's button names it; ``clock``: the page's timers under the test's hand.
    The page's script errors are in ``page.js_errors``; contexts close before the server."""
    _h, base = served
    contexts: list[Any] = []

    def open_(user: UserRef, *, start: str | None = None, p: str | None = None,
              theme: dict[str, str] | None = None, scheme: str = "light",
              clock: bool = False) -> Any:
        context = browser.new_context(viewport=PHONE, color_scheme=scheme)
        contexts.append(context)
        context.add_init_script(RECORD_BRIDGE)
        page = context.new_page()
        page.js_errors = []
        page.on("pageerror", lambda e: page.js_errors.append(str(e)))
        if clock:
            page.clock.install()
        who = Person(int(user.external_id), user.name, user.language or "de")
        init = who.init(start_param=start) if start else who.init()
        fragment = (f"#tgWebAppData={quote(init, safe='')}&tgWebAppVersion=8.0"
                    f"&tgWebAppPlatform=android"
                    f"&tgWebAppThemeParams={quote(json.dumps(theme or LIGHT), safe='')}")
        if start:
            fragment += f"&tgWebAppStartParam={start}"
        page.goto(f"{base}/webapp/{f'?p={p}' if p else ''}{fragment}")
        page.wait_for_function(READY, timeout=60_000)  # (a bound for a loaded machine)
        return page

    yield open_
    for context in contexts:
        context.close()


def cells(page: Any, rows: str) -> list[list[str]]:
    """The text of each cell of the rows a selector finds."""
    return page.evaluate("(sel) => [...document.querySelectorAll(sel)].map("
                         "tr => [...tr.cells].map(td => td.textContent))", rows)


def tables(page: Any) -> list[dict[str, Any]]:
    """The tournament tables the page shows: number, state, and each seat's name, points and
    game points as drawn."""
    return page.evaluate("""() => [...document.querySelectorAll('.pg-table')].map(t => ({
        no: Number(t.dataset.no), label: t.querySelector('header span').textContent,
        state: t.querySelector('.pg-state').textContent,
        seats: [...t.querySelectorAll('.pg-seat')].map(s => [
          s.querySelector('.pg-name').textContent,
          s.querySelector('.pg-pts') ? s.querySelector('.pg-pts').textContent : null]),
        you: [...t.querySelectorAll('.pg-seat.you .pg-name')].map(s => s.textContent)}))""")
