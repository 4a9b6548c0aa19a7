"""A group game of three people to the end, through a restart of the bot, with the leak test
over every event of the group room."""

from __future__ import annotations

import asyncio
import random
import re
import signal

import pytest

from .harness import (
    TRACEBACK_MARKERS,
    WAIT,
    Msg,
    Person,
    leak_check,
    move_choices,
    pick_move,
    snapshot,
    wait_for,
)

pytestmark = pytest.mark.e2e


def test_group_game_three_people_through_a_restart(matrix) -> None:
    bot = matrix.start_bot(MATRIX_SYNC_LIMIT=5)
    accounts = [matrix.account(n) for n in ("alma", "bruno", "cleo")]
    rng = random.Random(11)

    async def scenario() -> None:
        nonlocal bot
        people = [await Person(matrix.synapse.url, uid, pw, matrix.bot_id,
                               store=matrix.tmp / f"store-{i}").start()
                  for i, (uid, pw) in enumerate(accounts)]
        alma, bruno, cleo = people
        try:
            group = await alma.create_room([matrix.bot_id, bruno.user_id, cleo.user_id],
                                           name="Stammtisch Runde")
            for p in (bruno, cleo):
                await alma.joined(group, p.user_id)
            await alma.joined(group, matrix.bot_id)
            await wait_for(lambda: alma.said(group, "Stammtisch"), WAIT, "the greeting")

            # the lobby: !new (opener), a German text command, a reaction, a number
            await alma.say(group, "!new schwimmen")
            lobby = await wait_for(lambda: alma.newest(group, lambda m: m.choice("Mitmachen")),
                                   WAIT, "the lobby")
            table_id = int(next(r["id"] for r in matrix.db().tables()))
            await bruno.say(group, "!mitmachen")
            await wait_for(lambda: bruno.name in lobby.body, WAIT, "Bruno in the lobby")
            await wait_for(lambda: "👍" in lobby.reactions, WAIT, "the seeded 👍")
            await cleo.react(group, lobby.event_id, "👍")
            await wait_for(lambda: cleo.name in lobby.body, WAIT, "Cleo in the lobby")
            await alma.say(group, str(lobby.choice("Starten")))
            # a 31 on the deal (about 1 % of starts) ends round 1 at once; the next is dealt
            # after NEXT_ROUND_DELAY — so wait for a round in play, whichever it is
            await wait_for(lambda: lobby.choice("Mitmachen") is None and "Runde " in lobby.body
                           and [c for _, c in lobby.choices()] == ["🂠 Meine Karten", "📜 Verlauf"],
                           WAIT, "the game to start (a round in play)")

            def hand(p: Person) -> Msg | None:
                dm = p.direct_room()
                return p.newest(dm, lambda m: "Stammtisch Runde" in m.first_line) \
                    if dm else None

            for p in people:
                await wait_for(lambda p=p: hand(p), WAIT, f"{p.name}'s private view")
                assert (hand(p) and "Deine Karten" in hand(p).body), hand(p)
                assert hand(p).encrypted, "the bot's direct rooms are encrypted"

            # "my cards" in the group is answered in the player's direct room, not the group
            dm = bruno.direct_room()
            since, group_since = bruno.count(dm), bruno.count(group)
            await bruno.say(group, "!karten")  # (a bare number only counts from the one on turn)
            await wait_for(lambda: bruno.said(dm, "Deine Karten", since)
                           and not bruno.said(dm, "Deine Karten", since).first_line
                           .startswith("🃏"), WAIT, "Bruno's cards in his direct room")
            assert not [m.body for m in bruno.bot_messages(group, deleted=True)[group_since:]
                        if "Deine Karten" in m.body]

            pressed: dict[str, tuple] = {}
            restarted = False
            handled_before: set[str] = set()
            loop_deadline = asyncio.get_running_loop().time() + 240
            def table_now() -> Msg:
                """The group's table message (posted anew at the bottom once buried: the
                bot may not pin on Matrix)."""
                return alma.newest(group, lambda m: m.choice("🂠 Meine Karten") is not None
                                   or m.choice("Nochmal spielen") is not None) or lobby

            while (lobby := table_now()).choice("Nochmal spielen") is None:
                assert asyncio.get_running_loop().time() < loop_deadline, (
                    "the game did not end:\n" + lobby.body)
                round_no = re.search(r"Runde (\d+)", lobby.body)
                if not restarted and round_no and int(round_no.group(1)) >= 2:
                    turn = next((p for p in people if move_choices(hand(p))), None)
                    if turn is not None and pressed.get(turn.user_id) != snapshot(hand(turn)):
                        # the bot goes down; a move and some chatter arrive meanwhile
                        handled_before = set(bot.handled_events())
                        assert bot.stop(signal.SIGKILL) is not None
                        before = snapshot(hand(turn))
                        pressed[turn.user_id] = before
                        missed = await turn.say(turn.direct_room(),
                                                str(pick_move(rng, hand(turn))))
                        for i in range(8):  # more than one sync returns (MATRIX_SYNC_LIMIT=5)
                            await people[i % 3].say(group, f"Prost {i}!")
                        bot = matrix.start_bot(MATRIX_SYNC_LIMIT=5)
                        await wait_for(lambda t=turn, b=before: snapshot(hand(t)) != b, WAIT,
                                       "the move sent while the bot was down")
                        assert missed in bot.handled_events()
                        restarted = True
                        continue
                acted = False
                for p in people:
                    view = hand(p)
                    if move_choices(view) and pressed.get(p.user_id) != snapshot(view):
                        pressed[p.user_id] = snapshot(view)
                        await p.say(p.direct_room(), str(pick_move(rng, view, 0.85)))
                        acted = True
                if not acted:
                    await asyncio.sleep(0.05)
            assert restarted, "the game ended before the restart"
            assert not set(bot.handled_events()) & handled_before, "events handled twice"

            db = matrix.db()
            result = await wait_for(lambda: db.result(table_id), WAIT, "the result row")
            winners = result["winners"]
            winners = __import__("json").loads(winners) if isinstance(winners, str) else winners
            winner = db.seats(table_id)[winners[0]]["name"]
            assert f"🏆 Gewinner: {winner}" in lobby.body
            await wait_for(lambda: alma.said(group, f"🏆 {winner} gewinnt das Spiel"), WAIT,
                           "the winner announced in the group")
            for p in people:
                await wait_for(lambda p=p: f"🏆 Gewinner: {winner}" in (
                    hand(p) or Msg("", "", 0, "")).body, WAIT,
                    f"the result in {p.name}'s direct room")
            assert {m["actor"] for m in db.moves(table_id)} <= {"player", "system"}

            # nothing hidden ever reached the group room (every event of its history)
            events = matrix.synapse.messages(group, alma.client.access_token)
            checked = leak_check(events, matrix.bot_id, db, table_id, group)
            assert checked > 10
            for p in people:
                assert not p.undecryptable, p.undecryptable
                for room in p.rooms:
                    for m in p.bot_messages(room, deleted=True):
                        assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
            assert not re.search(r"Traceback|ERROR", bot.log()), bot.log()[-3000:]
        finally:
            for p in people:
                await p.stop()

    asyncio.run(scenario())
