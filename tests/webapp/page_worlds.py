"""Worlds for the tests of the Mini App's tournament and league pages: a Telegram group whose
tournament is under way (its people met the bot privately, joined under the announcement, the
tables played in their private chats — the group has no topics — by random legal moves), and
a league week of a few people who finished the daily deal. The service runs on the fake clock
(``tests.chatbot.service.harness.Harness``)."""

from __future__ import annotations

import random

from sqlmodel import Session, col, select

from chatbot.buttons import encode
from chatbot.service import ChatRef, UserRef
from engine import GAMES
from storage.models import Tournament, TournamentTable
from tests.chatbot.evenings import berlin
from tests.chatbot.league_world import NAMES, quick_try
from tests.chatbot.service.harness import Harness

GROUP = ChatRef("telegram", "-100480", "group", "Stammtisch")


def person(i: int, lang: str = "de") -> UserRef:
    return UserRef(str(4800 + i), NAMES[i], language=lang)


def private(user: UserRef) -> ChatRef:
    return ChatRef("telegram", user.external_id, "private")


def greet(h: Harness, users: list[UserRef]) -> None:
    """Each person writes /start privately (their cards go there)."""
    for user in users:
        assert h.command(private(user), user, "start").ok


def tournament(h: Harness) -> Tournament:
    with Session(h.engine) as session:
        found = session.exec(select(Tournament).order_by(col(Tournament.id).desc())).first()
        assert found is not None
        return found


def round_tables(h: Harness) -> list[TournamentTable]:
    t = tournament(h)
    with Session(h.engine) as session:
        return list(session.exec(select(TournamentTable).where(
            TournamentTable.tournament_id == t.id, TournamentTable.round_no == t.round_no)
            .order_by(col(TournamentTable.table_no))).all())


def fire_steps(h: Harness) -> int:
    """The tournament's due step, the clock moved to it."""
    t = tournament(h)
    if t.due_at is not None:
        h.clock.set(max(h.clock.now, t.due_at))
    return h.service.fire_tournaments()


def open_tournament(h: Harness, users: list[UserRef], game: str = "schwimmen",
                    rounds: int = 3) -> Tournament:
    """A tournament opened in the group by ``users[0]`` and joined by everybody."""
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier", f"{game} {rounds}")
    assert out.ok, out.text
    t = tournament(h)
    for user in users:
        out = h.press(GROUP, user, encode(0, 0, f"tn.j.{t.id}"))
        assert out.ok, out.text
    return t


def start_tournament(h: Harness, users: list[UserRef]) -> None:
    """▶ Start; the round's topics are asked for and never made (the group is no forum): once
    their wait is over the round plays in the people's private chats."""
    t = tournament(h)
    assert h.press(GROUP, users[0], encode(0, 0, f"tn.s.{t.id}")).ok
    for _ in range(5):
        if all(r.state == "playing" for r in round_tables(h)):
            return
        h.clock.advance(200)  # (past the wait for the topics)
        fire_steps(h)
    raise AssertionError("the round was not dealt")


def play_table(h: Harness, table_id: int, users: list[UserRef], rng: random.Random) -> None:
    """A game table to its end: CPUs by their deadlines, people by random legal moves."""
    by_name = {u.name: u for u in users}
    for _ in range(3_000):
        h.run_deadlines(table_id, kinds=("cpu", "next"))
        table = h.table(table_id)
        if table.fsm_state in ("finished", "abandoned"):
            return
        game = GAMES[table.game]
        state = game.from_json(table.state_json)
        seat_no = game.to_act(state)
        seat = next(s for s in h.seats(table_id) if s.seat_no == seat_no)
        user = by_name[seat.name]
        code = rng.choice([a.code for a in game.legal_actions(state)])
        out = h.press(private(user), user, encode(table_id, table.version, code))
        assert out.ok, out.text
    raise AssertionError("the game did not end")


def play_tables(h: Harness, users: list[UserRef], rng: random.Random,
                numbers: tuple[int, ...] | None = None) -> None:
    """The round's tables (or those numbered ``numbers``) played to their end."""
    for row in round_tables(h):
        if row.state == "playing" and (numbers is None or row.table_no in numbers):
            play_table(h, row.table_id, users, rng)  # type: ignore[arg-type]


def tournament_under_way(h: Harness, users: list[UserRef], seed: int = 48) -> Tournament:
    """Round 1 played and its end fired; in round 2 table 1 finished, the others play."""
    rng = random.Random(seed)
    open_tournament(h, users)
    start_tournament(h, users)
    play_tables(h, users, rng)
    assert fire_steps(h) == 1  # the round's end: the standings, round 2 drawn and dealt
    assert tournament(h).round_no == 2
    play_tables(h, users, rng, (1,))
    return tournament(h)


def league_week(h: Harness, users: list[UserRef], away: UserRef | None = None,
                days: int = 2, seed: int = 9) -> None:
    """The league's first week (``tests.chatbot.evenings.berlin``'s Monday; the harness's
    clock starts the Sunday before): everybody finished a deal on that Sunday (two divisions
    from 24 people, placed by rating), ``away`` took the holiday protection, and on the first
    ``days`` days of the week most played again; it is that last day's evening."""
    rng = random.Random(seed)
    greet(h, users)
    for user in users:
        h.clock.advance(30)
        quick_try(h, user, rng, private(user))
    h.service.catch_up_stats()
    h.clock.set(berlin(0, 0))
    assert h.service.open_league_weeks() >= 1
    if away is not None:
        assert h.command(private(away), away, "liga", "urlaub").ok
    for day in range(days):
        h.clock.set(berlin(day, 10))
        for user in users:
            h.clock.advance(20)
            if user is not away and rng.random() < 0.85:
                quick_try(h, user, rng, private(user))
    h.clock.set(berlin(days - 1, 21))
