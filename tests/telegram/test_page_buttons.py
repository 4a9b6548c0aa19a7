"""Issue 48 C as a Telegram person sees it (the real bot process against the fake Bot API,
``WEBAPP_URL`` and ``WEBAPP_SHORT_NAME`` set): the tournament's announcement in a group carries
"📊 Tabelle", a direct Mini App link with the tournament in its start parameter (groups take
no ``web_app`` buttons) beside its own buttons; ``/liga`` answers with the same kind of link in a
group and privately with a ``web_app`` button opening the page at ``?p=lg``."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess

pytestmark = pytest.mark.e2e

PAGE = "https://cards.example.org/webapp/"
GROUP = -100_4801


def _buttons(msg: dict | None) -> list[dict]:
    rows = ((msg or {}).get("reply_markup") or {}).get("inline_keyboard") or []
    return [b for row in rows for b in row]


def _answer(fake: FakeBotApi, chat: int, starts: str) -> dict:
    return fake.wait_for(lambda: next((m for m in reversed(fake.messages(chat))
                                       if (m["text"] or "").startswith(starts)
                                       and _buttons(m)), None),
                         WAIT, message=f"{starts!r} in {chat}")


def test_the_tournament_and_liga_open_their_pages(fake: FakeBotApi, sqlite_url: str,
                                                  start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url, WEBAPP_URL=PAGE, WEBAPP_SHORT_NAME="tisch")
    anna = 4811
    fake.send_text(anna, anna, "/start", user_first_name="Anna")
    fake.send_text(GROUP, anna, "/turnier schwimmen 2", user_first_name="Anna",
                   chat_title="Stammtisch")
    announcement = _answer(fake, GROUP, "🏆 Turnier: Schwimmen")
    *own, page = _buttons(announcement)
    assert [b["text"] for b in own] == ["✅ Mitmachen", "❌ Aussteigen", "▶ Starten"]
    assert page["text"] == "📊 Tabelle" and "web_app" not in page
    assert re.fullmatch(r"https://t\.me/[A-Za-z0-9_]+/tisch\?startapp=tn[1-9][0-9]*",
                        page["url"]), page

    fake.send_text(GROUP, anna, "/liga", user_first_name="Anna")
    answer = _answer(fake, GROUP, "🏆 Aus dieser Gruppe")  # (nobody plays in a league yet)
    (link,) = _buttons(answer)
    assert link["text"] == "📊 Tabelle"
    assert re.fullmatch(r"https://t\.me/[A-Za-z0-9_]+/tisch\?startapp=lg", link["url"]), link
    fake.send_text(anna, anna, "/liga", user_first_name="Anna")
    answer = _answer(fake, anna, "🏆")
    assert _buttons(answer) == [{"text": "📊 Tabelle", "web_app": {"url": f"{PAGE}?p=lg"}}]
