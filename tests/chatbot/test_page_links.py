"""Issue 48 C, where the Mini App's tournament page and league page open from the chat, on
SQLite and PostgreSQL: on Telegram, where the Mini App is set up, the tournament's
announcement and its standings carry "📊 Tabelle" — a direct Mini App link naming the
tournament (``startapp=tn<id>``; groups take no ``web_app`` buttons) — and so does ``/liga``
(``startapp=lg``, ``lg-<game>``; privately a ``web_app`` button with the page's URL); the
chat's own buttons stay. Without the Mini App, or on another platform, there is no such
button."""

from __future__ import annotations

import random
from functools import partial

from sqlalchemy.engine import Engine

from chatbot.buttons import LINK, WEB_APP
from chatbot.service import ChatRef
from chatbot.webapp.links import start_link, start_page_url
from tests.chatbot.evenings import berlin
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock, Message, Postman
from tests.webapp.page_worlds import (
    GROUP,
    fire_steps,
    league_week,
    open_tournament,
    person,
    play_tables,
    private,
    start_tournament,
    tournament,
)

PAGE = "https://cards.example.org/webapp/"
APP = "https://t.me/stammtisch_bot/tisch"


def _harness(engine: Engine, mini_app: bool = True) -> tuple[Harness, Postman]:
    h = Harness(engine, FakeClock(berlin(-1, 10)), cpu_delay=0, next_round_delay=0)
    if mini_app:  # (what wiring and the Telegram adapter set where WEBAPP_URL is given)
        h.service.settings.webapp_start_page = partial(start_page_url, PAGE)
        h.service.settings.webapp_start_link = start_link("stammtisch_bot", "tisch")
    return h, Postman(engine, platform="telegram", clock=h.clock)


def _shown(postman: Postman, chat: ChatRef) -> list[Message]:
    postman.deliver()
    return postman.transport.messages(chat.external_id)


def _opens(message: Message) -> list[tuple[str, str]]:
    return [(label, data) for label, data in (b for row in message.rows for b in row)
            if data.startswith((LINK, WEB_APP))]


def test_the_tournament_announcement_and_standings_open_its_page(db_engine: Engine) -> None:
    h, postman = _harness(db_engine)
    users = [person(i) for i in range(4)]
    t = open_tournament(h, users, rounds=2)
    announcement = next(m for m in _shown(postman, GROUP) if m.text.startswith("🏆 Turnier"))
    link = ("📊 Tabelle", f"{LINK}{APP}?startapp=tn{t.id}")
    assert _opens(announcement) == [link]
    assert [b[0] for b in announcement.rows[0]] == ["✅ Mitmachen", "❌ Aussteigen"]
    start_tournament(h, users)
    play_tables(h, users, random.Random(3))
    assert fire_steps(h) == 1  # round 1 over: the standings, round 2 drawn
    assert tournament(h).round_no == 2
    shown = _shown(postman, GROUP)
    standings = next(m for m in shown if m.text.startswith("🏆 Stand nach Runde 1 von 2"))
    assert _opens(standings) == [link]
    announcement = next(m for m in shown if m.text.startswith("🏆 Turnier"))
    assert _opens(announcement) == [link]  # (edited as the tournament runs: still there)


def test_liga_opens_the_league_page_in_groups_and_privately(db_engine: Engine) -> None:
    h, postman = _harness(db_engine)
    users = [person(i) for i in range(3)]
    league_week(h, users, days=1)
    me = users[0]
    for chat, args, opens in (
            (GROUP, "", f"{LINK}{APP}?startapp=lg"),
            (GROUP, "schwimmen", f"{LINK}{APP}?startapp=lg-schwimmen"),
            (private(me), "", f"{WEB_APP}{PAGE}?p=lg"),
            (private(me), "scat", f"{WEB_APP}{PAGE}?p=lg-scat")):
        assert h.command(chat, me, "liga", args).ok
        answer = _shown(postman, chat)[-1]
        assert answer.text.startswith("🏆"), answer.text
        assert _opens(answer) == [("📊 Tabelle", opens)], (chat, args)
    # the groups' table and the holiday protection have no page of their own
    for args in ("gruppen", "urlaub"):
        assert h.command(private(me), me, "liga", args).ok
        assert _opens(_shown(postman, private(me))[-1]) == []


def test_no_page_button_without_the_mini_app_or_off_telegram(db_engine: Engine) -> None:
    h, postman = _harness(db_engine, mini_app=False)
    users = [person(i) for i in range(2)]
    open_tournament(h, users)
    league_week(h, users, days=1)
    assert h.command(GROUP, users[0], "liga").ok
    assert all(_opens(m) == [] for m in _shown(postman, GROUP))
    # on another platform (the harness's own): none even with the Mini App set up
    h.service.settings.webapp_start_link = start_link("stammtisch_bot", "tisch")
    other = ChatRef("test", "g-9", "group", "Elsewhere")
    other_postman = Postman(db_engine, clock=h.clock)
    assert h.command(other, users[0], "liga").ok
    assert h.command(other, users[0], "turnier", "schwimmen 2").ok
    other_postman.deliver()
    assert all(_opens(m) == [] for m in other_postman.transport.messages(other.external_id))
