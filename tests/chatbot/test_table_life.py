"""A table's life beyond the moves (issue 17, items 8, 19, 20), at the service: how many CPU
players a lobby gets, "play again" keeping the players (confirmations, the deadline that frees
the seats not confirmed), resigning with a confirmation. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.i18n import tr
from storage.models import Result
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    is_move,
    open_group_table,
    private,
    until_human_moves,
)
from tests.conftest import FakeClock

ANN = replace(MALLORY, external_id="ann", name="Ann", language="en")
USERS = {u.name: u for u in (ALICE, BOB, CAROL, MALLORY, ANN)}


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock, rematch_timeout=30.0)


def _text(h: Harness, chat, table_id: int) -> str:  # type: ignore[no-untyped-def]
    """The newest message of a chat that carries the table's buttons."""
    h.postman.deliver()
    found = [m for m in h.transport.messages(chat.external_id)
             if any(d.startswith(f"v1:{table_id}:") for d in m.data())]
    assert found, f"no message of table {table_id}"
    return found[-1].text


def _labels(h: Harness, chat, table_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    h.postman.deliver()
    return [label for label, _ in h.transport.buttons(chat.external_id, table_id)]


def _play_group_to_the_end(h: Harness, table_id: int, rng: random.Random) -> None:
    """People on turn knock or move at random; CPU turns and new rounds come by deadline."""
    for _ in range(5000):
        table = h.table(table_id)
        if table.fsm_state == "finished":
            return
        if table.deadline_kind in ("cpu", "next"):
            h.clock.set(table.next_deadline)  # type: ignore[arg-type]
            assert h.fire(table_id, table.version)
            continue
        seat = h.seats(table_id)[h.state(table_id).to_act]  # type: ignore[index]
        user = USERS[seat.name]
        mine = {c: d for c, d in h.buttons(private(user), table_id).items() if is_move(c)}
        code = "knock" if "knock" in mine and rng.random() < 0.6 else rng.choice(sorted(mine))
        assert h.press(private(user), user, mine[code]).ok
    raise AssertionError("the group game did not end")


# ------------------------------------------------------------------ item 8


def test_the_opener_chooses_how_many_cpu_players_fill_the_table(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    shown = h.buttons(GROUP, table_id)
    assert "🤖 keine CPU" in _text(h, GROUP, table_id)
    assert [lb for lb in _labels(h, GROUP, table_id) if "CPU" in lb] == ["➖ CPU", "0 CPU 🤖",
                                                                          "➕ CPU"]
    out = h.press(GROUP, BOB, shown["fill.+"])  # not the opener
    assert (out.ok, out.text) == (False, tr("de", "options_denied"))
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["fill.+"]).changed
    text = _text(h, GROUP, table_id)
    assert "3. 🤖 Anna (CPU)" in text and "🤖 1 CPU (Normal)" in text
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["fill.+"]).changed
    assert "4. 🤖 Bernd (CPU)" in _text(h, GROUP, table_id)
    out = h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["fill.+"])  # Schwimmen: 4 seats
    assert (out.ok, out.text) == (False, tr("de", "tl.cpu_max"))
    out = h.press(GROUP, ANN, h.buttons(GROUP, table_id)["fill.+"])
    assert (out.ok, out.text) == (False, tr("en", "options_denied"))
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["fill.-"]).changed
    assert "🤖 1 CPU (Normal)" in _text(h, GROUP, table_id)
    assert h.press(GROUP, CAROL, h.buttons(GROUP, table_id)["join"]).changed  # one free seat
    text = _text(h, GROUP, table_id)
    assert "3. Carol" in text and "4. 🤖 Anna (CPU)" in text
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    assert [(s.name, s.is_cpu) for s in h.seats(table_id)] == [
        ("Alice", False), ("Bob", False), ("Carol", False), ("🤖 Anna", True)]


def test_no_cpu_players_unless_chosen(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    assert [s.is_cpu for s in h.seats(table_id)] == [False, False]


# ------------------------------------------------------------------ item 19


def _finished_group_game(h: Harness) -> int:
    table_id = open_group_table(h, [ALICE, BOB, CAROL])
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["fill.+"]).changed
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    _play_group_to_the_end(h, table_id, random.Random(5))
    assert "again" in h.buttons(GROUP, table_id)
    return table_id


