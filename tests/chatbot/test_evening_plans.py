"""Planning Stammtisch evenings, the rules (issue 47), through the service on SQLite and
PostgreSQL: one evening at a time per group (an overlapping plan is refused, the evening it
meets named), at most four planned per group and two per person (a series counts once per
evening stored), the group's ``organisers`` setting obeyed when planning (typed or by
buttons) and calling off, and a date that does not exist (the leap day of a past February
among them) answered "no such date"."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service.core.organisers import ADMINS, set_organisers
from storage.db import aware
from storage.models import Chat, Player
from tests.chatbot.evenings import (
    answer,
    berlin,
    current,
    evening_buttons,
    evenings,
    mark,
    rows_since,
)
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    assert_brief_refusal,
)
from tests.conftest import FakeClock

BERLIN = ZoneInfo("Europe/Berlin")
ADMIN = ALICE.__class__("alice", "Alice", username="alice", language="de", is_admin=True)


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(47)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    return Harness(db_engine, FakeClock(berlin(0, 12)), cpu_delay=0, next_round_delay=0)


def refused(h: Harness, user: object, args: str) -> str:
    out = h.command(GROUP, user, "abend", args)  # type: ignore[arg-type]
    assert_brief_refusal(out)
    return out.text or ""


def planned(h: Harness) -> list[tuple[str, str]]:
    """(planner's external id, local day and hour) of the group's planned evenings."""
    with Session(h.engine) as session:
        names = {p.id: p.external_id for p in session.exec(select(Player)).all()}
    return [(names[e.opener_id], f"{aware(e.starts_at).astimezone(BERLIN):%d %H}")
            for e in evenings(h) if e.state == "planned"]


def fire(h: Harness, evening_id: int, kind: str) -> None:
    """The clock to an evening's next step, which must be ``kind``, and fired."""
    evening = next(e for e in evenings(h) if e.id == evening_id)
    assert evening.due_kind == kind and evening.due_at is not None, evening
    h.clock.set(aware(evening.due_at))
    assert h.service.fire_evenings() == 1


def test_an_overlapping_evening_is_refused_and_the_one_it_meets_named(h: Harness) -> None:
    assert h.command(GROUP, ALICE, "abend", "heute 20:00").ok  # Monday 20:00
    for typed in ("heute 22:00", "heute 20:00", "heute 15:00", "morgen 1:30"):  # < 6 h apart
        assert refused(h, BOB, typed) == \
            "Zu der Zeit gibt es schon einen Abend: Mo 07.01., 20:00."
    assert h.command(GROUP, BOB, "abend", "morgen 2:00").ok  # six hours after: its own evening
    # a weekly series meets every later evening at its time, not only the one stored
    assert h.command(GROUP, CAROL, "abend", "fr 20:00 wöchentlich").ok
    assert refused(h, MALLORY, "1.2. 21:00") == \
        "Zu der Zeit gibt es schon einen Abend: Fr 01.02., 20:00."
    assert refused(h, MALLORY, "sa 1:00 alle zwei wochen") == \
        "Zu der Zeit gibt es schon einen Abend: Fr 11.01., 20:00."  # a series meets a series
    # by buttons: the same refusal at the dialogue's last press
    out = h.press(GROUP, MALLORY, "v1:0:0:ev.g.20300111.1260.o.x")  # Friday 21:00
    assert_brief_refusal(out)
    assert out.text == "Zu der Zeit gibt es schon einen Abend: Fr 11.01., 20:00."
    assert len(evenings(h)) == 3


def test_at_most_four_planned_evenings_per_group_and_two_per_person(h: Harness) -> None:
    assert h.command(GROUP, ALICE, "abend", "di 20:00").ok
    assert h.command(GROUP, ALICE, "abend", "mi 20:00 wöchentlich").ok  # a series: one
    assert refused(h, ALICE, "do 20:00") == \
        "Du hast schon 2 Abende geplant – mehr geht nicht für eine Person."
    assert h.command(GROUP, BOB, "abend", "do 20:00").ok
    assert h.command(GROUP, BOB, "abend", "fr 20:00").ok
    limit = "Hier sind schon 4 Abende geplant – mehr geht nicht. /abend absagen sagt sie ab."
    assert refused(h, CAROL, "sa 20:00") == limit
    out = h.press(GROUP, CAROL, "v1:0:0:ev.g.20300112.1200.o.x")  # by buttons: the same
    assert_brief_refusal(out)
    assert out.text == limit
    before = mark(h)
    for _ in range(30):  # an ordinary member typing /abend again and again
        refused(h, MALLORY, "so 20:00")
    assert len(evenings(h)) == 4
    assert rows_since(h, before) == []  # nothing queued for the group, nothing pinned

    # a planner calls off their own planned evenings; the others' stay
    assert h.command(GROUP, BOB, "abend", "absagen").ok
    assert h.messages(GROUP)[-1].text == "🍻 Abgesagt: Do 10.01., 20:00 · Fr 11.01., 20:00."
    assert planned(h) == [("alice", "08 20"), ("alice", "09 20")]
    assert refused(h, CAROL, "absagen") == \
        "Geplante Abende sagt ab, wer sie geplant hat, oder ein Admin."
    assert h.command(GROUP, CAROL, "abend", "sa 20:00").ok
    # an administrator calls off every planned evening
    assert h.command(GROUP, ADMIN, "abend", "absagen").ok
    assert h.messages(GROUP)[-1].text == "🍻 Die geplanten Abende sind abgesagt."
    assert planned(h) == []
    # a weekly series whose evening closed, its next one stored, still counts as one
    assert h.command(GROUP, ALICE, "abend", "heute 20:00 wöchentlich").ok
    series = evenings(h)[-1].id
    assert h.command(GROUP, ALICE, "abend", "do 20:00").ok
    for kind in ("soon", "start", "close"):
        fire(h, series, kind)  # type: ignore[arg-type]
    assert [e.state for e in evenings(h)[-3:]] == ["closed", "planned", "planned"]
    assert refused(h, ALICE, "sa 20:00").startswith("Du hast schon 2 Abende geplant")


def test_a_running_series_keeps_its_place_among_the_four(h: Harness) -> None:
    """A weekly evening that runs stores its next one when it closes: it counts already."""
    assert h.command(GROUP, ALICE, "abend", "heute 20:00 wöchentlich").ok
    series = evenings(h)[-1].id
    for kind in ("soon", "start"):
        fire(h, series, kind)  # type: ignore[arg-type]
    for user, typed in ((BOB, "di 20:00"), (BOB, "mi 20:00"), (CAROL, "do 20:00")):
        assert h.command(GROUP, user, "abend", typed).ok
    assert refused(h, MALLORY, "fr 20:00").startswith("Hier sind schon 4 Abende geplant")
    fire(h, series, "close")
    assert [e.state for e in evenings(h)].count("planned") == 4


def _admins_organise(h: Harness) -> None:
    with Session(h.engine) as session:
        chat = session.exec(select(Chat).where(Chat.external_id == GROUP.external_id)).one()
        set_organisers(session, chat, ADMINS)
        session.commit()


def test_when_only_admins_organise_others_neither_plan_nor_call_off(h: Harness) -> None:
    assert h.command(GROUP, BOB, "abend", "fr 20:00").ok  # (before the group chose so)
    _admins_organise(h)
    only = "In dieser Gruppe planen und sagen nur die Admins Abende ab."
    for args in ("", "sa 20:00", "absagen"):
        assert refused(h, BOB, args) == only
    assert h.command(GROUP, ADMIN, "abend").ok  # the dialogue, opened by an admin
    days = evening_buttons(h)
    out = h.press(GROUP, BOB, days["ev.d.20300112"])  # pressed on by somebody else
    assert_brief_refusal(out)
    assert out.text == only
    out = h.press(GROUP, BOB, "v1:0:0:ev.g.20300112.1200.o.x")
    assert_brief_refusal(out)
    assert out.text == only
    assert len(evenings(h)) == 1
    for code in ("ev.d.20300112", "ev.t.20300112.1200", "ev.r.20300112.1200.o",
                 "ev.g.20300112.1200.o.x"):
        assert h.press(GROUP, ADMIN, f"v1:0:0:{code}").ok
    assert len(evenings(h)) == 2
    # answering is no organising: everybody still answers
    assert answer(h, BOB, "y") == "Notiert: ✅ Bin dabei"
    assert h.command(GROUP, ADMIN, "abend", "absagen").ok
    assert [e.state for e in evenings(h)] == ["dropped", "dropped"]


def test_a_date_that_does_not_exist_is_answered_no_such_date(h: Harness) -> None:
    h.clock.set(datetime(2032, 2, 1, 11, tzinfo=UTC))  # before the leap day of 2032: a day
    assert h.command(GROUP, ALICE, "abend", "29.2. 20:00").ok
    assert aware(current(h).starts_at) == datetime(2032, 2, 29, 19, tzinfo=UTC)
    h.clock.set(datetime(2032, 3, 1, 11, tzinfo=UTC))  # after it: next year has none
    for typed, day in (("29.2. 20:00", "29.2."), ("31.4. 20:00", "31.4."),
                       ("30.2. 19:00 wöchentlich", "30.2."), ("12.13. 20:00", "12.13.")):
        assert refused(h, BOB, typed) == f"Diesen Tag gibt es nicht: {day}"
    assert len(evenings(h)) == 1
