"""A Stammtisch evening while it runs (issue 47), through the service on SQLite and PostgreSQL:
the answers close when it begins (who came: the yes-list then, and whoever played a game in
the group during it — only they, its planner or an admin close it), its lobby names the
evening as its host and may be started by the planner, an admin or anyone seated from the
yes-list, and every game counts once on the month's table, also where evenings overlapped
(as an older version let a group plan them)."""

from __future__ import annotations

import random

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storage.db import aware
from storage.models import Evening, EveningAnswer
from tests.chatbot.evenings import (
    answer,
    berlin,
    current,
    evenings,
    mark,
    open_table,
    play,
    rows_since,
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

PEOPLE = [ALICE, BOB, CAROL]


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(48)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    harness = Harness(db_engine, FakeClock(berlin(0, 12)), cpu_delay=0, next_round_delay=0)
    for user in (*PEOPLE, MALLORY):
        assert harness.command(private(user), user, "start").ok
    return harness


def begin(h: Harness, yes: list, game: str = "schwimmen") -> Evening:
    """Alice plans tonight's evening; ``yes`` say yes; it begins at 20:00."""
    assert h.command(GROUP, ALICE, "abend", f"heute 20:00 {game}").ok
    for user in yes:
        answer(h, user, "y")
    step(h, "soon")
    return step(h, "start")


def lobby_press(h: Harness, user: object, code: str) -> object:
    table = open_table(h)
    assert table is not None and table.id is not None
    return h.press(GROUP, user, h.buttons(GROUP, table.id)[code])  # type: ignore[arg-type]


def test_answers_close_when_the_evening_begins_and_a_late_yes_may_not_end_it(h: Harness
                                                                             ) -> None:
    evening = begin(h, [ALICE, BOB])
    late = f"v1:0:0:ev.a.{evening.id}.y"
    announcement = next(m for m in h.messages(GROUP) if m.text.startswith("🍻 Stammtisch Mo"))
    assert announcement.rows == []  # the answers closed with the start
    assert announcement.text.endswith("✅ Dabei (2): Alice, Bob\n(läuft)")
    out = h.press(GROUP, MALLORY, late)
    assert_brief_refusal(out)
    assert out.text == "Der Abend hat schon begonnen – Zu- und Absagen sind zu."
    with Session(h.engine) as session:
        assert len(session.exec(select(EveningAnswer)).all()) == 2
    denied = "Den Abend beendet, wer ihn geplant hat, ein Admin oder wer gekommen ist."
    for user in (MALLORY, CAROL):
        out = h.command(GROUP, user, "abend", "ende")
        assert_brief_refusal(out)
        assert out.text == denied
    # Carol did not say yes but plays a game of the evening: she came
    assert lobby_press(h, CAROL, "join").changed  # type: ignore[attr-defined]
    table = open_table(h)
    assert lobby_press(h, ALICE, "start").changed  # type: ignore[attr-defined]
    play(h, table.id, PEOPLE, 6)  # type: ignore[union-attr,arg-type]
    out = h.command(GROUP, MALLORY, "abend", "ende")
    assert out.text == denied
    assert h.command(GROUP, CAROL, "abend", "ende").ok
    assert evenings(h)[0].state == "closed"


def test_the_evenings_lobby_names_the_evening_and_its_yes_people_may_start_it(h: Harness
                                                                              ) -> None:
    begin(h, [BOB, ALICE, CAROL])
    table = open_table(h)
    assert table is not None and table.id is not None
    lobby = next(m for m in h.messages(GROUP) if m.text.startswith("🃏 Schwimmen"))
    assert lobby.text.split("\n")[:3] == ["🃏 Schwimmen – neuer Tisch", "🍻 Stammtisch-Abend",
                                          "Mitspieler (2–4):"]
    assert "Eröffnet von" not in lobby.text
    assert lobby_press(h, MALLORY, "join").changed  # type: ignore[attr-defined]
    assert lobby_press(h, CAROL, "leave").changed  # type: ignore[attr-defined]
    for user in (MALLORY, CAROL):  # not from the yes-list; from it, but no longer seated
        out = lobby_press(h, user, "start")
        assert_brief_refusal(out)  # type: ignore[arg-type]
        assert out.text == (  # type: ignore[attr-defined]
            "Das dürfen nur die, für die der Tisch eröffnet wurde, oder ein Admin.")
    out = lobby_press(h, BOB, "start")  # seat 1, from the yes-list
    assert out.ok and out.changed, out.text  # type: ignore[attr-defined]
    assert h.table(table.id).fsm_state != "lobby"


def test_the_planner_starts_the_lobby_without_having_said_yes(h: Harness) -> None:
    begin(h, [BOB, CAROL])
    out = lobby_press(h, ALICE, "start")
    assert out.ok and out.changed, out.text  # type: ignore[attr-defined]


def test_each_game_counts_once_on_the_month_table_though_evenings_overlapped(h: Harness
                                                                              ) -> None:
    evening = begin(h, PEOPLE)
    with Session(h.engine) as session:  # two more for the same night, as an older version
        for _ in range(2):                # let a group plan them, running too
            session.add(Evening(chat_id=evening.chat_id, starts_at=evening.starts_at,
                                hhmm=evening.hhmm, zone=evening.zone, state="running",
                                opener_id=evening.opener_id, started_at=evening.started_at,
                                created_at=evening.created_at))
        session.commit()
    table = open_table(h)
    assert lobby_press(h, ALICE, "start").changed  # type: ignore[attr-defined]
    before = mark(h)
    play(h, table.id, PEOPLE, 7)  # type: ignore[union-attr,arg-type]
    assert len([t for t in texts(rows_since(h, before, GROUP)) if t.startswith("🍺")]) == 1
    before = mark(h)
    assert h.command(GROUP, BOB, "deckel").ok
    assert h.command(GROUP, BOB, "top", "monat").ok
    sheet, month = texts(rows_since(h, before, GROUP))
    assert sheet.split("\n")[1:] == month.split("\n")[1:]  # the same points, not three times


def test_an_evening_that_begins_closes_one_still_running(h: Harness) -> None:
    """Left over from an older version: an evening due to start while another runs. The one
    running closes first (its summary), so one evening runs at a time."""
    evening = begin(h, PEOPLE)
    with Session(h.engine) as session:
        session.add(Evening(chat_id=evening.chat_id, starts_at=berlin(0, 21), hhmm=21 * 60,
                            zone=evening.zone, state="planned", opener_id=evening.opener_id,
                            due_kind="start", due_at=berlin(0, 21),
                            created_at=evening.created_at))
        session.commit()
    before = mark(h)
    step(h, "start")
    said = texts(rows_since(h, before, GROUP))
    summary = next(i for i, t in enumerate(said) if t.startswith("🍻 Der Stammtisch ist vorbei."))
    begins = next(i for i, t in enumerate(said) if t.startswith("🍻 Der Stammtisch beginnt!"))
    assert summary < begins
    assert [e.state for e in evenings(h)] == ["closed", "running"]
    assert aware(current(h).started_at) == berlin(0, 21)  # type: ignore[arg-type]
