"""Issue 38, item 14 through the fake Bot API: old buttons of a table that is over get the
short answer only. "I'm back" pressed on a closed table's message by a player who had gone
away used to bring the closed table's view ("🃏 … Tisch beendet.") back to the group and
to every player's private chat, and announce the return."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, Db, GroupGame, answer_text

pytestmark = pytest.mark.e2e


def test_presses_on_a_closed_table_are_answered_without_a_message(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=1, CPU_DELAY=0.01)
    db = db_reader(sqlite_url)
    users = [7101, 7102]
    game = GroupGame(fake, -7100, users, {7101: "Ida", 7102: "Udo"}, random.Random(7))
    game.hello()
    game.open()
    # nobody plays: the clock runs out twice for someone, who is marked away; the table
    # message offers "I'm back"
    back = game.wait_code("back")
    old = game.table_msg
    away = {s["player_id"] for s in db.seats(game.table_id) if s["away"]}
    presser = next(u for u in users if db.rows(
        "SELECT id FROM player WHERE external_id = :u", u=str(u))[0]["id"] in away)
    fake.send_text(game.group, users[0], "/stop")
    fake.wait_for(lambda: db.table(game.table_id)["fsm_state"] in ("abandoned", "finished"),
                  WAIT, message="the table closed")
    # ... and the /stop handled to its end: its answer is queued after the table's commit,
    # in a transaction of its own (counting the rows before it was a flake)
    fake.wait_for(lambda: any(r["text"] == "Der Tisch wurde beendet."
                              for r in db.outbox(game.group)), WAIT, message="the /stop answer")
    version = db.table(game.table_id)["version"]
    queued = len(db.outbox())

    # a client that still shows the old keyboard (check_data=False: it is no longer current)
    answers = [answer_text(fake, fake.press(game.group, presser, old, back, check_data=False))
               for _ in range(3)]
    assert answers == ["Dieses Spiel ist schon vorbei."] * 3
    # each press was committed before it was answered: nothing was queued for any chat
    assert db.outbox()[queued:] == []
    assert db.table(game.table_id)["version"] == version
