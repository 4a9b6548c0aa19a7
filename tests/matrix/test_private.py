"""A private game against a CPU player in an encrypted direct room, to the end."""

from __future__ import annotations

import asyncio
import random
import stat

import pytest

from .harness import (
    TRACEBACK_MARKERS,
    WAIT,
    Msg,
    Person,
    move_choices,
    pick_move,
    to_my_turn,
    wait_for,
)

pytestmark = pytest.mark.e2e


def test_private_game_against_cpu_in_an_encrypted_direct_room(matrix) -> None:
    bot = matrix.start_bot()
    uid, pw = matrix.account("paula")

    async def scenario() -> None:
        paula = await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                             store=matrix.tmp / "paula-store").start()
        try:
            # as common clients do: an encrypted room, the bot invited as a direct chat
            room = await paula.create_room([matrix.bot_id], direct=True, encrypted=True)
            await paula.joined(room, matrix.bot_id)
            hello = await wait_for(lambda: paula.said(room, "Stammtisch"), WAIT, "the greeting")
            assert hello.encrypted and "!new" in hello.body and "/new" not in hello.body

            # the menus by number: game, opponents, level
            await paula.say(room, "!neu")
            menu = await wait_for(lambda: paula.newest(room, lambda m: m.choice("Schwimmen")),
                                  WAIT, "the game menu")
            await paula.say(room, str(menu.choice("Schwimmen")))
            await wait_for(lambda: "CPU" in menu.body and menu.choice("1"), WAIT, "opponents")
            await paula.say(room, str(menu.choice("1")))
            await wait_for(lambda: menu.choice("Anfänger"), WAIT, "levels")
            await paula.say(room, str(menu.choice("Anfänger")))
            def current() -> Msg | None:
                return paula.newest(room, lambda m: m.body.startswith("🃏"))

            table = await wait_for(current, WAIT, "the table")
            assert "<ol>" in table.html or not table.choices()

            rng = random.Random(5)
            reacted = False
            seen = None
            deadline = asyncio.get_running_loop().time() + 150
            while (table := current()).choice("Nochmal spielen") is None:  # type: ignore[union-attr]
                assert asyncio.get_running_loop().time() < deadline, "the game did not end:\n" \
                    + table.body
                snap = (table.body, len(table.versions))
                if snap == seen or not table.choices():
                    await asyncio.sleep(0.05)
                    continue
                seen = snap
                if table.choice("Nächste Runde") is not None:
                    await paula.say(room, str(table.choice("Nächste Runde")))
                elif not reacted and table.choice("Klopfen") and "✊" in table.reactions:
                    await paula.react(room, table.event_id, "✊")  # a reaction is a press
                    await wait_for(lambda s=snap: (current().body, len(current().versions)) != s,
                                   WAIT, "the knock by reaction")
                    assert "geklopft" in current().body or "Runde" in current().body
                    reacted = True
                elif move_choices(table):
                    await paula.say(room, str(pick_move(rng, table)))
            assert reacted, "never knocked by reaction"
            assert "🏆" in table.body
            # the seeded reactions that no longer apply are taken back (issue 18, item 11)
            await wait_for(lambda: not {"✊", "⏭️", "⏩"} & current().reactions, WAIT,
                           "the old reactions redacted")
            # one table message on screen, edited in place while in sight; posted anew (the
            # old one deleted) once Paula's numbers had pushed it up (issue 18, item 9)
            tables = [m for m in paula.bot_messages(room, deleted=True)
                      if m.body.startswith("🃏")]
            assert len([m for m in tables if not m.deleted]) == 1
            assert sum(len(m.versions) for m in tables) > 5 * len(tables)
            assert all(m.encrypted for m in paula.bot_messages(room, deleted=True))
            assert not paula.undecryptable
            for m in paula.bot_messages(room, deleted=True):
                assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
                assert not any(w in m.body for w in ("veraltet", "nichts zu wählen")), m.body
        finally:
            await paula.stop()

    asyncio.run(scenario())
    db = matrix.db()
    table_id = db.tables()[-1]["id"]
    assert db.table(table_id)["fsm_state"] == "finished"
    assert db.result(table_id) is not None
    assert not [r for r in db.outbox() if r["status"] == "failed"]
    assert bot.alive()
    # the device's store is private (issue 15, item 9): folder 0700, every file 0600
    store = matrix.tmp / "matrix-store"
    files = [p for p in store.rglob("*") if p.is_file()]
    assert files and stat.S_IMODE(store.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files), files


def test_a_direct_room_that_gains_a_third_member_is_private_no_more(matrix) -> None:
    """Issue 15, item 7: once a third person is in the direct room, no hand is shown there
    any more (the private game there is closed) and the bot opens a new direct room."""
    matrix.start_bot()
    uid, pw = matrix.account("rita")
    quinn_id, quinn_pw = matrix.account("quinn")

    async def scenario() -> None:
        rita = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        quinn = await Person(matrix.synapse.url, quinn_id, quinn_pw, matrix.bot_id).start()
        try:
            room = await rita.create_room([matrix.bot_id], direct=True)
            await rita.joined(room, matrix.bot_id)
            await wait_for(lambda: rita.said(room, "Stammtisch"), WAIT, "the greeting")
            await rita.say(room, "!neu schwimmen 1 anfaenger")
            table = await wait_for(lambda: rita.newest(room, lambda m: m.body.startswith("🃏")),
                                   WAIT, "the private table")
            await to_my_turn(rita, room, table)  # (a round that ended at once: on to the next)
            assert "Deine Karten" in table.body or "Your cards" in table.body
            # a third person comes in
            before = set(rita.client.rooms) | set(rita.client.invited_rooms)
            await rita.client.room_invite(room, quinn_id)
            await quinn.client.join(room)
            await rita.joined(room, quinn_id)
            await wait_for(lambda: "Karten" not in table.body and "beendet" in table.body,
                           WAIT, "the private table closed without the hand")
            # (Rita joins invites at once: the new room may already have left invited_rooms)
            new_dm = await wait_for(lambda: next(
                iter((set(rita.client.rooms) | set(rita.client.invited_rooms)) - before), None),
                WAIT, "an invite to a new room")
            assert new_dm != room
            count = rita.count(room)
            await rita.say(room, "!karten")  # asking for cards there shows none
            await asyncio.sleep(3)
            assert not any("Deine Karten" in m.body for m in rita.bot_messages(room)[count:])
        finally:
            await rita.stop()
            await quinn.stop()

    asyncio.run(scenario())
