"""A tournament's steps through the service (issue 48, rules 3 and 6), on SQLite and
PostgreSQL with the fake clock: every step claimed once with two services on one database and
after a restart; where tables play — in a forum each table in a topic the bot opens (asked for
through the outbox), and where topics cannot be made (refused, or not made in time) in the
players' private chats."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.delivery import Permanent
from chatbot.service import ChatRef
from storage.db import aware
from storage.models import GameTable, Outbox, TournamentScore
from tests.chatbot.service.harness import Harness
from tests.chatbot.tournaments import (
    greet,
    join_all,
    open_tournament,
    people,
    play_round,
    press_tn,
    start,
    tables,
    tournament,
)
from tests.conftest import FakeClock, Postman, RecordingTransport, make_service, race

FORUM = ChatRef("telegram", "-1001234", "group", "Kartenforum")
ROOM = ChatRef("matrix", "!karten:example.org", "group", "Kartenrunde")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


def second_service(h: Harness):  # type: ignore[no-untyped-def]
    """Another process's service on the same database and clock."""
    return make_service(h.engine, h.clock, cpu_delay=0, next_round_delay=0)


def count_tables(h: Harness) -> int:
    with Session(h.engine) as session:
        return len(session.exec(select(GameTable.id)).all())


def test_the_start_at_a_time_is_claimed_once_by_two_services(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2 start=20:00")
    h.clock.set(aware(tournament(h).due_at))  # type: ignore[arg-type]
    other = second_service(h)
    fired = race([h.service.fire_tournaments, other.fire_tournaments])
    assert sorted(fired) == [0, 1], fired
    assert tournament(h).state == "running" and tournament(h).round_no == 1
    assert len(tables(h)) == 1 and count_tables(h) == 1  # one draw, one game table
    assert race([h.service.fire_tournaments, other.fire_tournaments]) == [0, 0]


def test_the_rounds_end_is_claimed_once_by_two_services(h: Harness) -> None:
    users = people(4)
    greet(h, users)
    open_tournament(h, users, "schwimmen 2")
    start(h, users[0])
    play_round(h, users, random.Random(21))
    t = tournament(h)
    assert t.due_kind == "round_end"
    h.clock.set(aware(t.due_at))  # type: ignore[arg-type]
    other = second_service(h)
    fired = race([h.service.fire_tournaments, other.fire_tournaments])
    assert sorted(fired) == [0, 1], fired
    assert tournament(h).round_no == 2
    assert len(tables(h, 2)) == 1 and count_tables(h) == 2
    with Session(h.engine) as session:
        rounds_scored = {r.round_no for r in session.exec(select(TournamentScore)).all()}
    assert rounds_scored == {1}


def test_a_restarted_service_fires_what_came_due_while_it_was_down(h: Harness) -> None:
    users = people(3)
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 start=20:00")
    due = aware(tournament(h).due_at)  # type: ignore[arg-type]
    h.clock.set(due + timedelta(hours=2))  # nobody ran the step at 20:00: the bot was down
    restarted = second_service(h)
    assert restarted.fire_tournaments() == 1
    assert tournament(h).state == "running"
    assert h.service.fire_tournaments() == 0  # the old process, back: nothing left to do


def test_a_step_fired_with_an_old_version_does_nothing(h: Harness) -> None:
    from chatbot.service.tournament.service import fire
    users = people(3)
    greet(h, users)
    open_tournament(h, users, "schwimmen 1 start=20:00")
    t = tournament(h)
    h.clock.set(aware(t.due_at))  # type: ignore[arg-type]
    assert fire(h.service, t.id, t.version) is True  # type: ignore[arg-type]
    assert fire(h.service, t.id, t.version) is False  # type: ignore[arg-type]
    assert len(tables(h)) == 1


class ForumTransport(RecordingTransport):
    """A forum that makes topics (``refuse``: one whose bot may not make them)."""

    def __init__(self, refuse: bool = False) -> None:
        super().__init__()
        self.refuse, self.topics = refuse, {}  # type: ignore[var-annotated]

    def thread(self, chat: str, name: str) -> str:
        if self.refuse:
            raise Permanent("Bad Request: not enough rights to create a topic")
        self.counter += 1
        self.topics[str(self.counter)] = name
        return str(self.counter)


def forum_rows(h: Harness, forum: ChatRef = FORUM) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.chat_external_id == forum.external_id).order_by(col(Outbox.id))).all())


