"""The press's statements (issue 39): the pressed table and its seats are read in one
statement, the table's row is written by one ``UPDATE`` of the columns that changed, and
what is stored is what the unit of work stored before — read back in a fresh session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

import engine as rules
from chatbot.service import ChatRef, Service, Settings, UserRef
from storage.models import GameTable, Move, Player, Seat
from tests.conftest import FakeClock


@pytest.fixture
def sent(db_engine: Engine) -> Iterator[list[str]]:
    statements: list[str] = []

    def listen(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        statements.append(" ".join(statement.split()))

    event.listen(db_engine, "before_cursor_execute", listen)
    yield statements
    event.remove(db_engine, "before_cursor_execute", listen)


def _move(service: Service) -> tuple[GameTable, str]:
    table = service.unfinished_tables("telegram", "1001")[0]
    game = rules.GAMES[table.game]
    state = game.from_json(table.state_json)  # type: ignore[arg-type]
    code = "next" if game.phase(state) == "payout" else game.legal_actions(state)[0].code
    return table, code


def test_a_press_reads_table_and_seats_at_once_and_writes_the_changed_columns(
        db_engine: Engine, clock: FakeClock, sent: list[str]) -> None:
    service = Service(db_engine, Settings(cpu_delay=0, cpu_workers=0), clock=clock)
    chat, user = ChatRef("telegram", "1001", "private"), UserRef("1001", "P", language="de")
    service.command(chat, user, "new", "schwimmen 1 anfaenger")
    for i in range(4):
        before, code = _move(service)
        sent.clear()
        out = service.press(chat, user, f"v1:{before.id}:{before.version}:{code}", f"k{i}")
        assert out.ok
        tables = [s for s in sent if s.startswith("SELECT") and "FROM game_table" in s]
        assert len(tables) == 1 and "JOIN seat" in tables[0]
        assert not any(s.startswith("SELECT") and "FROM seat" in s for s in sent)
        updates = [s for s in sent if s.startswith("UPDATE game_table")]
        assert len(updates) == 1
        assert "version=" in updates[0].replace(" ", "") and "chat_id" not in updates[0]
        with Session(db_engine) as session:  # what a fresh session reads back
            after = session.get(GameTable, before.id)
            assert after is not None
            assert after.version > before.version
            assert after.state_json != before.state_json
            assert after.updated_at is not None and after.chat_id == before.chat_id
            moves = session.exec(select(Move).where(Move.table_id == before.id)).all()
            assert max(m.seq for m in moves) == after.version
            seats = session.exec(select(Seat).where(Seat.table_id == before.id)).all()
            assert len(seats) == 2


def test_a_press_on_a_table_that_is_not_there_is_refused(db_engine: Engine,
                                                          clock: FakeClock) -> None:
    service = Service(db_engine, Settings(cpu_delay=0, cpu_workers=0), clock=clock)
    chat, user = ChatRef("telegram", "1001", "private"), UserRef("1001", "P", language="en")
    out = service.press(chat, user, "v1:4242:1:swap.AS.KS", "k")
    assert not out.ok and out.text


def test_an_input_reads_its_chat_and_person_in_one_statement(
        db_engine: Engine, clock: FakeClock, sent: list[str]) -> None:
    service = Service(db_engine, Settings(cpu_delay=0, cpu_workers=0), clock=clock)
    group = ChatRef("telegram", "-500", "group", "Stammtisch")
    anna, ben = UserRef("1", "Anna", language="de"), UserRef("2", "Ben", language="de")
    service.command(group, anna, "new", "schwimmen")  # a new chat and a new person
    sent.clear()
    assert service.command(group, anna, "help").ok  # both known
    lookups = [s for s in sent if s.startswith("SELECT") and ("FROM chat" in s or
                                                             "FROM player" in s)]
    assert len(lookups) == 1 and "JOIN player" in lookups[0]
    sent.clear()
    assert service.command(group, ben, "help").ok  # a new person in a known chat
    with Session(db_engine) as session:
        names = {p.external_id: p.name for p in session.exec(select(Player)).all()}
    assert names == {"1": "Anna", "2": "Ben"}
    service.command(group, UserRef("1", "Anna K.", language="de"), "help")
    with Session(db_engine) as session:  # what the platform says of a known person now
        assert session.exec(select(Player).where(Player.external_id == "1")).one().name == \
            "Anna K."
