"""A Stammtisch evening and the people's choices (issue 40), through the service on SQLite and
PostgreSQL: private reminders as their reminder settings and quiet hours allow (and never to
who said no), ``/stats hide`` on the month's table but not on the Deckel, the quarter's table,
calling evenings off, and bad input (forged or old buttons, words) answered briefly,
changing nothing."""

from __future__ import annotations

import random

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service.evening import scoresheet
from engine import schwimmen as S
from storage.models import Chat, EveningAnswer, GameTable, Move, Player, Result, Seat
from tests.chatbot.evenings import (
    answer,
    berlin,
    current,
    evening_buttons,
    evenings,
    mark,
    play,
    private_texts,
    rows_since,
    start_lobby,
    step,
    texts,
)
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    assert_brief_refusal,
    private,
)
from tests.conftest import FakeClock

DAVE = ALICE.__class__("dave", "Dave", language="en")


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(41)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    return Harness(db_engine, FakeClock(berlin(0, 9)), cpu_delay=0, next_round_delay=0)


def _set(h: Harness, external_id: str, **values: object) -> None:
    with Session(h.engine) as session:
        person = session.exec(select(Player).where(Player.external_id == external_id)).one()
        for key, value in values.items():
            setattr(person, key, value)
        session.add(person)
        session.commit()


def test_private_reminders_as_each_person_allows(h: Harness) -> None:
    h.clock.set(berlin(0, 12))
    for user in (ALICE, BOB, CAROL, DAVE, MALLORY):
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, ALICE, "abend", "fr 20:00 wöchentlich").ok
    step(h, "announce")
    for user, letter in ((ALICE, "y"), (BOB, "y"), (CAROL, "y"), (DAVE, "m"), (MALLORY, "n")):
        answer(h, user, letter)
    _set(h, "bob", reminders="off")
    _set(h, "carol", quiet_from=19 * 60, quiet_to=9 * 60)  # both reminders fall in them
    before = mark(h)
    step(h, "day")
    assert private_texts(h, ALICE, before) == ["🍻 Morgen um 20:00: Stammtisch in „Stammtisch“."]
    assert private_texts(h, BOB, before) == []  # reminders off
    assert private_texts(h, CAROL, before) == []  # quiet hours
    assert private_texts(h, DAVE, before) == ["🍻 Tomorrow at 20:00: Stammtisch in Stammtisch."]
    assert private_texts(h, MALLORY, before) == []  # said no
    group = texts(rows_since(h, before, GROUP))
    assert group == ["🍻 Morgen um 20:00: Stammtisch! Bisher dabei: Alice, Bob, Carol."]
    announcement = next(m.text for m in h.messages(GROUP) if m.text.startswith("🍻 Stammtisch"))
    assert "❔ Vielleicht: Dave" in announcement and "❌ Nicht dabei: Mallory" in announcement


def test_hidden_people_are_on_neither_the_deckel_nor_the_month(h: Harness) -> None:
    """``/stats hide`` keeps a person off every list (issue 47, finding 6): the Deckel too."""
    h.clock.set(berlin(0, 12))
    people = [ALICE, BOB, CAROL]
    for user in people:
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, CAROL, "stats", "hide").ok
    assert h.command(GROUP, ALICE, "abend", "heute 20:00 schwimmen").ok
    for user in people:
        answer(h, user, "y")
    step(h, "soon")
    step(h, "start")
    play(h, start_lobby(h, ALICE), people, 5)
    before = mark(h)
    assert h.command(GROUP, BOB, "deckel").ok
    sheet = texts(rows_since(h, before, GROUP))[0]
    assert "Alice · " in sheet and "Carol" not in sheet
    for words, title in (("monat", "🍻 Stammtisch-Tabelle Januar 2030"),
                         ("saison", "🍻 Stammtisch-Tabelle Q1 2030")):
        before = mark(h)
        assert h.command(GROUP, BOB, "top", words).ok
        table = texts(rows_since(h, before, GROUP))[0]
        assert table.startswith(title)
        assert "Alice" in table and "Bob" in table and "Carol" not in table
    before = mark(h)
    assert h.command(GROUP, BOB, "top").ok  # the leaderboard as before
    assert texts(rows_since(h, before, GROUP))[0].startswith("🏆")


