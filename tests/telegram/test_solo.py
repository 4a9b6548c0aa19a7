"""Playing alone through the fake Bot API (issue 41): ``/tagesspiel`` deals today's Schwimmen
against two Normal CPUs, ``/tipps`` turns tips on, "💡 Tipp" answers with the Experte's move
and its figure (thought off the event loop, in the bot's process pool); the command menu names
``/daily`` and ``/tips`` in German and English."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, answer_text, buttons

pytestmark = pytest.mark.e2e


def test_daily_deal_and_a_tip(fake: FakeBotApi, sqlite_url: str,
                              start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url)
    for lang, daily, tips, words in (
            ("de", "tagesspiel", "tipps", "Tagesspiel – dieselben Karten für alle"),
            ("en", "daily", "tips", "Today's deal – the same cards for everybody")):
        menu = {c["command"]: c["description"] for c in fake.commands(language_code=lang)}
        assert menu[daily] == words and tips in menu  # (each language's menu, its names)
    user = 5151
    fake.send_text(user, user, "/start", language_code="de")
    fake.send_text(user, user, "/tagesspiel schwimmen", language_code="de")
    fake.wait_for(lambda: any((m["text"] or "").startswith("📅 Tagesspiel Schwimmen")
                              for m in fake.messages(user)), WAIT, message="the daily deal")

    def turn() -> dict | None:
        return next((m for m in reversed(fake.messages(user, include_deleted=False))
                     if any(d.endswith(":knock") for _, d in buttons(m))), None)
    fake.send_text(user, user, "/tipps", language_code="de")
    pressed: set[str] = set()

    def on_turn_with_a_tip() -> dict | None:
        """The person's turn with "💡 Tipp"; a round the deal closed at once (a CPU dealt 31:
        today's cards cannot be chosen) goes on by "Nächste Runde"."""
        if (m := turn()) and any(label == "💡 Tipp" for label, _ in buttons(m)):
            return m
        for m in reversed(fake.messages(user, include_deleted=False)):
            nxt = [d for _, d in buttons(m) if d.endswith(":next") and d not in pressed]
            if nxt:
                pressed.add(nxt[0])
                fake.press(user, user, m["message_id"], nxt[0], language_code="de")
                break
        return None
    table = fake.wait_for(on_turn_with_a_tip, WAIT, message="the tip button on the person's turn")
    data = next(d for label, d in buttons(table) if label == "💡 Tipp")
    uid = fake.press(user, user, table["message_id"], data, language_code="de")
    assert answer_text(fake, uid) is None
    hint = fake.wait_for(lambda: next((m for m in fake.messages(user)
                                       if (m["text"] or "").startswith("💡 ")
                                       and "Tipps sind" not in m["text"]), None), WAIT,
                         message="the hint")
    assert "Welten" in hint["text"] or "einzig sinnvolle" in hint["text"], hint["text"]
    # a forged press on a table that is not the person's: a short answer
    uid = fake.press(user, user, table["message_id"], "v1:999:0:tip", language_code="de",
                     check_data=False)
    text = answer_text(fake, uid)
    assert text and len(text) < 120 and "Traceback" not in text
