"""A Stammtisch evening through the fake Bot API (issue 40), the bot a separate process on a
simulated clock (``STAMMTISCH_CLOCK_FILE``; nothing in the database is moved): the group's
time zone set by an admin, a weekly evening typed in the group on a Monday for Friday 20:00,
announced (and pinned) on Wednesday at 20:00, answered by three people by buttons (Cem reads
English), reminded privately and in the group on Thursday at 20:00 and on Friday at 19:30,
started at 20:00 with the three seated, three games of Schwimmen played (the bot process
restarted in the middle of the second) with the Deckel's line after each checked against the
results table, ``/deckel``, ``/abend ende`` with its summary (and the announcement unpinned).

The transcript of what the group and Alma saw goes into docs/evening.md when
``STAMMTISCH_WRITE_DOCS=1``; otherwise the page's transcript must have the same shape."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db, as_utc
from tests.telegram.bot_process import TRACEBACK_MARKERS, WAIT, BotProcess
from tests.telegram.evening_record import (
    Journal,
    deckel_line,
    game_points,
    longest_line,
    page_transcript,
    shape,
    sheet_rows,
    speaking,
    summed,
    transcript,
    write_page,
)
from tests.telegram.keyboards import answer_text, bot_texts, buttons, codes, table_of
from tests.telegram.long_game import berlin, sent
from tests.telegram.playing import GroupGame, greet
from tests.telegram.test_table_in_view import _admin as bot_may_pin

pytestmark = pytest.mark.e2e

GROUP = -4001
ALMA, BRUNO, CEM = 701, 702, 703
NAMES = {ALMA: "Alma", BRUNO: "Bruno", CEM: "Cem"}
LANGS = {ALMA: "de", BRUNO: "de", CEM: "en"}
VIENNA = ZoneInfo("Europe/Vienna")
TURN = 120  # seconds a turn may take (the games are played at the real pace)


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


def said(fake: FakeBotApi, chat: int, start: str, since: int = 0) -> str:
    """The text of the bot's first message to ``chat`` after ``since`` that starts so."""
    return fake.wait_for(lambda: next((c["params"]["text"] for c in sent(fake, chat, since)
                                       if c["params"]["text"].startswith(start)), None),
                         WAIT, message=f"a message {start!r} in chat {chat}")


def evening_row(db: Db) -> dict:
    return db.rows("SELECT * FROM evening ORDER BY id DESC")[0]


def step(db: Db, clock: Journal, kind: str, at: datetime) -> int:
    """The evening's next step is ``kind``, due at ``at``: the clock jumps just past it."""
    row = evening_row(db)
    assert (row["due_kind"], as_utc(row["due_at"])) == (kind, at), row
    clock.set(at + timedelta(seconds=1))
    return int(row["id"])


def new_game(fake: FakeBotApi, opener: int, others: list[int], since: int) -> GroupGame:
    """``/new schwimmen`` in the group: the others join, the opener starts."""
    fake.send_text(GROUP, opener, "/new schwimmen", user_first_name=NAMES[opener])
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                        if "join" in codes(m) and any(
                                            c["params"].get("text") == m["text"]
                                            for c in sent(fake, GROUP, since))), None),
                          WAIT, message="the lobby")
    game = GroupGame(fake, GROUP, [opener, *others], NAMES, random.Random(opener))
    game.table_id, game.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
    for user in others:
        answer = fake.press(GROUP, user, game.table_msg, game.wait_code("join"))
        assert answer_text(fake, answer) == ("You're in." if user == CEM else "Du bist dabei.")
        fake.wait_for(lambda u=user: NAMES[u] in game.table_message().get("text", ""), WAIT,
                      message=f"{NAMES[user]} in the lobby")
    return game


def start(fake: FakeBotApi, game: GroupGame, opener: int) -> None:
    fake.press(GROUP, opener, game.table_msg, game.wait_code("start"))
    fake.wait_for(lambda: "start" not in codes(game.table_message()), WAIT,
                  message="the game to start")


