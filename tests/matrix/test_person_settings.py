"""A Matrix person's language and time zone on the real Synapse (issue 47 item 16): Matrix
tells no language, so the bot keeps the one of the person's first command's room (here the
bot's default, German, whose zone is Europe/Berlin); ``!sprache en`` in the direct room makes
it theirs, ``!erinnerungen zone Europe/Vienna`` sets their time zone - each answered as a reply
to the command."""

from __future__ import annotations

import asyncio

import pytest
from nio import RoomGetEventResponse

from .harness import WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


async def _reply_of(person: Person, room: str, event_id: str) -> str | None:
    resp = await person.client.room_get_event(room, event_id)
    assert isinstance(resp, RoomGetEventResponse), resp
    relates = resp.event.source["content"].get("m.relates_to") or {}
    return (relates.get("m.in_reply_to") or {}).get("event_id")


def test_a_matrix_persons_language_and_zone_come_from_their_commands(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("yuki")

    async def scenario() -> None:
        yuki = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        db = matrix.db()

        def person() -> dict:
            rows = db.rows("SELECT language, time_zone FROM player WHERE external_id = :u",
                           u=uid)
            return rows[0] if rows else {}

        try:
            room = await yuki.create_room([matrix.bot_id], direct=True)
            await yuki.joined(room, matrix.bot_id)
            await wait_for(lambda: yuki.said(room, "Stammtisch"), WAIT, "the greeting")
            await yuki.say(room, "!hilfe")
            await wait_for(lambda: yuki.said(room, "Befehle:"), WAIT, "the help")
            assert person() == {"language": "de", "time_zone": None}

            since = yuki.count(room)
            asked = await yuki.say(room, "!sprache en")
            done = await wait_for(lambda: yuki.said(room, "Language: English.", since), WAIT,
                                  "the language set")
            assert await _reply_of(yuki, room, done.event_id) == asked
            assert person()["language"] == "en"

            since = yuki.count(room)
            asked = await yuki.say(room, "!reminders zone Europe/Vienna")
            view = await wait_for(lambda: yuki.said(room, "(Europe/Vienna)", since), WAIT,
                                  "the reminder settings")
            assert view.first_line.startswith("⏰ Turn reminders")
            assert await _reply_of(yuki, room, view.event_id) == asked
            await wait_for(lambda: yuki.said(room, "Saved.", since), WAIT, "Saved.")
            assert person() == {"language": "en", "time_zone": "Europe/Vienna"}
        finally:
            db.dispose()
            await yuki.stop()

    asyncio.run(scenario())
