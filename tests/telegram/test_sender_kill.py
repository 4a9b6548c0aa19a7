"""A sender SIGKILLed mid-pass repeats only the calls it had under way (issue 38, item 9).

50 chats have a message pending on PostgreSQL; a real ``stammtisch telegram`` process takes
them in one pass. The fake Bot API answers half of the chats at once and holds the other half
for ``SLOW`` seconds; the process is SIGKILLed once the quick half is answered and recorded,
while the slow half is still under way, then started again. Before, a pass recorded its
outcomes only when it ended: the whole pass went out again. Now each chat is recorded as soon
as it is served: only the calls in flight at the kill (the fake still carries them out, as
Telegram would) are sent twice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from storage.db import make_engine, transaction
from storage.models import Outbox
from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, Db

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

CHATS = 50
FIRST_CHAT = 38_000
SLOW = 4.0  # seconds the slow chats' calls take (under the bot's 5 s read timeout)


def _queue(url: str, chats: list[int]) -> None:
    """One pending message for each chat, as the service writes them."""
    engine = make_engine(url)
    now = datetime.now(UTC)
    try:
        with transaction(engine) as session:
            session.add_all(Outbox(platform="telegram", chat_external_id=str(chat),
                                   text=f"message for {chat}", buttons=[], not_before=now,
                                   created_at=now) for chat in chats)
    finally:
        engine.dispose()


def test_a_sender_killed_mid_pass_sends_again_only_what_was_in_flight(
        fake: FakeBotApi, postgres_url: str, start_bot: Callable[..., BotProcess],
        db_reader: Callable[[str], Db]) -> None:
    bot = start_bot(postgres_url)  # (it migrates the database)
    db = db_reader(postgres_url)
    chats = list(range(FIRST_CHAT, FIRST_CHAT + CHATS))
    quick, slow = chats[:CHATS // 2], chats[CHATS // 2:]
    for chat in slow:
        fake.set_latency(SLOW, chat_id=chat)

    def sent() -> int:
        return db.rows("SELECT count(*) AS n FROM outbox WHERE status = 'sent'")[0]["n"]

    _queue(postgres_url, chats)
    fake.wait_for(lambda: len(fake.calls("sendMessage")) >= len(quick), WAIT,
                  message="the quick chats answered")
    deadline = time.monotonic() + SLOW / 2  # (before issue 38: recorded at the pass's end)
    while sent() < len(quick) and time.monotonic() < deadline:
        time.sleep(0.01)
    recorded = sent()
    bot.kill()
    killed_at = time.time()
    in_flight = [c for c in fake.delayed() if c["method"] == "sendMessage"]
    for chat in slow:
        fake.set_latency(0, chat_id=chat)
    start_bot(postgres_url)
    fake.wait_for(lambda: sent() == CHATS and not [
        c for c in fake.delayed() if c["received"] < killed_at], WAIT,
        message="every row sent, the killed process's calls carried out")

    sends = Counter(c["params"]["text"] for c in fake.calls("sendMessage")
                    if c["status"] == 200)
    assert set(sends) == {f"message for {chat}" for chat in chats}
    repeated = sorted(text for text, n in sends.items() if n > 1)
    print(f"\n{CHATS} chats, {recorded} recorded before the kill, {len(in_flight)} requests "
          f"in flight at the kill, {len(repeated)} rows sent twice "
          f"({sum(sends.values()) - CHATS} repeated calls)")
    assert max(sends.values()) <= 2
    assert in_flight, "the kill should have caught calls under way"
    assert len(repeated) <= len(in_flight), \
        f"{len(repeated)} rows sent again, {len(in_flight)} requests were in flight"
    assert set(repeated) <= {c["params"]["text"] for c in in_flight}
    rows = db.rows("SELECT chat_external_id AS chat, message_id FROM outbox")
    assert all(r["message_id"] is not None for r in rows)
