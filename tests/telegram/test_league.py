"""The league's table through the fake Bot API (issue 48, part B): ``/liga`` answers with the
division's table as a monospace block — a ``pre`` entity over its lines, no Markdown fences
in the text — and the command menu names ``/liga`` (German) and ``/league`` (English)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine

from chatbot.service import ChatRef, UserRef
from storage.db import migrate
from tests.chatbot.league_world import NAMES, quick_try
from tests.chatbot.service.harness import Harness
from tests.conftest import FakeClock
from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess

pytestmark = pytest.mark.e2e


def test_the_division_table_is_a_monospace_block(fake: FakeBotApi, sqlite_url: str,
                                                 start_bot: Callable[..., BotProcess]) -> None:
    engine = create_engine(sqlite_url)
    migrate(engine)
    h = Harness(engine, FakeClock(datetime.now(UTC)), cpu_delay=0.0)  # (the bot's day)
    rng = random.Random(9)
    ids = [7101, 7102, 7103]
    for i, uid in enumerate(ids):  # three people finished today's deal
        user = UserRef(str(uid), NAMES[i], language="de")
        quick_try(h, user, rng, ChatRef("telegram", str(uid), "private"))
    assert h.service.open_league_weeks() >= 1
    engine.dispose()
    start_bot(sqlite_url)
    for lang, name, about in (("de", "liga", "Die Wochenliga des Tagesspiels"),
                              ("en", "league", "The weekly league of the daily deal")):
        menu = {c["command"]: c["description"] for c in fake.commands(language_code=lang)}
        assert menu[name] == about
    fake.send_text(ids[0], ids[0], "/liga", language_code="de", user_first_name=NAMES[0])
    shown = fake.wait_for(lambda: next((m for m in fake.messages(ids[0])
                                        if (m["text"] or "").startswith("🏆 Liga")), None),
                          WAIT, message="the league's table")
    text = shown["text"]
    assert "```" not in text
    lines = text.splitlines()
    assert lines[0] == "🏆 Liga · Schwimmen · 1. Liga von 1"
    pre = [e for e in shown["entities"] or [] if e["type"] == "pre"]
    assert len(pre) == 1
    start = len("\n".join(lines[:2]).encode("utf-16-le")) // 2 + 1
    block = "\n".join(lines[2:6])  # the header and the three people
    assert (pre[0]["offset"], pre[0]["length"]) == (start, len(block.encode("utf-16-le")) // 2)
    assert lines[2] == "  # Name          Pkt Tage"
    assert sorted(x[4:16].strip() for x in lines[3:6]) == sorted(NAMES[:3])
    assert any(x.endswith("◀") and NAMES[0] in x for x in lines[3:6])
