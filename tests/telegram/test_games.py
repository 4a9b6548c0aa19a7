"""Whole games through the real bot process and the fake Telegram Bot API."""

from __future__ import annotations

import json
import random
import re
import socket
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    Db,
    GroupGame,
    answer_text,
    bot_texts,
    codes,
    greet,
    play_private,
    private_menu_to_table,
    private_moves,
)

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _json(value: Any) -> Any:
    """A JSON column read with plain SQL (SQLite gives text, PostgreSQL the value)."""
    return json.loads(value) if isinstance(value, str) else value


def test_private_game_to_the_end(fake: FakeBotApi, db_url: str,
                                 start_bot: Callable[..., BotProcess],
                                 db_reader: Callable[[str], Db]) -> None:
    bot = start_bot(db_url)
    languages = {c["params"].get("language_code") for c in fake.calls("setMyCommands")}
    assert {"de", "en"} <= languages
    for lang in ("de", "en"):
        names = {c["command"] for c in fake.commands(language_code=lang)}
        assert {"start", "new", "stop", "help", "rules"} <= names, lang

    user = 4242
    table_id, final = _greet_and_play(fake, user, "Paula", "anfaenger", seed=7)
    assert "(Bot API client: aiohttp)" in bot.log()  # the default: chatbot.telegram.request

    db = db_reader(db_url)
    result = fake.wait_for(lambda: db.result(table_id), WAIT, message="the result row")
    seats = db.seats(table_id)
    winners = _json(result["winners"])
    assert len(winners) == 1
    winner = seats[winners[0]]["name"]
    assert f"🏆 Gewinner: {winner}" in final["text"]
    rounds = int(result["rounds"])
    results = fake.wait_for(
        lambda: (found := [m for m in fake.messages(user) if (m["text"] or "")
                           .startswith("Runde ") and " vorbei" in m["text"].splitlines()[0]])
        and any(f"🏆 {winner} gewinnt das Spiel" in m["text"] for m in found) and found,
        WAIT, message="the final result message")
    assert [m["text"].split()[1] for m in results] == [str(n) for n in range(1, rounds + 1)]
    assert db.table(table_id)["fsm_state"] == "finished"
    for t in bot_texts(fake, [user]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t


def _greet_and_play(fake: FakeBotApi, user: int, name: str, level: str,
                    seed: int) -> tuple[int, dict]:
    """/start in a private chat, a game against one CPU of ``level`` through the menu, played
    to the end; the table id and the final table message."""
    fake.send_text(user, user, "/start", user_first_name=name)
    fake.wait_for(lambda: any("Stammtisch" in (m["text"] or "") for m in fake.messages(user)),
                  WAIT, message="the greeting")
    table_id, message_id = private_menu_to_table(fake, user, opponents=1, level=level)
    return table_id, play_private(fake, user, table_id, message_id, random.Random(seed))


def test_private_game_against_experte_over_httpx(fake: FakeBotApi, sqlite_url: str,
                                                 start_bot: Callable[..., BotProcess],
                                                 db_reader: Callable[[str], Db]) -> None:
    """python-telegram-bot's own HTTP client (``TELEGRAM_HTTP_CLIENT=httpx``) plays a whole
    game too, against an Experte whose budget comes from ``EXPERTE_BUDGET`` and who thinks
    during its visible delay (``/metrics``: decisions thought ahead and used)."""
    port = _free_port()
    bot = start_bot(sqlite_url, TELEGRAM_HTTP_CLIENT="httpx", EXPERTE_BUDGET="0.05",
                    CPU_DELAY="0.2", METRICS_PORT=port)
    user = 4343
    table_id, final = _greet_and_play(fake, user, "Ede", "experte", seed=11)
    db = db_reader(sqlite_url)
    fake.wait_for(lambda: db.result(table_id), WAIT, message="the result row")
    assert [s["cpu_level"] for s in db.seats(table_id)] == [None, "experte"]
    assert "🏆" in final["text"]
    assert "(Bot API client: httpx)" in bot.log()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        metrics = resp.read().decode()
    used = re.search(r'^stammtisch_thought_ahead_total\{outcome="used"\} (\S+)$', metrics, re.M)
    assert used and float(used.group(1)) >= 1, "no Experte move was thought during its delay"
    for t in bot_texts(fake, [user]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t


def test_private_game_with_the_retired_lean_client(fake: FakeBotApi, sqlite_url: str,
                                                   start_bot: Callable[..., BotProcess]) -> None:
    """``TELEGRAM_HTTP_CLIENT=lean`` (a client that is gone) plays on the default, with a
    warning in the log."""
    bot = start_bot(sqlite_url, TELEGRAM_HTTP_CLIENT="lean")
    user = 4344
    _table_id, final = _greet_and_play(fake, user, "Vroni", "anfaenger", seed=12)
    assert "🏆" in final["text"]
    assert "(Bot API client: aiohttp)" in bot.log()
    assert "TELEGRAM_HTTP_CLIENT=lean is not (or no longer) a client" in bot.log()


def test_presses_arriving_together_count_once_each(fake: FakeBotApi, sqlite_url: str,
                                                   start_bot: Callable[..., BotProcess],
                                                   db_reader: Callable[[str], Db]) -> None:
    """Presses from several chats in one getUpdates answer (on SQLite they share
    transactions): every valid move counts once, garbage and stale presses are refused, every
    press gets exactly one answer."""
    start_bot(sqlite_url)
    db = db_reader(sqlite_url)
    players = {4401: "Anni", 4402: "Beni"}
    tables: dict[int, tuple[int, int]] = {}
    for user, name in players.items():
        greet(fake, user, name)
        tables[user] = private_menu_to_table(fake, user, opponents=1)

    def my_moves(user: int) -> list[str]:
        table_id, mid = tables[user]
        return private_moves(fake, user, table_id, mid)

    (a, b) = players
    moves = {user: my_moves(user) for user in players}
    versions = {user: db.table(tables[user][0])["version"] for user in players}
    with fake.held():
        valid_a = fake.press(a, a, tables[a][1], moves[a][0])
        garbage = fake.press(b, b, tables[b][1], "garbage", check_data=False)
        valid_b = fake.press(b, b, tables[b][1], moves[b][0])
        stale_a = fake.press(a, a, tables[a][1], moves[a][0])  # the table moved on meanwhile
        # more than one transaction takes (PRESS_BATCH): the batch is handled in parts
        more = [fake.press(b, b, tables[b][1], moves[b][0]) for _ in range(16)]
    assert answer_text(fake, valid_a) is None and answer_text(fake, valid_b) is None
    assert "veraltet" in (answer_text(fake, garbage) or "")
    for uid in (stale_a, *more):
        assert "veraltet" in (answer_text(fake, uid) or ""), uid
    together = [len(c["response"]["result"]) for c in fake.calls("getUpdates")
                if c.get("response") and c["response"].get("result")]
    assert max(together) >= 20  # they did reach the bot in one batch
    for user in players:
        table_id = tables[user][0]
        assert db.table(table_id)["version"] > versions[user]
        player_moves = [m for m in db.moves(table_id) if m["actor"] == "player"]
        assert len([m for m in player_moves if m["seq"] == versions[user] + 1]) == 1
    for uid in (valid_a, garbage, valid_b, stale_a, *more):
        answers = [c for c in fake.calls("answerCallbackQuery")
                   if c["params"].get("callback_query_id")
                   == fake.get_update(uid)["callback_query"]["id"]]
        assert len(answers) == 1, uid


def test_group_game_three_people_to_the_end(fake: FakeBotApi, sqlite_url: str,
                                            start_bot: Callable[..., BotProcess],
                                            db_reader: Callable[[str], Db]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    names = {501: "Alma", 502: "Bruno", 503: "Cleo"}
    game = GroupGame(fake, -5001, list(names), names, random.Random(11))
    game.hello()
    game.open()
    db = db_reader(sqlite_url)
    seats = db.seats(game.table_id)
    assert [s["name"] for s in seats] == ["Alma", "Bruno", "Cleo"]
    assert not any(s["is_cpu"] for s in seats)
    # every player got a private view of the table; the group shows only the "my cards" button
    for u in names:
        fake.wait_for(lambda u=u: game.hand_message(u), WAIT, message=f"{names[u]}'s cards")
    assert set(codes(game.table_message(), game.table_id)) <= {"cards", "log", "next", "back"}

    game.play_to_end(timeout=240)
    db_moves = db.moves(game.table_id)
    assert db_moves and {m["actor"] for m in db_moves} <= {"player", "system"}
    result = fake.wait_for(lambda: db.result(game.table_id), WAIT, message="the result row")
    winners = _json(result["winners"])
    winner = names[list(names)[winners[0]]]
    final = game.table_message()
    assert f"🏆 Gewinner: {winner}" in final["text"]
    assert "again" in codes(final, game.table_id)
    fake.wait_for(lambda: any(f"🏆 {winner} gewinnt das Spiel" in (m["text"] or "")
                              for m in fake.messages(game.group)), WAIT,
                  message="the winner announced in the group")
    for u in names:
        fake.wait_for(lambda u=u: f"🏆 Gewinner: {winner}" in (game.hand_message(u) or {})
                      .get("text", ""), WAIT, message="the result in the private chat")
    for t in bot_texts(fake, [game.group, *names]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t
