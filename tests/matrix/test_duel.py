"""Issue 50 item 6 on the real Synapse: ``!duell @ben`` typed in Anna's direct room opens a
fresh room for one game - invite only, encrypted like the bot's direct rooms, Anna and Ben
invited, named by the game and the people - with a lobby there that starts by itself once
Ben has joined the table; when the game is over (here: stopped by its opener) the bot leaves
the room. ``!duell`` naming nobody says how it works."""

from __future__ import annotations

import asyncio

import pytest

from .harness import WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


def test_duel_opens_an_encrypted_room_for_one_game_and_the_bot_leaves_it_after(
        matrix) -> None:
    matrix.start_bot()
    (anna_id, anna_pw), (ben_id, ben_pw) = matrix.account("anna"), matrix.account("ben")

    async def scenario() -> None:
        anna = await Person(matrix.synapse.url, anna_id, anna_pw, matrix.bot_id,
                            store=matrix.tmp / "anna-store").start()
        ben = await Person(matrix.synapse.url, ben_id, ben_pw, matrix.bot_id,
                           store=matrix.tmp / "ben-store").start()
        try:
            dm = await anna.create_room([matrix.bot_id], direct=True)
            await anna.joined(dm, matrix.bot_id)
            await wait_for(lambda: anna.said(dm, "Stammtisch"), WAIT, "the greeting")
            await anna.say(dm, "!duell")  # naming nobody: how it works
            await wait_for(lambda: anna.said(dm, "!duell @person [Spiel]"), WAIT, "the usage")
            await anna.say(dm, f"!duell {ben_id}")
            await wait_for(lambda: anna.said(dm, "aufgemacht"), WAIT, "the room opened")

            def duel_room() -> str | None:
                return next((r for r, info in anna.client.rooms.items()
                             if (info.name or "").startswith("🃏 Schwimmen:")), None)

            room = await wait_for(duel_room, WAIT, "Anna in the duel room")
            await anna.joined(room, ben_id)
            info = anna.client.rooms[room]
            assert info.encrypted and info.join_rule == "invite"
            assert info.name == f"🃏 Schwimmen: {anna.name} & {ben.name}"
            lobby = await wait_for(lambda: ben.newest(room, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby, readable by Ben")
            assert lobby.encrypted and anna.name in lobby.body
            await ben.say(room, "!mitmachen")
            await wait_for(lambda: "Am Zug:" in lobby.body, WAIT, "the game to start by itself")
            await anna.say(room, "!stop")
            await wait_for(lambda: matrix.bot_id not in anna.client.rooms[room].users, WAIT,
                           "the bot to leave the room")
            assert anna.client.rooms[room].users.keys() >= {anna_id, ben_id}
        finally:
            await asyncio.gather(anna.stop(), ben.stop())

    asyncio.run(scenario())
