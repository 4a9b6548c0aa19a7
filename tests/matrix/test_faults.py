"""Bad input gets a short answer (or, in a group, none for chatter); the homeserver's
``M_LIMIT_EXCEEDED`` is honoured and retried without losing or doubling a message."""

from __future__ import annotations

import asyncio

import pytest

from .harness import TRACEBACK_MARKERS, WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


def test_bad_input_gets_a_short_answer(matrix) -> None:
    matrix.start_bot(MATRIX_PASSWORD="", MATRIX_ACCESS_TOKEN=matrix.bot_token)  # token login
    (uid, pw), (uid2, pw2) = matrix.account("berta"), matrix.account("kurt")

    async def scenario() -> None:
        berta = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        kurt = await Person(matrix.synapse.url, uid2, pw2, matrix.bot_id).start()
        try:
            dm = await berta.create_room([matrix.bot_id], direct=True)
            await berta.joined(dm, matrix.bot_id)
            await wait_for(lambda: berta.said(dm, "!help"), WAIT, "the greeting")

            async def answer(room: str, text: str, needle: str, who: Person = berta) -> str:
                since = who.count(room)
                await who.say(room, text)
                msg = await wait_for(lambda: who.said(room, needle, since), WAIT,
                                     f"an answer to {text!r} with {needle!r}")
                assert len(msg.body) < 400, msg.body
                return msg.body

            await answer(dm, "!quatsch", "verstehe ich nicht")
            await answer(dm, "hallo bot", "verstehe ich nicht")
            await answer(dm, "5", "nichts zu wählen")
            await answer(dm, "!klopfen", "geht gerade nicht")
            await berta.say(dm, "!new")
            menu = await wait_for(lambda: berta.newest(dm, lambda m: m.choice("Schwimmen")),
                                  WAIT, "the game menu")
            n = len(menu.choices())
            await answer(dm, str(n + 7), f"Zahl von 1 bis {n}")
            await answer(dm, "!sprache en", "Language: English")
            await answer(dm, "!knock", "isn't possible right now")
            await answer(dm, "!language de", "Sprache: Deutsch")
            # a number in reply to an older view picks from that view, not the newest one
            await answer(dm, "!sprache", "Sprache wählen")
            await berta.say(dm, str(menu.choice("Schwimmen")), reply_to=menu.event_id)
            await wait_for(lambda: "CPU-Gegner" in menu.body, WAIT, "the opponents menu")

            # a group: chatter and other bots' commands get no answer, our commands do
            group = await berta.create_room([matrix.bot_id, kurt.user_id], name="Kneipe")
            await berta.joined(group, kurt.user_id)
            await berta.joined(group, matrix.bot_id)
            await wait_for(lambda: berta.said(group, "So spielst"), WAIT, "the greeting")
            before = berta.count(group)
            await kurt.say(group, "Prost!")
            await kurt.say(group, "!weather Berlin")
            await kurt.say(group, "3")
            await answer(group, "!stop", "kein Tisch", who=kurt)
            await wait_for(lambda: berta.said(group, "kein Tisch", before), WAIT, "the answer")
            assert berta.count(group) == before + 1, [
                m.body for m in berta.bot_messages(group, deleted=True)[before:]]
            await berta.say(group, "!new schwimmen")
            lobby = await wait_for(lambda: berta.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            await answer(group, "!klopfen", "geht gerade nicht", who=kurt)
            # in a group a number out of range is chatter (issue 18, item 5): no answer
            quiet = berta.count(group)
            await kurt.say(group, str(len(lobby.choices()) + 1))
            await answer(group, str(lobby.choice("Starten")), "Starten kann nur", who=kurt)
            assert not [m for m in berta.bot_messages(group, deleted=True)[quiet:]
                        if "Zahl von" in m.body]
            for room, who in ((dm, berta), (group, berta)):
                for m in who.bot_messages(room, deleted=True):
                    assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
        finally:
            await berta.stop()
            await kurt.stop()

    asyncio.run(scenario())


def test_rate_limit_is_honoured(matrix) -> None:
    matrix.synapse.limit_messages(matrix.bot_id, 1, 1)  # one event a second, no burst
    bot = matrix.start_bot()
    uid, pw = matrix.account("rita")

    async def scenario() -> None:
        rita = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            dm = await rita.create_room([matrix.bot_id], direct=True)
            await rita.joined(dm, matrix.bot_id)
            await wait_for(lambda: rita.said(dm, "!help"), WAIT, "the greeting")
            await rita.say(dm, "!new schwimmen 1 anfaenger")
            table = await wait_for(lambda: rita.newest(dm, lambda m: m.body.startswith("🃏")),
                                   WAIT, "the table")
            for _ in range(2):
                seen = (table.body, len(table.versions))
                n = await wait_for(lambda: table.choice("Schieben", "Klopfen", "Behalten",
                                                        "Nächste Runde",
                                                        "Nochmal"), WAIT, "a move")
                await rita.say(dm, str(n))
                await wait_for(lambda s=seen: (table.body, len(table.versions)) != s, WAIT,
                               "the move to show")
            # every message once, in order: the greeting texts once each
            bodies = [m.body for m in rita.bot_messages(dm, deleted=True)]
            assert sum("Stammtisch-Bot" in b for b in bodies) == 1, bodies
            assert len([b for b in bodies if b.startswith("🃏")]) == 1, bodies
        finally:
            await rita.stop()

    asyncio.run(scenario())
    assert "M_LIMIT_EXCEEDED" in bot.log(), "the homeserver never limited the bot"
    db = matrix.db()
    rows = db.outbox()
    assert rows and not [r for r in rows if r["status"] == "failed"]
    assert any(r["attempts"] > 0 for r in rows)