def test_play_again_seats_everybody_and_starts_once_all_confirmed(h: Harness) -> None:
    old = _finished_group_game(h)
    out = h.press(GROUP, BOB, h.buttons(GROUP, old)["again"])
    assert out.ok and out.text == tr("de", "tl.rematch_opened")
    new = out.table_id
    assert new and new != old
    assert h.table(new).fsm_state == "lobby" and h.table(new).deadline_kind == "rematch"
    text = _text(h, GROUP, new)
    assert text.startswith("🔁 Schwimmen – Revanche")
    assert "innerhalb von 30 s" in text
    assert "1. Alice ⏳ wartet auf Bestätigung" in text
    assert "2. Bob ✅" in text
    assert "3. Carol ⏳ wartet auf Bestätigung" in text
    assert "4. 🤖 Anna (CPU)" in text
    assert _labels(h, GROUP, new) == ["✅ Dabei", "Aussteigen", "Starten", "Beenden"]
    out = h.press(GROUP, BOB, h.buttons(GROUP, new)["join"])  # already confirmed
    assert (out.ok, out.text) == (False, tr("de", "already_joined"))
    # Alice taps "again" on the old table too: that is her "I'm in"
    out = h.press(GROUP, ALICE, h.buttons(GROUP, old)["again"])
    assert out.ok and out.text == tr("de", "tl.confirmed") and out.table_id == new
    assert "1. Alice ✅" in _text(h, GROUP, new)
    assert h.table(new).fsm_state == "lobby"
    out = h.press(GROUP, CAROL, h.buttons(GROUP, new)["join"])
    assert out.ok and out.text == tr("de", "tl.confirmed")
    table = h.table(new)
    assert table.fsm_state != "lobby" and table.deadline_kind != "rematch"
    assert [(s.name, s.is_cpu) for s in h.seats(new)] == [
        ("Alice", False), ("Bob", False), ("Carol", False), ("🤖 Anna", True)]
    assert "rematch" not in table.options


def test_seats_not_confirmed_in_time_are_freed(h: Harness) -> None:
    old = _finished_group_game(h)
    new = h.press(GROUP, ALICE, h.buttons(GROUP, old)["again"]).table_id
    assert new is not None
    assert h.press(GROUP, BOB, h.buttons(GROUP, new)["join"]).changed
    table = h.table(new)
    h.clock.set(table.next_deadline - timedelta(seconds=1))  # type: ignore[operator]
    assert h.fire(new, table.version) is False  # not yet
    h.clock.set(table.next_deadline)  # type: ignore[arg-type]
    assert h.fire(new, table.version)
    table = h.table(new)
    assert table.fsm_state not in ("lobby", "finished", "abandoned")
    assert [(s.name, s.is_cpu) for s in h.seats(new)] == [
        ("Alice", False), ("Bob", False), ("🤖 Anna", True)]
    assert any(m.text == "⌛ Nicht rechtzeitig bestätigt: Carol – Platz frei."
               for m in h.messages(GROUP))


def test_declining_a_rematch_frees_the_seat_and_the_rest_start(h: Harness) -> None:
    old = _finished_group_game(h)
    new = h.press(GROUP, CAROL, h.buttons(GROUP, old)["again"]).table_id
    assert new is not None
    assert h.press(GROUP, ALICE, h.buttons(GROUP, new)["leave"]).changed
    assert h.table(new).fsm_state == "lobby"
    text = _text(h, GROUP, new)
    assert "Alice" not in text and "1. Bob ⏳ wartet auf Bestätigung" in text
    assert h.press(GROUP, BOB, h.buttons(GROUP, new)["join"]).changed
    assert [s.name for s in h.seats(new)] == ["Bob", "Carol", "🤖 Anna"]
    assert h.table(new).fsm_state not in ("lobby", "abandoned")


def test_play_again_privately_is_the_same_game_against_the_same_cpus(h: Harness) -> None:
    out = h.command(private(ANN), ANN, "new", "schwimmen 2 normal")
    old = out.table_id
    assert old
    shown = until_human_moves(h, old, ANN)
    assert h.press(private(ANN), ANN, shown["resign"]).ok
    assert h.press(private(ANN), ANN, h.buttons(private(ANN), old)["resign.y"]).changed
    out = h.press(private(ANN), ANN, h.buttons(private(ANN), old)["again"])
    assert out.ok and out.table_id and out.table_id != old
    assert [(s.name, s.is_cpu, s.cpu_level) for s in h.seats(out.table_id)] == [
        ("Ann", False, None), ("🤖 Anna", True, "normal"), ("🤖 Bernd", True, "normal")]
    assert h.table(out.table_id).fsm_state in ("turn", "final_round", "payout")


