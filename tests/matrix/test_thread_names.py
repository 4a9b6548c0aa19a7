"""Two tables in two threads of one room, told apart outside it, on the real Synapse (issue 47
item 17): each is named by its thread's first message ("Stammtisch Fäden › Schwimmen am
Montag?") in the private views' heading, ``!spiele`` and the "(Das galt …)" note; a move typed
in the direct room without a reply never goes silently to the other table - when it fits both,
the bot asks which; a reply to a view, or the one table where it fits, takes it."""

from __future__ import annotations

import asyncio
import json

import pytest

from .harness import WAIT, Db, Msg, Person, move_choices, wait_for
from .people import open_group

pytestmark = pytest.mark.e2e
ROOM = "Stammtisch Fäden"


def _in_thread(msg: Msg, root: str) -> bool:
    return msg.relates.get("rel_type") == "m.thread" and msg.relates.get("event_id") == root


def _on_turn(db: Db, table_id: int) -> str | None:
    """The Matrix id of the person on turn at a table (``None``: nobody, between rounds)."""
    row = db.table(table_id)
    to_act = json.loads(row["state_json"] or "{}").get("to_act") \
        if row["fsm_state"] == "turn" else None
    seat = next((s for s in db.seats(table_id) if s["seat_no"] == to_act), None)
    if seat is None or seat["player_id"] is None:
        return None
    return db.rows("SELECT external_id FROM player WHERE id = :p", p=seat["player_id"])[0][
        "external_id"]


def test_thread_tables_are_named_apart_and_a_typed_move_asks_which(matrix) -> None:
    matrix.start_bot()
    accounts = [matrix.account(n) for n in ("alma", "bruno")]

    async def scenario() -> None:
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                               store=matrix.tmp / f"store-{i}").start()
                  for i, (uid, pw) in enumerate(accounts)]
        alma, bruno = people
        db = matrix.db()
        try:
            group = await open_group(alma, [bruno], ROOM)
            roots = [await alma.say(group, "Schwimmen am Montag?"),
                     await bruno.say(group, "Und wir spielen auch – wer mag, kommt dazu")]
            names = [f"{ROOM} › Schwimmen am Montag?", f"{ROOM} › Und wir spielen auch – wer…"]
            for root in roots:
                await alma.say(group, "!new schwimmen", thread=root)
                lobby = await wait_for(lambda root=root: alma.newest(
                    group, lambda m: m.choice("Mitmachen") and _in_thread(m, root)), WAIT,
                    "the lobby in its thread")
                await bruno.say(group, "!mitmachen", thread=root)
                await wait_for(lambda lobby=lobby: bruno.name in lobby.body, WAIT, "Bruno in")
                await alma.say(group, "!starten", thread=root)
                await wait_for(lambda lobby=lobby: "Runde " in lobby.body, WAIT, "the game")
            tables = [int(t["id"]) for t in db.tables()]

            # the private views say which thread's table they show
            def view(p: Person, i: int) -> Msg | None:
                dm = p.direct_room()
                return p.newest(dm, lambda m: m.first_line.endswith(" · " + names[i])) \
                    if dm else None
            for p in people:
                for i in (0, 1):
                    await wait_for(lambda p=p, i=i: view(p, i), WAIT, f"{p.name}'s view {i}")
            dm = {p.user_id: p.direct_room() for p in people}

            # somebody on turn at both tables
            for t in tables:
                await wait_for(lambda t=t: _on_turn(db, t), WAIT, "a person on turn")
            if _on_turn(db, tables[0]) != _on_turn(db, tables[1]):  # one pass at table A
                mover = next(p for p in people if p.user_id == _on_turn(db, tables[0]))
                shown = await wait_for(lambda: (v := view(mover, 0)) and v.choice("Schieben")
                                       and v, WAIT, "the pass at table A")
                moves = len(db.moves(tables[0]))
                await mover.say(dm[mover.user_id], "!schieben", reply_to=shown.event_id)
                await wait_for(lambda: len(db.moves(tables[0])) > moves, WAIT, "the pass")
                await wait_for(lambda: _on_turn(db, tables[0]), WAIT, "the next turn at A")
            player = next(p for p in people if p.user_id == _on_turn(db, tables[0]))
            assert _on_turn(db, tables[1]) == player.user_id
            room = dm[player.user_id]
            for i in (0, 1):
                await wait_for(lambda i=i: (v := view(player, i)) and v.choice("Schieben"),
                               WAIT, f"the pass offered at table {i}")

            # a move typed without a reply fits both: asked which, nothing moved
            moves = [len(db.moves(t)) for t in tables]
            since = player.count(room)
            await player.say(room, "!schieben")
            asked = await wait_for(lambda: player.said(room, "Das passt zu mehr als einem Tisch",
                                                       since), WAIT, "the question")
            assert all(f"• Schwimmen · {name}" in asked.body for name in names), asked.body
            assert [len(db.moves(t)) for t in tables] == moves
            # a reply to table B's view: table B
            shown = view(player, 1)
            assert shown is not None
            await player.say(room, "!schieben", reply_to=shown.event_id)
            await wait_for(lambda: len(db.moves(tables[1])) > moves[1], WAIT, "the pass at B")
            assert len(db.moves(tables[0])) == moves[0]
            # now it fits table A only: typed without a reply, it goes there
            await wait_for(lambda: (v := view(player, 1)) and v.choice("Schieben") is None,
                           WAIT, "table B's view without the pass")
            await player.say(room, "!schieben")
            await wait_for(lambda: len(db.moves(tables[0])) > moves[0], WAIT, "the pass at A")

            # a number typed in the direct room: "(Das galt …)" names the thread of its table
            other = next(p for p in people if p is not player)
            room = dm[other.user_id]
            for t in tables:
                await wait_for(lambda t=t: _on_turn(db, t) == other.user_id, WAIT,
                               f"{other.name} on turn")
            lowest = await wait_for(lambda: (m := other.newest(room, lambda m: any(
                m.first_line.endswith(" · " + n) for n in names))) and move_choices(m) and m,
                WAIT, "the lowest view with moves")
            since = other.count(room)
            await other.say(room, str(move_choices(lowest)[0]))
            note = await wait_for(lambda: other.said(room, "(Das galt dem Spiel", since), WAIT,
                                  "the note")
            meant = next(n for n in names if lowest.first_line.endswith(" · " + n))
            assert note.body == f"(Das galt dem Spiel Schwimmen in „{meant}“.)", note.body

            # !spiele names both tables apart
            since = alma.count(dm[alma.user_id])
            await alma.say(dm[alma.user_id], "!spiele")
            games = await wait_for(lambda: alma.said(dm[alma.user_id], "🃏 Deine Tische:",
                                                     since), WAIT, "!spiele")
            assert all(f" · {name} · " in games.body for name in names), games.body
        finally:
            db.dispose()
            for p in people:
                await p.stop()

    asyncio.run(scenario())
