"""A pause of a long game (issue 37), through the service on a simulated clock: asked for by
a button or ``/pause``, agreed by every other person with one tap, the clock stands still
until the pause ends (a deadline in the table's row) or somebody goes on earlier; the turn's
end and its reminders move on by the time it stood still. Bad presses get a short answer and
change nothing. German and English as the people read it."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine

from chatbot import buttons
from tests.chatbot.long_games import (
    ALICE,
    BOB,
    DAY0,
    GROUP,
    berlin,
    fire_next,
    long_table,
    until_a_turn,
)
from tests.chatbot.service.harness import MALLORY, Harness, assert_brief_refusal, private
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)


def _table_message(h: Harness, table_id: int) -> tuple[str, list[str]]:
    message = next(m for m in reversed(h.messages(GROUP))
                   if any(d.startswith(f"v1:{table_id}:") and d.endswith(":cards")
                          for d in m.data()))
    return message.text, message.labels()


def _said(h: Harness) -> list[str]:
    """The group's messages without buttons (not the table's), oldest first."""
    return [m.text for m in h.messages(GROUP) if not m.rows]


def test_a_pause_agreed_by_all_stops_the_clock_and_the_game_goes_on_after_it(
        h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 13))
    until_a_turn(h, table_id)
    before = h.table(table_id)
    ends, due, kind = before.turn_ends_at, before.next_deadline, before.deadline_kind
    assert ends is not None and due is not None
    text, labels = _table_message(h, table_id)
    assert labels[-3:] == ["⏸ 1 Tag", "⏸ 3 Tage", "⏸ 1 Woche"]
    h.clock.advance(3600)  # Monday 14:00 in Berlin
    out = h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["pz.3"])
    assert out.ok and out.text == "⏸ Gefragt: die anderen stimmen mit einem Tippen zu."
    text, labels = _table_message(h, table_id)
    assert "⏸ Alice bittet um 3 Tage Pause (zugestimmt: 1 von 2)" in text
    assert labels[-1] == "✅ Pause"
    assert _said(h)[-1].startswith("⏸ Alice bittet um 3 Tage Pause. Alle anderen:")
    assert h.table(table_id).paused_until is None  # Bob has not agreed yet
    agree = h.buttons(GROUP, table_id)[f"pa.{h.table(table_id).pause['n']}"]  # type: ignore[index]
    assert h.press(GROUP, BOB, agree).text == "✅ Zugestimmt."
    table = h.table(table_id)
    assert table.paused_until == berlin(3, 14)
    assert (table.deadline_kind, table.next_deadline) == ("resume", berlin(3, 14))
    text, labels = _table_message(h, table_id)
    assert "⏸ Pause bis Do 14:00" in text and labels[-1] == "▶ Weiter"
    assert _said(h)[-1] == ("⏸ Pause bis Do 14:00: die Uhr steht still. „▶ Weiter“ spielt "
                            "früher weiter.")
    twice = h.press(GROUP, BOB, agree)  # a second tap changes nothing
    assert_brief_refusal(twice)
    assert twice.text == "Der Tisch pausiert schon." and h.table(table_id).version == table.version
    h.command(private(ALICE), ALICE, "games")
    assert "pausiert" in h.messages(private(ALICE))[-1].text.lower()
    assert fire_next(h, table_id) == "resume"  # Thursday 14:00: three days later
    table = h.table(table_id)
    assert table.paused_until is None and table.pause is None
    assert table.turn_ends_at == ends + timedelta(days=3)
    assert (table.deadline_kind, table.next_deadline) == (kind, due + timedelta(days=3))
    assert _said(h)[-1] == "▶ Die Pause ist vorbei: es geht weiter."
    assert _table_message(h, table_id)[1][-3:] == ["⏸ 1 Tag", "⏸ 3 Tage", "⏸ 1 Woche"]


def test_go_on_earlier_moves_the_clock_by_the_time_it_stood_still(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 13))
    until_a_turn(h, table_id)
    ends = h.table(table_id).turn_ends_at
    assert ends is not None
    assert h.command(GROUP, ALICE, "pause", "7").ok
    assert h.command(GROUP, BOB, "pause").ok  # /pause alone agrees
    assert "⏸ Pause bis Mo 14.01. 13:00" in _table_message(h, table_id)[0]
    h.clock.advance(5 * 3600)
    out = h.press(GROUP, BOB, h.buttons(GROUP, table_id)["pr"])
    assert out.text == "▶ Es geht weiter."
    table = h.table(table_id)
    assert table.paused_until is None and table.turn_ends_at == ends + timedelta(hours=5)
    assert_brief_refusal(h.press(GROUP, BOB, h.buttons(GROUP, table_id)["pz.1"].replace(
        "pz.1", "pr")))  # not paused any more
    assert h.command(GROUP, ALICE, "pause", "5").text == (
        "/pause 1, /pause 3 oder /pause 7 bittet um eine Pause von so vielen Tagen; /pause "
        "allein stimmt einer erbetenen zu; /pause aus spielt weiter.")


def test_a_twelve_hour_clock_moved_by_a_pause_still_never_ends_in_quiet_hours(
        h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 13))
    until_a_turn(h, table_id)
    assert h.table(table_id).turn_ends_at == berlin(1, 8)  # (01:00 is in the quiet hours)
    h.clock.advance(3600)
    assert h.command(GROUP, ALICE, "pause", "1").ok and h.command(GROUP, BOB, "pause").ok
    h.clock.set(berlin(1, 7))  # 17 hours later: the turn would end Wednesday 01:00
    assert h.command(GROUP, BOB, "pause", "aus").text == "▶ Es geht weiter."
    table = h.table(table_id)
    assert table.turn_ends_at == berlin(2, 8)  # when the quiet hours end instead
    assert table.deadline_kind == "remind" and table.next_deadline is not None
    assert table.next_deadline < table.turn_ends_at


def test_bad_presses_get_a_short_answer_and_change_nothing(h: Harness) -> None:
    table_id = long_table(h, at=berlin(0, 13))
    until_a_turn(h, table_id)
    shown = h.buttons(GROUP, table_id)
    version = h.table(table_id).version
    for user, data, said in [
        (MALLORY, shown["pz.1"], "Du sitzt nicht an diesem Tisch."),
        (ALICE, shown["pz.1"].replace("pz.1", "pz.5"), None),
        (ALICE, shown["pz.1"].replace("pz.1", "pa.1"), "Diese Bitte um eine Pause ist verfallen."),
        (ALICE, shown["pz.1"].replace("pz.1", "pr"), "Der Tisch pausiert nicht."),
    ]:
        out = h.press(GROUP, user, data)
        assert_brief_refusal(out)
        assert said is None or out.text == said, out.text
        assert h.table(table_id).version == version
    assert h.press(GROUP, ALICE, shown["pz.1"]).ok
    request = h.table(table_id).pause
    assert request is not None
    version = h.table(table_id).version
    own = h.press(GROUP, ALICE, h.buttons(GROUP, table_id)[f"pa.{request['n']}"])
    assert own.text == "Du hast darum gebeten: die anderen stimmen zu."
    # nobody answers: the request lapses when the turn's clock would run out
    while h.table(table_id).deadline_kind != "timeout":
        fire_next(h, table_id)
    fire_next(h, table_id)
    assert h.table(table_id).pause is None
    late = h.press(GROUP, BOB, buttons.encode(table_id, version, f"pa.{request['n']}"))
    assert late.text == "Diese Bitte um eine Pause ist verfallen."
    assert h.table(table_id).paused_until is None


def test_a_table_with_a_short_clock_does_not_pause(h: Harness) -> None:
    table_id = long_table(h, clock="10min", at=berlin(0, 13))
    until_a_turn(h, table_id)
    assert not [k for k in h.buttons(GROUP, table_id) if k.startswith("pz")]
    data = buttons.encode(table_id, h.table(table_id).version, "pz.1")
    out = h.press(GROUP, ALICE, data)
    assert out.text == "Pausieren geht nur an einem Tisch mit einer Uhr von einer Stunde oder mehr."
    assert h.table(table_id).pause is None


def test_english_texts_and_a_move_in_a_pause_ends_it(h: Harness) -> None:
    assert h.command(GROUP, replace(ALICE, is_admin=True), "language", "en").ok
    table_id = long_table(h, at=berlin(0, 13))
    person = until_a_turn(h, table_id)
    assert _table_message(h, table_id)[1][-3:] == ["⏸ 1 day", "⏸ 3 days", "⏸ 1 week"]
    assert h.command(GROUP, ALICE, "pause", "1").ok
    text, labels = _table_message(h, table_id)
    assert "⏸ Alice asks for a pause of 1 day (agreed: 1 of 2)" in text
    assert labels[-1] == "✅ Pause"
    assert h.command(GROUP, BOB, "pause").ok
    text, labels = _table_message(h, table_id)
    assert "⏸ Paused until Tue 12:00" in text and labels[-1] == "▶ Go on"
    assert _said(h)[-1] == "⏸ Paused until Tue 12:00: the clock stands still. “▶ Go on” goes on earlier."
    shown = h.buttons(private(person), table_id)
    move = sorted(c for c in shown if c.split(".")[0] in ("swap", "all", "pass"))[0]
    assert h.press(private(person), person, shown[move]).changed  # a move ends the pause
    table = h.table(table_id)
    assert table.paused_until is None and table.deadline_kind != "resume"
