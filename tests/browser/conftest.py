"""The Mini App's page in a real browser: headless Chromium from Debian's package
(``/usr/bin/chromium``) driven by Playwright (the Python package only; its own browsers are
never downloaded), against the real server (``chatbot.webapp.server.mounted``) on loopback with
a real ``Service`` on a real SQLite file.

Without Chromium (or Playwright) the tests are skipped - and fail when ``CI=true``.

The page is opened as a Telegram client opens a Mini App: the launch parameters in the URL's
fragment (``tgWebAppData`` = the signed initData, platform, version, theme). On a mobile
platform the MainButton goes through ``window.TelegramWebviewProxy.postEvent``, which an init
script records (``window.__tg``); a test presses the button with
``Telegram.WebView.receiveEvent('main_button_pressed')``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.webapp.initdata import sign
from tests import dealing

from .server import serve

CHROMIUM = Path(os.environ.get("STAMMTISCH_CHROMIUM", "/usr/bin/chromium"))
TOKEN = "123456:BROWSER-test"
LIGHT = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#999999",
         "link_color": "#2481cc", "button_color": "#2481cc", "button_text_color": "#ffffff",
         "secondary_bg_color": "#efeff3"}
DARK = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
        "link_color": "#6ab3f3", "button_color": "#5288c1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c"}
RECORD_BRIDGE = """
window.__tg = [];
window.TelegramWebviewProxy = {postEvent(type, data) { window.__tg.push([type, data]); }};
"""


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests: {why}", pytrace=False)
    pytest.skip(why)


def needs_playwright() -> None:
    """Skip a test module when the playwright package is missing (fail when ``CI=true``)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            raise
        pytest.skip("the playwright package is missing (pip install -e '.[test]')",
                    allow_module_level=True)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """One headless Chromium for this package's tests (the system's, never Playwright's).
    Package scope: Playwright's sync API keeps an event loop running in this thread while it
    is open, and ``asyncio.run`` in the other packages' tests must not meet it."""
    if not CHROMIUM.exists():
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is missing (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


# ------------------------------------------------------------------ the server


@dataclass
class Live:
    service: Service
    base: str  # http://127.0.0.1:<port>

    def url(self, table: int | None, init: str, *, platform: str = "android",
            theme: dict[str, str] | None = None, version: str = "8.0") -> str:
        """The page as a Telegram client opens it (launch parameters in the fragment; the
        client's Bot API ``version``)."""
        query = f"?t={table}" if table is not None else ""
        return (f"{self.base}/webapp/{query}#tgWebAppData={quote(init, safe='')}"
                f"&tgWebAppVersion={version}&tgWebAppPlatform={platform}"
                f"&tgWebAppThemeParams={quote(json.dumps(theme or LIGHT), safe='')}")


@pytest.fixture
def live(sqlite_engine: Engine) -> Iterator[Live]:
    """The real server (``mounted``) on 127.0.0.1 in a thread with its own event loop."""
    service = Service(sqlite_engine, Settings(cpu_delay=0))
    with serve(service, TOKEN) as base:
        yield Live(service, base)


# ------------------------------------------------------------------ people and tables


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    lang: str = "de"

    @property
    def ref(self) -> UserRef:
        return UserRef(str(self.id), self.name, language=self.lang)  # (the third: username)

    @property
    def chat(self) -> ChatRef:
        return ChatRef("telegram", str(self.id), "private")

    def init(self, **extra: str) -> str:
        """Valid initData for this person, signed with the bot's token."""
        user = {"id": self.id, "first_name": self.name, "language_code": self.lang}
        return sign({"auth_date": str(int(time.time())), "query_id": "AAHtest",
                     "user": json.dumps(user), **extra}, TOKEN)


ANNA = Person(1001, "Anna")
BEN = Person(1002, "Ben")
CEM = Person(1003, "Cem", "en")  # the page in English
GROUP = ChatRef("telegram", "-1001234", "group", "Stammtisch")


def group_game(service: Service, game: str, people: list[Person], cpus: int = 0,
               args: str = "") -> int:
    """A group game started by ``people[0]`` with the others joined and ``cpus`` CPU seats."""
    for p in people:
        assert service.command(p.chat, p.ref, "start").ok
    out = service.command(GROUP, people[0].ref, "new", f"{game} {args}".strip())
    assert out.ok and out.table_id, out.text
    table_id = out.table_id
    codes = [(p, "join") for p in people[1:]] + [(people[0], "fill.+")] * cpus \
        + [(people[0], "start")]
    for p, code in codes:
        version = service.table(table_id).version  # type: ignore[union-attr]
        out = service.press(GROUP, p.ref, f"v1:{table_id}:{version}:{code}")
        assert out.ok, (code, out.text)
    return table_id


def state_of(service: Service, table_id: int) -> tuple[Any, Any]:
    return dealing.game_state(service, table_id)


def to_a_turn(service: Service, table_id: int) -> tuple[Any, Any, int]:
    """On to somebody's turn in the group (``tests.dealing``: Anna presses "next" after a
    round that ended on the deal): (game module, state, seat on turn)."""
    return dealing.to_a_turn(service, GROUP, ANNA.ref, table_id)


PHONE = {"width": 360, "height": 740}


@pytest.fixture
def open_page(browser: Any, live: Live) -> Iterator[Callable[..., Any]]:
    """Opens the page for a person as a Telegram client would (a browser context of its own,
    the client's bridge recorded, ``client`` a script of the client's own run before the
    page's); the page's script errors are in ``page.js_errors``.
    Contexts are closed before the server stops."""
    contexts: list[Any] = []

    def open_(table: int | None, person: Person, *, init: str | None = None,
              viewport: dict[str, int] | None = None, on_response: Any = None,
              color_scheme: str = "light", client: str = "", **kw: Any) -> Any:
        context = browser.new_context(viewport=viewport or PHONE, color_scheme=color_scheme)
        contexts.append(context)
        context.add_init_script(RECORD_BRIDGE + client)
        page = context.new_page()
        page.js_errors = []
        page.on("pageerror", lambda e: page.js_errors.append(str(e)))
        if on_response is not None:
            page.on("response", on_response)
        page.goto(live.url(table, init or person.init(), **kw))
        # the first view drawn (or the error shown) before the test reads or taps anything
        page.wait_for_function("document.getElementById('app').dataset.version"
                               " || !document.getElementById('error').hidden")
        return page

    yield open_
    for context in contexts:
        context.close()


def main_button(page: Any) -> dict[str, Any]:
    """The MainButton's last setup as the page sent it to the (recorded) client."""
    events = page.evaluate("window.__tg")
    setups = [json.loads(d) for t, d in events if t == "web_app_setup_main_button"]
    return setups[-1] if setups else {}


def back_button(page: Any) -> bool | None:
    """Whether the page last asked the client to show its BackButton."""
    events = page.evaluate("window.__tg")
    setups = [json.loads(d) for t, d in events if t == "web_app_setup_back_button"]
    return setups[-1].get("is_visible") if setups else None


def press_main_button(page: Any) -> None:
    page.evaluate("Telegram.WebView.receiveEvent('main_button_pressed')")
