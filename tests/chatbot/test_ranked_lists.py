"""Ties are ranked the same way in every list the bot posts ("1., 1., 3.": the core's
``ranking``), and the group's lists are in the group's language whoever asked: the stats
room's ``/top`` and the daily deal's ranking and morning post, through the service on SQLite
and PostgreSQL. (The evening's Deckel and tables: tests/chatbot/test_evening_lists.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service.core.ranking import ranked
from storage.models import Chat, DailyEntry, DailyPost, GameTable, Player, Result, Seat
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness
from tests.chatbot.test_stats import store_result
from tests.conftest import FakeClock

DAVE = ALICE.__class__("dave", "Dave", language="en")  # reads English; the group is German
MONDAY = datetime(2030, 1, 7, 11, tzinfo=UTC)


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    harness = Harness(db_engine, FakeClock(MONDAY))
    for user in (ALICE, BOB, CAROL, DAVE):  # members of the group
        assert harness.command(GROUP, user, "help").ok
    return harness


def test_ties_share_the_best_rank_and_the_next_rank_skips() -> None:
    rows = [("Alice", 3), ("Bob", 3), ("Carol", 1), ("Dave", 1), ("Eve", 0)]
    assert [(rank, name) for rank, (name, _p) in ranked(rows, key=lambda r: r[1])] == [
        (1, "Alice"), (1, "Bob"), (3, "Carol"), (3, "Dave"), (5, "Eve")]
    assert ranked([], key=lambda r: r) == []


def test_the_groups_leaderboard_ranks_ties_alike_in_the_groups_language(h: Harness) -> None:
    store_result(h.engine, (GROUP.external_id, "group"), "schwimmen",
                 [("p", "alice"), ("p", "bob"), ("p", "carol")], [0, 1], places=[1, 1, 3])
    out = h.command(GROUP, DAVE, "top")
    assert out.ok
    lines = h.messages(GROUP)[-1].text.split("\n")
    assert lines[:3] == ["🏆 Bestenliste dieser Gruppe", "", "Schwimmen"]
    assert [line.split(" · ")[0] for line in lines[3:]] == ["1. Alice", "1. Bob", "3. Carol"]
    assert lines[3].split(" · ")[1:] == lines[4].split(" · ")[1:]  # tied: same rating, wins


def _daily_try(session: Session, name: str, day: str, coins: int, seconds: int) -> None:
    """A counted daily try of ``name``, finished ``seconds`` after it began."""
    person = session.exec(select(Player).where(Player.name == name)).one()
    chat = session.exec(select(Chat).where(Chat.external_id == GROUP.external_id)).one()
    began = MONDAY - timedelta(hours=2)
    table = GameTable(chat_id=chat.id, game="schwimmen", seed=1, fsm_state="finished",
                      is_private=True, options={"daily": day}, created_at=began,
                      updated_at=began, finished_at=began + timedelta(seconds=seconds))
    session.add(table)
    session.flush()
    session.add(Seat(table_id=table.id, seat_no=0, name=name, player_id=person.id))
    session.add(DailyEntry(player_id=person.id, game="schwimmen", day=day,  # type: ignore[arg-type]
                           table_id=table.id, counted=True, created_at=began))
    session.add(Result(table_id=table.id, game="schwimmen", winners=[0],
                       standings=[{"seat": 0, "coins": coins, "place": 1}], rounds=1,
                       finished_at=began + timedelta(seconds=seconds)))


def test_the_daily_ranking_ranks_ties_alike_in_the_groups_language(h: Harness) -> None:
    day = "2030-01-07"
    with Session(h.engine) as session:
        for name, coins in (("Alice", 3), ("Bob", 3), ("Carol", 1)):
            _daily_try(session, name, day, coins, 300)
        chat = session.exec(select(Chat).where(Chat.external_id == GROUP.external_id)).one()
        session.add(DailyPost(chat_id=chat.id, day=day,  # type: ignore[arg-type]
                              due_at=datetime(2030, 1, 8, 7, tzinfo=UTC)))
        session.commit()
    assert h.command(GROUP, DAVE, "tagesspiel").ok
    lines = h.messages(GROUP)[-1].text.split("\n")
    assert lines[:2] == ["📅 Tagesspiel (2030-01-07):", "Schwimmen:"]
    assert [line.split(" – ")[0] for line in lines[2:]] == ["1. Alice", "1. Bob", "3. Carol"]
    h.clock.set(datetime(2030, 1, 8, 7, tzinfo=UTC))
    assert h.service.post_daily("test") == 1
    post = h.messages(GROUP)[-1].text.split("\n")
    assert post[0] == "📅 Tagesspiel von gestern (2030-01-07) – die Besten dieser Gruppe:"
    assert post[1].startswith("Schwimmen: Alice, Bob (Platz 1, Stand 3, 5:00)")
