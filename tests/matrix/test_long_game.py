"""A long game on Matrix (issue 37) through the real Synapse, on the bot process's simulated
clock (``STAMMTISCH_CLOCK_FILE``): ``!new schwimmen clock=12h``; when a quarter of the clock
is left the person on turn is reminded in their direct room (with a link to the group's table
message: ``matrix.to/#/<room>/<event>``) and the group gets one mention; the move typed under
the reminder counts; ``!pause 1`` and ``!pause`` (agreed) stop the clock until the pause ends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from tests.simclock import SimClock

from .harness import WAIT, Msg, Person, move_choices, wait_for
from .people import open_group

pytestmark = pytest.mark.e2e
START = datetime(2030, 1, 7, 12, tzinfo=UTC)  # a Monday, 13:00 in Berlin


def test_a_long_game_reminds_privately_with_a_link_and_pauses(matrix) -> None:
    clock = SimClock(matrix.tmp / "clock", START)
    matrix.start_bot(**clock.env())
    accounts = [matrix.account(n) for n in ("alma", "bruno")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                               store=matrix.tmp / f"store-{i}").start()
                  for i, (uid, pw) in enumerate(accounts)]
        alma, bruno = people
        db = matrix.db()
        try:
            group = await open_group(alma, [bruno], "Stammtisch Lang")
            await alma.say(group, "!new schwimmen clock=12h")
            lobby = await wait_for(lambda: alma.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            await bruno.say(group, "!mitmachen")
            await wait_for(lambda: bruno.name in lobby.body, WAIT, "Bruno in the lobby")
            await alma.say(group, "!starten")
            table_id = int(db.tables()[0]["id"])
            row = await wait_for(lambda: (r := db.table(table_id))["deadline_kind"] == "remind"
                                 and r, WAIT, "a person's turn on the 12-hour clock")

            def table() -> Msg | None:
                return alma.newest(group, lambda m: m.choice("🂠 Meine Karten") is not None)

            assert "⏸ 1 Tag" in (await wait_for(table, WAIT, "the table")).body
            due = datetime.fromisoformat(str(row["next_deadline"])).replace(tzinfo=UTC)
            clock.set(due + timedelta(seconds=1))

            def reminded() -> tuple[Person, Msg] | None:
                for p in people:
                    dm = p.direct_room()
                    found = p.newest(dm, lambda m: m.body.startswith("⏰")) if dm else None
                    if found is not None:
                        return p, found
                return None

            person, reminder = await wait_for(reminded, WAIT, "the private reminder")
            assert reminder.body.startswith(
                "⏰ Du bist am Zug bei Schwimmen in „Stammtisch Lang“ – noch "), reminder.body
            link = f'<a href="https://matrix.to/#/{group}/{table().event_id}">'  # type: ignore[union-attr]
            assert link in reminder.html, reminder.html
            assert move_choices(reminder), reminder.body  # the move buttons, as numbers
            await wait_for(lambda: alma.said(group, "⏰"), WAIT, "the group's mention")
            moves = len(db.moves(table_id))
            await person.say(person.direct_room(), str(move_choices(reminder)[0]))
            await wait_for(lambda: len(db.moves(table_id)) > moves, WAIT, "the move")
            assert db.moves(table_id)[moves]["actor"] == "player"
            assert len([m for m in alma.bot_messages(group, deleted=True)
                        if m.body.startswith("⏰")]) == 1  # the group was mentioned once

            await alma.say(group, "!pause 1")
            try:
                await wait_for(lambda: "bittet um 1 Tag Pause (zugestimmt: 1 von 2)"
                               in (table() or lobby).body, WAIT, "the request")
            except AssertionError:
                raise AssertionError([m.body for m in alma.bot_messages(group)][-4:]) from None
            await bruno.say(group, "!pause")
            await wait_for(lambda: "⏸ Pause bis " in (table() or lobby).body, WAIT, "the pause")
            row = db.table(table_id)
            assert row["deadline_kind"] == "resume" and row["paused_until"]
            until = datetime.fromisoformat(str(row["paused_until"])).replace(tzinfo=UTC)
            clock.set(until + timedelta(seconds=1))
            await wait_for(lambda: alma.said(group, "▶ Die Pause ist vorbei"), WAIT, "the end")
            assert db.table(table_id)["paused_until"] is None
        finally:
            db.dispose()
            for p in people:
                await p.stop()

    asyncio.run(scenario())
