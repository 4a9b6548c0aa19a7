"""A group's administrators' panel (issue 47, item 13): ``/gruppe`` shows who may organise and
the group's open tables (every topic's) as buttons; an administrator ends a table or gives a
person's seat to a Normal CPU (asked first; the group's table says so, the person is told
privately). Rights are judged at every press (what the adapter says of the presser then), not
when the panel was opened; a member's press, a forged or stale button changes nothing. On
SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.i18n import tr
from chatbot.service import ChatRef
from storage.models import Chat, GameTable, GroupSetting, Outbox, Player
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    assert_brief_refusal,
    open_group_table,
    private,
    snapshot,
)
from tests.conftest import FakeClock, Message

SEED = 1  # the group game's deals in the seat test

ADMIN = replace(MALLORY, is_admin=True)  # Mallory administers the group (the adapter says so)
TOPIC = replace(GROUP, thread="77")  # a forum topic of the group
OTHER = ChatRef("test", "g-2", "group", "Elsewhere")


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock)


def panel(h: Harness, chat: ChatRef = GROUP) -> Message:
    """The panel's message as the chat shows it now."""
    shown = [m for m in h.messages(chat) if any(d.startswith("v1:0:0:grp") for d in m.data())]
    assert shown, "no panel in the chat"
    return shown[-1]


def press(h: Harness, label: str, user=ADMIN, chat: ChatRef = GROUP):  # type: ignore[no-untyped-def]
    """Press the panel's button with this label."""
    data = dict(zip(panel(h, chat).labels(), panel(h, chat).data(), strict=True))[label]
    return h.press(chat, user, data)


def texts(h: Harness, chat: ChatRef) -> list[str]:
    return [m.text for m in h.messages(chat)]


def _player_id(h: Harness, user) -> int:  # type: ignore[no-untyped-def]
    with Session(h.engine) as session:
        return session.exec(select(Player.id).where(
            Player.external_id == user.external_id)).one()  # type: ignore[return-value]


def _organisers(h: Harness) -> str | None:
    with Session(h.engine) as session:
        chat = session.exec(select(Chat).where(Chat.external_id == GROUP.external_id)).one()
        setting = session.get(GroupSetting, chat.id)
        return setting.organisers if setting else None


def _outbox_rows(h: Harness) -> int:
    with Session(h.engine) as session:
        return session.exec(select(func.count()).select_from(Outbox)).one()


def test_only_a_groups_administrators_open_the_panel(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB, CAROL], start=True)
    out = h.command(GROUP, BOB, "gruppe")
    assert (out.ok, out.text) == (False, "Das dürfen nur die Administratoren der Gruppe.")
    out = h.command(private(ADMIN), ADMIN, "group")
    assert (out.ok, out.text) == (False, "/gruppe gilt für Gruppen: schick es dort.")
    assert h.command(GROUP, ADMIN, "gruppe").ok
    shown = panel(h)
    assert shown.text == (
        "⚙ „Stammtisch“: für die Administratoren\n"
        "Wer einen Abend plant (und ein Turnier eröffnet): alle\n\n"
        "Offene Tische:\n"
        "1. Schwimmen · läuft · Alice, Bob, Carol")
    assert shown.rows == [
        [["✓ 👥 Alle planen", "v1:0:0:grp.org.all"],
         ["🛡 Nur Admins planen", "v1:0:0:grp.org.admins"]],
        [["⏹ 1 beenden", f"v1:0:0:grp.end.{table_id}"],
         ["🪑 Plätze an 1", f"v1:0:0:grp.seats.{table_id}"]],
        [["🔄 Aktualisieren", "v1:0:0:grp"]]]


