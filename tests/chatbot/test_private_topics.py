"""Issue 50 item 4 on the service and its delivery (SQLite and PostgreSQL): a person's long
tables (a clock of ten minutes or more) each get a topic of their own in their private chat
with the bot, where the bot may make topics there (``Settings.private_topics``): the topic
is asked for once (also across a restart), every message of that table to that person goes
into it - their view, its turns, one-off notes, a replay of its rounds - and nothing of it
into the chat itself; the topic is renamed "🏁 …" when the table ends. Where the chat refuses
topics, or the person deleted one, the table's messages go to the chat itself, as before;
a short clock, or a bot that may not make topics, asks for none."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from chatbot.delivery import Permanent
from chatbot.service import ChatRef
from storage.models import Outbox, Seat
from tests.chatbot.service.harness import ALICE, BOB, Harness, is_move, private
from tests.conftest import Postman, RecordingTransport, make_service

GROUPS = [ChatRef("test", f"-10{i}", "group", f"Stammtisch {i}") for i in "ABC"]


@dataclass
class TopicTransport(RecordingTransport):
    """A recording transport with topics: where each message went (``thread``), the topics
    it made per chat (``topics``: name by id); ``refuse``: no topics here."""

    refuse: bool = False
    topics: dict[str, dict[str, str]] = field(default_factory=dict)
    thread_of: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _going: str | None = None

    def begin(self, item: Any) -> None:
        self._going = item.thread

    def send(self, chat: str, text: str, rows: Any) -> str:
        mid = super().send(chat, text, rows)
        self.thread_of[(chat, mid)] = self._going
        return mid

    def thread(self, chat: str, name: str) -> str:
        if self.refuse:
            raise Permanent("Bad Request: BOT_FORUM_CREATE_FORBIDDEN")
        self.counter += 1
        self.topics.setdefault(chat, {})[str(self.counter)] = name
        return str(self.counter)

    def name_thread(self, chat: str, thread: str, name: str) -> None:
        self.topics[chat][thread] = name

    def shown(self, chat: ChatRef, table_id: int) -> dict[str | None, list[str]]:
        """The chat's messages that show a table's buttons, by the topic they went to."""
        out: dict[str | None, list[str]] = {}
        for m in self.messages(chat.external_id):
            if any(d.startswith(f"v1:{table_id}:") for d in m.data()):
                out.setdefault(self.thread_of.get((chat.external_id, m.id)), []).append(m.text)
        return out


def _harness(engine: Any, clock: Any, refuse: bool = False, **settings: Any) -> Harness:
    h = Harness(engine, clock, **{"private_topics": True, "cpu_delay": 0, **settings})
    h.postman = Postman(engine, TopicTransport(refuse=refuse), clock=clock)
    h.transport = h.postman.transport
    return h


def _long_table(h: Harness, group: ChatRef, clock: str = "12h") -> int:
    for user in (ALICE, BOB):
        assert h.command(private(user), user, "start").ok
    out = h.command(group, ALICE, "new", f"schwimmen clock={clock}")
    assert out.ok and out.table_id, out.text
    assert h.press(group, BOB, h.buttons(group, out.table_id)["join"]).changed
    assert h.press(group, ALICE, h.buttons(group, out.table_id)["start"]).changed
    return out.table_id


def _move(h: Harness, table_id: int, rng: random.Random, knock: bool = False) -> None:
    """The person on turn makes a move from their private view (a round ended on the deal:
    the next one is dealt first; ``knock``: knocking among the moves)."""
    for _ in range(5):
        state = h.state(table_id)
        if state.to_act is not None:
            break
        h.run_deadlines(table_id, kinds=("next",))
    seat = next(s for s in h.seats(table_id) if s.seat_no == h.state(table_id).to_act)
    user = ALICE if seat.name == "Alice" else BOB
    shown = h.buttons(private(user), table_id)
    move = rng.choice(sorted(c for c in shown if is_move(c) and (knock or c != "knock")))
    assert h.press(private(user), user, shown[move]).changed


def _thread_rows(h: Harness, chat: ChatRef) -> list[Outbox]:
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.chat_external_id == chat.external_id,
            col(Outbox.action).in_(("thread", "thread_name")))).all())


def test_three_long_tables_get_three_topics_each_tables_messages_in_its_own(
        db_engine, clock) -> None:
    h = _harness(db_engine, clock)
    tables = [_long_table(h, group) for group in GROUPS]
    h.messages(private(ALICE))  # (delivered)
    topics = h.transport.topics[private(ALICE).external_id]
    assert sorted(topics.values()) == ["🃏 Schwimmen · Stammtisch A", "🃏 Schwimmen · Stammtisch B",
                                       "🃏 Schwimmen · Stammtisch C"]
    assert sorted(h.transport.topics[private(BOB).external_id].values()) == \
        ["🃏 Schwimmen · Stammtisch A", "🃏 Schwimmen · Stammtisch B",
         "🃏 Schwimmen · Stammtisch C"]
    rng = random.Random(50)
    for _ in range(2):
        for table in tables:
            _move(h, table, rng)
    h.service = make_service(db_engine, clock, private_topics=True, cpu_delay=0)  # a restart
    for table in tables:
        _move(h, table, rng)
    for user in (ALICE, BOB):
        chat = private(user)
        h.messages(chat)
        where = {table: h.transport.shown(chat, table) for table in tables}
        # each table's messages in one topic of its own, none in the chat itself
        assert all(len(w) == 1 and None not in w for w in where.values()), where
        threads = [next(iter(w)) for w in where.values()]
        assert sorted(threads) == sorted(h.transport.topics[chat.external_id])
        names = {h.transport.topics[chat.external_id][t] for t in threads}
        assert len(names) == 3
        assert len([r for r in _thread_rows(h, chat) if r.action == "thread"]) == 3  # once
    with Session(h.engine) as session:
        assert all(s.private_topic for s in session.exec(select(Seat).where(
            col(Seat.table_id).in_(tables))).all())
    # a table that ends: its topics renamed, its messages stay; the others play on
    assert h.command(GROUPS[0], ALICE, "stop").ok
    h.messages(private(ALICE))
    assert sorted(h.transport.topics[private(ALICE).external_id].values()) == \
        ["🃏 Schwimmen · Stammtisch B", "🃏 Schwimmen · Stammtisch C",
         "🏁 Schwimmen · Stammtisch A"]


def test_a_replay_of_a_long_table_comes_in_its_topic(db_engine, clock) -> None:
    h = _harness(db_engine, clock)
    table = _long_table(h, GROUPS[0])
    rng = random.Random(7)
    for _ in range(200):
        if h.table(table).fsm_state in ("payout", "finished") and len(h.moves(table)) > 3:
            break
        if h.state(table).to_act is None:
            h.run_deadlines(table, kinds=("next",))
            continue
        _move(h, table, rng, knock=True)
    chat = private(ALICE)
    h.command(chat, ALICE, "replay", "1")
    h.messages(chat)
    topic = next(iter(h.transport.topics[chat.external_id]))
    replay = [m for m in h.transport.messages(chat.external_id) if "rp." in " ".join(m.data())]
    assert replay and h.transport.thread_of[(chat.external_id, replay[-1].id)] == topic


def test_where_topics_are_refused_or_deleted_the_table_speaks_in_the_chat_itself(
        db_engine, clock) -> None:
    h = _harness(db_engine, clock, refuse=True)
    table = _long_table(h, GROUPS[0])
    rng = random.Random(3)
    _move(h, table, rng)
    chat = private(ALICE)
    h.messages(chat)
    assert list(h.transport.shown(chat, table)) == [None]  # the chat itself
    _move(h, table, rng)
    assert len([r for r in _thread_rows(h, chat) if r.action == "thread"]) == 1  # asked once

    # a topic the person deleted: the table's messages come to the chat itself again
    h2 = _harness(db_engine, clock)
    other = _long_table(h2, GROUPS[1])
    h2.messages(chat)
    topic = next(t for t, n in h2.transport.topics[chat.external_id].items()
                 if n.endswith("Stammtisch B"))
    h2.service.thread_gone("test", chat.external_id, topic)
    h2.messages(chat)
    shown = h2.transport.shown(chat, other)
    assert None in shown and topic in shown  # drawn anew in the chat itself
    _move(h2, other, rng)
    h2.messages(chat)
    newest = [m for m in h2.transport.messages(chat.external_id)
              if any(d.startswith(f"v1:{other}:") for d in m.data())][-1]
    assert h2.transport.thread_of[(chat.external_id, newest.id)] is None


def test_a_short_clock_or_a_bot_without_private_topics_asks_for_none(
        db_engine, clock) -> None:
    h = _harness(db_engine, clock)
    _long_table(h, GROUPS[0], clock="60s")
    off = Harness(db_engine, clock, cpu_delay=0)  # (private_topics off: getMe said so)
    _long_table(off, GROUPS[1])
    for user in (ALICE, BOB):
        assert _thread_rows(h, private(user)) == []