# ------------------------------------------------------------------ item 20


@pytest.mark.parametrize("user", [ALICE, ANN], ids=["de", "en"])
def test_resigning_a_private_game_asks_first_and_counts_as_a_loss(h: Harness, user) -> None:  # type: ignore[no-untyped-def]
    lang = user.language
    chat = private(user)
    table_id = h.command(chat, user, "new", "schwimmen 2 anfaenger").table_id
    assert table_id
    shown = until_human_moves(h, table_id, user)
    assert _labels(h, chat, table_id)[-2:] == [tr(lang, "tl.resign"), tr(lang, "log_button")]
    # "yes" before the question is no resignation
    forged = buttons.encode(table_id, h.table(table_id).version, "resign.y")
    out = h.press(chat, user, forged)
    assert (out.ok, out.text) == (False, tr(lang, "tl.no_confirm"))
    assert h.press(chat, user, shown["resign"]).ok
    assert tr(lang, "tl.ask_private") in _text(h, chat, table_id)
    assert _labels(h, chat, table_id) == [tr(lang, "tl.resign_yes"), tr(lang, "tl.resign_no")]
    out = h.press(chat, user, h.buttons(chat, table_id)["resign.n"])
    assert out.text == tr(lang, "tl.cancelled")
    assert any(is_move(c) for c in h.buttons(chat, table_id))
    assert h.table(table_id).fsm_state != "finished"
    assert h.press(chat, user, h.buttons(chat, table_id)["resign"]).ok
    out = h.press(chat, user, h.buttons(chat, table_id)["resign.y"])
    assert out.changed and out.text == tr(lang, "tl.resigned")
    table = h.table(table_id)
    assert table.fsm_state == "finished" and table.next_deadline is None
    text = _text(h, chat, table_id)
    assert tr(lang, "tl.resigned") in text
    assert tr(lang, "winners", names="🤖 Anna, 🤖 Bernd") in text
    assert _labels(h, chat, table_id) == [tr(lang, "play_again"), tr(lang, "co.same"),
                                          tr(lang, "co.review")]  # (tips: on against Anfänger)
    with Session(h.engine) as session:
        result = session.exec(select(Result).where(Result.table_id == table_id)).one()
    assert result.winners == [1, 2]
    assert [r.get("resigned", False) for r in result.standings] == [True, False, False]
    h.service.replay(table_id)  # the move log still replays


def test_leaving_a_group_game_asks_and_a_cpu_takes_the_seat(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, ANN], start=True)
    chat = private(ANN)
    assert _labels(h, chat, table_id)[-2:] == ["🏳 Resign", "📜 Log"]
    assert h.press(chat, ANN, h.buttons(chat, table_id)["resign"]).ok
    assert tr("en", "tl.ask_group") in _text(h, chat, table_id)
    assert _labels(h, chat, table_id) == ["Yes, resign", "Cancel"]
    out = h.press(chat, ANN, h.buttons(chat, table_id)["resign.y"])
    assert out.ok and out.text == "You left the game."
    assert h.messages(chat)[-1].text == "You left the game." and not h.messages(chat)[-1].rows
    seats = h.seats(table_id)
    assert (seats[1].name, seats[1].is_cpu, seats[1].player_id) == ("🤖 Ann", True, None)
    assert any(m.text == "🚪 Ann ist ausgestiegen – eine CPU übernimmt den Platz."
               for m in h.messages(GROUP))
    assert h.table(table_id).fsm_state not in ("finished", "abandoned")
    # the last person at the table: the question says the table closes, and it does
    chat = private(ALICE)
    assert h.press(chat, ALICE, h.buttons(chat, table_id)["resign"]).ok
    assert tr("de", "tl.ask_group_last") in _text(h, chat, table_id)
    out = h.press(chat, ALICE, h.buttons(chat, table_id)["resign.y"])
    assert out.ok and h.table(table_id).fsm_state == "abandoned"
    assert h.press(chat, ALICE, buttons.encode(table_id, 0, "resign")).ok is False


def test_an_old_leave_button_in_a_running_game_only_asks(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    leave = h.buttons(GROUP, table_id)["leave"]  # from the lobby (it never goes stale)
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    out = h.press(GROUP, BOB, leave)
    assert out.ok
    assert not h.seats(table_id)[1].is_cpu
    assert tr("de", "tl.ask_group") in _text(h, private(BOB), table_id)
