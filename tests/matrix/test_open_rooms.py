"""Issue 38, item 13 on the real Synapse: a room anyone may join (join rule ``public`` or
``knock``) is a group even while only one person and the bot are in it - no private chat, so
no hand goes there; an invite-only room of two stays a private chat."""

from __future__ import annotations

import asyncio

import pytest
from nio import RoomPreset

from .harness import WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


def test_a_public_or_knock_room_of_two_is_not_a_private_chat(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("lene")
    db = matrix.db()

    def kind(room: str) -> str | None:
        rows = db.rows("SELECT kind FROM chat WHERE external_id = :room", room=room)
        return rows[0]["kind"] if rows else None

    async def scenario() -> None:
        lene = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            rooms = {}
            for rule in ("public", "knock", "invite"):
                resp = await lene.client.room_create(
                    invite=[matrix.bot_id], preset=RoomPreset.private_chat,
                    initial_state=[{"type": "m.room.join_rules", "state_key": "",
                                    "content": {"join_rule": rule}}])
                rooms[rule] = resp.room_id  # type: ignore[union-attr]
            for rule, room in rooms.items():
                await lene.joined(room, matrix.bot_id)
                await wait_for(lambda room=room: lene.said(room, "Stammtisch"), WAIT,
                               f"the greeting in the {rule} room")
                await wait_for(lambda room=room: kind(room), WAIT, f"the {rule} room known")
            assert {rule: kind(room) for rule, room in rooms.items()} == \
                {"public": "group", "knock": "group", "invite": "private"}
        finally:
            await lene.stop()
            db.dispose()

    asyncio.run(scenario())
