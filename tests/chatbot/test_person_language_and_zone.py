"""A person whose platform tells no language (Matrix) still has one, and a time zone (issue
47 item 16), through the service on a simulated clock: their first input gives them the
language of the chat it came from (its ``/language``, else the bot's default), ``/language``
in their private chat sets theirs, and ``/reminders zone …`` their time zone — quiet hours and
the end of a long clock follow it (Europe/Berlin for German)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import ChatRef, UserRef
from chatbot.service.core import quiet_hours
from storage.models import Player
from tests.chatbot.long_games import DAY0, berlin, mark, rows_to
from tests.chatbot.service.harness import Harness, until_a_turn_in_group
from tests.conftest import FakeClock, Postman

MX = "matrix"
CEM = UserRef("@cem:example.org", "Cem")  # Matrix says no language
DORA = UserRef("@dora:example.org", "Dora")
ROOM = ChatRef(MX, "!faeden:example.org", "group", "Stammtisch Fäden")


def dm(user: UserRef) -> ChatRef:
    return ChatRef(MX, f"!dm-{user.external_id[1:5]}:example.org", "private")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    harness = Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)
    harness.postman = Postman(db_engine, platform=MX, clock=harness.clock)
    harness.transport = harness.postman.transport
    return harness


def person(h: Harness, user: UserRef) -> Player:
    with Session(h.engine) as session:
        return session.exec(select(Player).where(Player.external_id == user.external_id)).one()


def utc(value: datetime | None) -> datetime:
    assert value is not None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def test_a_12h_clock_a_german_matrix_person_starts_monday_noon_ends_tuesday_8_in_berlin(
        h: Harness) -> None:
    h.clock.set(berlin(0, 12))  # Monday 12:00 in Berlin (winter: 11:00 UTC)
    for user in (CEM, DORA):
        assert h.command(dm(user), user, "start").ok
    out = h.command(ROOM, CEM, "new", "schwimmen clock=12h")
    assert out.ok and out.table_id
    assert h.press(ROOM, DORA, h.buttons(ROOM, out.table_id)["join"]).changed
    assert h.press(ROOM, CEM, h.buttons(ROOM, out.table_id)["start"]).changed
    until_a_turn_in_group(h, out.table_id)
    # 12 hours run to Tuesday 00:00, in the quiet hours (23:00-08:00 in Berlin): the clock
    # ends when they end, 08:00 in Berlin - not 08:00 UTC (09:00 in Berlin)
    assert utc(h.table(out.table_id).turn_ends_at) == berlin(1, 8)
    assert person(h, CEM).language == person(h, DORA).language == "de"


def test_the_first_input_gives_the_chats_language_and_language_in_private_sets_it(
        h: Harness) -> None:
    admin = UserRef("@ed:example.org", "Ed", is_admin=True)
    assert h.command(ROOM, admin, "language", "en").ok  # the room speaks English
    assert h.command(ROOM, CEM, "help").ok  # Cem's first input: in that room
    cem = person(h, CEM)
    assert cem.language == "en" and quiet_hours.zone_of(cem).key == "Europe/London"
    # his direct room speaks it (the service's messages there and the adapter's own)
    assert h.command(dm(CEM), CEM, "start").ok
    assert h.service.chat_language(MX, dm(CEM).external_id) == "en"
    assert h.service.chat_language(MX, ROOM.external_id) == "en"
    assert h.service.chat_language(MX, "!unknown:example.org") == "de"
    assert h.command(dm(DORA), DORA, "help").ok  # Dora's: in her direct room, the default
    assert person(h, DORA).language == "de"
    # /language in his direct room sets his own (and his zone's default with it)
    assert h.command(dm(CEM), CEM, "language", "de").ok
    cem = person(h, CEM)
    assert cem.language == "de" and quiet_hours.zone_of(cem).key == "Europe/Berlin"
    assert h.command(ROOM, CEM, "help").ok  # a later input in the English room keeps it
    assert person(h, CEM).language == "de"
    # a platform that says a language (Telegram) keeps deciding it
    told = UserRef("@fe:example.org", "Fe", language="en")
    assert h.command(dm(told), told, "language", "de").ok
    assert person(h, told).language == "en"


def test_reminders_zone_typed_sets_the_persons_time_zone(h: Harness) -> None:
    h.command(dm(CEM), CEM, "start")
    before = mark(h)
    out = h.command(dm(CEM), CEM, "erinnerungen", "zone Europe/Vienna")
    assert out.ok and out.text == "Gespeichert."
    assert person(h, CEM).time_zone == "Europe/Vienna"
    (view,) = [r for r in rows_to(h, dm(CEM), before) if r.slot == "reminders"]
    assert "Ruhezeit: 23:00–08:00 (Europe/Vienna)" in view.text
    labels = [label for row in view.buttons for label, _data in row]
    assert "✅ Vienna" in labels
    for typed, zone in (("zone new york", "America/New_York"), ("tz Wien", "Europe/Vienna"),
                        ("zeitzone asia/kolkata", "Asia/Kolkata")):
        assert h.command(dm(CEM), CEM, "reminders", typed).ok
        assert person(h, CEM).time_zone == zone
    out = h.command(dm(CEM), CEM, "reminders", "zone Mars/Olympus")
    assert not out.ok and out.text.startswith("Die Zeitzone „Mars/Olympus“ kenne ich nicht.")
    assert person(h, CEM).time_zone == "Asia/Kolkata"  # (nothing changed)
    # quiet hours in that zone: 23:00 in Kolkata is 17:30 UTC
    assert quiet_hours.in_quiet(person(h, CEM), datetime(2030, 1, 7, 17, 31, tzinfo=UTC))
    assert not quiet_hours.in_quiet(person(h, CEM), datetime(2030, 1, 7, 17, 29, tzinfo=UTC))
