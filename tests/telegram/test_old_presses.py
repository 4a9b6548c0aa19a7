"""After a restart, a press older than Telegram's answer window is applied once but not
answered (issue 15, item 2): the bot knows from the newest update id the last run fetched,
and when, that the press is too old."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import create_engine, text

from storage.db import database_url

from .harness import WAIT, greet, private_menu_to_table, private_moves

pytestmark = pytest.mark.e2e


def test_a_press_older_than_the_answer_window_is_applied_but_not_answered(
        fake, start_bot, sqlite_url, db_reader) -> None:  # type: ignore[no-untyped-def]
    bot = start_bot(sqlite_url)
    user = 4747
    greet(fake, user, "Olga")
    table_id, message_id = private_menu_to_table(fake, user, opponents=1)
    data = private_moves(fake, user, table_id, message_id)[0]
    bot.stop()
    # as if the last run had fetched far newer updates a minute ago, then died
    engine = create_engine(database_url(sqlite_url))
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM key_value WHERE key = 'telegram:newest_update'"))
        conn.execute(text("INSERT INTO key_value (key, value) VALUES "
                          "('telegram:newest_update', :v)"), {"v": f"{10**9} {time.time() - 60}"})
    engine.dispose()
    db = db_reader(sqlite_url)
    moves = len(db.moves(table_id))
    start_bot(sqlite_url)
    uid = fake.press(user, user, message_id, data)
    fake.wait_for(lambda: len(db.moves(table_id)) > moves, WAIT, message="the move applied")
    query_id = fake.get_update(uid)["callback_query"]["id"]
    time.sleep(1.0)
    assert not [c for c in fake.calls("answerCallbackQuery")
                if c["params"].get("callback_query_id") == query_id]