def test_calling_off_and_bad_input_change_nothing(h: Harness) -> None:
    h.clock.set(berlin(0, 12))
    assert_brief_refusal(h.command(private(ALICE), ALICE, "abend", "fr 20:00"))
    assert h.command(GROUP, ALICE, "abend", "fr 20:00 wöchentlich").ok
    step(h, "announce")
    evening = current(h)
    before = (len(evenings(h)), evening.version, mark(h))
    for data in (f"v1:0:0:ev.a.{evening.id}.z", "v1:0:0:ev.a.999.y", "v1:0:0:ev.d.20991231",
                 "v1:0:0:ev.t.20300111.9999", "v1:0:0:ev.g.20300111.1200.w.chess",
                 "v1:0:0:ev.r.20300111.1200.q", "v1:0:0:ev.x", f"v1:0:0:ev.p.{evening.id}.joker",
                 "v1:0:0:ev.a.².y", "v1:0:0:ev.t.20300111.1²", "v1:0:0:ev.d.2030011²",
                 "v1:0:0:ev.p.1"):
        assert_brief_refusal(h.press(GROUP, BOB, data))
    assert_brief_refusal(h.press(private(BOB), BOB, "v1:0:0:ev.d.20300111"))
    for args in ("ende", "zone Europe/Vienna", "gestern 20:00", "fr 19:61", "31.2. 20:00"):
        assert_brief_refusal(h.command(GROUP, BOB, "abend", args))
    assert_brief_refusal(h.command(GROUP, BOB, "abend", "absagen"))  # not the planner
    assert (len(evenings(h)), current(h).version) == before[:2]
    with Session(h.engine) as session:
        assert not session.exec(select(EveningAnswer)).all()
    assert not [r for r in rows_since(h, before[2]) if r.chat_external_id == GROUP.external_id]

    old = evening_buttons(h)[f"ev.a.{evening.id}.y"]
    assert h.command(GROUP, ALICE, "abend", "absagen").ok
    assert h.service.fire_evenings() == 0
    assert [e.state for e in evenings(h)] == ["dropped"]
    out = h.press(GROUP, BOB, old)
    assert_brief_refusal(out)
    assert out.text == "Dieser Abend ist vorbei."
    admin = ALICE.__class__("alice", "Alice", language="de", is_admin=True)
    assert h.command(GROUP, admin, "abend", "zone Europe/Vienna").ok
    assert h.command(GROUP, BOB, "abend", "sa 21:00").ok
    assert current(h).zone == "Europe/Vienna"


def test_the_biggest_comeback_is_replayed_from_the_move_log(db_engine: Engine) -> None:
    """A game of Schwimmen whose winner trailed by two coins: the summary's comeback names
    them (the game is played on the engine, stored as its rows, replayed by ``deckel``)."""
    rng = random.Random(3)
    for seed in range(200):  # a game whose winner was two coins behind at some point
        state, codes = S.new_game(3, {}, seed), []
        while not S.is_over(state):
            code = rng.choice(S.legal_actions(state)).code
            state, _ = S.apply(state, code)
            codes.append(code)
        if state.winner is not None and max(
                max(s) - s[state.winner] for s in _coins_along(seed, codes)) >= 2:
            break
    else:
        raise AssertionError("no comeback in 200 games")
    when = berlin(4, 21)
    with Session(db_engine) as session:
        chat = Chat(platform="test", external_id="g-cb", kind="group", created_at=when)
        session.add(chat)
        session.flush()
        table = GameTable(chat_id=chat.id, game="schwimmen", seed=seed, fsm_state="finished",
                          created_at=when, updated_at=when, finished_at=when)
        session.add(table)
        session.flush()
        seats = [Seat(table_id=table.id, seat_no=i, name=n) for i, n in
                 enumerate(("Alma", "Bruno", "Cem"))]
        session.add_all(seats)
        session.add_all(Move(table_id=table.id, seq=i + 1, actor="player", code=c, at=when)
                        for i, c in enumerate(codes))
        result = Result(table_id=table.id, game="schwimmen", winners=[state.winner],
                        standings=[], finished_at=when)
        session.add(result)
        session.flush()
        deficit = max(max(s) - s[state.winner] for s in _coins_along(seed, codes))
        assert scoresheet.comeback(session, [(result, seats)]) == (
            ("Alma", "Bruno", "Cem")[state.winner], "schwimmen", deficit)
        result.winners = []  # nobody won: no comeback to name
        assert scoresheet.comeback(session, [(result, seats)]) is None


def _coins_along(seed: int, codes: list[str]) -> list[tuple[int, ...]]:
    state, seen = S.new_game(3, {}, seed), []
    for code in codes:
        state, _ = S.apply(state, code)
        seen.append(state.coins)
    return seen
