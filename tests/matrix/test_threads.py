"""Tables in threads (``m.thread``) against the real Synapse: a table opened inside a thread
lives there - its messages are thread replies with the reply fallback (``is_falling_back``),
edited in place as anywhere - and two threads of one room run two tables side by side; a
message written in a thread whose fallback names the bot's message is no reply to it."""

from __future__ import annotations

import asyncio

import pytest

from .harness import WAIT, Msg, Person, wait_for
from .people import open_group

pytestmark = pytest.mark.e2e


def _in_thread(msg: Msg, root: str) -> bool:
    rel = msg.relates
    return rel.get("rel_type") == "m.thread" and rel.get("event_id") == root


def test_two_threads_run_two_tables(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("alma", "bruno", "cleo", "dora")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
                  for uid, pw in accounts]
        alma, bruno, cleo, dora = people
        try:
            group = await open_group(alma, [bruno, cleo, dora], "Stammtisch Fäden")
            await wait_for(lambda: alma.said(group, "So spielst du hier"), WAIT, "the how-to")
            greeting = alma.count(group)
            root_a = await alma.say(group, "Schwimmen am Montag?")
            root_b = await cleo.say(group, "Und wir spielen auch")

            # a table opened in each thread
            await alma.say(group, "!new schwimmen", thread=root_a)
            lobby_a = await wait_for(lambda: alma.newest(
                group, lambda m: m.choice("Mitmachen") and _in_thread(m, root_a)), WAIT,
                "the lobby in thread A")
            await cleo.say(group, "!new schwimmen", thread=root_b, fallback=lobby_a.event_id)
            lobby_b = await wait_for(lambda: alma.newest(
                group, lambda m: m.choice("Mitmachen") and _in_thread(m, root_b)), WAIT,
                "the lobby in thread B")
            tables = matrix.db().rows("SELECT id, thread_id FROM game_table ORDER BY id")
            assert [t["thread_id"] for t in tables] == [root_a, root_b]
            assert lobby_a.relates["is_falling_back"] is True  # (a thread message, no reply)
            assert lobby_a.relates["m.in_reply_to"]["event_id"]

            # joining by a command in one thread, by a reaction in the other: each its own
            # table (a thread message's fallback naming the other lobby changes nothing)
            await bruno.say(group, "!mitmachen", thread=root_a, fallback=lobby_b.event_id)
            await wait_for(lambda: bruno.name in lobby_a.body, WAIT, "Bruno at table A")
            await wait_for(lambda: "👍" in lobby_b.reactions, WAIT, "the seeded 👍")
            await dora.react(group, lobby_b.event_id, "👍")
            await wait_for(lambda: dora.name in lobby_b.body, WAIT, "Dora at table B")
            assert bruno.name not in lobby_b.body and dora.name not in lobby_a.body

            # a second table in a running thread is refused there, in the thread
            since = alma.count(group)
            await bruno.say(group, "!new schwimmen", thread=root_a)
            busy = await wait_for(lambda: alma.said(group, "Hier läuft schon ein Tisch",
                                                    since), WAIT, "the refusal")
            assert busy.relates.get("rel_type") == "m.thread" \
                and busy.relates.get("event_id") == root_a

            # both start; the tables are edited in place in their threads
            # (a number whose fallback names the bot's refusal - a message without choices -
            # picks from the thread's lobby: a fallback is no reply)
            await alma.say(group, str(lobby_a.choice("Starten")), thread=root_a,
                           fallback=busy.event_id)
            await cleo.say(group, "!starten", thread=root_b)
            for lobby in (lobby_a, lobby_b):
                await wait_for(lambda lobby=lobby: "Runde " in lobby.body
                               and lobby.choice("Mitmachen") is None, WAIT, "a game running")
            # !stop in thread A ends table A only
            await alma.say(group, "!stop", thread=root_a)
            await wait_for(lambda: matrix.db().table(tables[0]["id"])["fsm_state"]
                           == "abandoned", WAIT, "table A stopped")
            assert matrix.db().table(tables[1]["id"])["fsm_state"] not in (
                "abandoned", "finished")
            await asyncio.sleep(0.5)
            # every message of the bot in the room after its greeting stands in a thread:
            # table A's in A, table B's in B
            later = alma.bot_messages(group, deleted=True)[greeting:]
            assert later and all(_in_thread(m, root_a) or _in_thread(m, root_b)
                                 for m in later), [(m.body[:30], m.relates) for m in later]
            assert {m.relates["event_id"] for m in later} == {root_a, root_b}
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
