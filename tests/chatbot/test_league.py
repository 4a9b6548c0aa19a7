"""The league across groups (issue 48, part B), on SQLite and PostgreSQL with a simulated clock:
a week of 40 people in three divisions — placed by rating in the league's first week, every
day's counted try scored within the division, a newcomer in the lowest division, the holiday
protection, the week's end moving the best up and the last down, once, with two services on
one database and after a restart — the division's table as the person reads it (German and
English), a group's places, the groups' table, the morning post's places; bad input."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import ChatRef, Service
from storage.models import LeagueMember, LeagueWeek, Rating
from tests.chatbot.evenings import berlin
from tests.chatbot.league_world import (
    WEEK,
    expected_order,
    expected_points,
    members,
    person,
    player_id,
    quick_try,
    real_try,
    said,
)
from tests.chatbot.service.harness import Harness, P, assert_brief_refusal, private
from tests.conftest import FakeClock, make_service

GROUPS = {"g-1": ("Stammtisch", range(0, 6)), "g-2": ("Skatfreunde", range(14, 20)),
          "g-3": ("Kegelclub", range(27, 34))}


def _group(key: str) -> ChatRef:
    return ChatRef(P, key, "group", GROUPS[key][0])


def _opened_once(h: Harness) -> None:
    """The week's step run by two services on one database, then by a restarted one: the
    running week of each game is opened once."""
    second = make_service(h.engine, h.clock, cpu_delay=0.0)
    assert h.service.open_league_weeks() == 4  # one week per game
    assert second.open_league_weeks() == 0
    assert make_service(h.engine, h.clock).open_league_weeks() == 0


def test_a_week_of_forty_people_in_three_divisions(db_engine: Engine) -> None:
    clock = FakeClock(berlin(-1, 10))  # Sunday before the league's first week
    h = Harness(db_engine, clock, cpu_delay=0.0)
    rng = random.Random(48)
    people = [person(i, "en" if i == 20 else "de") for i in range(40)]
    for user in people:
        assert h.command(private(user), user, "start").ok
    for key, (_title, who) in GROUPS.items():
        for i in who:
            assert h.command(_group(key), people[i], "help").ok  # members of the group
    for user in people:  # the week before: everybody plays the daily deal once
        clock.advance(30)
        quick_try(h, user, rng)
    h.service.catch_up_stats()

    # Monday 00:00 in Berlin: the first week, placed by rating, 14/13/13
    clock.set(berlin(0, 0))
    _opened_once(h)
    week = members(db_engine, WEEK)
    sizes = [sum(1 for m in week if m.division == d) for d in (1, 2, 3)]
    assert sizes == [14, 13, 13]
    with Session(db_engine) as session:
        rated = {r.player_id: r.mu - 3 * r.sigma for r in session.exec(select(Rating).where(
            Rating.game == "schwimmen", Rating.player_id.is_not(None))).all()}  # type: ignore[union-attr]
    for upper, lower in ((1, 2), (2, 3)):
        assert min(rated[m.player_id] for m in week if m.division == upper) >= \
            max(rated[m.player_id] for m in week if m.division == lower)
    ids = {user.external_id: player_id(db_engine, user) for user in people}
    by_id = {pid: user for user in people for key, pid in ids.items() if key == user.external_id}
    seat = {(m.division, m.seed): by_id[m.player_id] for m in week}
    holiday, idle = seat[(1, 14)], {seat[(1, 12)], seat[(1, 13)]}
    real = [seat[(1, 1)], seat[(2, 1)], seat[(3, 1)]]
    english = by_id[ids[people[20].external_id]]
    newcomer = person(40)

    # the holiday protection, before playing: this week; a second time this month: refused
    clock.set(berlin(0, 9))
    text = said(h, private(holiday), holiday, "urlaub")
    assert text == ("🏖 Urlaubsschutz für die Woche 07.01.–13.01.: du behältst in jeder Liga "
                    "deinen Platz und bekommst in dieser Woche keine Punkte.")
    again = h.command(private(holiday), holiday, "liga", "urlaub")
    assert_brief_refusal(again)
    assert again.text == ("Deinen Urlaubsschutz hast du diesen Monat schon genommen "
                          "(Woche 07.01.–13.01.): einmal im Monat.")

    for day in range(7):  # the week: most play every day
        clock.set(berlin(day, 10))
        for user in people:
            clock.advance(20)
            if user in idle or (user is holiday and day != 1) or \
                    (user not in real and rng.random() < 0.15):
                continue
            if user in real:
                real_try(h, user, random.Random(f"{user.external_id}{day}"))
            else:
                quick_try(h, user, rng)
        if day >= 2:  # a newcomer from Wednesday on, with real games
            real_try(h, newcomer, random.Random(day))
        if day == 2:
            _midweek(h, people, ids, holiday, english, newcomer)

    # Sunday evening: the groups' table of the week
    clock.set(berlin(6, 21))
    _groups_table(h, people, ids, holiday)

    # Monday 00:00: the week ends once; the best move up, the last down, the holiday kept
    clock.set(berlin(7, 0))
    _opened_once(h)
    ended = members(db_engine, WEEK)
    ids[newcomer.external_id] = player_id(db_engine, newcomer)
    away = {ids[holiday.external_id]}
    per = expected_points(db_engine, WEEK, {m.player_id: m.division for m in ended
                                            if m.player_id not in away})
    heading: dict[int, list[int]] = {1: [], 2: [], 3: []}
    for division in (1, 2, 3):
        rows = [m for m in ended if m.division == division]
        order = expected_order(rows, per, away)
        playing = [p for p in order if p not in away]
        up = [p for p in playing if sum(d or 0 for d in per[p]) > 0][:3] if division > 1 else []
        down = [p for p in playing if p not in up][-3:] if division < 3 else []
        stored = {m.player_id: m for m in rows}
        for p in order:
            want = "up" if p in up else "down" if p in down else \
                "holiday" if p in away else "stay"
            assert stored[p].moved == want, (division, p)
            assert stored[p].points == (0 if p in away else sum(d or 0 for d in per[p]))
        for p in order:
            to = division - 1 if p in up else division + 1 if p in down else division
            heading[to].append(p)
    assert {m.player_id for m in ended if m.division == 3} >= {ids[newcomer.external_id]}
    assert all(ids[u.external_id] in {m.player_id for m in ended if m.moved == "down"}
               for u in idle)
    after = members(db_engine, WEEK + timedelta(days=7))
    for division in (1, 2, 3):
        assert {m.player_id for m in after if m.division == division} == set(heading[division])
    assert next(m for m in after if m.player_id == ids[holiday.external_id]).division == 1

    # Monday: how the week ended, privately and in the group's morning post
    clock.set(berlin(7, 8))
    promoted = by_id[next(m.player_id for m in ended if m.division == 2 and m.moved == "up")]
    rank = next(m.rank for m in ended if m.player_id == ids[promoted.external_id])
    text = said(h, private(promoted), promoted)
    assert text.splitlines()[0] == "🏆 Liga · Schwimmen · 1. Liga von 3"
    assert text.splitlines()[1] == "Woche 14.01.–20.01. · Tag 1 von 7"
    assert f"Letzte Woche: Platz {rank} in der 2. Liga – Aufstieg in die 1. Liga" in text
    assert h.service.post_daily(P) >= 1
    post = h.messages(_group("g-1"))[-1].text
    lines = post.splitlines()
    line = lines[lines.index("🏆 Liga, Woche 07.01.–13.01. (Endstand):") + 1]
    assert line.startswith("Schwimmen: ")
    for i in GROUPS["g-1"][1]:
        m = next(m for m in ended if m.player_id == ids[people[i].external_id])
        shown = f"{people[i].name} ({m.division}. Liga, Platz {m.rank})" if m.rank else \
            f"{people[i].name} ({m.division}. Liga, Urlaub)"
        assert shown in line


def _midweek(h: Harness, people, ids, holiday, english, newcomer) -> None:  # type: ignore[no-untyped-def]
    """Wednesday: the division's table as two people read it, the newcomer in the lowest
    division, a group's members' places."""
    engine = h.engine
    week = members(engine, WEEK)
    away = {ids[holiday.external_id]}
    per = expected_points(engine, WEEK, {m.player_id: m.division for m in week
                                         if m.player_id not in away}, days=3)
    me = next(m for m in week if m.division == 2 and m.seed == 5)
    user = next(u for u in people if ids[u.external_id] == me.player_id)
    text = said(h, private(user), user)
    lines = text.splitlines()
    assert lines[:3] == ["🏆 Liga · Schwimmen · 2. Liga von 3", "Woche 07.01.–13.01. · Tag 3 von 7",
                         "```"]
    assert lines[3] == "  # Name          Pkt Tage"
    rows = [m for m in week if m.division == 2]
    order = expected_order(rows, per, away)
    points = {p: sum(d or 0 for d in per[p]) for p in order}
    shown = lines[4:4 + len(order)]
    assert [x[4:16].strip() for x in shown] == \
        [next(u.name for u in people if ids[u.external_id] == p) for p in order]
    assert [int(x[16:21]) for x in shown] == [points[p] for p in order]
    own = next(x for x in shown if x.endswith("◀"))
    assert user.name in own
    better = sum(1 for p in order if points[p] > points[me.player_id]
                 or (points[p] == points[me.player_id] and
                     sum(1 for d in per[p] if d is not None) >
                     sum(1 for d in per[me.player_id] if d is not None)))
    assert f"Du: Platz {better + 1} von 13 · {points[me.player_id]} Punkte" in lines
    days = " · ".join(f"{wd} {'–' if v is None else v}"
                      for wd, v in zip(("Mo", "Di", "Mi"), per[me.player_id], strict=False))
    assert f"Deine Tage: {days}" in lines
    assert "↑ Aufstieg · ↓ Abstieg, wenn die Woche jetzt endete · 🏖 Urlaub" in lines
    # English
    text = said(h, private(english), english)
    assert text.splitlines()[1] == "Week 07.01.–13.01. · day 3 of 7"
    assert text.splitlines()[0].startswith("🏆 League · Schwimmen (31) · division ")
    assert any(x.startswith("You: place ") and " points" in x for x in text.splitlines())
    assert any(x.startswith("Your days: Mon ") for x in text.splitlines())
    # the newcomer joined the lowest division with their first counted deal
    text = said(h, private(newcomer), newcomer)
    assert text.splitlines()[0] == "🏆 Liga · Schwimmen · 3. Liga von 3"
    assert "Deine Tage: Mo – · Di – · Mi " in text
    # the holiday: in the table, no rank, no points
    text = said(h, private(holiday), holiday)
    assert "Du hast diese Woche Urlaub: du behältst deine Liga." in text
    assert any(x.startswith("  – " + holiday.name) and x.endswith("🏖 ◀")
               for x in text.splitlines())
    # in a group: its members' places
    text = said(h, _group("g-1"), people[0])
    lines = text.splitlines()
    assert lines[:2] == ["🏆 Diese Gruppe in der Liga · Woche 07.01.–13.01., Tag 3 von 7",
                         "Schwimmen:"]
    block = lines[3:lines.index("```", 3)]
    assert sorted(x[16:28].strip() for x in block) == \
        sorted(people[i].name for i in GROUPS["g-1"][1])


def _groups_table(h: Harness, people, ids, holiday) -> None:  # type: ignore[no-untyped-def]
    """The groups' table: each group scores the sum of its best three members' points."""
    week = members(h.engine, WEEK)
    away = {ids[holiday.external_id]}
    per = expected_points(h.engine, WEEK, {m.player_id: m.division for m in week
                                           if m.player_id not in away})
    score = {key: sum(sorted((sum(d or 0 for d in per.get(ids[people[i].external_id], []))
                              for i in who if ids[people[i].external_id] not in away),
                             reverse=True)[:3])
             for key, (_title, who) in GROUPS.items()}
    order = sorted(GROUPS, key=lambda k: (-score[k], GROUPS[k][0].lower()))
    text = said(h, _group("g-2"), people[14], "gruppen")
    lines = text.splitlines()
    assert lines[0] == "👥 Gruppenliga · Schwimmen · Woche 07.01.–13.01."
    rows = lines[2:2 + len(GROUPS)]
    assert [x[4:22].strip() for x in rows] == [GROUPS[k][0] for k in order]
    assert [int(x[22:]) for x in rows] == [score[k] for k in order]
    assert "Eine Gruppe zählt die Punkte ihrer 3 besten Mitglieder dieser Woche." in lines
    place = order.index("g-2") + 1
    assert f"Diese Gruppe: Platz {place} von 3, {score['g-2']} Punkte" in lines


# ---------------------------------------------------------------------------------- once only


def test_two_services_open_a_week_at_once_and_it_is_opened_once(db_engine: Engine) -> None:
    """The week's step claimed by two services at the same moment (threads): each game's
    week is opened once, its people placed once."""
    clock = FakeClock(berlin(-1, 10))
    h = Harness(db_engine, clock, cpu_delay=0.0)
    rng = random.Random(3)
    people = [person(i) for i in range(14)]
    for user in people:
        quick_try(h, user, rng)
    clock.set(berlin(0, 0, 1))
    services = [make_service(db_engine, clock) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        opened = list(pool.map(Service.open_league_weeks, services))
    assert sum(opened) == 4
    with Session(db_engine) as session:
        assert session.exec(select(func.count()).select_from(LeagueWeek)).one() == 4
        assert session.exec(select(func.count()).select_from(LeagueMember)).one() == 14
    assert [m.division for m in members(db_engine, WEEK)] == [1] * 14
