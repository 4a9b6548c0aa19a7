"""A tournament in a group through the service (issue 48), on SQLite and PostgreSQL with the
fake clock: opened typed or by buttons, joined, started; round 1 by lot, later rounds Swiss;
tables played in the players' private chats where the group has no topics (nothing of them in
the group); every game scored by place; the standings after each round and the winner at the
end; leaving, bad input, and the steps once with two services on one database."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from sqlalchemy.engine import Engine

from chatbot.buttons import encode
from tests.chatbot.service.harness import GROUP, Harness
from tests.chatbot.tournaments import (
    fire_steps,
    greet,
    join_all,
    people,
    play_round,
    scores,
    tables,
    tournament,
)
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def test_a_twelve_person_schwimmen_tournament_over_three_rounds(h: Harness) -> None:
    users = people(12)
    greet(h, users)
    out = h.command(GROUP, users[0], "turnier", "schwimmen 3")
    assert out.ok, out.text
    announcement = h.messages(GROUP)[-1].text
    assert announcement.startswith("🏆 Turnier: Schwimmen · 3 Runden")
    join_all(h, users)
    t = tournament(h)
    out = h.press(GROUP, users[0], encode(0, 0, f"tn.s.{t.id}"))
    assert out.ok, out.text
    assert len(tables(h)) == 3 and all(len([p for p in r.seats if p]) == 4 for r in tables(h))
    rng = random.Random(7)
    for round_no in (1, 2, 3):
        assert tournament(h).round_no == round_no
        group_before = len(h.messages(GROUP))
        play_round(h, users, rng)
        # nothing of the tables went into the group: they played privately
        assert all("🃏" not in m.text for m in h.messages(GROUP)[group_before:])
        assert fire_steps(h) >= 1  # the round's end
    t = tournament(h)
    assert t.state == "finished"
    final = h.messages(GROUP)[-1].text
    assert final.startswith("🏆 Endstand:")
    assert final.splitlines()[-1].startswith("🥇 ") and final.endswith(" das Turnier!")
    # every person played three games; points per table add up to 4·3/2
    rows = scores(h)
    assert len(rows) == 36
    per_table: dict[tuple[int, int], Fraction] = {}
    for row in rows:
        key = (row.round_no, row.table_no)
        per_table[key] = per_table.get(key, Fraction(0)) + Fraction(row.points_num,
                                                                    row.points_den)
    assert set(per_table.values()) == {Fraction(6)}
