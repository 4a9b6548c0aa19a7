"""Telegram failing now and then (429 with retry_after, 500, 502) loses and repeats nothing.

A private game (in a thread) and a group game are played at the same time while the fake Bot
API answers some sendMessage/editMessageText calls with errors (without side effects, as
Telegram does). In the end every outbox row is ``sent`` (or ``dropped``: superseded by a newer
view of the same message before it went out), nothing is ``failed`` or left ``pending``, each
announcement (round results, ...) shows exactly once, one per round played, and the table
messages show the newest view.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    greet,
    play_private,
    private_menu_to_table,
)

pytestmark = pytest.mark.e2e

FAULTS = [("sendMessage", 1, "429"), ("editMessageText", 2, "500"), ("sendMessage", 1, "502"),
          ("editMessageText", 1, "429"), ("sendMessage", 1, "500"), ("editMessageText", 1, "502"),
          ("sendMessage", 1, "503")]


def _announcements_once(fake: FakeBotApi, db: Db, chat: int) -> list[str]:
    """Every announcement row of the chat shows exactly once; returns the chat's texts."""
    shown = Counter(m["text"] for m in fake.messages(chat) if not m["deleted"])
    for row in db.outbox(chat):
        if row["slot"] is None:
            assert shown[row["text"]] == 1, (row["text"], shown[row["text"]])
    once = Counter(m["text"] for m in fake.messages(chat) if not m["reply_markup"]
                   and not m["history"])
    doubles = [t for t, n in once.items() if n > 1]
    assert not doubles, doubles
    return [m["text"] for m in fake.messages(chat) if not m["deleted"]]


def _round_results(texts: list[str]) -> list[int]:
    return [int(t.split()[1]) for t in texts
            if t.startswith("Runde ") and " vorbei" in t.splitlines()[0]]


def _winner(db: Db, table_id: int) -> int:
    result = db.result(table_id)
    assert result is not None, f"table {table_id} has no result"
    winners = result["winners"]
    winners = json.loads(winners) if isinstance(winners, str) else winners
    assert len(winners) == 1
    return winners[0]


def test_faults_429_and_5xx_lose_nothing(fake: FakeBotApi, sqlite_url: str,
                                         start_bot: Callable[..., BotProcess],
                                         db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    db = db_reader(sqlite_url)
    faults = iter(FAULTS)
    lock = threading.Lock()

    def inject(step: int) -> None:
        if step % 3 == 1:
            with lock:
                fault = next(faults, None)
            if fault is not None:
                fake.fail(fault[0], fault[1], fault[2], retry_after=1)

    # ---- a private game, played in a thread
    me = 9001
    greet(fake, me, "Fritzi")
    fake.fail("sendMessage", 1, "502")  # even the table message's first post fails once
    table_id, mid = private_menu_to_table(fake, me, opponents=1)
    private: dict[str, Any] = {}

    def play() -> None:
        try:
            private["final"] = play_private(fake, me, table_id, mid, random.Random(99),
                                            on_step=inject)
        except BaseException as exc:  # reported by the main thread
            private["error"] = exc

    thread = threading.Thread(target=play, name="private-game", daemon=True)
    thread.start()

    # ---- a group game at the same time
    names = {9101: "Greta", 9102: "Hugo", 9103: "Ines"}
    game = GroupGame(fake, -9100, list(names), names, random.Random(4))
    game.hello()
    game.open()
    presses = 0
    deadline = time.monotonic() + 240
    while not game.finished:
        assert time.monotonic() < deadline, "the group game did not end"
        if game.step():
            presses += 1
            inject(presses)
        else:
            time.sleep(0.02)
    thread.join(timeout=240)
    assert not thread.is_alive(), "the private game did not end"
    if "error" in private:
        raise private["error"]

    failures = [c for c in fake.calls() if c["method"] in ("sendMessage", "editMessageText")
                and c["status"] != 200]
    assert {c["status"] for c in failures} >= {429, 500, 502}, failures
    fake.wait_for(lambda: not any(r["status"] == "pending" for r in db.outbox()), WAIT,
                  message="the outbox to drain")
    statuses = Counter(r["status"] for r in db.outbox())
    assert set(statuses) <= {"sent", "dropped"}, (statuses, [
        (r.get("action"), r["slot"], r["error"]) for r in db.outbox() if r["status"] == "failed"])
    assert any(r["attempts"] > 0 and r["status"] == "sent" for r in db.outbox())

    # the private game: one result per round, the table message shows the newest view
    rounds = int(db.result(table_id)["rounds"])
    deals = [m for m in db.moves(table_id) if m["code"] == "deal"]
    assert rounds == len(deals) + 1
    assert _round_results(_announcements_once(fake, db, me)) == list(range(1, rounds + 1))
    newest = [r for r in db.outbox(me) if r["slot"] == f"t{table_id}"][-1]
    assert fake.message(me, mid)["text"] == newest["text"] == private["final"]["text"]
    seats = db.seats(table_id)
    assert f"🏆 Gewinner: {seats[_winner(db, table_id)]['name']}" in newest["text"]

    # the group game: the same, and each player's private view shows once, up to date
    rounds = int(db.result(game.table_id)["rounds"])
    texts = _announcements_once(fake, db, game.group)
    assert _round_results(texts) == list(range(1, rounds + 1))
    winner = names[game.users[_winner(db, game.table_id)]]
    assert f"🏆 Gewinner: {winner}" in game.table_message()["text"]
    for u in names:
        current = [m for m in fake.messages(u, include_deleted=False)
                   if game.title in (m["text"] or "").split("\n", 1)[0]]
        assert len(current) == 1, [m["text"] for m in current]
        assert f"🏆 Gewinner: {winner}" in current[0]["text"]
        _announcements_once(fake, db, u)
