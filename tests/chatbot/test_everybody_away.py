"""A group table where nobody plays their own seat any more — every person timed out twice and
is away — ends: the stand-in, who never knocks for a person, would swap cards forever (two
away seats at Schwimmen did, thousands of turns), so once nobody plays it plays as Normal,
knocks included (``core.cpu.nobody_plays``; docs/rules.md). While one person still plays, the
stand-in of an away seat never knocks. On SQLite and PostgreSQL, on the fake clock."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storage.models import Move
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    Harness,
    is_move,
    open_group_table,
    private,
)
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def knocks_by(h: Harness, table_id: int, actor: str) -> int:
    with Session(h.engine) as session:
        return len([m for m in session.exec(select(Move).where(Move.table_id == table_id)).all()
                    if m.actor == actor and m.code == "knock"])


def test_a_table_where_everybody_is_away_ends(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    fired = h.run_deadlines(table_id, kinds=("cpu", "next", "remind", "timeout"), limit=3000)
    table = h.table(table_id)
    assert table.fsm_state == "finished", f"still {table.fsm_state} after {fired} deadlines"
    assert all(s.away and not s.is_cpu for s in h.seats(table_id))
    assert knocks_by(h, table_id, "timeout") == 0  # a timed-out turn (one person's) never knocks


def test_while_a_person_plays_the_away_seats_stand_in_never_knocks(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB, CAROL], start=True)
    for _ in range(400):  # Carol plays (passing where she can); the others' clocks run out
        # (while she is in the game, checked below)
        table = h.table(table_id)
        state = h.state(table_id)
        if table.fsm_state == "finished" or state.out[2]:
            break  # (Carol out: nobody plays their own seat any more)
        if state.to_act == 2 and table.deadline_kind not in ("cpu", "next"):
            shown = {c: d for c, d in h.buttons(private(CAROL), table_id).items()
                     if is_move(c)}
            code = "pass" if "pass" in shown else sorted(shown)[0]
            assert h.press(private(CAROL), CAROL, shown[code]).ok
            continue
        assert table.next_deadline is not None
        h.clock.set(table.next_deadline)
        h.fire(table_id, table.version)
    assert knocks_by(h, table_id, "away") == 0
    assert knocks_by(h, table_id, "timeout") == 0
