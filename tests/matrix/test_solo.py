"""Playing alone in Matrix (issue 41) through the same service calls as Telegram: the daily
deal (``!tagesspiel``), tips turned on (``!tipps``) and asked for (``!tipp``), all in a
direct room, in German as the person reads it."""

from __future__ import annotations

import asyncio

import pytest

from .harness import TRACEBACK_MARKERS, WAIT, Person, wait_for
from .playing import to_my_turn

pytestmark = pytest.mark.e2e


def test_daily_deal_and_a_tip_in_a_direct_room(matrix) -> None:
    bot = matrix.start_bot()
    uid, pw = matrix.account("dora")

    async def scenario() -> None:
        dora = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            room = await dora.create_room([matrix.bot_id], direct=True)
            await dora.joined(room, matrix.bot_id)
            await wait_for(lambda: dora.said(room, "Stammtisch"), WAIT, "the greeting")
            await dora.say(room, "!tagesspiel schwimmen")
            await wait_for(lambda: dora.said(room, "📅 Tagesspiel Schwimmen"), WAIT,
                           "the daily deal")
            table = await wait_for(lambda: dora.newest(room, lambda m: m.body.startswith("🃏")),
                                   WAIT, "the table")
            table = await to_my_turn(dora, room, table)  # (a deal may end its round at once)
            assert "Deine Karten" in table.body
            await dora.say(room, "!tipp")  # tips are off against Normal: a short answer
            await wait_for(lambda: dora.said(room, "Das geht gerade nicht."), WAIT,
                           "no tip to ask for")
            await dora.say(room, "!tipps")
            await wait_for(lambda: dora.said(room, "💡 Tipps sind für dieses Spiel an"), WAIT,
                           "tips on")
            await wait_for(lambda: (m := dora.newest(room, lambda m: m.body.startswith("🃏")))
                           is not None and m.choice("💡 Tipp") is not None, 60, "the tip choice")
            await dora.say(room, "!tipp")
            hint = await wait_for(lambda: dora.said(room, "Welten") or dora.said(
                room, "einzig sinnvolle"), 60, "the hint")
            assert hint.body.startswith("💡 ")
            for m in dora.bot_messages(room):
                assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
        finally:
            await dora.stop()

    asyncio.run(scenario())
    assert bot.alive()
