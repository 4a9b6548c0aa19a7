"""Where a tournament's people play, through the service (issue 48), on SQLite and PostgreSQL:
a table in a topic (Telegram) or a thread (Matrix) is named by it in its people's private views
("Kartenforum › 🏆 Runde 1 · Tisch 2": the topic the bot made, as Telegram never names it to
the bot); on Matrix a person joins without writing to the bot first — the adapter opens the
direct room after the join, as for a table joined in a room — while on Telegram, where a bot
cannot write first, the join is refused until they did."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.buttons import encode
from chatbot.service import ChatRef, UserRef
from storage.models import Outbox, TournamentEntrant
from tests.chatbot.service.harness import Harness
from tests.chatbot.test_tournament_steps import FORUM, ROOM, ForumTransport, open_in_forum
from tests.chatbot.tournaments import tables, tournament
from tests.conftest import FakeClock


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    return Harness(db_engine, FakeClock(), cpu_delay=0, next_round_delay=0)


@pytest.mark.parametrize("forum", [FORUM, ROOM], ids=["topics", "threads"])
def test_a_table_in_a_topic_or_thread_is_named_by_it_in_the_private_views(
        h: Harness, forum: ChatRef) -> None:
    postman = open_in_forum(h, ForumTransport(), forum=forum)
    postman.deliver()  # the topics are made
    h.clock.advance(2)
    assert h.service.fire_tournaments() == 1
    with Session(h.engine) as session:
        views = [(v.slot, v.text) for v in session.exec(select(Outbox).where(
            col(Outbox.slot).startswith("h"))).all()]
    for row in tables(h):
        heads = {text.split("\n")[0] for slot, text in views if slot == f"h{row.table_id}"}
        assert heads and all(head.endswith(
            f" · {forum.title} › 🏆 Runde 1 · Tisch {row.table_no}") for head in heads), heads


@pytest.mark.parametrize(("platform", "joined"), [("matrix", True), ("telegram", False)])
def test_joining_needs_a_private_chat_first_only_where_the_bot_cannot_open_one(
        h: Harness, platform: str, joined: bool) -> None:
    group = ChatRef(platform, "g-join", "group", "Runde")
    opener, newcomer = UserRef("o1", "Olga"), UserRef("n1", "Nepomuk")
    assert h.command(ChatRef(platform, "p-o1", "private"), opener, "start").ok
    assert h.command(group, opener, "turnier", "schwimmen 1").ok
    t = tournament(h, group)
    out = h.press(group, newcomer, encode(0, 0, f"tn.j.{t.id}"))  # (never wrote to the bot)
    assert (out.ok, out.changed) == (joined, joined), out.text
    assert out.text == ("✅ Du bist dabei." if joined else
                        "Schreib mir zuerst privat (/start in unserem Chat): dorthin kommen "
                        "deine Karten.")
    with Session(h.engine) as session:
        entered = session.exec(select(TournamentEntrant).where(
            TournamentEntrant.tournament_id == t.id)).all()
        assert len(entered) == (1 if joined else 0)
