"""Issue 18, items 9 and 17 on the real Synapse: a group's table is pinned while its game runs
(where the bot may pin) and unpinned after; the reminder mentions the player on turn as a
pill with ``m.mentions``, so their client notifies them."""

from __future__ import annotations

import asyncio

import pytest
from nio import RoomGetEventResponse, RoomGetStateEventResponse

from .harness import WAIT, Person, open_group, wait_for

pytestmark = pytest.mark.e2e


async def _pinned(person: Person, room: str) -> list[str]:
    resp = await person.client.room_get_state_event(room, "m.room.pinned_events")
    return list(resp.content.get("pinned") or []) \
        if isinstance(resp, RoomGetStateEventResponse) else []


def test_group_table_pinned_while_playing_and_the_turn_mentioned(matrix) -> None:
    matrix.start_bot(TURN_TIMEOUT=8)
    accounts = [matrix.account(n) for n in ("wanda", "xaver")]

    async def scenario() -> None:
        wanda, xaver = [await Person(matrix.synapse.url, u, p, matrix.bot_id).start()
                        for u, p in accounts]
        try:
            group = await open_group(wanda, [xaver], "Angepinnt")
            # the room's admin lets the bot change the pins (moderator power)
            levels = await wanda.client.room_get_state_event(group, "m.room.power_levels")
            assert isinstance(levels, RoomGetStateEventResponse)
            content = dict(levels.content)
            content["users"] = {**content.get("users", {}), matrix.bot_id: 50}
            await wanda.client.room_put_state(group, "m.room.power_levels", content)
            await wanda.say(group, "!new schwimmen")
            table = await wait_for(lambda: wanda.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            await xaver.say(group, "!mitmachen")
            await wait_for(lambda: "xaver" in table.body, WAIT, "Xaver in the lobby")
            assert await _pinned(wanda, group) == []  # a lobby is not pinned
            await wanda.say(group, "!starten")
            await wait_for(lambda: "Am Zug:" in table.body, WAIT, "the game")
            for _ in range(100):
                if table.event_id in await _pinned(wanda, group):
                    break
                await asyncio.sleep(0.1)
            assert await _pinned(wanda, group) == [table.event_id]

            # the reminder: a pill for the person on turn, in m.mentions
            reminder = await wait_for(lambda: wanda.said(group, "⏰"), WAIT, "the reminder")
            on_turn = wanda if "Am Zug: wanda" in table.body else xaver
            assert f'href="https://matrix.to/#/{on_turn.user_id}"' in reminder.html
            assert "](https://" not in reminder.body  # the plain body reads as text
            event = await wanda.client.room_get_event(group, reminder.event_id)
            assert isinstance(event, RoomGetEventResponse)
            assert event.event.source["content"]["m.mentions"] == {"user_ids": [on_turn.user_id]}

            await wanda.say(group, "!stopp")
            # (unpinned, the closed table comes to the bottom if anything went below it)
            await wait_for(lambda: wanda.newest(group, lambda m: "beendet" in m.body), WAIT,
                           "the table closed")
            for _ in range(100):
                if not await _pinned(wanda, group):
                    break
                await asyncio.sleep(0.1)
            assert await _pinned(wanda, group) == []
        finally:
            await wanda.stop()
            await xaver.stop()

    asyncio.run(scenario())
