"""Issue 41 on Matrix: ``!replay`` lists the person's finished rounds with numbers, ``!replay 1``
opens the first, and ``>`` / ``<`` (or the numbers of ▶ ◀) step through it in one message
edited in place, every hand open — against the real Synapse. Plus the words as parsed."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from chatbot.matrix.render import Intent, bang, parse

from .harness import TRACEBACK_MARKERS, WAIT, Msg, Person, move_choices, pick_move, wait_for

pytestmark = pytest.mark.e2e
_STEP = re.compile(r"· Zug (\d+)/(\d+)$")


def test_replay_words() -> None:
    assert parse("!replay") == Intent("command", "replay")
    assert parse("!nachspielen 2") == Intent("command", "replay", "2")
    assert parse(">") == Intent("arrow", "▶") and parse("<") == Intent("arrow", "◀")
    assert parse("▶\ufe0f") == Intent("arrow", "▶")
    assert bang("/replay lists them") == "!replay lists them"


def test_replay_a_finished_round_in_a_direct_room(matrix) -> None:
    matrix.start_bot()
    uid, pw = matrix.account("rosa")

    async def scenario() -> None:
        rosa = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        try:
            room = await rosa.create_room([matrix.bot_id], direct=True)
            await rosa.joined(room, matrix.bot_id)
            await wait_for(lambda: rosa.said(room, "Stammtisch"), WAIT, "the greeting")
            await rosa.say(room, "!replay")  # nothing finished yet
            await wait_for(lambda: rosa.said(room, "Noch keine beendete Runde"), WAIT,
                           "no round yet")
            await rosa.say(room, "!neu schwimmen 1 anfaenger")

            def table() -> Msg | None:
                return rosa.newest(room, lambda m: m.body.startswith("🃏"))

            await wait_for(table, WAIT, "the table")
            rng, seen = random.Random(7), None
            deadline = asyncio.get_running_loop().time() + 120
            while table().choice("Nächste Runde", "Nochmal spielen") is None:  # type: ignore[union-attr]
                assert asyncio.get_running_loop().time() < deadline, table().body  # type: ignore[union-attr]
                now = table()
                snap = (now.body, len(now.versions))  # type: ignore[union-attr]
                if snap == seen or not move_choices(now):
                    await asyncio.sleep(0.05)
                    continue
                seen = snap
                await rosa.say(room, str(pick_move(rng, now)))  # type: ignore[arg-type]

            await rosa.say(room, "!replay")
            listed = await wait_for(lambda: rosa.newest(
                room, lambda m: m.body.startswith("↺ Nachspielen")), WAIT, "the list")
            assert listed.choice("Schwimmen") == 1, listed.body
            assert "Runde 1" in listed.body
            await rosa.say(room, "!replay 1")

            def replayed() -> Msg | None:
                return rosa.newest(room, lambda m: m.body.startswith("↺ Schwimmen"))

            view = await wait_for(replayed, WAIT, "the round")
            first = view.first_line
            match = _STEP.search(first)
            assert match and match[1] == "0", first
            moves = int(match[2])
            assert view.body.split("\n")[1] == "▶ Ausgeteilt."
            assert [label for _, label in view.choices()] == ["⏮", "◀", "▶", "⏭", "↩ Runden"]

            def step() -> int:
                found = _STEP.search(replayed().first_line)  # type: ignore[union-attr]
                return int(found[1]) if found else -1

            await rosa.say(room, ">")
            await wait_for(lambda: step() == min(1, moves), WAIT, "one step on")
            await rosa.say(room, str(view.choice("⏭")))
            await wait_for(lambda: step() == moves, WAIT, "the last step")
            assert "Runde 1" in replayed().body.split("\n\n", 1)[1]  # type: ignore[union-attr]
            await rosa.say(room, "<")
            await wait_for(lambda: step() == max(0, moves - 1), WAIT, "one step back")
            shown = [m for m in rosa.bot_messages(room) if m.body.startswith("↺ Schwimmen")]
            assert len(shown) == 1 and len(shown[0].versions) >= 3  # one message, edited
            for m in rosa.bot_messages(room, deleted=True):
                assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
        finally:
            await rosa.stop()

    asyncio.run(scenario())