def test_the_panel_in_english(h: Harness) -> None:
    assert h.command(GROUP, ADMIN, "language", "en").ok
    open_group_table(h, [ALICE, BOB])  # a lobby
    assert h.command(GROUP, ADMIN, "group").ok
    shown = panel(h)
    assert shown.text == (
        "⚙ Stammtisch: for its administrators\n"
        "Who may plan an evening (and open a tournament): anyone\n\n"
        "Open tables:\n"
        "1. Schwimmen (31) · lobby · Alice, Bob")
    assert shown.labels() == ["✓ 👥 Anyone organises", "🛡 Only admins organise", "⏹ End 1",
                              "🪑 Seats at 1", "🔄 Refresh"]
    out = press(h, "🪑 Seats at 1")
    assert out.ok
    assert panel(h).text == ("Whose seat do you take away? In a game a Normal CPU plays it on; "
                             "in the lobby the person just leaves.\n"
                             "Schwimmen (31) · lobby · Alice, Bob")
    assert panel(h).labels() == ["👤 Alice", "👤 Bob", "↩ Back"]
    assert press(h, "👤 Bob").ok
    assert panel(h).text == "Take Bob out of the lobby?\nSchwimmen (31) · lobby · Alice, Bob"
    out = press(h, "🪑 Yes, take the seat")
    assert (out.ok, out.text) == (True, "Done: Bob left the lobby.")
    assert "🪑 Mallory (admin) took Bob out of the lobby." in texts(h, GROUP)
    assert h.transport.texts(private(BOB).external_id)[-1] == (
        "🪑 Ein Administrator von „Stammtisch“ hat dich aus der Lobby von Schwimmen genommen.")


def test_the_panel_sets_who_may_organise(h: Harness) -> None:
    assert h.command(GROUP, ADMIN, "gruppe").ok
    out = press(h, "🛡 Nur Admins planen")
    assert (out.ok, out.text) == (True, "Gespeichert: nur Administratoren planen.")
    assert _organisers(h) == "admins"
    assert panel(h).text.split("\n")[1] == \
        "Wer einen Abend plant (und ein Turnier eröffnet): nur Administratoren"
    assert panel(h).labels()[:2] == ["👥 Alle planen", "✓ 🛡 Nur Admins planen"]
    assert panel(h).text.split("\n")[-1] == "Hier ist kein Tisch offen."
    out = press(h, "👥 Alle planen")
    assert (out.ok, out.text) == (True, "Gespeichert: alle dürfen planen.")
    assert _organisers(h) == "all"


def test_an_administrator_ends_a_lobby_and_a_game_in_a_topic(h: Harness) -> None:
    lobby = open_group_table(h, [ALICE, BOB])
    for user in (CAROL, MALLORY):
        assert h.command(private(user), user, "start").ok
    game = h.command(TOPIC, CAROL, "new", "schwimmen").table_id
    assert game is not None and game != lobby
    assert h.press(TOPIC, MALLORY, h.buttons(TOPIC, game)["join"]).changed
    assert h.press(TOPIC, CAROL, h.buttons(TOPIC, game)["start"]).changed
    assert h.command(GROUP, ADMIN, "gruppe").ok
    assert panel(h).text.split("\n")[-2:] == [
        "1. Schwimmen · Lobby · Alice, Bob",
        "2. Schwimmen · läuft · in einem Thema · Carol, Mallory"]
    assert press(h, "⏹ 2 beenden").ok  # asks first
    assert panel(h).text == ("Diesen Tisch beenden? Das Spiel ist dann für alle daran vorbei.\n"
                             "Schwimmen · läuft · in einem Thema · Carol, Mallory")
    assert panel(h).labels() == ["⏹ Ja, beenden", "↩ Zurück"]
    assert h.table(game).fsm_state != "abandoned"
    out = press(h, "⏹ Ja, beenden")
    assert (out.ok, out.changed, out.text) == (True, True, tr("de", "stopped"))
    assert h.table(game).fsm_state == "abandoned"
    with Session(h.engine) as session:  # the group hears it in the table's topic
        said = session.exec(select(Outbox).where(
            Outbox.text == "⏹ Mallory (Admin) hat den Tisch Schwimmen beendet.")).one()
    assert said.thread == "77"
    assert panel(h).text.split("\n")[-2:] == ["Offene Tische:", "1. Schwimmen · Lobby · Alice, Bob"]
    assert press(h, "⏹ 1 beenden").ok and press(h, "⏹ Ja, beenden").changed
    assert h.table(lobby).fsm_state == "abandoned"
    assert panel(h).text.split("\n")[-1] == "Hier ist kein Tisch offen."


