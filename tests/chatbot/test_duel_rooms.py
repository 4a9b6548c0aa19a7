"""Issue 50 item 6 on the service (SQLite and PostgreSQL): what ``!duell`` asks for (the game
the words name, Schwimmen if none, the room's name; refused for an unknown game or a table
too small or too large), a duel room's table (its opener seated, started by itself once the
people named have joined, no "play again"), and the bot leaving the room once the game is
over - after the room's last view, whether the game finished or the table was stopped.
Typed where no room is opened (Telegram's ``/duell``), the command points to inline mode."""

from __future__ import annotations

import random

from sqlmodel import Session, col, select

from chatbot.service import ChatRef, UserRef
from storage.models import Outbox
from tests.chatbot.replaying import play_to_end
from tests.chatbot.service.harness import Harness, P, private

ANNA = UserRef("@anna:example.org", "Anna", language="de")
BEN = UserRef("@ben:example.org", "Ben", language="de")
CARL = UserRef("@carl:example.org", "Carl", language="en")


def _room(n: int) -> ChatRef:
    return ChatRef(P, f"!duel{n}:example.org", "group", "🃏 Schwimmen: Anna & Ben")


def _rows(h: Harness, room: ChatRef) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.chat_external_id == room.external_id).order_by(col(Outbox.id))).all())


def test_what_duel_asks_for_and_its_refusals(db_engine, clock) -> None:
    service = Harness(db_engine, clock).service
    plan = service.duel_plan("matrix", ANNA, "", ["Ben"])
    assert (plan.game, plan.room, plan.refusal) == ("schwimmen", "🃏 Schwimmen: Anna & Ben",
                                                   None)
    assert service.duel_plan("matrix", CARL, "scat", ["Anna", "Ben"]).room == \
        "🃏 Scat (31): Carl & Anna & Ben"
    assert service.duel_plan("matrix", ANNA, "poker", ["Ben"]).refusal == \
        "„poker“ ist kein Spiel, das ich kenne: Schwimmen, Einunddreißig, Run Fast oder " \
        "Joker-Aufstieg."
    assert service.duel_plan("matrix", CARL, "run fast", ["A", "B", "C"]).refusal == \
        "Run Fast (Pao De Kuai) is for 3 players: name 2 people."
    assert service.duel_plan("matrix", ANNA, "schwimmen", list("ABCD")).refusal == \
        "Schwimmen ist für 2 bis 4 Personen: nenn 1 bis 3 Leute."
    assert service.duel_plan("matrix", ANNA, "", []).refusal.startswith(
        "Nenn die Leute, mit denen du spielen willst: !duell @person [Spiel]")


def test_a_duel_room_starts_when_everybody_joined_and_is_left_after_its_last_view(
        db_engine, clock) -> None:
    h = Harness(db_engine, clock, cpu_delay=0)
    for user in (ANNA, BEN):
        assert h.command(private(user), user, "start").ok
    room = _room(1)
    out = h.service.open_duel(room, ANNA, "schwimmen", 1, "k1")
    assert out.ok and out.table_id
    table_id = out.table_id
    assert h.service.open_duel(room, ANNA, "schwimmen", 1, "k1").table_id is None  # (once)
    lobby = h.buttons(room, table_id)
    assert "again" not in lobby and "start" in lobby
    assert h.press(room, BEN, lobby["join"]).changed  # the second of two: it starts
    assert h.table(table_id).fsm_state != "lobby"
    assert not [r for r in _rows(h, room) if r.action == "leave"]
    play_to_end(h, table_id, [ANNA, BEN], random.Random(6))
    rows = _rows(h, room)
    assert rows[-1].action == "leave" and len([r for r in rows if r.action == "leave"]) == 1
    assert any(r.slot == f"t{table_id}" for r in rows[:-1])  # (the final view before it)
    assert "again" not in h.buttons(room, table_id)

    other = _room(2)  # a duel room whose table is stopped: left too
    table = h.service.open_duel(other, BEN, "scat", 1, "k2").table_id
    assert h.command(other, BEN, "stop").ok and table is not None
    assert _rows(h, other)[-1].action == "leave"


def test_duel_where_no_room_is_opened_says_how_to_invite(db_engine, clock) -> None:
    h = Harness(db_engine, clock, inline_mode=True, bot_name="stammtisch_bot")
    assert h.command(private(CARL), CARL, "duel").text.startswith(
        "🃏 Play anywhere: type @stammtisch_bot in any chat")
    plain = Harness(db_engine, clock)
    assert plain.command(private(ANNA), ANNA, "duell").text.startswith(
        "Nenn die Leute, mit denen du spielen willst: /duell @person [Spiel]")
