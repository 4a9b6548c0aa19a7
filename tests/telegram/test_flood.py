"""Floods (issue 15, item 10), through the real bot and the fake Bot API: one chat's backlog
does not hold another chat's answer back, and a person over the input rate is told once to
slow down and then ignored for a moment."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from tests.simclock import SimClock

from .harness import WAIT

pytestmark = pytest.mark.e2e


def _sends(fake, chat: int, since: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return [c for c in fake.calls("sendMessage", since=since)
            if str(c["params"].get("chat_id")) == str(chat)]


def test_a_flooded_chat_does_not_delay_another_chats_answer(fake, start_bot, db_reader,
                                                            sqlite_url) -> None:  # type: ignore[no-untyped-def]
    flooder, other = 5101, 5102
    start_bot(sqlite_url, INPUT_RATE="off", TELEGRAM_CHAT_INTERVAL="1.0")  # 1 message/s/chat
    since = fake.last_seq()
    for i in range(250):  # /help in a loop: 250 answers queued for one chat
        fake.send_text(flooder, flooder, "/help" if i % 2 else "/start")
    db = db_reader(sqlite_url)
    fake.wait_for(lambda: len(db.outbox(flooder)) >= 250, WAIT, message="the flood queued")
    sent = time.monotonic()
    fake.send_text(other, other, "/help")
    answer = fake.wait_for(lambda: _sends(fake, other, since), WAIT, message="the answer")
    delay = time.monotonic() - sent
    delivered = len(_sends(fake, flooder, since))
    print(f"answer to the other chat after {delay:.2f} s, {delivered} of the flooded chat's "
          f"250 messages delivered by then")
    # the other chat's answer overtook the flooded chat's backlog (at one message a second
    # that backlog takes minutes; ordering, not timing, is asserted)
    assert answer and delivered < 25, delivered


def test_a_person_over_the_input_rate_is_told_once(fake, start_bot, sqlite_url) -> None:  # type: ignore[no-untyped-def]
    user = 5201
    start_bot(sqlite_url, INPUT_RATE="5/minute")
    since = fake.last_seq()
    for i in range(12):
        fake.send_text(user, user, f"/help x{i}")  # twelve different commands
    fake.wait_for(lambda: any("Langsam" in c["params"]["text"] for c in _sends(fake, user, since)),
                  WAIT, message="the slow-down note")
    time.sleep(1.5)
    texts = [c["params"]["text"] for c in _sends(fake, user, since)]
    assert sum("Langsam" in t for t in texts) == 1
    assert len(texts) == 6  # five answered, one note, the rest ignored
    other = 5202
    fake.send_text(other, other, "/help")  # somebody else is answered as usual
    fake.wait_for(lambda: _sends(fake, other, since), WAIT, message="the other person's answer")


def test_the_send_limits_hold_on_a_simulated_clock(fake, start_bot, sqlite_url,  # type: ignore[no-untyped-def]
                                                   tmp_path) -> None:
    """The bot's clock years ahead (as the long-game tests run it): the sender counts its
    sends on that clock, so a burst into one group is still spaced as Telegram wants it (here
    one message per 0.5 s and chat) — before, sends were counted in real time against windows
    on the simulated clock, and every limit was off."""
    clock = SimClock(tmp_path / "clock", datetime(2031, 3, 1, 9, tzinfo=UTC))
    group = -100_5301
    start_bot(sqlite_url, INPUT_RATE="off", TELEGRAM_CHAT_INTERVAL="0.5", **clock.env())
    since = fake.last_seq()
    for i in range(6):
        fake.send_text(group, 5301, f"/help x{i}", chat_type="supergroup", chat_title="Runde")
    sends = fake.wait_for(lambda: (s := _sends(fake, group, since)) and len(s) >= 6 and s,
                          WAIT, message="six answers in the group")
    gaps = [b["time"] - a["time"] for a, b in zip(sends, sends[1:], strict=False)]
    assert min(gaps) >= 0.45, gaps  # (the sender waited; a busy machine only spaces them more)
