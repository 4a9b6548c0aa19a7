"""Scat, Run Fast and climbing through the real bot process and the fake Telegram Bot API.

Private games against CPU players are played to their end by pressing the buttons of the
table message; group games are played by several people from their private chats, with the
group showing the table and the results. Every version of every message of those games is
checked for cards hidden at the time (``cardgames.leaks``).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from engine import GAMES
from tests.fakes.telegram_api import FakeBotApi

from .cardgames import (
    CardGroupGame,
    Chooser,
    card_tokens,
    check_no_leaks,
    forbidden,
    leaks,
    play_private_game,
    public_known,
)
from .harness import (
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    Db,
    bot_texts,
    codes,
    greet,
    private_menu_to_table,
    table_of,
    versions,
)

pytestmark = pytest.mark.e2e

# The first line of a round's result message, and the game's winner announcement in it.
RESULT_HEAD = {
    "scat": re.compile(r"^(?:Runde|Stechen \(Runde) (\d+)\)? vorbei"),
    "runfast": re.compile(r"^Hand (\d+) von \d+ vorbei"),
    "climbing": re.compile(r"^Runde (\d+) vorbei:"),
}
GAME_WON = {
    "scat": "🏆 {name} gewinnt das Spiel!",
    "runfast": "🏆 {name} gewinnt das Match",
    "climbing": "🏆 {name} gewinnt mit",
}


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _results(fake: FakeBotApi, chat: int, game: str) -> list[dict]:
    return [m for m in fake.messages(chat) if RESULT_HEAD[game].match(m["text"] or "")]


def _no_tracebacks(fake: FakeBotApi, chats: list[int]) -> None:
    for t in bot_texts(fake, chats):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t


def _winner_line(game: str, names: list[str], winners: list[int]) -> str:
    if len(winners) == 1:
        return GAME_WON[game].format(name=names[winners[0]])
    return "🏆 " + {"runfast": "Geteilter Sieg", "climbing": "Geteilter Sieg"}[game]


# ------------------------------------------------------------------------------ private games


def _private_table(fake: FakeBotApi, user: int, game: str) -> tuple[int, int]:
    """Open the private table: Scat and climbing through the menu buttons, Run Fast with
    ``/new runfast 2 anfaenger hands=4``."""
    if game == "scat":
        return private_menu_to_table(fake, user, opponents=2, game="scat")
    if game == "climbing":
        return private_menu_to_table(fake, user, opponents=3, game="climbing")
    fake.send_text(user, user, "/new runfast 2 anfaenger hands=4")
    msg = fake.wait_for(lambda: next((m for m in fake.messages(user, include_deleted=False)
                                      if table_of(m)), None), WAIT,
                        message="the private table message")
    return table_of(msg), msg["message_id"]  # type: ignore[return-value]


@pytest.mark.parametrize(("game", "database"), [
    ("scat", "sqlite"), ("runfast", "sqlite"), ("climbing", "sqlite"),
    pytest.param("runfast", "postgres", marks=pytest.mark.postgres),
])
def test_private_game_to_the_end(game: str, database: str, fake: FakeBotApi,
                                 start_bot: Callable[..., BotProcess],
                                 db_reader: Callable[[str], Db],
                                 request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(f"{database}_url")
    start_bot(url, CPU_DELAY=0.01)
    user = 4300 + ["scat", "runfast", "climbing"].index(game)
    greet(fake, user, "Paula")
    table_id, message_id = _private_table(fake, user, game)
    db = db_reader(url)
    assert db.table(table_id)["game"] == game
    seats = db.seats(table_id)
    assert not seats[0]["is_cpu"] and all(s["is_cpu"] for s in seats[1:])
    assert len(seats) == {"scat": 3, "runfast": 3, "climbing": 4}[game]
    if game == "runfast":
        assert _json(db.table(table_id)["options"])["engine"] == {"hands": 4}

    chooser = Chooser(game, random.Random(f"private-{game}"))
    final = play_private_game(fake, user, table_id, message_id, chooser)

    result = fake.wait_for(lambda: db.result(table_id), WAIT, message="the result row")
    assert db.table(table_id)["fsm_state"] == "finished"
    names = [s["name"] for s in seats]
    winners = _json(result["winners"])
    assert winners
    assert "🏆 Gewinner: " + ", ".join(names[w] for w in winners) in final["text"]
    rounds = int(result["rounds"])
    results = fake.wait_for(
        lambda: (found := _results(fake, user, game))
        and _winner_line(game, names, winners) in found[-1]["text"] and found,
        WAIT, message="the final result message")
    numbers = [int(RESULT_HEAD[game].match(m["text"]).group(1)) for m in results]  # type: ignore[union-attr]
    shown = sorted(set(numbers))  # (a person out gets no result of the CPUs' rounds: the last)
    assert numbers[-1] == rounds and shown[:-1] == list(range(1, len(shown)))
    if game == "runfast":
        assert rounds == 4

    # the ways of moving the test is about were all taken
    seen = chooser.seen
    if game == "scat":
        assert seen["draw_then_drop"] >= 1, seen
    else:
        assert seen["select_play"] >= 1 and seen["list_play"] >= 1, seen
        assert seen["toggle"] >= 1, seen
    if game == "runfast":
        assert seen["pass_only"] >= 1, seen

    found, checked, _ = leaks(db, fake, user, table_id, 0)
    assert not found, "\n".join(found[:20])
    assert checked >= 10
    _no_tracebacks(fake, [user])


# ------------------------------------------------------------------------------ group games

GROUPS = {
    # game: (people, CPU fill, rounds to play before /stop – None: to the end)
    "scat": (3, False, None),
    "runfast": (2, True, None),
    "climbing": (2, True, 2),
}


@pytest.mark.parametrize("game", list(GROUPS))
def test_group_game(game: str, fake: FakeBotApi, sqlite_url: str,
                    start_bot: Callable[..., BotProcess],
                    db_reader: Callable[[str], Db]) -> None:
    people, fill, rounds = GROUPS[game]
    start_bot(sqlite_url, CPU_DELAY=0.01, NEXT_ROUND_DELAY=0.1)
    db = db_reader(sqlite_url)
    base = 5100 + 10 * list(GROUPS).index(game)
    names = {base + i: n for i, n in enumerate(["Alma", "Bruno", "Cleo"][:people])}
    group = CardGroupGame(fake, -base, list(names), names, random.Random(f"group-{game}"),
                          game=game)
    group.hello()

    def fill_seats() -> None:
        if fill:
            group.add_cpus()

    group.open(extra=fill_seats)
    seats = db.seats(group.table_id)
    n_seats = {"scat": people, "runfast": 3, "climbing": 4}[game]
    assert len(seats) == n_seats
    assert [s["name"] for s in seats[:people]] == list(names.values())
    assert all(s["is_cpu"] for s in seats[people:]) and not any(
        s["is_cpu"] for s in seats[:people])
    for u in names:
        fake.wait_for(lambda u=u: group.hand_message(u), WAIT, message=f"{names[u]}'s cards")
    assert set(codes(group.table_message(), group.table_id)) <= {"cards", "log", "next", "back"}

    if rounds is None:
        group.play_until(lambda: False, timeout=240)
        result = fake.wait_for(lambda: db.result(group.table_id), WAIT, message="the result")
        winners = _json(result["winners"])
        all_names = [s["name"] for s in seats]
        final = group.table_message()
        assert "🏆 Gewinner: " + ", ".join(all_names[w] for w in winners) in final["text"]
        assert "again" in codes(final, group.table_id)
        fake.wait_for(lambda: (found := _results(fake, group.group, game))
                      and _winner_line(game, all_names, winners) in found[-1]["text"],
                      WAIT, message="the winner announced in the group")
        for u in names:
            fake.wait_for(lambda u=u: "🏆 Gewinner: " in (group.hand_message(u) or {})
                          .get("text", ""), WAIT, message="the result in the private chat")
        assert len(_results(fake, group.group, game)) == int(result["rounds"])
    else:
        group.play_until(lambda: len(_results(fake, group.group, game)) >= rounds,
                         timeout=240)
        fake.send_text(group.group, group.users[0], "/stop")
        fake.wait_for(lambda: db.table(group.table_id)["fsm_state"] == "abandoned", WAIT,
                      message="the table to be stopped")
        fake.wait_for(lambda: "Tisch beendet." in group.table_message().get("text", ""), WAIT,
                      message="the group table closed")
        assert db.result(group.table_id) is None
    moves = db.moves(group.table_id)
    assert {m["actor"] for m in moves} <= {"player", "cpu", "system"}
    assert any(m["actor"] == "player" for m in moves)
    fake.wait_for(lambda: not any(r["status"] == "pending" for r in db.outbox()), WAIT,
                  message="the outbox to drain")

    seen = group.seen()
    if game == "scat":
        assert seen["draw_then_drop"] >= 1, seen
    else:
        assert seen["select_play"] >= 1 and seen["list_play"] >= 1, seen
        assert seen["toggle"] >= 2, seen
    if game != "scat":  # picking cards edits the private message, it is not posted anew
        for u in names:
            for m in fake.messages(u):
                first = versions(m)[0][1]
                assert not any(label.startswith("✅") for label in first), (m["text"], first)
    counts = check_no_leaks(db, fake, group)
    assert counts["group"] >= 5 and counts["private"] >= 20, counts
    _no_tracebacks(fake, [group.group, *names])


# ------------------------------------------------------------------------------ leaks with clocks

CLOCKED = {
    # game: (people, CPU fill, rounds to play before /stop)
    "scat": (2, True, 3),
    "runfast": (3, False, 1),
    "climbing": (2, True, 1),
}


def test_group_leaks_with_clocks(fake: FakeBotApi, sqlite_url: str,
                                 start_bot: Callable[..., BotProcess],
                                 db_reader: Callable[[str], Db]) -> None:
    """One table of each game at once, short turn clocks: some turns run out (the CPU plays
    them, twice in a row sends a player away), people press "my cards", "I'm back" and
    "next round" in the group now and then. No message version shows a hidden card."""
    start_bot(sqlite_url, TURN_TIMEOUT=1, CPU_DELAY=0.01, NEXT_ROUND_DELAY=0.3)
    db = db_reader(sqlite_url)
    tables: dict[str, CardGroupGame] = {}
    for g, (game, (people, fill, _)) in enumerate(CLOCKED.items()):
        users = [6000 + 10 * g + i for i in range(people)]
        names = {u: f"{game[:2].upper()}{i}" for i, u in enumerate(users)}
        group = CardGroupGame(fake, -6000 - g, users, names, random.Random(f"clock-{game}"),
                              game=game, skip_first=1)
        group.hello()

        def fill_seats(group: CardGroupGame = group, fill: bool = fill) -> None:
            if fill:
                group.add_cpus()

        group.open(extra=fill_seats)
        tables[game] = group

    def done(game: str) -> bool:
        return len(_results(fake, tables[game].group, game)) >= CLOCKED[game][2]

    deadline = time.monotonic() + 240
    stopped: set[str] = set()
    while len(stopped) < len(tables):
        assert time.monotonic() < deadline, "the clocked games did not get far enough"
        acted = False
        for game, group in tables.items():
            if game in stopped:
                continue
            if done(game) or group.finished:
                fake.send_text(group.group, group.users[0], "/stop")
                stopped.add(game)
                continue
            acted |= group.step(skip_chance=0.05, extras=True)
        if not acted:
            time.sleep(0.02)
    for group in tables.values():
        fake.wait_for(lambda group=group: db.table(group.table_id)["fsm_state"]
                      in ("abandoned", "finished"), WAIT, message="the tables to close")
    fake.wait_for(lambda: not any(r["status"] == "pending" for r in db.outbox()), WAIT,
                  message="the outbox to drain")

    actors: set[str] = set()
    for game, group in tables.items():
        actors |= {m["actor"] for m in db.moves(group.table_id)}
        counts = check_no_leaks(db, fake, group)
        assert counts["group"] >= 5 and counts["private"] >= 10, (game, counts)
        assert counts["group_cards"], game  # the group did see cards (table, results)
    assert {"player", "cpu", "timeout"} <= actors, actors
    _no_tracebacks(fake, [u for g in tables.values() for u in [g.group, *g.users]])


# ------------------------------------------------------------------------------ the checker


def _play_until(game: str, state: Any, done: Callable[[Any], bool], rng: random.Random) -> Any:
    g = GAMES[game]
    while not done(state):
        legal = list(g.legal_actions(state))
        state, _ = g.apply(state, rng.choice(legal) if legal else "deal")
    return state


def test_leak_check_catches_leaks() -> None:
    """The checker itself: what counts as a leak where, for each of the three games."""
    rng = random.Random(5)
    assert card_tokens("BJ, 10♠ und RJ; BJX 1♠ Q♥") == {"BJ", "10♠", "RJ", "Q♥"}
    assert card_tokens("🃏 schwarzer Joker, 🃏 red · 3♣") == {"BJ", "RJ", "3♣"}

    # Scat: hands and stock are secret; the discard pile is public, also a card taken back
    scat = GAMES["scat"]
    state = _play_until("scat", scat.new_game(3, {}, 11), lambda s: s.phase == "turn", rng)
    known = public_known("scat", state, set(), None)
    mine, top, stock = state.hands[1][0].symbol, state.discard[-1].symbol, state.stock[0].symbol
    assert {mine, stock} <= forbidden("scat", state, known, None)
    assert mine not in forbidden("scat", state, known, 1)
    assert mine in forbidden("scat", state, known, 2)
    assert top not in forbidden("scat", state, known, None)
    taken, _ = scat.apply(state, "take")
    assert top in {c.symbol for c in taken.hands[state.to_act]}
    assert top in forbidden("scat", taken, set(), None)  # in a hand: hidden_cards has it …
    known = public_known("scat", taken, known, state.round_no)
    assert top not in forbidden("scat", taken, known, None)  # … but everybody saw it
    over = _play_until("scat", taken, lambda s: s.phase in ("payout", "finished"), rng)
    shown = over.result.hands[over.result.losers[0]][0].symbol if over.result.losers else None
    known = public_known("scat", over, known, taken.round_no)
    if shown:
        assert shown not in forbidden("scat", over, known, None)
    assert over.stock[0].symbol in forbidden("scat", over, known, None)
    if over.phase == "payout":
        dealt, _ = scat.apply(over, "deal")
        fresh = public_known("scat", dealt, known, over.round_no)
        assert fresh == {c.symbol for c in dealt.discard}

    # Run Fast: hands are secret while a hand is played; played cards are public
    rf = GAMES["runfast"]
    state = rf.new_game(3, {}, 3)
    card = rf.cards_of(state.hands[0])[0].symbol
    assert card in forbidden("runfast", state, set(), None)
    assert card not in forbidden("runfast", state, set(), 0)
    assert card in forbidden("runfast", state, set(), 1)
    play = next(a for a in rf.legal_actions(state) if a.code != "pass")
    after, _ = rf.apply(state, play)
    assert not {c.symbol for c in play.cards} & forbidden("runfast", after, set(), None)
    over = _play_until("runfast", after, lambda s: s.phase in ("payout", "finished"), rng)
    assert forbidden("runfast", over, set(), None) == set()

    # climbing: hands are secret; the card exchange is known to the two who made it
    cl = GAMES["climbing"]
    state = cl.new_game(4, {}, 8)
    card = state.hands[2][0].symbol
    assert card in forbidden("climbing", state, set(), None)
    assert card not in forbidden("climbing", state, set(), 2)
    state = _play_until("climbing", state, lambda s: s.exchange is not None
                        and s.exchange.given is not None and s.phase in ("exchange", "turn"),
                        rng)
    ex = state.exchange
    given = ex.given.symbol
    assert given in forbidden("climbing", state, set(), None)
    assert given not in forbidden("climbing", state, set(), ex.last)
    assert given not in forbidden("climbing", state, set(), ex.first)
    other = next(s for s in range(4) if s not in (ex.first, ex.last))
    assert given in forbidden("climbing", state, set(), other)
