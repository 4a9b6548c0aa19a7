"""Issue 18, item 16 on the real Synapse: the bot's answer to a message is a reply to it
(``m.in_reply_to``), and a message written in a thread is answered in that thread."""

from __future__ import annotations

import asyncio

import pytest
from nio import RoomGetEventResponse, RoomSendResponse

from .harness import WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


async def _relation(person: Person, room: str, event_id: str) -> dict:
    resp = await person.client.room_get_event(room, event_id)
    assert isinstance(resp, RoomGetEventResponse), resp
    return resp.event.source["content"].get("m.relates_to") or {}


def test_answers_are_replies_and_stay_in_their_thread(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("yara")

    async def scenario() -> None:
        yara = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            room = await yara.create_room([matrix.bot_id], direct=True)
            await yara.joined(room, matrix.bot_id)
            await wait_for(lambda: yara.said(room, "Stammtisch"), WAIT, "the greeting")
            since = yara.count(room)
            asked = await yara.say(room, "!quatsch")
            answer = await wait_for(lambda: yara.said(room, "verstehe ich nicht", since), WAIT,
                                    "the answer")
            assert await _relation(yara, room, answer.event_id) == {
                "m.in_reply_to": {"event_id": asked}}

            # a question in a thread is answered in the thread
            since = yara.count(room)
            resp = await yara.client.room_send(room, "m.room.message", {
                "msgtype": "m.text", "body": "!klopfen",
                "m.relates_to": {"rel_type": "m.thread", "event_id": asked,
                                 "is_falling_back": True,
                                 "m.in_reply_to": {"event_id": asked}}})
            assert isinstance(resp, RoomSendResponse)
            answer = await wait_for(lambda: yara.said(room, "geht gerade nicht", since), WAIT,
                                    "the answer in the thread")
            relation = await _relation(yara, room, answer.event_id)
            assert relation["rel_type"] == "m.thread" and relation["event_id"] == asked
            assert relation["m.in_reply_to"] == {"event_id": resp.event_id}
        finally:
            await yara.stop()

    asyncio.run(scenario())
