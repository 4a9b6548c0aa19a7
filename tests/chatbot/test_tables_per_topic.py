"""A table belongs to the topic or thread it was opened in (issue 47): every typed command
about "the table here" acts on the table of the topic it was typed in — ``/pause`` typed in a
forum topic pauses that topic's table, not the General topic's — and a button that opens a
table checks that topic for a running one. Through the service on a simulated clock, on
SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storage.models import GameTable, Outbox, Player
from tests.chatbot.evenings import answer, current, evening_buttons, step
from tests.chatbot.long_games import (
    ALICE,
    BOB,
    DAY0,
    GROUP,
    berlin,
    fire_next,
    long_table,
    mark,
    notifying,
    rows_to,
)
from tests.chatbot.service.harness import (
    CAROL,
    Harness,
    P,
    assert_brief_refusal,
    private,
    until_a_turn_in_group,
)
from tests.conftest import FakeClock

TOPIC = replace(GROUP, thread="17")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)


def topic_table(h: Harness, chat=TOPIC, people=(ALICE, BOB), clock: str = "12h") -> int:
    """A running group table with ``clock`` in ``chat`` (a topic), of ``people`` (opened
    Monday 10:00 in Berlin, or now if later)."""
    h.clock.set(berlin(0, 10))
    for user in people:
        assert h.command(private(user), user, "start").ok
    out = h.command(chat, people[0], "new", f"schwimmen clock={clock}")
    assert out.ok and out.table_id, out.text
    for user in people[1:]:
        assert h.press(chat, user, h.buttons(GROUP, out.table_id)["join"]).changed
    assert h.press(chat, people[0], h.buttons(GROUP, out.table_id)["start"]).changed
    return out.table_id


def open_tables(h: Harness) -> list[GameTable]:
    """The group's tables that are not over, oldest first."""
    with Session(h.engine) as session:
        return list(session.exec(select(GameTable).where(
            col(GameTable.fsm_state).not_in(("finished", "abandoned")),
            col(GameTable.is_private).is_(False)).order_by(col(GameTable.id))).all())


def test_pause_typed_in_a_topic_asks_at_that_topics_table(h: Harness) -> None:
    general = long_table(h, at=berlin(0, 13))  # Alice and Bob in the General topic
    topic = topic_table(h, people=(CAROL, ALICE))  # Carol and Alice in topic 17
    until_a_turn_in_group(h, general)
    until_a_turn_in_group(h, topic)
    # Carol sits only at the topic's table: /pause there asks there (not "not seated")
    out = h.command(TOPIC, CAROL, "pause", "3")
    assert out.ok and out.text == "⏸ Gefragt: die anderen stimmen mit einem Tippen zu.", out.text
    assert h.table(topic).pause is not None and h.table(general).pause is None
    # Alice sits at both: /pause in the topic agrees at the topic's table
    assert h.command(TOPIC, ALICE, "pause").text == "✅ Zugestimmt."
    assert h.table(topic).paused_until is not None
    assert h.table(general).pause is None and h.table(general).paused_until is None
    # /pause off in the General topic: the General table is not paused
    off = h.command(GROUP, ALICE, "pause", "aus")
    assert_brief_refusal(off)
    assert off.text == "Der Tisch pausiert nicht."
    assert h.table(topic).paused_until is not None
    # in a topic without a table: no table here
    other = replace(GROUP, thread="18")
    assert h.command(other, ALICE, "pause", "1").text == \
        "Hier läuft gerade kein Tisch. /new startet einen."


def test_the_evenings_pick_opens_no_second_table_in_a_busy_topic(h: Harness) -> None:
    """The evening's choice of games, pressed from a topic (its table would open there),
    finds that topic's running table; from the General topic it opens the General's."""
    h.clock.set(berlin(0, 12))
    for user in (ALICE, BOB, CAROL):
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, ALICE, "abend", "heute 20:00 joker").ok
    for user in (ALICE, BOB):
        answer(h, user, "y")
    step(h, "soon")
    step(h, "start")  # Joker wants four: the games that fit are offered
    busy = h.command(TOPIC, CAROL, "new", "schwimmen")  # meanwhile a lobby in topic 17
    assert busy.ok and busy.table_id
    pick = evening_buttons(h)[f"ev.p.{current(h).id}.schwimmen"]
    out = h.press(TOPIC, BOB, pick)
    assert_brief_refusal(out)
    assert out.text == "Hier läuft schon ein Tisch. /stop beendet ihn.", out.text
    assert [t.thread_id for t in open_tables(h)] == ["17"]
    opened = h.press(GROUP, BOB, pick)
    assert opened.ok and opened.table_id
    assert h.table(opened.table_id).thread_id is None


