"""Who may do what (issue 15, items 4–6): a group's language, kicking, stopping, the next round
and playing again — judged in the table's own chat, with buttons checked against the table's
version first. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.i18n import tr
from storage.models import Chat, Player
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    open_group_table,
    private,
    snapshot,
)
from tests.conftest import FakeClock

ADMIN_EVE = replace(MALLORY, external_id="eve", name="Eve", is_admin=True)
OTHER_GROUP = replace(GROUP, external_id="g-2", title="Elsewhere")


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock)


def _language(h: Harness, chat_ref) -> str | None:  # type: ignore[no-untyped-def]
    with Session(h.engine) as session:
        chat = session.exec(select(Chat).where(Chat.external_id == chat_ref.external_id)).one()
        return chat.language


def _player_id(h: Harness, user) -> int:  # type: ignore[no-untyped-def]
    with Session(h.engine) as session:
        return session.exec(select(Player.id).where(
            Player.external_id == user.external_id)).one()  # type: ignore[return-value]


def test_only_admins_and_the_tables_opener_change_a_groups_language(h: Harness) -> None:
    assert h.command(GROUP, BOB, "help").ok
    out = h.command(GROUP, BOB, "language", "en")  # a member: refused, says why
    assert (out.ok, out.text) == (False, tr("de", "language_denied"))
    out = h.press(GROUP, BOB, buttons.encode(0, 0, "lang.en"))  # the button likewise
    assert (out.ok, out.text) == (False, tr("de", "language_denied"))
    assert _language(h, GROUP) is None
    assert h.command(GROUP, replace(BOB, is_admin=True), "language", "en").ok  # an admin may
    assert _language(h, GROUP) == "en"
    table_id = open_group_table(h, [ALICE, BOB])  # the opener of the open table may
    assert h.press(GROUP, ALICE, buttons.encode(0, 0, "lang.de")).ok
    assert _language(h, GROUP) == "de"
    assert not h.command(GROUP, BOB, "language", "en").ok  # a seated player who did not open
    assert h.table(table_id).fsm_state == "lobby"


def test_an_old_kick_button_never_removes_another_player(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB, CAROL, MALLORY])
    version = h.table(table_id).version
    old_kick_carol = buttons.encode(table_id, version, f"kick.{_player_id(h, CAROL)}")
    assert h.press(GROUP, BOB, h.buttons(GROUP, table_id)["leave"]).changed  # seats move up
    before = snapshot(h.engine, table_id)
    out = h.press(GROUP, ALICE, old_kick_carol)
    assert (out.ok, out.text) == (False, tr("de", "stale_button"))
    assert snapshot(h.engine, table_id) == before
    assert [s.name for s in h.seats(table_id)] == ["Alice", "Carol", "Mallory"]
    # a kick at the current version names the person, not a seat number
    fresh = buttons.encode(table_id, h.table(table_id).version, f"kick.{_player_id(h, CAROL)}")
    assert h.press(GROUP, ALICE, fresh).changed
    assert [s.name for s in h.seats(table_id)] == ["Alice", "Mallory"]
    forged = buttons.encode(table_id, h.table(table_id).version, "kick.1.2")
    assert not h.press(GROUP, ALICE, forged).ok


def test_admin_rights_count_only_in_the_tables_own_chat(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    stop = h.buttons(GROUP, table_id)["stop"]
    before = snapshot(h.engine, table_id)
    # an admin of another group pressing this table's button there: not seated, nothing
    out = h.press(OTHER_GROUP, ADMIN_EVE, stop)
    assert (out.ok, out.text) == (False, tr("de", "not_seated"))
    # a seated player who is an admin elsewhere is no admin here
    out = h.press(OTHER_GROUP, replace(BOB, is_admin=True), stop)
    assert (out.ok, out.text) == (False, tr("de", "stop_denied"))
    assert snapshot(h.engine, table_id) == before
    out = h.press(GROUP, replace(BOB, is_admin=True), stop)  # an admin of the table's chat may
    assert out.ok and out.changed
    assert h.table(table_id).fsm_state == "abandoned"


def test_only_seated_players_or_admins_deal_the_next_round_and_play_again(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    h.command(private(CAROL), CAROL, "start")
    for _ in range(200):  # play until a round ends (knock at once: the round is short)
        table = h.table(table_id)
        if table.fsm_state in ("payout", "finished"):
            break
        shown = {**h.buttons(private(ALICE), table_id), **h.buttons(private(BOB), table_id)}
        user = ALICE if h.state(table_id).to_act == 0 else BOB
        mine = h.buttons(private(user), table_id)
        code = "knock" if "knock" in mine else next(c for c in mine if c.startswith(("swap", "pass", "all")))
        assert h.press(private(user), user, mine[code]).ok, shown
    table = h.table(table_id)
    assert table.fsm_state == "payout"
    nxt = buttons.encode(table_id, table.version, "next")
    before = snapshot(h.engine, table_id)
    out = h.press(GROUP, CAROL, nxt)  # a bystander in the group
    assert (out.ok, out.text) == (False, tr("de", "seated_only"))
    assert snapshot(h.engine, table_id) == before
    assert h.press(GROUP, BOB, nxt).changed