def test_an_administrator_gives_the_seat_of_the_person_on_turn_to_a_normal_cpu(
        h: Harness) -> None:
    # (a deal whose first round is on when dealt: no 31 in anybody's hand)
    table_id = open_group_table(h, [ALICE, BOB, CAROL], start=True, seed=SEED)
    on_turn = [ALICE, BOB, CAROL][h.state(table_id).to_act]
    carol_view = h.buttons(private(on_turn), table_id)  # their moves, privately
    assert h.command(GROUP, ADMIN, "gruppe").ok
    assert press(h, "🪑 Plätze an 1").ok
    assert press(h, f"👤 {on_turn.name}").ok
    assert panel(h).text == (f"{on_turn.name} den Platz wegnehmen? Ab jetzt spielt ihn eine "
                             "normale CPU weiter.\nSchwimmen · läuft · Alice, Bob, Carol")
    out = press(h, "🪑 Ja, Platz wegnehmen")
    assert (out.ok, out.text) == (True, f"Erledigt: eine CPU spielt den Platz von {on_turn.name}.")
    seat = h.seats(table_id)[[ALICE, BOB, CAROL].index(on_turn)]
    assert (seat.is_cpu, seat.cpu_level, seat.player_id, seat.name) == (
        True, "normal", None, f"🤖 {on_turn.name}")
    assert (f"🪑 Mallory (Admin) hat den Platz von {on_turn.name} einer CPU gegeben: sie spielt "
            f"für {on_turn.name} weiter.") in texts(h, GROUP)
    told = h.messages(private(on_turn))[-1]  # their view of the table gave way to the word
    assert (told.text, told.rows) == (
        "🪑 Ein Administrator von „Stammtisch“ hat deinen Platz bei Schwimmen einer CPU "
        "gegeben; das Spiel geht ohne dich weiter.", [])
    assert h.table(table_id).deadline_kind == "cpu"  # the CPU plays the turn
    moves = [d for c, d in carol_view.items() if c.split(".")[0] in ("swap", "all", "pass")]
    assert_brief_refusal(h.press(private(on_turn), on_turn, moves[0]))  # not theirs any more
    h.clock.set(h.table(table_id).next_deadline)  # type: ignore[arg-type]
    assert h.fire(table_id, h.table(table_id).version)
    assert [m.actor for m in h.moves(table_id)][-1] == "cpu"
    assert panel(h).text.split("\n")[-1] == \
        f"1. Schwimmen · läuft · {', '.join(f'🤖 {u.name}' if u is on_turn else u.name for u in (ALICE, BOB, CAROL))}"


