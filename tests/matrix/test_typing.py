"""Issue 18, items 1-3 and 5 on the real Synapse: a number never makes a wrong move. It picks
from the choice list lowest on screen; a reply to a message that offers nothing any more
changes nothing and says so; /new words are taken as written ("anfänger"); in a group a number
counts only from the person on turn."""

from __future__ import annotations

import asyncio

import pytest

from .harness import WAIT, Person, open_group, start_group_game, to_my_turn, wait_for

pytestmark = pytest.mark.e2e


def test_numbers_pick_from_the_choice_list_at_the_bottom(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("tina")

    async def scenario() -> None:
        tina = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            room = await tina.create_room([matrix.bot_id], direct=True)
            await tina.joined(room, matrix.bot_id)
            await wait_for(lambda: tina.said(room, "Stammtisch"), WAIT, "the greeting")
            # item 3: the level as people write it
            await tina.say(room, "!neu runfast 2 anfänger")
            table = await wait_for(lambda: tina.newest(room, lambda m: m.body.startswith(
                "🃏 Run Fast")), WAIT, "the Run Fast table")
            await wait_for(lambda: "Du bist am Zug" in table.body, WAIT, "Tina on turn")
            db = matrix.db()
            table_id = db.tables()[-1]["id"]
            moves = len(db.moves(table_id))
            version = db.table(table_id)["version"]

            # item 2: !neu mid-game - the numbers now go to the menu at the bottom
            await tina.say(room, "!neu")
            menu = await wait_for(lambda: tina.newest(room, lambda m: m.choice("Schwimmen")
                                                      and m.event_id != table.event_id),
                                  WAIT, "the game menu below the table")
            await tina.say(room, str(menu.choice("Schwimmen")))
            await wait_for(lambda: menu.choice("1") and "CPU" in menu.body, WAIT, "opponents")
            await tina.say(room, "1")
            await wait_for(lambda: menu.choice("Anfänger"), WAIT, "levels")
            await tina.say(room, str(menu.choice("Anfänger")))
            question = await wait_for(lambda: tina.newest(
                room, lambda m: m.choice("Nein, weiterspielen")), WAIT, "replace the game?")
            await tina.say(room, str(question.choice("Nein, weiterspielen")))
            await wait_for(lambda: tina.said(room, "läuft weiter"), WAIT, "the game kept")
            assert len(db.moves(table_id)) == moves and db.table(table_id)["version"] == version

            # item 1: a reply to our message that offers nothing now changes nothing
            since = tina.count(room)
            await tina.say(room, "1", reply_to=question.event_id)
            gone = await wait_for(lambda: tina.said(room, "gibt es nicht mehr", since), WAIT,
                                  "the choice is gone")
            assert "1. " in gone.body  # ... with the current choices
            assert len(db.moves(table_id)) == moves and db.table(table_id)["version"] == version

            # a reply to the live table picks from it; a bare number too (the lowest list)
            edits = len(table.versions)
            await tina.say(room, "1", reply_to=table.event_id)
            await wait_for(lambda: len(table.versions) > edits, WAIT, "the table's choice")
            assert db.table(table_id)["fsm_state"] != "abandoned"
            assert not tina.said(room, "Bitte antworte mit einer Zahl", since)
        finally:
            await tina.stop()

    asyncio.run(scenario())


def test_in_a_group_a_number_counts_only_from_the_person_on_turn(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("uma", "vito")]

    async def scenario() -> None:
        # (with a device store each: the bot's direct rooms are encrypted)
        uma, vito = [await Person(matrix.synapse.url, u, p, matrix.bot_id,
                                  store=matrix.tmp / f"typing-store-{i}").start()
                     for i, (u, p) in enumerate(accounts)]
        try:
            group = await open_group(uma, [vito], "Zahlenrunde")
            await uma.say(group, "!new schwimmen")
            lobby = await wait_for(lambda: uma.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            await vito.say(group, str(lobby.choice("Mitmachen")))  # a lobby: anyone
            await wait_for(lambda: "vito" in lobby.body, WAIT, "Vito in the lobby")
            await uma.say(group, str(lobby.choice("Starten")))
            await wait_for(lambda: "Am Zug:" in lobby.body, WAIT, "the game")
            on_turn = uma if "Am Zug: uma" in lobby.body else vito
            other = vito if on_turn is uma else uma
            db = matrix.db()
            table_id = db.tables()[-1]["id"]
            version = db.table(table_id)["version"]
            said = uma.count(group)
            for text in ("1", "2", "5", "42"):  # chatter of the one not on turn
                await other.say(group, text)
            await on_turn.say(group, "7")  # out of range: chatter too
            await asyncio.sleep(3)
            assert uma.count(group) == said, [m.body for m in uma.bot_messages(group)[said:]]
            assert db.table(table_id)["version"] == version
            # the person on turn: "1" is the table's first choice (my cards, privately)
            await wait_for(lambda: on_turn.direct_room(), WAIT, "the direct room")
            dm = on_turn.direct_room()
            since = on_turn.count(dm)
            assert lobby.choice("🂠 Meine Karten") == 1
            await on_turn.say(group, "1")
            await wait_for(lambda: on_turn.said(dm, "Deine Karten", since), WAIT,
                           "the cards in the direct room")
            assert uma.count(group) == said
            # item 4: the language chosen in the direct room holds for the table's view there
            view = await wait_for(lambda: on_turn.newest(dm, lambda m: "Zahlenrunde"
                                                         in m.first_line), WAIT, "the view")
            await on_turn.say(dm, "!language en")
            await wait_for(lambda: on_turn.said(dm, "Language: English"), WAIT, "English")
            await on_turn.say(dm, "1")  # a move: the views are drawn anew
            await wait_for(lambda: "Your cards" in on_turn.newest(
                dm, lambda m: "Zahlenrunde" in m.first_line).body, WAIT, "the view in English")
            assert view is not None
        finally:
            await uma.stop()
            await vito.stop()

    asyncio.run(scenario())


def test_rules_in_a_group_and_cpu_names_that_clash_with_nobody(matrix) -> None:
    """Issue 18, items 13 and 14: !rules in a group asks which game (or gives the table's);
    a CPU player is never called like the person playing against it."""
    from chatbot.presenters import PRESENTERS

    matrix.start_bot()
    uid, pw = matrix.account("anna")

    async def scenario() -> None:
        anna = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            await anna.client.set_displayname("Anna")
            room = await anna.create_room([matrix.bot_id], direct=True)
            await anna.joined(room, matrix.bot_id)
            await wait_for(lambda: anna.said(room, "Stammtisch"), WAIT, "the greeting")
            await anna.say(room, "!neu schwimmen 2 anfänger")
            table = await wait_for(lambda: anna.newest(room, lambda m: m.body.startswith(
                "🃏")), WAIT, "the table")
            assert "🤖 Anna" not in table.body and "🤖 Bernd" in table.body, table.body

            group = await anna.create_room([matrix.bot_id], name="Regelrunde")
            await anna.joined(group, matrix.bot_id)
            await wait_for(lambda: anna.said(group, "Stammtisch"), WAIT, "the greeting")
            since = anna.count(group)
            await anna.say(group, "!regeln")
            which = await wait_for(lambda: anna.said(group, "Welche Spielregeln", since), WAIT,
                                   "which rules?")
            assert len(which.choices()) == 4 and len(which.body) < 400, which.body
            await anna.say(group, "!new schwimmen")
            await wait_for(lambda: anna.newest(group, lambda m: m.choice("Mitmachen")), WAIT,
                           "the lobby")
            since = anna.count(group)
            await anna.say(group, "!regeln")
            first = PRESENTERS["schwimmen"].rules("de").split("\n")[0]
            rules = await wait_for(lambda: anna.said(group, first, since), WAIT, "the rules")
            assert "Einunddreißig" not in rules.body  # only the table's game
        finally:
            await anna.stop()

    asyncio.run(scenario())


def test_an_edited_number_counts_and_a_left_direct_room_comes_back(matrix) -> None:
    """Issue 18, items 14 and 7: "13" corrected to "1" picks choice 1 (the first form was
    refused); a player who leaves her direct room mid-game gets a new one at once, which
    says which table it is for, and her hand there."""
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("zora", "emil")]

    async def scenario() -> None:
        zora, emil = [await Person(matrix.synapse.url, u, p, matrix.bot_id,
                                   store=matrix.tmp / f"edit-store-{i}").start()
                      for i, (u, p) in enumerate(accounts)]
        try:
            room = await zora.create_room([matrix.bot_id], direct=True)
            await zora.joined(room, matrix.bot_id)
            await wait_for(lambda: zora.said(room, "Stammtisch"), WAIT, "the greeting")
            await zora.say(room, "!neu")
            menu = await wait_for(lambda: zora.newest(room, lambda m: m.choice("Schwimmen")),
                                  WAIT, "the game menu")
            wrong = await zora.say(room, "13")
            await wait_for(lambda: zora.said(room, "Zahl von 1 bis"), WAIT, "13 refused")
            await zora.client.room_send(room, "m.room.message", {
                "msgtype": "m.text", "body": "* 1",
                "m.new_content": {"msgtype": "m.text", "body": "1"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": wrong}},
                ignore_unverified_devices=True)
            await wait_for(lambda: "CPU" in menu.body, WAIT, "the edit picked Schwimmen")

            # a group game; Zora leaves her direct room with the bot in the middle of it
            group = await open_group(zora, [emil], "Weg und da")
            await start_group_game(zora, [emil], group)
            old = await wait_for(lambda: next((r for r in zora.client.rooms if r != group
                                               and zora.said(r, "Deine Karten")), None),
                                 WAIT, "Zora's direct room for the game")
            await zora.client.room_leave(old)
            new = await wait_for(lambda: next((r for r in zora.client.rooms
                                               if r not in (group, old)
                                               and zora.said(r, "Du spielst Schwimmen in")), None),
                                 WAIT, "a new direct room, saying which table")
            assert "Weg und da" in zora.said(new, "Du spielst Schwimmen in").body
            await wait_for(lambda: zora.said(new, "Deine Karten"), WAIT, "her hand there")
        finally:
            await zora.stop()
            await emil.stop()

    asyncio.run(scenario())


def test_two_live_tables_in_one_direct_room_and_a_closed_lobby(matrix) -> None:
    """Issue 18, items 2 and 6: with a private game and a group game's view in the same
    direct room, a number goes to the lowest choice list and the answer says which game it
    was for; a lobby that is closed says so in the direct room (no "your cards come here")."""
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("olga", "piet")]

    async def scenario() -> None:
        olga, piet = [await Person(matrix.synapse.url, u, p, matrix.bot_id,
                                   store=matrix.tmp / f"two-store-{i}").start()
                      for i, (u, p) in enumerate(accounts)]
        try:
            group = await open_group(olga, [piet], "Zweitisch")
            # item 6: a lobby closed before its game
            await olga.say(group, "!new schwimmen")
            await wait_for(lambda: olga.newest(group, lambda m: m.choice("Mitmachen")), WAIT,
                           "the lobby")
            await piet.say(group, "!mitmachen")
            dm = await wait_for(lambda: piet.direct_room(), WAIT, "Piet's direct room")
            await olga.say(group, "!stopp")
            closed = await wait_for(lambda: piet.newest(dm, lambda m: "beendet" in m.body),
                                    WAIT, "the closed table in the direct room")
            assert "privat" not in closed.body and "Karten" not in closed.body, closed.body

            # item 2: Piet's private game and a new group game, both in his direct room
            await piet.say(dm, "!neu schwimmen 1 anfänger")
            own = await wait_for(lambda: piet.newest(dm, lambda m: m.body.startswith(
                "🃏 Schwimmen · Runde")), WAIT, "Piet's private game")
            await to_my_turn(piet, dm, own)  # (a round that ended at once: on to the next)
            await start_group_game(olga, [piet], group)
            # (the group game's view came last: it is the lowest list in his room)
            await wait_for(lambda: piet.newest(dm, lambda m: m.body.startswith(
                "🃏 Schwimmen · Runde 1 · Zweitisch") and m.choice("📜 Verlauf")), WAIT,
                "the group game's view")
            since = piet.count(dm)
            await piet.say(dm, "2")
            said = await wait_for(lambda: piet.said(dm, "(Das galt d", since), WAIT,
                                  "which game the number was for")
            assert "Zweitisch" in said.body, said.body
        finally:
            await olga.stop()
            await piet.stop()

    asyncio.run(scenario())
