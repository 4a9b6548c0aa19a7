"""A Stammtisch evening on Matrix (issue 40), the bot a separate process on the real Synapse:
``!abend`` typed in the group room, the announcement with its numbered answers, three people
answering by number or reaction, the reminders in the room, the start with the three seated
in the lobby, ``!deckel`` and ``!abend ende`` with the summary.

As on Telegram, the bot's clock is the real one and each step is brought forward by moving the
due time in the evening's row to now."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from storage.db import utcnow
from tests.chatbot.evenings import bring_forward, no_quiet_hours

from .harness import TRACEBACK_MARKERS, WAIT, Person, open_group, wait_for

pytestmark = pytest.mark.e2e


def test_an_evening_on_matrix(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("alma", "bruno", "cem")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                               store=matrix.tmp / f"store-{i}").start()
                  for i, (uid, pw) in enumerate(accounts)]
        alma, bruno, cem = people
        try:
            group = await open_group(alma, [bruno, cem], "Stammtisch Runde")
            day = utcnow().astimezone(ZoneInfo("Europe/Berlin")).date() + timedelta(days=3)
            await alma.say(group, f"!abend {day:%d.%m.} 20:00 wöchentlich schwimmen")
            await wait_for(lambda: alma.said(group, "🍻 Geplant:"), WAIT, "the plan")
            no_quiet_hours(matrix.db_url)

            bring_forward(matrix.db_url, "announce")
            announcement = await wait_for(lambda: alma.newest(
                group, lambda m: m.first_line.startswith("🍻 Stammtisch ")), WAIT,
                "the announcement")
            assert [label for _n, label in announcement.choices()] == [
                "✅ Bin dabei", "❔ Vielleicht", "❌ Kann nicht"]
            await wait_for(lambda: "✅" in announcement.reactions, WAIT, "the seeded ✅")
            for p in people:
                if p is cem:  # a reaction answers as well as the number
                    await p.react(group, announcement.event_id, "✅")
                else:
                    await p.say(group, str(announcement.choice("✅ Bin dabei")))
                await wait_for(lambda p=p: p.name in announcement.body, WAIT,
                               f"{p.name} on the announcement")
            assert "✅ Dabei (3)" in announcement.body

            bring_forward(matrix.db_url, "day")
            await wait_for(lambda: alma.said(group, "🍻 Morgen um 20:00: Stammtisch!"), WAIT,
                           "the reminder in the room")
            bring_forward(matrix.db_url, "soon")
            await wait_for(lambda: alma.said(group, "🍻 In 30 Minuten"), WAIT,
                           "the second reminder")
            bring_forward(matrix.db_url, "start")
            lobby = await wait_for(lambda: alma.newest(group, lambda m: m.choice("Starten")),
                                   WAIT, "the lobby")
            for p in people:
                assert p.name in lobby.body, (p.name, lobby.body)

            await bruno.say(group, "!deckel")
            await wait_for(lambda: alma.said(group, "🍺 Der Deckel ist noch leer"), WAIT,
                           "the empty Deckel")
            await cem.say(group, "!abend ende")
            summary = await wait_for(lambda: alma.said(group, "🍻 Der Stammtisch ist vorbei"),
                                     WAIT, "the summary")
            assert "Heute Abend wurde kein Spiel zu Ende gespielt." in summary.body
            await wait_for(lambda: alma.said(group, "Nächster Stammtisch:"), WAIT,
                           "the next evening")
            for m in alma.bot_messages(group, deleted=True):
                assert not any(marker in m.body for marker in TRACEBACK_MARKERS), m.body
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
