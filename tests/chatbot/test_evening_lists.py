"""What the evening posts into a group is in the group's language, whoever typed, and its lists
rank ties the same way everywhere ("1., 1., 3."): the Deckel and the month's and quarter's
tables (issue 47), through the service on SQLite and PostgreSQL."""

from __future__ import annotations

import random

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storage.models import Chat, GameTable, Player, Result, Seat
from tests.chatbot.evenings import answer, berlin, mark, rows_since, step, texts
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness
from tests.conftest import FakeClock

DAVE = ALICE.__class__("dave", "Dave", language="en")  # reads English; the group is German


@pytest.fixture
def h(db_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Harness:
    seeds = random.Random(49)
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(seeds.random()))
    return Harness(db_engine, FakeClock(berlin(0, 12)), cpu_delay=0, next_round_delay=0)


def finished_game(h: Harness, names: list[str], winners: list[int], coins: list[int]) -> None:
    """A game of the group finished now, as ``play.finish`` leaves it."""
    now = h.clock()
    with Session(h.engine) as session:
        chat = session.exec(select(Chat).where(Chat.external_id == GROUP.external_id)).one()
        people = {p.name: p for p in session.exec(select(Player)).all()}
        table = GameTable(chat_id=chat.id, game="schwimmen", seed=1, fsm_state="finished",
                          is_private=False, created_at=now, updated_at=now, finished_at=now)
        session.add(table)
        session.flush()
        for no, name in enumerate(names):
            session.add(Seat(table_id=table.id, seat_no=no, name=name,
                             player_id=people[name].id))
        session.add(Result(table_id=table.id, game="schwimmen", winners=winners,
                           standings=[{"seat": i, "coins": c} for i, c in enumerate(coins)],
                           rounds=1, finished_at=now))
        session.commit()


def test_the_evenings_texts_are_in_the_groups_language_and_ties_share_a_rank(h: Harness
                                                                            ) -> None:
    before = mark(h)
    assert h.command(GROUP, DAVE, "abend").ok  # the dialogue: the group's German
    assert h.command(GROUP, DAVE, "abend", "heute 20:00").ok
    said = texts(rows_since(h, before, GROUP))
    assert said[0] == "🍻 Stammtisch: an welchem Tag?"
    assert said[1] == "🍻 Geplant: Mo 07.01., 20:00."
    assert said[2].startswith("🍻 Stammtisch Mo 07.01., 20:00")
    for user in (ALICE, BOB, CAROL, DAVE):
        answer(h, user, "y")
    step(h, "soon")
    step(h, "start")
    h.clock.advance(1200)
    finished_game(h, ["Alice", "Bob", "Carol"], [0, 1], [2, 2, 0])  # two winners tie
    before = mark(h)
    assert h.command(GROUP, DAVE, "deckel").ok
    assert h.command(GROUP, DAVE, "top", "monat").ok
    assert h.command(GROUP, DAVE, "top", "season").ok
    sheet, month, quarter = texts(rows_since(h, before, GROUP))
    ranked = ["1. Alice · 1,5", "1. Bob · 1,5", "3. Carol · 0"]
    assert sheet.split("\n") == ["🍺 Der Deckel dieses Abends (1 Spiel)", *ranked]
    assert month.split("\n") == ["🍻 Stammtisch-Tabelle Januar 2030", *ranked]
    assert quarter.split("\n") == ["🍻 Stammtisch-Tabelle Q1 2030", *ranked]
    before = mark(h)
    assert h.command(GROUP, DAVE, "abend", "ende").ok  # (Dave said yes: he came)
    said = texts(rows_since(h, before, GROUP))
    assert said[-1].startswith("🍻 Der Stammtisch ist vorbei. Danke fürs Kommen!")
    assert "\n".join(ranked) in said[-1]
