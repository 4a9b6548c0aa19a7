"""A Stammtisch evening through the service (issue 40), on SQLite and PostgreSQL, on a
simulated clock: a weekly evening planned, announced two days before, answered by three
people, reminded privately and in the group, started with the three seated, three games
played with a restart in the middle of the second, the Deckel after each game and the
summary checked against the results table; the next week's evening planned at 20:00 local
time across the change to summer time; the month's winner posted once."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storage.db import aware
from storage.models import Outbox, Player
from tests.chatbot.evenings import (
    answer,
    berlin,
    current,
    evening_buttons,
    evenings,
    expected_deckel,
    mark,
    new_game,
    open_table,
    play,
    private_texts,
    rows_since,
    shown,
    start_lobby,
    step,
    texts,
)
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness, private
from tests.conftest import FakeClock

PEOPLE = [ALICE, BOB, CAROL]


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(40)  # reproducible table seeds
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    return Harness(db_engine, FakeClock(berlin(0, 9)), cpu_delay=0, next_round_delay=0)


def plan_weekly(h: Harness) -> None:
    h.clock.set(berlin(0, 12))  # Monday noon
    for user in PEOPLE:
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, ALICE, "abend", "fr 20:00 wöchentlich schwimmen")
    assert out.ok, out.text


def test_a_weekly_evening_from_plan_to_summary(h: Harness) -> None:
    plan_weekly(h)
    evening = current(h)
    assert evening.repeat == "weekly" and evening.game == "schwimmen"
    assert aware(evening.starts_at) == berlin(4, 20)  # Friday 20:00 in Berlin
    assert evening.due_kind == "announce" and aware(evening.due_at) == berlin(2, 20)
    assert "🍻 Geplant: Fr 11.01., 20:00." in texts(rows_since(h, 0, GROUP))

    before = mark(h)
    step(h, "announce")  # Wednesday 20:00: two days before
    posted = rows_since(h, before, GROUP)
    assert [r.action for r in posted] == [None, "pin"]
    assert posted[0].text.startswith("🍻 Stammtisch Fr 11.01., 20:00 · jede Woche")
    assert "Geplant: Schwimmen" in posted[0].text
    labels = [b[0] for row in posted[0].buttons for b in row]
    assert labels == ["✅ Bin dabei", "❔ Vielleicht", "❌ Kann nicht"]

    assert answer(h, BOB, "y") == "Notiert: ✅ Bin dabei"
    answer(h, CAROL, "m")
    answer(h, ALICE, "y")
    answer(h, CAROL, "y")  # the last answer counts
    shown_now = h.messages(GROUP)
    announcement = next(m for m in shown_now if m.text.startswith("🍻 Stammtisch Fr"))
    assert "✅ Dabei (3): Bob, Alice, Carol" in announcement.text
    assert "Vielleicht" not in announcement.text.split("\n")[3]

    before = mark(h)
    step(h, "day")  # Thursday 20:00
    group = texts(rows_since(h, before, GROUP))
    assert group == ["🍻 Morgen um 20:00: Stammtisch! Bisher dabei: Bob, Alice, Carol."]
    for user in PEOPLE:
        assert private_texts(h, user, before) == ["🍻 Morgen um 20:00: Stammtisch in „Stammtisch“."]

    before = mark(h)
    step(h, "soon")  # Friday 19:30
    assert len(texts(rows_since(h, before, GROUP))) == 1
    for user in PEOPLE:
        assert private_texts(h, user, before) == [
            "🍻 In 30 Minuten (20:00): Stammtisch in „Stammtisch“."]

    before = mark(h)
    step(h, "start")  # Friday 20:00: the lobby with the three seated
    assert h.clock() == berlin(4, 20)
    table = open_table(h)
    assert table is not None and table.game == "schwimmen"
    assert [s.name for s in h.seats(table.id)] == ["Bob", "Alice", "Carol"]  # type: ignore[arg-type]
    assert any(t.startswith("🍻 Der Stammtisch beginnt") for t in texts(
        rows_since(h, before, GROUP)))
    started = h.clock()

    first = start_lobby(h, ALICE)  # the table is opened in the name of who planned it
    before = mark(h)
    play(h, first, PEOPLE, 1)
    lines = [t for t in texts(rows_since(h, before, GROUP)) if t.startswith("🍺 Deckel:")]
    assert len(lines) == 1
    assert_line(h, lines[0], started)

    second = new_game(h, [ALICE, BOB, CAROL])
    h.run_deadlines(second, kinds=("next", "cpu"))
    h.service = Harness(h.engine, h.clock).service  # a restart in the middle of the game
    before = mark(h)
    play(h, second, PEOPLE, 2)
    lines = [t for t in texts(rows_since(h, before, GROUP)) if t.startswith("🍺 Deckel:")]
    assert len(lines) == 1
    assert_line(h, lines[0], started)

    third = new_game(h, [CAROL, ALICE, BOB])
    before = mark(h)
    play(h, third, PEOPLE, 3)
    lines = [t for t in texts(rows_since(h, before, GROUP)) if t.startswith("🍺 Deckel:")]
    assert_line(h, lines[0], started)

    before = mark(h)
    assert h.command(GROUP, BOB, "deckel").ok
    sheet = texts(rows_since(h, before, GROUP))[0]
    assert sheet.startswith("🍺 Der Deckel dieses Abends (3 Spiele)")
    expected = expected_deckel(h, started)
    assert sum(expected.values()) == 3 * 3  # 2+1+0 per game of three
    for name, points in expected.items():
        assert f"{name} · {shown(points)}" in sheet

    before = mark(h)
    h.clock.advance(600)
    assert h.command(GROUP, CAROL, "abend", "ende").ok
    rows = rows_since(h, before, GROUP)
    assert "unpin" in [r.action for r in rows]
    summary = next(t for t in texts(rows) if t.startswith("🍻 Der Stammtisch ist vorbei"))
    assert "Spiele: 3× Schwimmen" in summary
    assert sheet.split("\n", 1)[1] in summary  # the same table
    assert "Längstes Spiel: Schwimmen" in summary
    assert any(t.startswith("Nächster Stammtisch: Fr 18.01., 20:00.") for t in texts(rows))
    nxt = current(h)
    assert nxt.state == "planned" and aware(nxt.starts_at) == berlin(11, 20)
    assert nxt.due_kind == "announce" and aware(nxt.due_at) == berlin(9, 20)
    # nothing of the closed evening fires again
    assert h.service.fire_evenings() == 0


def assert_line(h: Harness, line: str, started: datetime) -> None:
    expected = expected_deckel(h, started)
    best = sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))
    assert line == "🍺 Deckel: " + " · ".join(f"{n} {shown(p)}" for n, p in best)


def test_too_few_people_get_the_games_that_fit(h: Harness) -> None:
    h.clock.set(berlin(0, 12))
    assert h.command(GROUP, ALICE, "abend", "heute 20:00 joker").ok  # once: announced at once
    answer(h, ALICE, "y")
    answer(h, BOB, "y")
    step(h, "soon")  # (no reminder the day before: planned on the day)
    before = mark(h)
    step(h, "start")
    offer = next(r for r in rows_since(h, before, GROUP) if r.text.startswith("🍻 Joker"))
    assert "mindestens 4" in offer.text and "2 sind dabei" in offer.text
    games = [b[0] for row in offer.buttons for b in row]
    assert "Schwimmen" in games and "Joker-Aufstieg" not in " ".join(games)
    data = evening_buttons(h)[f"ev.p.{current(h).id}.schwimmen"]
    out = h.press(GROUP, BOB, data)
    assert out.ok and out.table_id
    assert [s.name for s in h.seats(out.table_id)] == ["Alice", "Bob"]


def test_summer_time_keeps_twenty_o_clock(h: Harness) -> None:
    """An evening every two weeks from before the change to summer time (31 March 2030)."""
    h.clock.set(datetime(2030, 3, 18, 12, tzinfo=UTC))
    assert h.command(GROUP, ALICE, "abend", "fr 20:00 alle zwei wochen").ok
    first = current(h)
    assert aware(first.starts_at) == datetime(2030, 3, 22, 19, tzinfo=UTC)  # UTC+1
    for kind in ("announce", "day", "soon", "start", "close"):
        step(h, kind)
    second = current(h)
    assert aware(second.starts_at) == datetime(2030, 4, 5, 18, tzinfo=UTC)  # UTC+2: 20:00


def test_the_dialogue_by_buttons_in_english(h: Harness) -> None:
    h.clock.set(berlin(0, 12))
    admin = ALICE.__class__("alice", "Alice", username="alice", language="en", is_admin=True)
    assert h.command(GROUP, admin, "language", "en").ok
    assert h.command(GROUP, admin, "abend").ok
    days = evening_buttons(h)
    assert list(days)[:2] == ["ev.d.20300107", "ev.d.20300108"]
    assert h.messages(GROUP)[-1].text == "🍻 Stammtisch: which day?"
    h.press(GROUP, BOB, days["ev.d.20300111"])
    assert h.messages(GROUP)[-1].text.startswith("🍻 Stammtisch on Fri 1/11: at what time?")
    h.press(GROUP, BOB, evening_buttons(h)["ev.t.20300111.1200"])
    h.press(GROUP, BOB, evening_buttons(h)["ev.r.20300111.1200.b"])
    assert h.press(GROUP, BOB, evening_buttons(h)["ev.g.20300111.1200.b.x"]).ok
    evening = current(h)
    assert evening.repeat == "biweekly" and evening.game is None
    assert evening.zone == "Europe/London"  # an English group's zone until it chooses one
    assert aware(evening.starts_at) == datetime(2030, 1, 11, 20, tzinfo=UTC)
    assert "🍻 Planned: Fri 1/11, 20:00." in [m.text for m in h.messages(GROUP)]
    # bad input: a short answer, nothing changes
    for args in ("someday 25:00", "fr", "fr 20:00 nonsensegame", "zone Mars/Base"):
        out = h.command(GROUP, admin, "abend", args)
        assert not out.ok and out.text and "\n" not in out.text
    out = h.command(GROUP, BOB, "deckel")
    assert not out.ok and out.text == "No evening is running here. /abend plans one."
    assert len(evenings(h)) == 1


def test_month_winner_posted_once(h: Harness) -> None:
    h.clock.set(berlin(21, 12))  # Monday 28 January
    for user in PEOPLE:
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, ALICE, "abend", "mi 20:00 wöchentlich schwimmen").ok
    step(h, "announce")
    for user in PEOPLE:
        answer(h, user, "y")
    for kind in ("day", "soon", "start"):
        step(h, kind)
    table_id = start_lobby(h, ALICE)
    play(h, table_id, PEOPLE, 4)
    started = aware(evenings(h)[0].started_at)  # type: ignore[arg-type]
    best = sorted(expected_deckel(h, started).items(), key=lambda kv: -kv[1])
    before = mark(h)
    assert h.command(GROUP, ALICE, "top", "monat").ok
    top = texts(rows_since(h, before, GROUP))[0]
    assert top.startswith("🍻 Stammtisch-Tabelle Januar 2030")
    step(h, "close")
    step(h, "announce")  # the next Wednesday is in February
    for user in PEOPLE:
        answer(h, user, "y")
    before = mark(h)
    for kind in ("day", "soon", "start"):
        step(h, kind)
    kings = [t for t in texts(rows_since(h, before, GROUP)) if t.startswith("👑")]
    winners = [n for n, p in best if p == best[0][1]]
    assert kings == [f"👑 Stammtischkönig(in) im Januar 2030: {', '.join(winners)} "
                     f"({shown(best[0][1])} Punkte)"]
    # the next evening of February posts nothing more
    step(h, "close")
    before = mark(h)
    for kind in ("announce", "day", "soon", "start"):
        step(h, kind)
    assert not [t for t in texts(rows_since(h, before, GROUP)) if t.startswith("👑")]


def test_two_services_on_one_database_announce_and_remind_once(h: Harness) -> None:
    """Two processes (two services on the same database) sweep at the same moments: every
    step is claimed once."""
    other = Harness(h.engine, h.clock)
    plan_weekly(h)
    fired = 0
    for kind in ("announce", "day", "soon", "start"):
        if kind == "day":
            for user in PEOPLE:
                answer(h, user, "y")
        evening = current(h)
        assert evening.due_kind == kind
        h.clock.set(aware(evening.due_at))  # type: ignore[arg-type]
        with ThreadPoolExecutor(2) as pool:  # both sweep at once
            fired += sum(pool.map(lambda s: s.fire_evenings(), (h.service, other.service)))
        assert h.service.fire_evenings() + other.service.fire_evenings() == 0
    assert fired == 4
    with Session(h.engine) as session:
        rows = session.exec(select(Outbox)).all()
        bob = session.exec(select(Player).where(Player.external_id == "bob")).one()
    group = [r.text for r in rows if r.chat_external_id == GROUP.external_id]
    assert sum(t.startswith("🍻 Stammtisch Fr") for t in group) >= 1
    assert sum(t.startswith("🍻 Morgen um") for t in group) == 1
    assert sum(t.startswith("🍻 In 30 Minuten") for t in group) == 1
    to_bob = [r.text for r in rows if r.chat_external_id == bob.private_chat_id]
    assert sum(t.startswith("🍻") for t in to_bob) == 2
    assert h.clock() == berlin(4, 20)
