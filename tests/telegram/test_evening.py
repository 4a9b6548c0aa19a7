"""A Stammtisch evening through the fake Bot API (issue 40), the bot a separate process: the
group's time zone set by an admin, a weekly evening typed in the group, announced (and
pinned), answered by three people by buttons, the bot restarted, reminded privately and in the
group, started with the three seated, a game played to its end (the bot restarted in its
middle) with the Deckel's line after it, ``/deckel``, ``/abend ende`` with its summary (and
the announcement unpinned).

The bot's clock is the real one; the evening's steps are brought forward by moving the due
time in its row to now (what the sweep then finds is what it would find days later)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

from storage.db import utcnow
from tests.chatbot.evenings import bring_forward, no_quiet_hours
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.harness import (
    TRACEBACK_MARKERS,
    WAIT,
    BotProcess,
    Db,
    bot_texts,
    buttons,
    codes,
    greet,
    table_of,
)
from tests.telegram.playing import GroupGame
from tests.telegram.test_table_in_view import _admin as bot_may_pin

GROUP = -4001
NAMES = {701: "Alma", 702: "Bruno", 703: "Cem"}


def with_admin(fake: FakeBotApi, user: int) -> None:
    """``user`` is an administrator of the group (as the bot sees it)."""
    plain = fake._api_getChatMember

    def member(p: dict) -> dict:
        found = plain(p)
        if int(p["user_id"]) != user:
            return found
        rights = ("can_be_edited", "can_manage_chat", "can_delete_messages",
                  "can_manage_video_chats", "can_restrict_members", "can_promote_members",
                  "can_change_info", "can_invite_users", "can_post_stories",
                  "can_edit_stories", "can_delete_stories")
        return {**found, "status": "administrator", "is_anonymous": False,
                **dict.fromkeys(rights, False)}

    fake._api_getChatMember = member  # type: ignore[method-assign]


def group_text(fake: FakeBotApi, start: str) -> dict:
    return fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                       if (m["text"] or "").startswith(start)), None),
                         WAIT, message=f"a group message {start!r}")


def test_an_evening_through_telegram(fake: FakeBotApi, sqlite_url: str,
                                     start_bot: Callable[..., BotProcess],
                                     db_reader: Callable[[str], Db]) -> None:
    bot_may_pin(fake)
    with_admin(fake, 701)
    bot = start_bot(sqlite_url, TURN_TIMEOUT=120)
    for user, name in NAMES.items():
        greet(fake, user, name)
    fake.send_text(GROUP, 702, "/abend zone Europe/Vienna", user_first_name="Bruno")
    group_text(fake, "Das dürfen nur die Admins der Gruppe.")
    fake.send_text(GROUP, 701, "/abend zone Europe/Vienna", user_first_name="Alma")
    group_text(fake, "🕗 Zeitzone dieser Gruppe: Europe/Vienna")  # (Alma is an admin)
    day = utcnow().astimezone(ZoneInfo("Europe/Berlin")).date() + timedelta(days=3)
    fake.send_text(GROUP, 701, f"/abend {day:%d.%m.} 20:00 wöchentlich schwimmen",
                   user_first_name="Alma")
    group_text(fake, "🍻 Geplant:")

    since = fake.last_seq()
    evening_id = bring_forward(sqlite_url, "announce")
    announcement = group_text(fake, "🍻 Stammtisch ")
    assert "· jede Woche" in announcement["text"]
    assert [label for label, _ in buttons(announcement)] == [
        "✅ Bin dabei", "❔ Vielleicht", "❌ Kann nicht"]
    fake.wait_for_call("pinChatMessage", lambda c: int(c["params"]["chat_id"]) == GROUP,
                       timeout=WAIT, since=since)
    for user in NAMES:
        fake.press(GROUP, user, announcement["message_id"], f"v1:0:0:ev.a.{evening_id}.y")
        fake.wait_for(lambda u=user: NAMES[u] in (fake.message(
            GROUP, announcement["message_id"]) or {}).get("text", ""), WAIT,
            message=f"{NAMES[user]} on the announcement")
    assert "✅ Dabei (3): Alma, Bruno, Cem" in fake.message(
        GROUP, announcement["message_id"])["text"]  # type: ignore[index]
    bot.stop()  # a restart between the answers and the reminders
    no_quiet_hours(sqlite_url)  # (the test runs at any hour; quiet hours hold reminders back)
    bot = start_bot(sqlite_url, TURN_TIMEOUT=120)

    for kind, group_start, private_start in (
            ("day", "🍻 Morgen um 20:00", "🍻 Morgen um 20:00: Stammtisch in"),
            ("soon", "🍻 In 30 Minuten", "🍻 In 30 Minuten (20:00): Stammtisch in")):
        bring_forward(sqlite_url, kind)
        group_text(fake, group_start)
        for user in NAMES:
            fake.wait_for(lambda u=user, s=private_start: any(
                (m["text"] or "").startswith(s) for m in fake.messages(u)), WAIT,
                message=f"the {kind} reminder to {NAMES[user]}")

    bring_forward(sqlite_url, "start")
    group_text(fake, "🍻 Der Stammtisch beginnt!")
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                        if "start" in codes(m)), None), WAIT,
                          message="the lobby with the three seated")
    db = db_reader(sqlite_url)
    table_id = table_of(lobby)
    assert [s["name"] for s in db.seats(table_id)] == ["Alma", "Bruno", "Cem"]  # type: ignore[arg-type]
    game = GroupGame(fake, GROUP, list(NAMES), NAMES, random.Random(40))
    game.table_id, game.table_msg = table_id, lobby["message_id"]  # type: ignore[assignment]
    fake.press(GROUP, 701, lobby["message_id"], codes(lobby)["start"])
    fake.wait_for(lambda: "start" not in codes(game.table_message()), WAIT,
                  message="the game to start")
    pressed = 0
    deadline = time.monotonic() + WAIT
    while pressed < 4 and not game.finished and time.monotonic() < deadline:
        pressed += game.step()
        time.sleep(0.05)
    bot.stop()  # a restart in the middle of the game
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    game.play_to_end(timeout=240)
    line = group_text(fake, "🍺 Deckel: ")["text"]
    result = fake.wait_for(lambda: db.result(table_id), WAIT, message="the result")  # type: ignore[arg-type]
    winner = db.seats(table_id)[_winners(result)[0]]["name"]  # type: ignore[arg-type]
    assert line.startswith(f"🍺 Deckel: {winner} 2 · ")  # of three: 2, 1, 0

    fake.send_text(GROUP, 702, "/deckel", user_first_name="Bruno")
    sheet = group_text(fake, "🍺 Der Deckel dieses Abends (1 Spiel)")["text"]
    assert sheet.count("\n") == 3

    since = fake.last_seq()
    fake.send_text(GROUP, 703, "/abend ende", user_first_name="Cem")
    summary = group_text(fake, "🍻 Der Stammtisch ist vorbei")["text"]
    assert "Spiele: 1× Schwimmen" in summary and sheet.split("\n", 1)[1] in summary
    fake.wait_for_call("unpinChatMessage", lambda c: int(c["params"]["chat_id"]) == GROUP,
                       timeout=WAIT, since=since)
    group_text(fake, "Nächster Stammtisch:")
    for t in bot_texts(fake, [GROUP, *NAMES]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t


def _winners(result: dict) -> list[int]:
    value = result["winners"]
    return list(json.loads(value) if isinstance(value, str) else value)
