"""Issue 18, items 8 and 20 on the real Synapse: a move in a group game edits the group's
table, the mover's view and the next player's view - not the view of a player who is not
part of it (out of the game, or simply waiting): no edit on every move for them."""

from __future__ import annotations

import asyncio

import pytest

from .harness import WAIT, Person, open_group, start_group_game, wait_for

pytestmark = pytest.mark.e2e


def test_a_move_edits_only_the_views_it_changes_for_someone(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("quirin", "rosa", "sepp")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, u, p, matrix.bot_id,
                               store=matrix.tmp / f"quiet-store-{i}").start()
                  for i, (u, p) in enumerate(accounts)]
        try:
            first = people[0]
            group = await open_group(first, people[1:], "Leise")
            lobby = await start_group_game(first, people[1:], group)

            def view(p: Person):
                dm = p.direct_room()
                return p.newest(dm, lambda m: "Leise" in m.first_line) if dm else None

            for p in people:
                await wait_for(lambda p=p: view(p), WAIT, f"{p.name}'s view")
            mover = await wait_for(lambda: next((p for p in people
                                                 if "Du bist am Zug" in view(p).body), None),
                                   WAIT, "somebody on turn")
            i = people.index(mover)
            after, third = people[(i + 1) % 3], people[(i + 2) % 3]
            await asyncio.sleep(2)  # (every view of the deal delivered)
            seen = {p.name: (view(p).event_id, len(view(p).versions)) for p in people}
            table_edits = len(lobby.versions)
            await mover.say(mover.direct_room(), str(view(mover).choice("Schieben")))
            await wait_for(lambda: "Du bist am Zug" in view(after).body, WAIT,
                           "the next player's view")
            await wait_for(lambda: "Du bist am Zug" not in view(mover).body, WAIT,
                           "the mover's view")
            await asyncio.sleep(2)
            assert (view(third).event_id, len(view(third).versions)) == seen[third.name]
            assert len(lobby.versions) == table_edits + 1  # the group's table: one edit
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
