"""The league's rules (issue 48, part B), on SQLite and PostgreSQL with a simulated clock:
bad input and the holiday protection's once a month, how many divisions and who moves, hidden
people in no league, who leaves after four idle weeks and comes back in the lowest division,
old weeks going with the retention sweep, and a page's reading as plain data."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service.league import placing
from storage.models import LeagueHoliday, LeagueMember, LeagueWeek, StatsHidden
from storage.retention import Retention, sweep
from tests.chatbot.evenings import berlin
from tests.chatbot.league_world import (
    WEEK,
    members,
    person,
    player_id,
    quick_try,
    real_try,
    said,
)
from tests.chatbot.service.harness import Harness, P, assert_brief_refusal, private
from tests.conftest import FakeClock

# ---------------------------------------------------------------------------------- bad input


def test_bad_input_gets_a_short_answer_and_changes_nothing(db_engine: Engine) -> None:
    clock = FakeClock(berlin(-1, 10))
    h = Harness(db_engine, clock, cpu_delay=0.0)
    rng = random.Random(5)
    anna, bob, eve = person(0), person(1), person(2, "en")
    assert h.command(private(eve), eve, "start").ok
    lonely = h.command(private(eve), eve, "liga", "urlaub")  # in no league: nothing to protect
    assert_brief_refusal(lonely)
    assert lonely.text == "You are in no league this week: there is nothing to protect."
    assert said(h, private(eve), eve) == (
        "🏆 You are in no league yet. Play today's deal (/daily): your first counted deal "
        "puts you in the lowest division of that game's league.")
    for user in (anna, bob):
        quick_try(h, user, rng)
    clock.set(berlin(0, 9))
    h.service.open_league_weeks()
    assert said(h, private(anna), anna, "urlaub").startswith("🏖 Urlaubsschutz")

    def counts() -> tuple[int, ...]:
        with Session(db_engine) as session:
            return tuple(session.exec(select(func.count()).select_from(model)).one()
                         for model in (LeagueWeek, LeagueMember, LeagueHoliday))

    before = counts()
    for words, answer in (
            ("quatsch", "Das verstehe ich nicht: „quatsch“. /liga, /liga <Spiel> [Liga], "
                        "/liga gruppen oder /liga urlaub."),
            ("schwimmen 9", "Diese Liga gibt es nicht: die Liga für Schwimmen geht diese Woche bis zur "
                            "1. Liga."),
            ("schwimmen drei", None), ("gruppen quatsch", None), ("urlaub jetzt", None),
            ("urlaub", "Deinen Urlaubsschutz hast du diesen Monat schon genommen "
                       "(Woche 07.01.–13.01.): einmal im Monat.")):
        out = h.command(private(anna), anna, "liga", words)
        assert_brief_refusal(out)
        if answer is not None:
            assert out.text == answer
    # later in the month, another week: still refused; next month: granted
    clock.set(berlin(14, 9))
    h.service.open_league_weeks()
    assert_brief_refusal(h.command(private(anna), anna, "liga", "urlaub"))
    assert counts()[2] == before[2]
    clock.set(berlin(28, 9))  # Monday 04.02.
    h.service.open_league_weeks()
    assert said(h, private(anna), anna, "urlaub").startswith(
        "🏖 Urlaubsschutz für die Woche 04.02.–10.02.")
    # played this week already: the protection is for next week
    clock.set(berlin(35, 9))
    h.service.open_league_weeks()
    quick_try(h, bob, rng)
    assert said(h, private(bob), bob, "urlaub").startswith(
        "🏖 Du hast diese Woche schon gespielt, darum gilt der Urlaubsschutz für nächste "
        "Woche, 18.02.–24.02.")


# ---------------------------------------------------------------------------------- the rules


def test_divisions_of_about_twelve_to_twenty() -> None:
    """The number of divisions for a league of n people, their sizes, and when a week's
    divisions are kept or cut anew."""
    assert [placing.divisions_for(n) for n in (1, 11, 23, 24, 33, 40, 100)] == \
        [1, 1, 1, 2, 2, 3, 7]
    assert [len(d) for d in placing.cut([list(range(40))])] == [14, 13, 13]
    kept = [list(range(0, 14)), list(range(14, 27)), list(range(27, 45))]
    assert placing.cut(kept) == kept  # each between 8 and 24: as the moves lead
    grown = [list(range(0, 14)), list(range(14, 27)), list(range(27, 57))]
    assert [len(d) for d in placing.cut(grown)] == [15, 14, 14, 14]  # the lowest grew: anew
    assert placing.cut([[], []]) == []


def test_the_best_move_up_the_last_down_and_a_holiday_is_kept() -> None:
    entries = [placing.Entry(i, 2, points, played, holiday, seed=i)
               for i, points, played, holiday in (
                   (1, 30, 5, False), (2, 30, 4, False), (3, 25, 5, False), (4, 20, 5, False),
                   (5, 10, 2, False), (6, 0, 0, False), (7, 0, 0, True), (8, 0, 0, False))]
    ordered = placing.order(entries)
    assert [e.player_id for e in ordered] == [1, 2, 3, 4, 5, 6, 8, 7]
    assert placing.ranks(ordered) == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 8: 6, 7: None}
    assert placing.moves(ordered, 2, 3) == {1: "up", 2: "up", 3: "up", 4: "stay", 5: "down",
                                            6: "down", 8: "down", 7: "holiday"}
    assert set(placing.moves(ordered, 1, 3).values()) == {"stay", "down", "holiday"}
    assert set(placing.moves(ordered, 3, 3).values()) == {"stay", "up", "holiday"}


# ---------------------------------------------------------------------------------- keeping


def test_hidden_people_are_in_no_league_and_old_weeks_go(db_engine: Engine) -> None:
    clock = FakeClock(berlin(-1, 10))
    h = Harness(db_engine, clock, cpu_delay=0.0)
    rng = random.Random(7)
    anna, bob = person(0), person(1)
    quick_try(h, anna, rng)
    quick_try(h, bob, rng)
    with Session(db_engine) as session:
        session.add(StatsHidden(player_id=player_id(db_engine, bob), since=clock()))
        session.commit()
    clock.set(berlin(0, 9))
    h.service.open_league_weeks()
    assert [m.player_id for m in members(db_engine, WEEK)] == [player_id(db_engine, anna)]
    assert "Bob" not in said(h, private(anna), anna) and "Anna" in said(h, private(anna), anna)
    board, boards = h.service.league_sight(P, anna.external_id)  # (what a page renders)
    assert board is not None and boards == [board]
    assert (board.game, board.week, board.division, board.divisions, board.closed) == \
        ("schwimmen", WEEK, 1, 1, False)
    assert [(line.rank, line.name, line.points, line.days) for line in board.lines] == \
        [(1, "Anna", 0, (None,) * 7)]
    assert h.service.league_sight(P, bob.external_id, "schwimmen")[0] == board  # (not in it)
    assert h.service.league_sight(P, "nobody") == (None, [])
    said(h, private(anna), anna, "urlaub")
    for weeks_on in range(1, 15):  # anna plays on; the weeks are opened one after the other
        clock.set(berlin(7 * weeks_on, 9))
        h.service.open_league_weeks()
        quick_try(h, anna, rng)
    counts = sweep(db_engine, clock(), Retention())
    assert counts["league_member"] == 1 and counts["league_holiday"] == 1
    assert counts["league_week"] == 4  # the first week of each game
    with Session(db_engine) as session:
        assert min(session.exec(select(LeagueWeek.week)).all()) == "2030-01-14"


def test_who_plays_no_deal_for_four_weeks_leaves_and_comes_back_in_the_lowest_division(
        db_engine: Engine) -> None:
    clock = FakeClock(berlin(-1, 10))
    h = Harness(db_engine, clock, cpu_delay=0.0)
    rng = random.Random(11)
    anna, bob = person(0), person(1)
    for user in (anna, bob):
        quick_try(h, user, rng)
    for weeks_on in range(6):  # anna plays every week, bob never again
        clock.set(berlin(7 * weeks_on, 9))
        h.service.open_league_weeks()
        quick_try(h, anna, rng)
    bob_id = player_id(db_engine, bob)
    rows = [next((m for m in members(db_engine, WEEK + timedelta(days=7 * w))
                  if m.player_id == bob_id), None) for w in range(6)]
    assert [r.idle if r else None for r in rows] == [0, 1, 2, 3, None, None]
    assert rows[3] is not None and rows[3].moved == "left"
    assert said(h, private(bob), bob).startswith("🏆 Du bist noch in keiner Liga.")
    real_try(h, bob, random.Random(1))  # back: the lowest division, at once
    text = said(h, private(bob), bob)
    assert text.splitlines()[0] == "🏆 Liga · Schwimmen · 1. Liga von 1"
    assert "Letzte Woche" not in text
