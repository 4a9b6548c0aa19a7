"""Issue 50 item 4 end to end (the bot process against the fake Bot API, its clock
simulated): with the bot's threaded mode on (topics in private chats, Bot API 9.4), a person
at three long tables - one in each of three groups, a clock of twelve hours - gets three
topics in their private chat with the bot, each named by its game and group, and each
table's messages to them (their view, its turns) in its own topic, none in the chat itself;
across a restart no topic is made twice; a table that ends has its topic renamed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import WAIT, BotProcess
from tests.telegram.keyboards import table_of
from tests.telegram.long_game import ALICE, BOB, LongTable, SimClock, answer, berlin, settled

GROUPS = (-1001234567801, -1001234567802, -1001234567803)


def _names(fake: FakeBotApi, user: int) -> list[str]:
    return sorted(t["name"] for t in fake.topics(user).values())


def test_a_person_at_three_long_tables_gets_three_topics_each_tables_messages_in_its_own(
        fake: FakeBotApi, tmp_path: Path, db_url: str,
        start_bot: Callable[..., BotProcess], db_reader: Callable[[str], Db]) -> None:
    fake.private_topics = True  # (BotFather: threaded mode; getMe says has_topics_enabled)
    clock = SimClock(tmp_path / "clock", berlin(0, 13))
    bot = start_bot(db_url, **clock.env())
    db = db_reader(db_url)
    tables = [LongTable(fake, db, group=g).open("12h") for g in GROUPS]
    fake.wait_for(lambda: all(len(fake.topics(u)) == 3 for u in (ALICE, BOB)), WAIT,
                  message="three topics in each private chat")
    assert _names(fake, ALICE) == [f"🃏 Schwimmen · Stammtisch Test {abs(g)}" for g in GROUPS]
    assert _names(fake, BOB) == [f"🃏 Schwimmen (31) · Stammtisch Test {abs(g)}"
                                 for g in GROUPS]
    for t in tables:
        answer(t)
    bot.stop()  # a restart in the middle
    start_bot(db_url, **clock.env())
    for t in tables:
        answer(t)
    for t in tables:
        settled(t)
    for user in (ALICE, BOB):
        where = {t.table_id: {m.get("message_thread_id") for m in fake.messages(user)
                              if table_of(m) == t.table_id} for t in tables}
        assert all(len(w) == 1 and None not in w for w in where.values()), where
        assert sorted(next(iter(w)) for w in where.values()) == sorted(fake.topics(user))
    assert len(fake.calls("createForumTopic")) == 6  # once per person and table

    fake.send_text(GROUPS[0], ALICE, "/stop", user_first_name="Alice")  # a table ends
    fake.wait_for(lambda: "🏁 Schwimmen · Stammtisch Test 1001234567801" in _names(fake, ALICE),
                  WAIT, message="the ended table's topic renamed")
    assert len(fake.topics(ALICE)) == 3 and not any(t["deleted"]
                                                    for t in fake.topics(ALICE).values())