def open_in_forum(h: Harness, transport: ForumTransport, n: int = 5,
                  forum: ChatRef = FORUM) -> Postman:
    users = people(n)
    for user in users:
        assert h.command(ChatRef(forum.platform, f"p-{user.external_id}"), user, "start").ok
    postman = Postman(h.engine, transport, platform=forum.platform, clock=h.clock)
    assert h.command(forum, users[0], "turnier", "schwimmen 1").ok
    join_all(h, users, forum)
    assert press_tn(h, users[0], "s", forum).ok
    return postman


@pytest.mark.parametrize(("forum", "place", "word"), [
    (FORUM, "topics", "Thema"), (ROOM, "threads", "Thread")])
def test_in_a_forum_each_table_plays_in_its_own_topic_on_matrix_in_a_thread(
        h: Harness, forum: ChatRef, place: str, word: str) -> None:
    transport = ForumTransport()
    postman = open_in_forum(h, transport, forum=forum)
    t = tournament(h)
    assert (t.state, t.due_kind, t.place) == ("running", "deal", None)
    assert [r.state for r in tables(h)] == ["waiting", "waiting"]  # tables of 3 and 2
    assert h.service.fire_tournaments() == 0  # (not due yet: it looks again in 2 s)
    postman.deliver()  # the topics are made
    assert sorted(transport.topics.values()) == ["🏆 Runde 1 · Tisch 1", "🏆 Runde 1 · Tisch 2"]
    h.clock.advance(2)
    assert h.service.fire_tournaments() == 1
    t = tournament(h)
    assert t.place == place
    rows = tables(h)
    assert [r.state for r in rows] == ["playing", "playing"]
    assert {r.thread_id for r in rows} == set(transport.topics)
    for row in rows:
        table = h.table(row.table_id)  # type: ignore[arg-type]
        assert table.thread_id == row.thread_id and not table.is_private
        views = [r for r in forum_rows(h, forum) if r.slot == f"t{row.table_id}"]
        assert views and all(r.thread == row.thread_id for r in views)
    draw = next(r.text for r in forum_rows(h, forum) if r.text.startswith("🏆 Runde 1 von 1"))
    assert draw.endswith(f"Jeder Tisch spielt in seinem eigenen {word}.")
    assert next(r for r in forum_rows(h, forum) if r.text == draw).thread is None


def test_a_forum_that_refuses_topics_plays_in_private_chats(h: Harness) -> None:
    postman = open_in_forum(h, ForumTransport(refuse=True))
    postman.deliver()
    h.clock.advance(2)
    assert h.service.fire_tournaments() == 1
    assert tournament(h).place == "private"
    assert all(r.state == "playing" and r.thread_id is None for r in tables(h))
    draw = next(r.text for r in forum_rows(h) if r.text.startswith("🏆 Runde 1 von 1"))
    assert draw.endswith("Ihr spielt privat mit mir: euer Tisch kommt in euren Chat.")
    assert not [r for r in forum_rows(h) if r.table_id is not None
                or re.fullmatch(r"t\d+", r.slot or "")]


def test_topics_not_made_in_time_play_in_private_chats(h: Harness) -> None:
    open_in_forum(h, ForumTransport())  # nothing is delivered: the topics never come
    for _ in range(3):
        h.clock.advance(2)
        assert h.service.fire_tournaments() == 1  # looked again: still waiting
        assert tournament(h).due_kind == "deal"
    h.clock.advance(120)
    assert h.service.fire_tournaments() == 1
    assert tournament(h).place == "private"
    assert all(r.state == "playing" for r in tables(h))


def test_a_table_whose_people_left_while_its_topic_was_made_is_not_played(h: Harness) -> None:
    transport = ForumTransport()
    postman = open_in_forum(h, transport)
    waiting = tables(h)[1]
    by_id = {u.external_id: u for u in people(5)}
    with Session(h.engine) as session:
        from storage.models import Player
        leavers = [by_id[p.external_id] for p in session.exec(select(Player).where(
            col(Player.id).in_([p for p in waiting.seats if p]))).all()]
    for user in leavers:
        assert press_tn(h, user, "l", FORUM).text == "Du bist aus dem Turnier ausgestiegen."
    assert tables(h)[1].seats == [None, None]
    postman.deliver()
    h.clock.advance(2)
    assert h.service.fire_tournaments() == 1
    assert [(r.state, r.table_id is not None) for r in tables(h)] == [("playing", True),
                                                                      ("done", False)]
    draw = next(r.text for r in forum_rows(h) if r.text.startswith("🏆 Runde 1 von 1"))
    assert len(draw.splitlines()) == 3 and draw.splitlines()[1].startswith("1. ")
