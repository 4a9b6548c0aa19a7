"""No hidden card ever shows where it must not: many random group games, every message version.

Group games with 2–4 people (some with CPU seats filled in) are played with random presses, some
turns are left to the clock (short ``TURN_TIMEOUT``), people go away and come back. Afterwards
every version of every message (the fake keeps each message's edit history) is checked against
the game state it was drawn for: the outbox row with the same text and buttons tells when it was
made, and replaying the table's seed and move log (``engine.GAMES``) up to that moment gives the
state. What a view made at that moment may show:

* a group message (text or button labels): the middle only – and the round-result message the
  hands of the round that just ended (public in its showdown; they are shuffled away after);
* a player's private message: on top of that, their own hand while the round is played.

Anything else is a leak (it is also checked that this covers the engine's ``hidden_cards``).
"""

from __future__ import annotations

import random
import re
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from engine import GAMES
from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    card_symbols,
    replay,
)
from .harness import made_at as _made_at
from .harness import versions as _versions

pytestmark = pytest.mark.e2e

GAMES_TO_PLAY = 8


_RESULT = re.compile(r"^(?:Runde (\d+) vorbei|Round (\d+) over)")


def _allowed(state: Any, text: str, own_seat: int | None) -> set[str]:
    """The cards a view made in ``state`` may show: the middle (public), the reader's own hand
    while a round is played, and in the round-result message the hands of that round."""
    allowed = {c.symbol for c in state.middle}
    if own_seat is not None and state.phase in ("turn", "final_round"):
        allowed |= {c.symbol for c in state.hands[own_seat]}
    match = _RESULT.match(text)
    if match and state.result is not None and state.phase in ("payout", "finished") \
            and int(match.group(1) or match.group(2)) == state.result.round_no:
        allowed |= {c.symbol for h in state.result.hands for c in h or ()}
    return allowed


def _leaks(db: Db, fake: FakeBotApi, chat: int, table_id: int,
           own_seat: int | None) -> tuple[list[str], int]:
    """Every version of every bot message in ``chat`` that shows a card its readers may not
    see at the time the view was made; and how many card-showing versions were checked."""
    game = GAMES[db.table(table_id)["game"]]
    state_at = replay(db, table_id)
    made = _made_at(db, chat)
    found, checked = [], 0
    for msg in fake.messages(chat):
        for text, labels in _versions(msg):
            shown = card_symbols("\n".join([text, *labels]))
            if not shown:
                continue
            checked += 1
            times = made.get((text, labels))
            assert times, f"chat {chat}: a message the outbox never made: {text!r} {labels}"
            leaked = []
            for when in times:
                state = state_at(when)
                bad = shown - _allowed(state, text, own_seat)
                # cross-check with the engine's own notion of what is hidden right now
                secret = {c.symbol for c in game.hidden_cards(state)}
                if own_seat is not None and state.phase in ("turn", "final_round"):
                    secret -= {c.symbol for c in state.hands[own_seat]}
                assert shown & secret <= bad
                leaked.append(bad)
            if all(leaked):  # no moment this view was made for could show these cards
                found.append(f"chat {chat} message {msg['message_id']}: {sorted(leaked[0])} "
                             f"in {text!r} {labels}")
    return found, checked


def test_group_leak_many_random_games(fake: FakeBotApi, sqlite_url: str,
                                      start_bot: Callable[..., BotProcess],
                                      db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=2, CPU_DELAY=0.02, NEXT_ROUND_DELAY=0.2)
    db = db_reader(sqlite_url)
    rng = random.Random(2024)
    games: list[GroupGame] = []
    for g in range(GAMES_TO_PLAY):
        people = rng.choice((2, 2, 3, 3, 4))
        users = [20_000 + 10 * g + i for i in range(people)]
        names = {u: f"P{g}x{i}" for i, u in enumerate(users)}
        game = GroupGame(fake, -20_000 - g, users, names, random.Random(rng.random()),
                         knock_bias=0.45)
        game.hello()
        fill = people < 4 and rng.random() < 0.3

        def options(game: GroupGame = game, fill: bool = fill) -> None:
            if fill:  # empty seats get CPU players
                game.add_cpus()

        game.open(extra=options)
        games.append(game)

    deadline = time.monotonic() + 240
    while not all(g.finished for g in games):
        assert time.monotonic() < deadline, "the random games did not end"
        acted = False
        for game in games:
            if not game.finished:
                acted |= game.step(skip_chance=0.08, extras=True)
        if not acted:
            time.sleep(0.02)
    fake.wait_for(lambda: not any(r["status"] == "pending" for r in db.outbox()), WAIT,
                  message="the outbox to drain")

    leaks: list[str] = []
    checked = 0
    actors: dict[str, int] = defaultdict(int)
    rounds = 0
    for game in games:
        seats = {s["player_id"]: s for s in db.seats(game.table_id)}
        players = {r["external_id"]: r["id"] for r in db.rows(
            "SELECT id, external_id FROM player WHERE platform = 'telegram'")}
        for chat, seat in [(game.group, None), *(
                (u, seats[players[str(u)]]["seat_no"]) for u in game.users)]:
            found, n = _leaks(db, fake, chat, game.table_id, seat)
            leaks += found
            checked += n
        for m in db.moves(game.table_id):
            actors[m["actor"]] += 1
        result = db.result(game.table_id)
        assert result is not None, f"game {game.group} has no result"
        rounds += int(result["rounds"])
    assert not leaks, "\n".join(leaks[:20])
    # the games really went through what they are meant to cover
    assert actors["player"] and actors["system"] and actors["timeout"], dict(actors)
    assert rounds >= GAMES_TO_PLAY * 2
    assert checked >= 30 * GAMES_TO_PLAY, checked  # group table views and private hands


def test_leak_check_catches_a_leak() -> None:
    """The checker itself: what counts as a leak where."""
    game = GAMES["schwimmen"]
    state = game.new_game(3, {}, 7)
    while state.phase != "turn":  # a deal straight to 31 ends the round: take the next one
        state, _ = game.apply(state, "deal")
    hand, middle = state.hands[1][0].symbol, state.middle[0].symbol
    table = f"Mitte: {middle} · x"
    assert card_symbols(table) - _allowed(state, table, None) == set()
    assert card_symbols(f"oops {hand}!") - _allowed(state, "oops", None) == {hand}
    assert card_symbols(f"{hand} {middle}") - _allowed(state, "mine", 1) == set()
    assert card_symbols(hand) - _allowed(state, "not mine", 2) == {hand}
    while state.phase == "turn" or state.phase == "final_round":
        state, _ = game.apply(state, "knock" if state.knocker is None else "pass"
                              if game.can_apply(state, "pass") else "knock")
    shown = state.result.hands[1][0].symbol
    result = f"Runde {state.result.round_no} vorbei:\nx: {shown}"
    assert card_symbols(result) - _allowed(state, result, None) == set()
    assert card_symbols(shown) - _allowed(state, "🃏 Schwimmen", None) == {shown}
    old = f"Runde {state.result.round_no - 1} vorbei:\nx: {shown}"
    assert card_symbols(old) - _allowed(state, old, None) == {shown}
