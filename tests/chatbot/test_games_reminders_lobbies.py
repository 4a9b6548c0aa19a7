"""A person's tables and settings, and lobbies that end (issue 37), through the service on a
simulated clock: ``/games`` lists every running table of the person across chats (their turn
first, in their language, a button that brings a table's view down), ``/reminders`` changes
the settings by buttons, and a lobby nobody starts closes by itself (15 minutes for live
clocks, 24 hours for long ones; once its time is up any member may close it)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import ChatRef, UserRef
from storage.models import Player
from tests.chatbot.long_games import DAY0, berlin, fire_next, mark, rows_to
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    Harness,
    private,
    until_a_turn_in_group,
    until_human_moves,
)
from tests.conftest import FakeClock

ERIN = UserRef("erin", "Erin", language="en")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    harness = Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)
    harness.clock.set(berlin(0, 13))
    return harness


def group(n: int) -> ChatRef:
    return ChatRef(GROUP.platform, f"g-{n}", "group", f"Runde {n}")


def _table_in(h: Harness, chat: ChatRef, opener: UserRef, other: UserRef) -> int:
    out = h.command(chat, opener, "new", "schwimmen clock=12h")
    assert out.ok and out.table_id, out.text
    assert h.press(chat, other, h.buttons(chat, out.table_id)["join"]).changed
    assert h.press(chat, opener, h.buttons(chat, out.table_id)["start"]).changed
    until_a_turn_in_group(h, out.table_id)  # (a round that ended on the deal)
    return out.table_id


def test_games_lists_every_table_of_the_person_their_turn_first(h: Harness) -> None:
    for user in (ALICE, BOB, ERIN):
        h.command(private(user), user, "start")
    tables = [_table_in(h, group(1), ALICE, BOB), _table_in(h, group(2), BOB, ALICE),
              _table_in(h, group(3), ERIN, ALICE)]
    before = mark(h)
    assert h.command(private(ALICE), ALICE, "games").ok
    (answer,) = [r for r in rows_to(h, private(ALICE), before) if r.slot == "games"]
    lines = answer.text.split("\n")
    assert lines[0] == "🃏 Deine Tische:"
    assert len(lines) == 4 and {f"Runde {n}" for n in (1, 2, 3)} <= set(answer.text.split(" · "))
    mine = [line for line in lines[1:] if line.startswith("👉")]
    theirs = [line for line in lines[1:] if line.startswith("•")]
    assert lines[1:] == mine + theirs  # where it is her turn first
    assert all("du bist dran" in line for line in mine)
    assert all(" ist dran · " in line for line in theirs)
    assert all(line.endswith(("Std.", "Min.")) for line in lines[1:])  # the time left
    assert len(answer.buttons) == 3
    # a button brings that table's view down to the bottom of her private chat
    data = answer.buttons[-1][0][1]
    before = mark(h)
    assert h.press(private(ALICE), ALICE, data).ok
    (view,) = [r for r in rows_to(h, private(ALICE), before) if r.fresh]
    assert view.table_id in tables and view.buttons
    # in English for Erin, and her one table
    before = mark(h)
    h.command(private(ERIN), ERIN, "games")
    (answer,) = [r for r in rows_to(h, private(ERIN), before) if r.slot == "games"]
    assert answer.text.split("\n")[0] == "🃏 Your tables:" and "Runde 3" in answer.text


def test_games_without_tables_and_in_a_group(h: Harness) -> None:
    h.command(private(CAROL), CAROL, "start")
    before = mark(h)
    h.command(private(CAROL), CAROL, "games")
    assert [r.text for r in rows_to(h, private(CAROL), before)] == [
        "Du sitzt an keinem laufenden Tisch. /new startet einen."]
    out = h.command(GROUP, CAROL, "games")
    assert not out.ok and out.text == "/games und /reminders gehen in deinem privaten Chat mit mir."


def test_reminder_settings_change_by_buttons(h: Harness) -> None:
    h.command(private(ALICE), ALICE, "start")
    before = mark(h)
    h.command(private(ALICE), ALICE, "reminders")
    (menu,) = [r for r in rows_to(h, private(ALICE), before) if r.slot == "reminders"]
    assert menu.text.startswith("⏰ Erinnerungen (bei Bedenkzeiten ab 10 Minuten)\nJetzt: An")
    assert "Ruhezeit: 23:00–08:00 (Europe/Berlin)" in menu.text
    labels = {label: data for row in menu.buttons for label, data in row}
    assert h.press(private(ALICE), ALICE, labels["Nur wenn ein Viertel übrig ist"]).text == \
        "Gespeichert."
    assert h.press(private(ALICE), ALICE, labels["22:00–07:00"]).ok
    assert h.press(private(ALICE), ALICE, labels["London"]).ok
    with Session(h.engine) as session:
        alice = session.exec(select(Player).where(Player.external_id == "alice")).one()
        assert (alice.reminders, alice.quiet_from, alice.quiet_to, alice.time_zone) == (
            "last", 22 * 60, 7 * 60, "Europe/London")
    forged = labels["Aus"].replace("rem.off", "rem.q.99")
    assert not h.press(private(ALICE), ALICE, forged).ok


def test_a_lobby_closes_by_itself_after_15_minutes_and_says_when(h: Harness) -> None:
    h.command(private(ALICE), ALICE, "start")
    table_id = h.command(GROUP, ALICE, "new", "schwimmen").table_id
    assert table_id
    lobby = h.messages(GROUP)[-1].text
    assert "⌛ Schließt sich um 13:15 Uhr von selbst, wenn niemand startet." in lobby
    table = h.table(table_id)
    assert (table.deadline_kind, table.next_deadline) == ("expire", berlin(0, 13, 15))
    before = mark(h)
    assert fire_next(h, table_id) == "expire"
    assert h.table(table_id).fsm_state == "abandoned"
    assert "⌛ Niemand hat den Tisch (Schwimmen) gestartet – er ist geschlossen." in [
        r.text for r in rows_to(h, GROUP, before)]


def test_a_long_clock_lobby_stays_a_day_and_then_anyone_may_close_it(h: Harness) -> None:
    for user in (ALICE, BOB):
        h.command(private(user), user, "start")
    table_id = h.command(GROUP, ALICE, "new", "schwimmen clock=24h").table_id
    assert table_id
    assert "am 08.01. um 13:00 Uhr" in h.messages(GROUP)[-1].text
    assert h.table(table_id).next_deadline == berlin(1, 13)
    stop = h.buttons(GROUP, table_id)["stop"]
    assert not h.press(GROUP, BOB, stop).ok  # not the opener, and the lobby's time runs
    h.clock.set(berlin(1, 13) + timedelta(seconds=1))
    assert h.press(GROUP, BOB, stop).changed  # its time is up: any member may close it
    assert h.table(table_id).fsm_state == "abandoned"


def test_a_private_game_may_have_a_clock_and_reminds_in_its_own_chat(h: Harness) -> None:
    out = h.command(private(ALICE), ALICE, "new", "schwimmen 1 anfaenger clock=1h")
    assert out.ok and out.table_id
    assert h.table(out.table_id).turn_timeout == 3600
    until_human_moves(h, out.table_id)  # (a round may end before her turn: "next")
    assert h.table(out.table_id).deadline_kind == "remind"
    before = mark(h)
    assert fire_next(h, out.table_id) == "remind"
    (reminder,) = [r for r in rows_to(h, private(ALICE), before) if r.fresh]
    assert reminder.slot == f"t{out.table_id}" and reminder.buttons
    assert reminder.text.startswith("⏰ Du bist am Zug bei Schwimmen – noch 15 Min.")
    plain = h.command(private(BOB), BOB, "new", "schwimmen 1 anfaenger")
    assert h.table(plain.table_id).turn_timeout == 0  # type: ignore[arg-type]  (none by default)