MONDAY = replace(GROUP, thread="17", thread_name="Montagsrunde")
UNNAMED = replace(GROUP, thread="18")  # a topic whose name the platform did not say
PEOPLE = {u.external_id: u for u in (ALICE, BOB, CAROL)}


def _on_turn(h: Harness, table_id: int):
    seat_no = until_a_turn_in_group(h, table_id)
    seat = next(s for s in h.seats(table_id) if s.seat_no == seat_no)
    with Session(h.engine) as session:
        person = session.get(Player, seat.player_id)
        assert person is not None
        return PEOPLE[person.external_id]


def _reminded(h: Harness, table_id: int, before: int) -> list[str]:
    """Fire the table's next deadline: the first lines of what its people got privately."""
    fire_next(h, table_id)
    return [r.text.split("\n")[0] for user in PEOPLE.values()
            for r in notifying(rows_to(h, private(user), before)) if r.table_id == table_id]


def test_a_private_reminder_names_the_group_and_the_topic(h: Harness) -> None:
    """Alice sits at two tables of one forum: what she is sent privately tells them apart by
    the topic's name (or, where the platform never said it, its number)."""
    monday = topic_table(h, MONDAY, (ALICE, BOB))
    other = topic_table(h, UNNAMED, (ALICE, CAROL))
    for table_id in (monday, other):
        _on_turn(h, table_id)
    views = [m.text.split("\n")[0] for m in h.messages(private(ALICE))
             if m.text.startswith("🃏")]
    assert any(v.endswith(" · Stammtisch › Montagsrunde") for v in views), views
    assert any(v.endswith(" · Stammtisch › #18") for v in views), views
    before = mark(h)
    assert _reminded(h, monday, before) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch › Montagsrunde“ – noch 3 Std."]
    assert _reminded(h, other, before) == [
        "⏰ Du bist am Zug bei Schwimmen in „Stammtisch › #18“ – noch 3 Std."]
    # the turn runs out: told where
    person = _on_turn(h, monday)
    before = mark(h)
    assert fire_next(h, monday) == "timeout"
    told = [r.text for r in rows_to(h, private(person), before) if r.slot is None]
    assert told == ["⌛ Deine Zeit bei Schwimmen in „Stammtisch › Montagsrunde“ ist "
                    "abgelaufen – eine Vertretung hat deinen Zug gespielt."]
    # /games names both
    assert h.command(private(ALICE), ALICE, "games").ok
    listed = h.messages(private(ALICE))[-1].text
    assert "Stammtisch › Montagsrunde" in listed and "Stammtisch › #18" in listed


def test_a_renamed_topic_is_named_anew_and_in_english(h: Harness) -> None:
    english = replace(ALICE, language="en")
    h.command(private(english), english, "language", "en")
    monday = topic_table(h, MONDAY, (english, BOB))
    h.service.thread_named(replace(MONDAY, thread_name="Dienstagsrunde"), "u-renamed")
    h.service.thread_named(replace(GROUP, thread="99", thread_name="leer"), "u-empty")
    assert h.table(monday).options["thread_name"] == "Dienstagsrunde"
    while _on_turn(h, monday) != ALICE:  # (until it is Alice's turn)
        fire_next(h, monday)
        fire_next(h, monday)
    before = mark(h)
    said = _reminded(h, monday, before)
    assert len(said) == 1 and said[0].startswith(
        "⏰ Your turn at Schwimmen (31) in Stammtisch › Dienstagsrunde – ") \
        and said[0].endswith(" left."), said


def test_a_closed_topic_ends_its_table_and_tells_its_players(h: Harness) -> None:
    monday = topic_table(h, MONDAY, (ALICE, BOB))
    general = long_table(h, at=berlin(0, 13))
    h.service.reply(MONDAY, "noch nicht gesendet")
    assert h.service.thread_gone(P, GROUP.external_id, "17", closed=True) == [monday]
    assert h.table(monday).fsm_state == "abandoned" and h.table(monday).next_deadline is None
    assert h.table(general).fsm_state != "abandoned"
    told = ("🚪 Dein Tisch Schwimmen in „Stammtisch › Montagsrunde“ ist beendet: sein Thema "
            "wurde geschlossen.")
    for user in (ALICE, BOB):
        assert [m.text for m in h.messages(private(user))].count(told) == 1
    with Session(h.engine) as session:
        pending = session.exec(select(Outbox).where(Outbox.thread == "17",
                                                    Outbox.status == "pending")).all()
    assert not pending
    h.command(private(BOB), BOB, "games")
    listed = h.messages(private(BOB))[-1].text
    assert "Montagsrunde" not in listed and "Stammtisch ·" in listed  # the General's only
