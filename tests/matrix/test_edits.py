"""Issue 38, item 12 on the real Synapse: an edit (``m.replace``) counts only from the sender
of the message it edits; another person's edit of it is ignored and does not use up the
sender's own later correction."""

from __future__ import annotations

import asyncio

import pytest
from nio import RoomSendResponse

from .harness import WAIT, Person, open_group, wait_for

pytestmark = pytest.mark.e2e


async def edit(person: Person, room: str, original: str, body: str) -> str:
    """``person`` sends an edit of ``original`` that makes it ``body``."""
    resp = await person.client.room_send(room, "m.room.message", {
        "msgtype": "m.text", "body": f"* {body}",
        "m.new_content": {"msgtype": "m.text", "body": body},
        "m.relates_to": {"rel_type": "m.replace", "event_id": original}},
        ignore_unverified_devices=True)
    assert isinstance(resp, RoomSendResponse), resp
    return resp.event_id


def test_only_the_sender_of_a_message_can_edit_it(matrix) -> None:
    """In a group lobby Jost types "9" (no such choice: chatter). Karl edits Jost's "9" into
    the number of "Mitmachen": ignored, Karl is not seated. Jost then corrects his own "9"
    into it: Jost is seated."""
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("ines", "jost", "karl")]

    async def scenario() -> None:
        ines, jost, karl = [await Person(matrix.synapse.url, u, p, matrix.bot_id).start()
                            for u, p in accounts]
        try:
            group = await open_group(ines, [jost, karl], "Randnotiz")
            await ines.say(group, "!new schwimmen")
            lobby = await wait_for(lambda: ines.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            join = lobby.choice("Mitmachen")
            assert join is not None and join < 9
            typo = await jost.say(group, "9")
            await edit(karl, group, typo, str(join))
            await edit(jost, group, typo, str(join))
            await wait_for(lambda: jost.name in lobby.body, WAIT, "Jost's own edit seats him")
            assert karl.name not in lobby.body, lobby.body
        finally:
            for person in (ines, jost, karl):
                await person.stop()

    asyncio.run(scenario())
