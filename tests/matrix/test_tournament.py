"""A tournament in a Matrix room on the real Synapse (issue 48): ``!turnier schwimmen 1``, three
people join by the announcement's number (the bot opens a direct room for whoever has none, as
for a table joined in a room), the opener starts; the table plays in a thread of its own — its
root a message of the bot in the room ("🏆 Runde 1 · Tisch 1"), every message of the table a
thread message under it — and each person plays their hand in their direct room; the
tournament's own messages (announcement, draw, result, standings) stay in the room's main
timeline. The final standings are the database's ``tournament_score``."""

from __future__ import annotations

import asyncio
import random
import re
import time
from fractions import Fraction

import pytest

from .harness import WAIT, Msg, Person, move_choices, pick_move, snapshot, wait_for
from .people import open_group

pytestmark = pytest.mark.e2e
ROOM = "Stammtisch Turnier"


def _in_thread(msg: Msg, root: str) -> bool:
    return msg.relates.get("rel_type") == "m.thread" and msg.relates.get("event_id") == root


def test_a_tournament_in_a_room_plays_its_table_in_a_thread(matrix) -> None:
    began = time.monotonic()
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("alma", "bruno", "cleo")]
    rng = random.Random(48)

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                               store=matrix.tmp / f"store-{i}").start()
                  for i, (uid, pw) in enumerate(accounts)]
        alma, bruno, cleo = people
        db = matrix.db()
        try:
            group = await open_group(alma, [bruno, cleo], ROOM)
            await alma.say(group, "!turnier schwimmen 1")
            ann = await wait_for(lambda: alma.newest(group, lambda m: m.choice("✅ Mitmachen")),
                                 WAIT, "the announcement")
            assert ann.first_line == "🏆 Turnier: Schwimmen · 1 Runde · 2 Min."  # (TURN_TIMEOUT)
            assert not _in_thread(ann, ann.event_id) and "rel_type" not in ann.relates
            for p in people:  # (nobody wrote to the bot privately: it opens the rooms)
                await p.say(group, str(ann.choice("✅ Mitmachen")), reply_to=ann.event_id)
                await wait_for(lambda p=p: any(x.startswith("Dabei (") and p.name in x
                                               for x in ann.body.split("\n")), WAIT,
                               f"{p.name} on the announcement\n{ann.body}")
            for p in people:
                await wait_for(lambda p=p: p.direct_room(), WAIT, f"{p.name}'s direct room")
            await alma.say(group, str(ann.choice("▶ Starten")), reply_to=ann.event_id)

            root = await wait_for(lambda: alma.newest(
                group, lambda m: m.body == "🏆 Runde 1 · Tisch 1"), WAIT, "the table's thread")
            assert "rel_type" not in root.relates  # (a root: in the room's timeline)
            draw = await wait_for(lambda: alma.said(group, "🏆 Runde 1 von 1 – die Tische:"),
                                  WAIT, "the draw")
            assert draw.body.endswith("Jeder Tisch spielt in seinem eigenen Thread.")
            assert "rel_type" not in draw.relates
            table = await wait_for(lambda: alma.newest(
                group, lambda m: _in_thread(m, root.event_id) and m.choice("🂠 Meine Karten")
                is not None), WAIT, "the table message in its thread")
            row = db.rows("SELECT * FROM tournament_table")[0]
            assert row["thread_id"] == root.event_id
            assert db.table(row["table_id"])["thread_id"] == root.event_id

            def hand(p: Person) -> Msg | None:
                dm = p.direct_room()
                return p.newest(dm, lambda m: f"{ROOM} › 🏆 Runde 1 · Tisch 1" in m.first_line) \
                    if dm else None

            for p in people:  # (the view names the room and the thread: the table's name)
                await wait_for(lambda p=p: hand(p), WAIT, f"{p.name}'s view of the table")
            pressed: dict[str, tuple] = {}
            deadline = time.monotonic() + 240
            while db.rows("SELECT state FROM tournament")[0]["state"] != "finished":
                assert time.monotonic() < deadline, "the tournament did not end:\n" + table.body
                acted = False
                for p in people:
                    view = hand(p)
                    if move_choices(view) and pressed.get(p.user_id) != snapshot(view):
                        pressed[p.user_id] = snapshot(view)
                        await p.say(p.direct_room(), str(pick_move(rng, view, 0.9)))
                        acted = True
                if not acted:
                    await asyncio.sleep(0.05)
            final = await wait_for(lambda: alma.said(group, "🏆 Endstand:"), WAIT,
                                   "the final standings")
            result = await wait_for(lambda: alma.said(group, "🏁 Runde 1, Tisch 1: "), WAIT,
                                    "the table's result")
            assert "rel_type" not in final.relates and "rel_type" not in result.relates
            # the standings are the scores: each person's points by place at the table
            names = {r["id"]: r["name"] for r in db.rows("SELECT id, name FROM player")}
            scored = {names[r["player_id"]]: Fraction(r["points_num"], r["points_den"])
                      for r in db.rows("SELECT * FROM tournament_score")}
            assert sorted(scored.values()) in ([0, 1, 2], [Fraction(1, 2)] * 2 + [2],
                                               [0] + [Fraction(3, 2)] * 2, [1, 1, 1])
            lines = re.findall(r"^\s*(\d+)\. (\S+)\s+(\S+)\s", final.body, re.M)
            assert {n: p for _r, n, p in lines} == {
                n: (str(v.numerator) if v.denominator == 1 else f"{float(v):.1f}".replace(
                    ".", ",")) for n, v in scored.items()}
            # every message of the bot in the room after the root: the table's, in its
            # thread; the tournament's, in the timeline
            later = [m for m in alma.bot_messages(group, deleted=True)
                     if m.ts > root.ts and m.event_id != root.event_id]
            assert any(_in_thread(m, root.event_id) for m in later)
            for m in later:
                if _in_thread(m, root.event_id):
                    assert not m.body.startswith(("🏆 Runde 1 von", "🏁", "🏆 Endstand")), m.body
                else:
                    assert "rel_type" not in m.relates and m.body.startswith(("🏆", "🏁")), (
                        m.body, m.relates)
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
    print(f"\n3 people on Matrix: {time.monotonic() - began:.0f} s")
