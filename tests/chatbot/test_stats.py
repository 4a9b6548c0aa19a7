"""``/stats`` and ``/top`` through the service, from stored results, on SQLite and PostgreSQL.

The numbers are checked against a hand computation (a short history written out below) and,
for many generated results, against a count made straight from the ``result`` and ``seat``
rows; the ratings against OpenSkill's own ``rate`` called game by game.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import delete, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from bench.stats import generate
from chatbot.service import ChatRef, UserRef
from chatbot.service.stats import ratings as R
from chatbot.service.stats import reports as S
from storage.models import Chat, GameTable, Player, Rating, Result, Seat, StatEntry, StatsCursor
from tests.conftest import EPOCH, FakeClock, Postman, make_service

P = "test"
ALICE = UserRef("alice", "Alice", language="de")
BOB = UserRef("bob", "Bob", language="de")
CAROL = UserRef("carol", "Carol", language="de")
GROUP = ChatRef(P, "g-1", "group", "Stammtisch")
_SEEDS = itertools.count(1)


def _get_or_add(session: Session, model: Any, values: dict[str, Any]) -> Any:
    row = session.execute(select(model).where(
        model.platform == values["platform"], model.external_id == values["external_id"])
    ).scalar_one_or_none()
    if row is None:
        row = model(**values, created_at=EPOCH)
        session.add(row)
        session.flush()
    return row


def store_result(engine: Engine, chat: tuple[str, str], game: str,
                 seats: list[tuple[str, str]], winners: list[int],
                 places: list[int] | None = None, platform: str = P,
                 result_id: int | None = None) -> int:
    """A finished game as ``play.finish`` leaves it: table, seats, result. ``chat`` is
    (external id, kind); a seat is ("p", person's external id) or ("cpu", level)."""
    with Session(engine) as session, session.begin():
        chat_row = _get_or_add(session, Chat, {"platform": platform, "external_id": chat[0],
                                               "kind": chat[1]})
        at = EPOCH + timedelta(minutes=next(_SEEDS))
        table = GameTable(chat_id=chat_row.id, game=game, fsm_state="finished",
                          seed=next(_SEEDS), is_private=chat[1] == "private", created_at=at,
                          updated_at=at, finished_at=at)
        session.add(table)
        session.flush()
        for no, (kind, who) in enumerate(seats):
            if kind == "cpu":
                session.add(Seat(table_id=table.id, seat_no=no, name="🤖", is_cpu=True,
                                 cpu_level=who))
            else:
                person = _get_or_add(session, Player, {"platform": platform, "external_id": who,
                                                       "name": who.capitalize()})
                session.add(Seat(table_id=table.id, seat_no=no, player_id=person.id,
                                 name=person.name))
        standings = [{"seat": s, "name": "", **({"place": places[s]} if places else {})}
                     for s in range(len(seats))]
        result = Result(id=result_id, table_id=table.id, game=game, winners=winners,
                        standings=standings, rounds=2, finished_at=at)
        session.add(result)
        session.flush()
        assert result.id is not None
        return result.id


def private(user: UserRef) -> ChatRef:
    return ChatRef(P, f"p-{user.external_id}", "private")


# The hand-computed history (Alice's private chat is "p-alice"):
HISTORY: list[tuple[tuple[str, str], str, list[tuple[str, str]], list[int]]] = [
    (("p-alice", "private"), "schwimmen", [("p", "alice"), ("cpu", "anfaenger"),
                                           ("cpu", "anfaenger")], [0]),  # 1 Alice wins
    (("p-alice", "private"), "schwimmen", [("p", "alice"), ("cpu", "anfaenger")], [0]),  # 2 W
    (("p-alice", "private"), "scat", [("p", "alice"), ("cpu", "experte"),
                                      ("cpu", "experte")], [2]),  # 3 Alice loses
    (("g-1", "group"), "schwimmen", [("p", "alice"), ("p", "bob"), ("p", "carol")], [0]),  # 4 W
    (("g-1", "group"), "schwimmen", [("p", "alice"), ("p", "bob")], [1]),  # 5 Bob wins
    (("g-1", "group"), "runfast", [("p", "bob"), ("p", "alice"), ("p", "carol")], [1]),  # 6 W
    (("g-1", "group"), "runfast", [("p", "carol"), ("p", "bob"), ("p", "alice")], [2]),  # 7 W
    (("p-alice", "private"), "scat", [("p", "alice"), ("cpu", "experte")], [0]),  # 8 W
]
# Alice: 8 games, 6 wins (75 %); W W L W L W W W → longest streak 3; Schwimmen 4 games
# (1, 2, 4, 5) 3 wins, Scat 2 games (3, 8) 1 win, Run Fast 2 games 2 wins; against Anfänger
# 2 games 2 wins, against Experte 2 games 1 win. Bob: 4 games (4–7), 1 win (5). Carol: 3
# games (4, 6, 7), no win.


def expected_ratings(history: list[Any] = HISTORY) -> dict[tuple[str, str], int]:
    """A history rated with OpenSkill's own ``rate``, one game after the other (a CPU
    level seated twice gets the mean of its two seats' new values)."""
    model = PlackettLuce()
    mu_sigma: dict[tuple[str, str], tuple[float, float]] = {}
    for _chat, game, seats, winners in history:
        who = [f"cpu:{w}" if k == "cpu" else w for k, w in seats]
        teams = [[model.rating(*mu_sigma.get((game, w), (25.0, 25.0 / 3)))] for w in who]
        rated = model.rate(teams, ranks=[1 if i in winners else 2 for i in range(len(who))])
        new: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for w, (r,) in zip(who, rated, strict=True):
            new[w].append((r.mu, r.sigma))
        for w, values in new.items():
            mu_sigma[(game, w)] = (sum(v[0] for v in values) / len(values),
                                   sum(v[1] for v in values) / len(values))
    return {k: round(1000 + 25 * (mu - 3 * sigma)) for k, (mu, sigma) in mu_sigma.items()}


class Bot:
    def __init__(self, engine: Engine) -> None:
        self.clock = FakeClock()
        self.service = make_service(engine, self.clock)
        self.postman = Postman(engine, clock=self.clock)
        self.keys = itertools.count(1)

    def say(self, chat: ChatRef, user: UserRef, name: str, args: str = "") -> str:
        """A command; the text it posted."""
        before = len(self.postman.transport.calls)
        self.service.command(chat, user, name, args, update_key=f"u{next(self.keys)}")
        self.clock.advance(5)  # (the same command again within 3 s is answered once)
        self.postman.deliver()
        sent = [c for c in self.postman.transport.calls[before:] if c[0] == "send"]
        assert len(sent) == 1, sent
        return sent[0][3]


def test_stats_and_top_match_the_hand_computation(db_engine: Engine) -> None:
    for chat, game, seats, winners in HISTORY:
        store_result(db_engine, chat, game, seats, winners)
    r = expected_ratings()
    bot = Bot(db_engine)
    assert bot.say(private(ALICE), ALICE, "stats") == "\n".join([
        "📊 Statistik von Alice",
        "Gesamt: 8 Spiele, 6 Siege (75 %)",
        "Längste Siegesserie: 3 Siege",
        "",
        "Nach Spiel:",
        f"• Schwimmen: 4 Spiele, 3 Siege (75 %) · Wertung {r[('schwimmen', 'alice')]}",
        f"• Einunddreißig (Scat): 2 Spiele, 1 Sieg (50 %) · Wertung {r[('scat', 'alice')]}",
        f"• Run Fast (Pao De Kuai): 2 Spiele, 2 Siege (100 %) · Wertung "
        f"{r[('runfast', 'alice')]}",
        "",
        "Privat gegen CPU:",
        "• Anfänger: 2 Spiele, 2 Siege (100 %)",
        "• Experte: 2 Spiele, 1 Sieg (50 %)",
        "",
        "Wertung: 1000 zum Start, mehr mit Siegen gegen Stärkere. /stats hide nimmt dich aus "
        "den Bestenlisten.",
    ])
    assert bot.say(private(CAROL), CAROL, "stats").splitlines()[1:3] == [
        "Gesamt: 3 Spiele, 0 Siege (0 %)", "Längste Siegesserie: 0 Siege"]
    english = UserRef("bob", "Bob", language="en")
    assert bot.say(private(english), english, "stats").splitlines()[:6] == [
        "📊 Stats of Bob", "Overall: 4 games, 1 win (25%)", "Longest winning streak: 1 win",
        "", "By game:",
        f"• Schwimmen (31): 2 games, 1 win (50%) · rating {r[('schwimmen', 'bob')]}"]

    # The group's leaderboard: the people who played there, best rating first.
    def line(rank: int, name: str, game: str, wins: str, games: str) -> str:
        return f"{rank}. {name.capitalize()} · Wertung {r[(game, name)]} · {wins} {games}"

    counts = {("schwimmen", "alice"): ("1 Sieg", "in 2 Spielen"),
              ("schwimmen", "bob"): ("1 Sieg", "in 2 Spielen"),
              ("schwimmen", "carol"): ("0 Siege", "in 1 Spiel"),
              ("runfast", "alice"): ("2 Siege", "in 2 Spielen"),
              ("runfast", "bob"): ("0 Siege", "in 2 Spielen"),
              ("runfast", "carol"): ("0 Siege", "in 2 Spielen")}

    def board(game: str) -> list[str]:
        """Best rating first, then wins; the same rating and wins share a rank (1., 1., 3.)."""
        order = sorted(((-r[(game, n)], -int(counts[(game, n)][0][0])), n)
                       for n in ("alice", "bob", "carol"))
        return [line(next(j for j, (k, _n) in enumerate(order, 1) if k == key), n, game,
                     *counts[(game, n)]) for key, n in order]

    top = bot.say(GROUP, BOB, "top")
    assert top == "\n".join(["🏆 Bestenliste dieser Gruppe", "", "Schwimmen",
                             *board("schwimmen"), "", "Run Fast (Pao De Kuai)",
                             *board("runfast")])
    assert r[("runfast", "alice")] > r[("runfast", "bob")]  # two wins rank first
    assert board("runfast")[0].startswith("1. Alice")
    assert bot.say(GROUP, BOB, "top", "runfast") == "\n".join(
        ["🏆 Bestenliste dieser Gruppe", "", "Run Fast (Pao De Kuai)", *board("runfast")])
    assert bot.say(private(ALICE), ALICE, "top") == (
        "Die Bestenliste gibt es in Gruppen: schreib dort /top. Deine eigenen Zahlen zeigt "
        "/stats.")

    # Opting out: Alice is left out of the leaderboard (not shown as "anonymous"), the
    # others move up; her own /stats says so; /stats show lists her again.
    assert bot.say(private(ALICE), ALICE, "stats", "hide") == (
        "Du erscheinst in keiner Bestenliste mehr. /stats show nimmt dich wieder auf.")
    hidden = bot.say(GROUP, BOB, "top", "runfast")
    assert "Alice" not in hidden
    assert hidden.splitlines()[3].startswith("1. ")
    assert len(hidden.splitlines()) == 5
    assert bot.say(private(ALICE), ALICE, "stats").splitlines()[-1] == (
        "Du stehst in keiner Bestenliste; /stats show nimmt dich wieder auf.")
    assert bot.say(private(ALICE), ALICE, "stats", "show") == (
        "Du erscheinst wieder in den Bestenlisten.")
    assert bot.say(GROUP, BOB, "top", "runfast").splitlines()[3].startswith("1. Alice")

    # A new result is read by the next command (and only once).
    store_result(db_engine, ("g-1", "group"), "runfast",
                 [("p", "alice"), ("p", "bob"), ("p", "carol")], [2])
    assert "Gesamt: 4 Spiele, 1 Sieg (25 %)" in bot.say(private(CAROL), CAROL, "stats")
    assert "Gesamt: 4 Spiele, 1 Sieg (25 %)" in bot.say(private(CAROL), CAROL, "stats")


def test_no_games_yet(db_engine: Engine) -> None:
    bot = Bot(db_engine)
    assert bot.say(private(ALICE), ALICE, "stats") == (
        "Noch keine gewerteten Spiele. Mit /new fängst du eins an.")
    assert bot.say(GROUP, ALICE, "top") == (
        "In dieser Gruppe gibt es noch keine gewerteten Spiele.")
    en = UserRef("eve", "Eve", language="en")
    assert bot.say(private(en), en, "stats") == "No rated games yet. /new starts one."


def test_places_rank_the_climbing_game() -> None:
    assert R._ranks([2], [{"seat": s, "place": p} for s, p in enumerate([3, 4, 1, 2])],
                    [0, 1, 2, 3]) == [3, 4, 1, 2]
    assert R._ranks([1], [{"seat": 0}, {"seat": 1}, {"seat": 2}], [0, 1, 2]) == [2, 1, 2]
    assert S.best_streak([True, True, False, True, True, True, False]) == 3
    assert S.best_streak([]) == 0
    assert R.shown_rating(25.0, 25.0 / 3) == 1000


def _count_from_results(engine: Engine) -> tuple[dict[int, dict[str, Any]],
                                                 dict[tuple[int, str, int], list[int]]]:
    """Straight from ``result`` and ``seat``: each person's numbers, and per (chat, game,
    person) [games, wins]."""
    people: dict[int, dict[str, Any]] = defaultdict(lambda: {
        "won": [], "per_game": defaultdict(lambda: [0, 0]),
        "per_level": defaultdict(lambda: [0, 0])})
    groups: dict[tuple[int, str, int], list[int]] = defaultdict(lambda: [0, 0])
    with Session(engine) as session:
        rows = session.execute(
            select(Result.id, Result.game, Result.winners, GameTable.chat_id,
                   GameTable.is_private, Seat.seat_no, Seat.player_id, Seat.is_cpu,
                   Seat.cpu_level)
            .join(GameTable, GameTable.id == Result.table_id)
            .join(Seat, Seat.table_id == Result.table_id).order_by(Result.id, Seat.seat_no)
        ).all()
    levels: dict[int, str] = {}
    for row in rows:
        if row.is_cpu:
            levels[row.id] = row.cpu_level  # (generated tables have one CPU level)
    for row in rows:
        if row.is_cpu:
            continue
        won = row.seat_no in row.winners
        me = people[row.player_id]
        me["won"].append(won)
        me["per_game"][row.game][0] += 1
        me["per_game"][row.game][1] += won
        if row.is_private:
            me["per_level"][levels[row.id]][0] += 1
            me["per_level"][levels[row.id]][1] += won
        else:
            groups[(row.chat_id, row.game, row.player_id)][0] += 1
            groups[(row.chat_id, row.game, row.player_id)][1] += won
    return people, groups


def _check(engine: Engine, made: dict[str, Any]) -> None:
    people, groups = _count_from_results(engine)
    with Session(engine) as session, session.begin():
        R.catch_up(session)
    with Session(engine) as session:
        for pid in made["players"]:
            got, want = S.player_stats(session, pid), people[pid]
            assert got["games"] == len(want["won"])
            assert got["wins"] == sum(want["won"])
            assert got["streak"] == S.best_streak(want["won"])
            assert {g: (n, w) for g, (n, w, _r) in got["per_game"].items()} == {
                g: tuple(v) for g, v in want["per_game"].items()}
            assert got["per_level"] == {lv: tuple(v) for lv, v in want["per_level"].items()}
            assert all(r is not None for _n, _w, r in got["per_game"].values())
        for chat_id in made["groups"]:
            boards = S.leaderboard(session, chat_id, limit=1000)
            names = {p.id: p.name for p in session.execute(select(Player.id, Player.name))}
            by_name = {v: k for k, v in names.items()}
            got = {(chat_id, game, by_name[name]): [n, w]
                   for game, rows in boards.items() for name, _r, w, n in rows}
            assert got == {k: v for k, v in groups.items() if k[0] == chat_id}
            for rows in boards.values():
                assert [t[1] for t in rows] == sorted((t[1] for t in rows), reverse=True)


def _ratings(engine: Engine) -> dict[tuple[str, str], tuple[float, float, int]]:
    with Session(engine) as session:
        return {(r.game, r.subject): (r.mu, r.sigma, r.games) for r in session.execute(
            select(Rating.game, Rating.subject, Rating.mu, Rating.sigma, Rating.games))}


def test_many_results_counted_exactly_and_read_in_pieces_as_in_one_go(
        db_engine: Engine) -> None:
    made = generate(db_engine, 1500, players=24, groups=3, seed=5, platform=P)
    _check(db_engine, made)
    generate(db_engine, 700, seed=6, platform=P, among=made)  # the same people play on
    _check(db_engine, made)  # the new ones are read, and only they
    seats_of_people = sum(len(p["won"]) for p in _count_from_results(db_engine)[0].values())
    with Session(db_engine) as session:
        assert len(session.execute(select(StatEntry.id)).all()) == seats_of_people
    in_pieces = _ratings(db_engine)
    with Session(db_engine) as session, session.begin():  # everything again, in one go
        session.execute(delete(StatEntry))
        session.execute(delete(Rating))
        session.execute(update(StatsCursor).values(last_result_id=0, holes=[]))
    with Session(db_engine) as session, session.begin():
        assert R.catch_up(session) == 2200
    assert _ratings(db_engine) == in_pieces
    games = sum(v[2] for k, v in in_pieces.items() if not k[1].startswith("cpu:"))
    assert games == seats_of_people


def test_a_result_that_commits_late_is_read_when_it_comes(db_engine: Engine) -> None:
    seats = [("p", "alice"), ("p", "bob")]
    first = store_result(db_engine, ("g-1", "group"), "schwimmen", seats, [0])
    # Result first+2 commits before first+1 (a transaction that took longer).
    store_result(db_engine, ("g-1", "group"), "schwimmen", seats, [0], result_id=first + 2)
    with Session(db_engine) as session, session.begin():
        assert R.catch_up(session, now_epoch=1000.0) == 2
    with Session(db_engine) as session:
        cursor = session.get(StatsCursor, 1)
        assert cursor is not None
        assert (cursor.last_result_id, cursor.holes) == (first + 2, [[first + 1, 1000.0]])
    store_result(db_engine, ("g-1", "group"), "schwimmen", seats, [1], result_id=first + 1)
    with Session(db_engine) as session, session.begin():
        assert R.catch_up(session, now_epoch=1010.0) == 1
    with Session(db_engine) as session:
        assert S.player_stats(session, _player_id(session, "bob"))["wins"] == 1
        assert session.get(StatsCursor, 1).holes == []  # type: ignore[union-attr]
    # A gap that never fills (a rolled-back insert) is given up after a while.
    store_result(db_engine, ("g-1", "group"), "schwimmen", seats, [0], result_id=first + 5)
    with Session(db_engine) as session, session.begin():
        assert R.catch_up(session, now_epoch=2000.0) == 1
        assert len(session.get(StatsCursor, 1).holes) == 2  # type: ignore[union-attr]
    with Session(db_engine) as session, session.begin():
        assert R.catch_up(session, now_epoch=2000.0 + R.HOLE_SECONDS) == 0
        assert session.get(StatsCursor, 1).holes == []  # type: ignore[union-attr]
    with Session(db_engine) as session:
        assert S.player_stats(session, _player_id(session, "alice"))["games"] == 4


def _player_id(session: Session, external_id: str) -> int:
    return session.execute(select(Player.id).where(Player.external_id == external_id)
                           ).scalar_one()


@pytest.mark.parametrize("word", ["hide", "verbergen"])
def test_hiding_twice_is_harmless(sqlite_engine: Engine, word: str) -> None:
    bot = Bot(sqlite_engine)
    bot.say(private(ALICE), ALICE, "stats", word)
    assert "keiner Bestenliste" in bot.say(private(ALICE), ALICE, "stats", "hide")


def test_matrix_reads_the_commands_and_names_them_with_a_bang() -> None:
    from chatbot.matrix.render import Intent, bang, parse

    assert parse("!stats hide") == Intent("command", "stats", "hide")
    assert parse("!statistik") == Intent("command", "stats")
    assert parse("!bestenliste runfast") == Intent("command", "top", "runfast")
    assert parse("/top") == Intent("command", "top")
    assert bang(S.tr("de", "st.now_hidden")) == (
        "Du erscheinst in keiner Bestenliste mehr. !stats show nimmt dich wieder auf.")


def test_a_backlog_is_read_in_bounded_steps_by_the_periodic_catch_up(
        db_engine: Engine) -> None:
    """A database upgraded with many results must not make somebody's /stats (or a sweep)
    hold the write lock for seconds: each call reads a bounded number of results, and the
    adapters' periodic ``Service.catch_up_stats`` drains the rest, to the same numbers."""
    from tests.conftest import make_service

    made = generate(db_engine, 1234, players=12, groups=2, seed=8, platform=P)
    service = make_service(db_engine)
    steps = []
    while n := service.catch_up_stats(limit=300):
        steps.append(n)
    assert sum(steps) == 1234 and max(steps) <= 300 and len(steps) >= 5
    _check(db_engine, made)  # the same as reading everything at once
    assert R.INLINE <= 1000 and R.PERIODIC <= 1000
