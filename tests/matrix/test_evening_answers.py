"""How the bot answers around a Stammtisch evening on Matrix (issue 47 item 18), on the real
Synapse: ``!abend`` and ``!top`` are answered as replies to the command; an answer to the
announcement (a reaction or a number) posts nothing new into the group - the edited
announcement shows it; a refused reaction is answered as a reply to the message it was put on,
naming its person; the closed evening's "(vorbei)" stands on a line of its own."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from nio import RoomGetEventResponse

from storage.db import utcnow
from tests.chatbot.evenings import bring_forward, no_quiet_hours

from .harness import WAIT, Person, open_group, wait_for

pytestmark = pytest.mark.e2e


async def _relation(person: Person, room: str, event_id: str) -> dict:
    resp = await person.client.room_get_event(room, event_id)
    assert isinstance(resp, RoomGetEventResponse), resp
    return resp.event.source["content"].get("m.relates_to") or {}


def test_evening_answers_reply_and_post_no_acknowledgements(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("alma", "bruno", "cem")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
                  for uid, pw in accounts]
        alma, bruno, cem = people
        try:
            group = await open_group(alma, [bruno, cem], "Stammtisch Antworten")
            day = utcnow().astimezone(ZoneInfo("Europe/Berlin")).date() + timedelta(days=3)
            asked = await alma.say(group, f"!abend {day:%d.%m.} 20:00 schwimmen")
            planned = await wait_for(lambda: alma.said(group, "🍻 Geplant:"), WAIT, "the plan")
            assert (await _relation(alma, group, planned.event_id))["m.in_reply_to"] == {
                "event_id": asked}
            no_quiet_hours(matrix.db_url)
            announcement = await wait_for(lambda: alma.newest(
                group, lambda m: m.first_line.startswith("🍻 Stammtisch ")), WAIT,
                "the announcement")
            await wait_for(lambda: "✅" in announcement.reactions, WAIT, "the seeded ✅")
            await bruno.react(group, announcement.event_id, "✅")
            await cem.say(group, str(announcement.choice("❔ Vielleicht")))
            await alma.say(group, str(announcement.choice("✅ Bin dabei")))
            await wait_for(lambda: all(p.name in announcement.body for p in people), WAIT,
                           "the answers on the announcement")
            asked = await alma.say(group, "!top")
            top = await wait_for(lambda: alma.said(group, "noch keine gewerteten Spiele"),
                                 WAIT, "the answer to !top")
            assert (await _relation(alma, group, top.event_id))["m.in_reply_to"] == {
                "event_id": asked}
            # (the answers were handled before !top: an acknowledgement would stand above)
            assert not any(m.body.startswith(("Notiert", "Noted"))
                           for m in alma.bot_messages(group, deleted=True))

            for kind, said in (("day", "🍻 Morgen um 20:00"), ("soon", "🍻 In 30 Minuten")):
                bring_forward(matrix.db_url, kind)
                await wait_for(lambda said=said: alma.said(group, said), WAIT, kind)
            bring_forward(matrix.db_url, "start")
            lobby = await wait_for(lambda: alma.newest(group, lambda m: m.choice("Starten")),
                                   WAIT, "the evening's lobby")
            await wait_for(lambda: "👍" in lobby.reactions, WAIT, "the seeded 👍")
            since = alma.count(group)
            await bruno.react(group, lobby.event_id, "👍")  # seated already: refused
            refused = await wait_for(lambda: alma.said(group, "schon dabei", since), WAIT,
                                     "the refusal")
            assert refused.body.startswith(f"{bruno.name}: "), refused.body
            assert bruno.user_id in refused.html  # (a pill: Bruno's client notifies him)
            relation = await _relation(alma, group, refused.event_id)
            assert relation["m.in_reply_to"] == {"event_id": lobby.event_id}

            await alma.say(group, "!abend ende")
            await wait_for(lambda: alma.said(group, "🍻 Der Stammtisch ist vorbei"), WAIT,
                           "the summary")
            await wait_for(lambda: "(vorbei)" in announcement.body, WAIT,
                           "the announcement closed")
            lines = announcement.body.split("\n")
            assert lines[-1] == "(vorbei)", announcement.body  # (on a line of its own)
            assert f"❔ Vielleicht: {cem.name}" in lines, announcement.body
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
