"""⏩ Skipping to the result at a table of Experte players: the CPUs' play-out is thought before
the press's transaction and outside it (``Service.think``, in the thinking pool), then
played in the transaction move by move through the rules; a move whose table moved on
meanwhile is thought there (issue 39: thinking never holds up the event loop or the database).

Runs on SQLite and on PostgreSQL (``db_engine``), with the thinking pool as the bot has it.
"""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot import buttons
from chatbot.service import UserRef
from storage.models import Move, Result
from tests.chatbot.service.harness import ALICE, Harness, knocked_out, private
from tests.conftest import FakeClock

MALLORY = UserRef("mallory", "Mallory", language="de")


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock, experte_budget=0.01)


def _cpu_moves_after(h: Harness, table_id: int, version: int) -> dict[int, str]:
    """The CPU moves played since ``version``: {version it was played at: code}."""
    return {m.seq - 1: m.code for m in h.moves(table_id)
            if m.seq > version and m.actor == "cpu"}


def test_a_skip_at_an_experte_table_plays_the_moves_thought_before_its_transaction(
        h: Harness) -> None:
    table_id = knocked_out(h, "schwimmen 2 experte")
    chat = private(ALICE)
    shown = h.buttons(chat, table_id)
    assert set(shown) == {"skip", "skip.again"}
    press = buttons.decode(shown["skip"])
    version = h.table(table_id).version

    planned = h.service.think(chat, ALICE, press)
    # the whole rest of the game, from the version the table stands at
    assert planned and min(planned) == (table_id, version)
    assert {t for t, _ in planned} == {table_id}
    out = h.service.press(chat, ALICE, shown["skip"], update_key=h.key(), plan=planned)

    assert out.ok and h.table(table_id).fsm_state == "finished"
    assert _cpu_moves_after(h, table_id, version) == {v: c for (_, v), c in planned.items()
                                                      if c != "deal"}
    with Session(h.engine) as session:
        assert session.exec(select(Result).where(Result.table_id == table_id)).first()
    assert "again" in h.buttons(chat, table_id)


def test_a_skip_whose_table_moved_on_meanwhile_thinks_the_rest_in_its_transaction(
        h: Harness) -> None:
    table_id = knocked_out(h, "schwimmen 2 experte")
    chat = private(ALICE)
    shown = h.buttons(chat, table_id)
    planned = h.service.think(chat, ALICE, buttons.decode(shown["skip"]))
    assert planned
    table = h.table(table_id)  # the CPUs play on while the person waits
    h.clock.set(table.next_deadline)  # type: ignore[arg-type]
    assert h.fire(table_id, table.version)
    table = h.table(table_id)
    if table.fsm_state == "finished":  # (that move ended the game: nothing left to skip)
        return
    assert min(v for _, v in planned) < table.version  # the plan begins where it stood

    out = h.service.press(chat, ALICE, shown["skip"], update_key=h.key(), plan=planned)
    assert out.ok and h.table(table_id).fsm_state == "finished"
    moves = h.moves(table_id)
    assert [m.seq for m in moves] == list(range(moves[0].seq, moves[0].seq + len(moves)))
    with Session(h.engine) as session:
        assert session.exec(select(Result).where(Result.table_id == table_id)).first()


def test_a_skip_without_a_plan_thinks_it_first_and_a_forged_one_changes_nothing(
        h: Harness) -> None:
    table_id = knocked_out(h, "schwimmen 2 experte")
    chat = private(ALICE)
    shown = h.buttons(chat, table_id)
    version = h.table(table_id).version
    # another person's press of her button: nothing thought, refused, nothing changed
    assert h.service.think(private(MALLORY), MALLORY, buttons.decode(shown["skip"])) == {}
    forged = h.press(private(MALLORY), MALLORY, shown["skip"])
    assert not forged.ok and h.table(table_id).version == version
    # her own press, as the Matrix and Mini App adapters make it: thought first, then played
    out = h.press(chat, ALICE, shown["skip"])
    assert out.ok and h.table(table_id).fsm_state == "finished"
    played: list[Move] = [m for m in h.moves(table_id) if m.seq > version]
    assert played and all(m.actor in ("cpu", "system") for m in played)