def test_taking_the_last_persons_seat_ends_the_game(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    assert h.command(GROUP, ADMIN, "gruppe").ok
    for person in (ALICE, BOB):
        assert press(h, "🪑 Plätze an 1").ok
        assert press(h, f"👤 {person.name}").ok
        assert press(h, "🪑 Ja, Platz wegnehmen").changed
    assert h.table(table_id).fsm_state == "abandoned"
    assert panel(h).text.split("\n")[-1] == "Hier ist kein Tisch offen."


def test_rights_are_judged_at_each_press_not_when_the_panel_was_opened(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    assert h.command(GROUP, ADMIN, "gruppe").ok
    assert press(h, "⏹ 1 beenden").ok
    before = snapshot(h.engine, table_id)
    out = press(h, "⏹ Ja, beenden", user=MALLORY)  # her rights were taken meanwhile
    assert (out.ok, out.text) == (False, "Das dürfen nur die Administratoren der Gruppe.")
    assert snapshot(h.engine, table_id) == before


def test_a_members_press_of_any_panel_button_changes_nothing(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB, CAROL], start=True)
    assert h.command(GROUP, ADMIN, "gruppe").ok
    alice = _player_id(h, ALICE)
    codes = ["grp", "grp.org.admins", f"grp.end.{table_id}", f"grp.endy.{table_id}",
             f"grp.seats.{table_id}", f"grp.take.{table_id}.{alice}",
             f"grp.takey.{table_id}.{alice}"]
    shown, before, rows = panel(h), snapshot(h.engine, table_id), _outbox_rows(h)
    for code in codes:
        out = h.press(GROUP, BOB, buttons.encode(0, 0, code))
        assert (out.ok, out.text) == (False, "Das dürfen nur die Administratoren der Gruppe.")
    assert snapshot(h.engine, table_id) == before and _outbox_rows(h) == rows
    assert panel(h) == shown and _organisers(h) is None


def test_forged_and_stale_panel_buttons_are_refused(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB, CAROL], start=True)
    for user in (CAROL, MALLORY):
        assert h.command(private(user), user, "start").ok
    elsewhere = h.command(OTHER, CAROL, "new", "schwimmen").table_id
    assert h.command(GROUP, ADMIN, "gruppe").ok
    mallory, alice = _player_id(h, MALLORY), _player_id(h, ALICE)
    refused = {
        f"grp.endy.{elsewhere}": "Dieser Tisch gehört nicht zu dieser Gruppe.",
        f"grp.takey.{elsewhere}.{_player_id(h, CAROL)}": "Dieser Tisch gehört nicht zu dieser Gruppe.",
        "grp.endy.999999": tr("de", "table_gone"),
        f"grp.takey.{table_id}.{mallory}": "Diese Person sitzt nicht mehr an diesem Tisch.",
        f"grp.take.{table_id}.{mallory}": "Diese Person sitzt nicht mehr an diesem Tisch.",
        f"grp.endy.{table_id}.{alice}": tr("de", "unknown_button"),
        f"grp.takey.{table_id}": tr("de", "unknown_button"),
        "grp.endy.x": tr("de", "unknown_button"),
        "grp.endy.٣": tr("de", "stale_button"),  # (no button of ours at all)
        "grp.endy.99999999999": tr("de", "unknown_button"),
        "grp.org.everybody": tr("de", "unknown_button"),
        "grp.nuke.1": tr("de", "unknown_button"),
    }
    before = (snapshot(h.engine, table_id), snapshot(h.engine, elsewhere))  # type: ignore[arg-type]
    for code, text in refused.items():
        out = h.press(GROUP, ADMIN, buttons.encode(0, 0, code))
        assert (out.ok, out.text) == (False, text), code
        assert_brief_refusal(out)
    out = h.press(private(ADMIN), ADMIN, buttons.encode(0, 0, f"grp.endy.{table_id}"))
    assert (out.ok, out.text) == (False, "/gruppe gilt für Gruppen: schick es dort.")
    assert (snapshot(h.engine, table_id), snapshot(h.engine, elsewhere)) == before  # type: ignore[arg-type]
    # a confirmation pressed once more: the seat is gone by then, the table over
    assert press(h, "🪑 Plätze an 1").ok and press(h, "👤 Alice").ok
    yes = dict(zip(panel(h).labels(), panel(h).data(), strict=True))["🪑 Ja, Platz wegnehmen"]
    assert h.press(GROUP, ADMIN, yes).changed
    out = h.press(GROUP, ADMIN, yes)
    assert (out.ok, out.text) == (False, "Diese Person sitzt nicht mehr an diesem Tisch.")
    end = buttons.encode(0, 0, f"grp.endy.{table_id}")
    assert h.press(GROUP, ADMIN, end).changed
    out = h.press(GROUP, ADMIN, end)
    assert (out.ok, out.text) == (False, tr("de", "table_over"))
    with Session(h.engine) as session:
        assert session.get(GameTable, table_id).fsm_state == "abandoned"  # type: ignore[union-attr]