def test_an_evening_through_telegram(fake: FakeBotApi, sqlite_url: str, tmp_path: Path,
                                     start_bot: Callable[..., BotProcess],
                                     db_reader: Callable[[str], Db]) -> None:
    bot_may_pin(fake)
    with_admin(fake, ALMA)
    speaking(fake, LANGS)
    clock = Journal(tmp_path / "clock", berlin(0, 12))  # Monday 7 January 2030, noon
    bot = start_bot(sqlite_url, TURN_TIMEOUT=TURN, **clock.env())
    db = db_reader(sqlite_url)
    for user, name in NAMES.items():
        greet(fake, user, name)
    fake.send_text(GROUP, BRUNO, "/abend zone Europe/Vienna", user_first_name="Bruno")
    said(fake, GROUP, "Das dürfen nur die Admins der Gruppe.")
    fake.send_text(GROUP, ALMA, "/abend zone Europe/Vienna", user_first_name="Alma")
    said(fake, GROUP, "🕗 Zeitzone dieser Gruppe: Europe/Vienna")  # (Alma is an admin)
    fake.send_text(GROUP, ALMA, "/abend fr 20:00 wöchentlich schwimmen", user_first_name="Alma")
    assert said(fake, GROUP, "🍻 Geplant:") == "🍻 Geplant: Fr 11.01., 20:00."

    since = fake.last_seq()  # announced two days before, at the evening's time
    evening_id = step(db, clock, "announce", berlin(2, 20))
    said(fake, GROUP, "🍻 Stammtisch Fr 11.01., 20:00 · jede Woche", since)
    announcement = next(m for m in fake.messages(GROUP) if m["text"].startswith(
        "🍻 Stammtisch Fr 11.01."))
    assert [label for label, _ in buttons(announcement)] == [
        "✅ Bin dabei", "❔ Vielleicht", "❌ Kann nicht"]
    fake.wait_for_call("pinChatMessage", lambda c: int(c["params"]["chat_id"]) == GROUP,
                       timeout=WAIT, since=since)
    for n, user in enumerate((BRUNO, ALMA, CEM), 1):
        clock.set(berlin(2, 20, 2 * n))  # (one after the other)
        uid = fake.press(GROUP, user, announcement["message_id"], f"v1:0:0:ev.a.{evening_id}.y")
        assert answer_text(fake, uid) == ("Noted: ✅ I'll come" if user == CEM
                                          else "Notiert: ✅ Bin dabei")
        fake.wait_for(lambda u=user: NAMES[u] in (fake.message(
            GROUP, announcement["message_id"]) or {}).get("text", ""), WAIT,
            message=f"{NAMES[user]} on the announcement")
    assert "✅ Dabei (3): Bruno, Alma, Cem" in fake.message(
        GROUP, announcement["message_id"])["text"]  # type: ignore[index]

    title = "Stammtisch Test 4001"  # (the group's name as the fake gives it)
    for kind, at, group_says, privately in (
            ("day", berlin(3, 20), "🍻 Morgen um 20:00: Stammtisch! Bisher dabei: Bruno, Alma, Cem.",
             (f"🍻 Morgen um 20:00: Stammtisch in „{title}“.",
              f"🍻 Tomorrow at 20:00: Stammtisch in {title}.")),
            ("soon", berlin(4, 19, 30), "🍻 In 30 Minuten, um 20:00: Stammtisch! Dabei: Bruno, "
             "Alma, Cem.", (f"🍻 In 30 Minuten (20:00): Stammtisch in „{title}“.",
                            f"🍻 In 30 minutes (20:00): Stammtisch in {title}."))):
        since = fake.last_seq()
        step(db, clock, kind, at)  # the day before and 30 minutes before: once each
        assert said(fake, GROUP, group_says, since) == group_says
        for user in NAMES:
            assert said(fake, user, "🍻", since) == privately[LANGS[user] == "en"]

    since = fake.last_seq()
    step(db, clock, "start", berlin(4, 20))
    said(fake, GROUP, "🍻 Der Stammtisch beginnt! Jedes Spiel bis /abend ende zählt", since)
    lobby = fake.wait_for(lambda: next((m for m in fake.messages(GROUP, include_deleted=False)
                                        if "start" in codes(m)), None), WAIT,
                          message="the lobby with the three seated")
    assert [s["name"] for s in db.seats(table_of(lobby))] == ["Bruno", "Alma", "Cem"]  # type: ignore[arg-type]
    game = GroupGame(fake, GROUP, list(NAMES), NAMES, random.Random(40))
    game.table_id, game.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
    start(fake, game, ALMA)

    parts: list[dict[str, Fraction]] = []
    played: list[int] = []
    for n in (1, 2, 3):
        if n > 1:
            clock.set(clock.now() + timedelta(minutes=35))  # (a beer between the games)
            opener = (ALMA, BRUNO, CEM)[n - 1]
            game = new_game(fake, opener, [u for u in NAMES if u != opener], fake.last_seq())
            start(fake, game, opener)
        if n == 2:  # the bot process restarts in the middle of the second game
            pressed, deadline = 0, time.monotonic() + WAIT
            while pressed < 4 and not game.finished and time.monotonic() < deadline:
                pressed += game.step()
                time.sleep(0.05)
            assert pressed == 4, "the second game ended too early"
            bot.stop()
            bot = start_bot(sqlite_url, TURN_TIMEOUT=TURN, **clock.env())
        game.play_to_end(timeout=240)
        fake.wait_for(lambda n=n: len(sent(fake, GROUP, prefix="🍺 Deckel: ")) >= n, WAIT,
                      message=f"the Deckel after game {n}")
        parts.append(game_points(db, game.table_id))
        played.append(game.table_id)
        line = sent(fake, GROUP, prefix="🍺 Deckel: ")[n - 1]["params"]["text"]
        assert line == deckel_line(summed(parts)), (n, line)
        assert sum(parts[-1].values()) == 3  # of three: 2 + 1 + 0

    clock.set(clock.now() + timedelta(minutes=20))
    since = fake.last_seq()
    fake.send_text(GROUP, BRUNO, "/deckel", user_first_name="Bruno")
    sheet = said(fake, GROUP, "🍺 Der Deckel dieses Abends", since)
    assert sheet.split("\n") == ["🍺 Der Deckel dieses Abends (3 Spiele)",
                                 *sheet_rows(summed(parts))]
    clock.set(clock.now() + timedelta(minutes=15))
    since = fake.last_seq()
    fake.send_text(GROUP, CEM, "/abend ende", user_first_name="Cem")
    summary = [x for x in said(fake, GROUP, "🍻 Der Stammtisch ist vorbei", since)
               .split("\n") if x]
    assert summary[:2] == ["🍻 Der Stammtisch ist vorbei. Danke fürs Kommen!",
                           "Spiele: 3× Schwimmen"]
    assert summary[2:6] == sheet.split("\n")
    assert summary[6] == longest_line(db, played)
    fake.wait_for_call("unpinChatMessage", lambda c: int(c["params"]["chat_id"]) == GROUP
                       and int(c["params"]["message_id"]) == announcement["message_id"],
                       timeout=WAIT, since=since)
    said(fake, GROUP, "Nächster Stammtisch: Fr 18.01., 20:00.", since)
    nxt = evening_row(db)  # the weekly evening's next one, announced two days before it
    assert (nxt["id"] != evening_id, nxt["state"], nxt["due_kind"], as_utc(nxt["due_at"])) == (
        True, "planned", "announce", berlin(9, 20))
    for head in ("🍻 Stammtisch Fr", "🍻 Morgen", "🍻 In 30", "🍻 Der Stammtisch beginnt"):
        assert len(sent(fake, GROUP, prefix=head)) == 1, head  # each step once
    assert all(len(sent(fake, user, prefix="🍻")) == 2 for user in NAMES)  # two reminders
    for t in bot_texts(fake, [GROUP, *NAMES]):
        assert not any(marker in t for marker in TRACEBACK_MARKERS), t

    text = transcript(fake, clock, {GROUP: "Gruppe", ALMA: "Alma privat"}, VIENNA,
                      (GROUP, announcement["message_id"]))
    if os.environ.get("STAMMTISCH_WRITE_DOCS") == "1":
        write_page(text)
    assert shape(page_transcript(), list(NAMES.values())) == shape(text, list(NAMES.values())), \
        f"docs/evening.md is out of date: STAMMTISCH_WRITE_DOCS=1 writes it\n{text}"
