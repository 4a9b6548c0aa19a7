"""Helpers of the Telegram end-to-end tests of long games (issue 37): a group table with a
long clock opened by typing ``/new schwimmen clock=12h``, and what the people's chats got
(the bot process's clock is ``tests.simclock.SimClock``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from tests.fakes.telegram_api import FakeBotApi
from tests.simclock import SimClock
from tests.telegram.bot_db import Db, as_utc
from tests.telegram.bot_process import WAIT
from tests.telegram.keyboards import answer_text, codes, move_datas, peek, table_of

ZONES = {501: ZoneInfo("Europe/Berlin"), 502: ZoneInfo("Europe/London")}  # by language
DAY0 = datetime(2030, 1, 7, tzinfo=UTC)  # a Monday in winter: Berlin is UTC+1
ALICE, BOB = 501, 502
LANGS = {ALICE: "de", BOB: "en"}
NAMES = {ALICE: "Alice", BOB: "Bob"}
GROUP = -1001234567890  # a supergroup: its messages have t.me/c/1234567890/<id> links


def berlin(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment in Berlin's winter time on ``DAY0`` + ``day``."""
    return DAY0 + timedelta(days=day, hours=hour - 1, minutes=minute)


def quiet(when: datetime, user: int) -> bool:
    """Within the person's default quiet hours (23:00–08:00 in their language's zone)."""
    hour = when.astimezone(ZONES[user]).hour
    return hour >= 23 or hour < 8


@dataclass
class LongTable:
    """A group table of Alice (German) and Bob (English) with a long clock."""

    fake: FakeBotApi
    db: Db
    group: int = GROUP
    table_id: int = 0
    message_id: int = 0

    def open(self, clock: str = "12h") -> LongTable:
        fake = self.fake
        for user in (ALICE, BOB):
            since = fake.last_seq()
            fake.send_text(user, user, "/start", user_first_name=NAMES[user],
                           language_code=LANGS[user])
            fake.wait_for_call("sendMessage", lambda c, u=user: int(c["params"]["chat_id"]) == u,
                               timeout=WAIT, since=since)
        fake.send_text(self.group, ALICE, f"/new schwimmen clock={clock}",
                       user_first_name="Alice")
        lobby = fake.wait_for(lambda: next((m for m in fake.messages(self.group)
                                            if "join" in codes(m)), None), WAIT,
                              message="the lobby")
        self.table_id, self.message_id = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
        self.press(BOB, "join")
        fake.wait_for(lambda: "Bob" in (peek(fake, self.group, self.message_id) or {})
                      .get("text", ""), WAIT, message="Bob in the lobby")
        self.press(ALICE, "start")
        fake.wait_for(lambda: self.row()["fsm_state"] != "lobby", WAIT, message="the start")
        return self

    def row(self) -> dict:
        return self.db.table(self.table_id)

    def table_message(self) -> dict:
        """The group's table message (the newest bot message showing the table's buttons)."""
        found = [m for m in self.fake.messages(self.group, include_deleted=False)
                 if table_of(m) == self.table_id and "cards" in codes(m, self.table_id)]
        return found[-1] if found else (peek(self.fake, self.group, self.message_id) or {})

    def press(self, user: int, code: str, chat: int | None = None,
              message: dict | None = None) -> str | None:
        """``user`` taps the button ``code`` on the table message (or on ``message`` in
        ``chat``); the answer's text."""
        chat = self.group if chat is None else chat
        msg = message or (self.table_message() if chat == self.group else None)
        assert msg is not None
        data = self.fake.wait_for(lambda: codes(self.fake.message(chat, msg["message_id"]),
                                                self.table_id).get(code),
                                  WAIT, message=f"the {code!r} button")
        uid = self.fake.press(chat, user, msg["message_id"], data,
                              language_code=LANGS.get(user, "de"))
        return answer_text(self.fake, uid)

    def wait_change(self, before: dict) -> dict:
        """The table's row once its version or its deadline changed (a reminder keeps the
        version: the buttons it showed stay good)."""
        def key(row: dict) -> tuple:
            return row["version"], row["deadline_kind"], str(row["next_deadline"])
        return self.fake.wait_for(lambda: key(row := self.row()) != key(before) and row,
                                  WAIT, message=f"table {self.table_id} to move on")


def on_turn(t: LongTable) -> tuple[int, dict] | None:
    """Who is on turn and the private message to move from: the newest reminder ("⏰ …")
    if one shows the moves, else the view that came at the turn's start."""
    for reminders in (True, False):
        for user in (ALICE, BOB):
            found = [m for m in t.fake.messages(user, include_deleted=False)
                     if move_datas(m, t.table_id)
                     and (m["text"] or "").startswith("⏰") == reminders]
            if found:
                return user, found[-1]
    return None


def settled(t: LongTable) -> None:
    """Wait until the bot delivered everything it queued (no view shows stale buttons)."""
    t.fake.wait_for(lambda: not t.db.rows("SELECT id FROM outbox WHERE status = 'pending' "
                                          "AND chat_external_id IN (:a, :b, :g)",
                                          a=str(ALICE), b=str(BOB), g=str(t.group)),
                    WAIT, message="the bot's messages to be delivered")


def answer(t: LongTable) -> bool:
    """The person on turn makes a move from the buttons of their newest private message of
    the table (a reminder's, if one came); whether it was a reminder's."""
    fake = t.fake
    before = t.row()
    moves = t.db.moves(t.table_id)
    for _ in range(50):  # (a message just replaced by a newer one is looked up again)
        settled(t)
        turn = on_turn(t)
        if turn is None:
            time.sleep(0.1)
            continue
        user, message = turn
        data = sorted(d for d in move_datas(message, t.table_id) if not d.endswith("knock"))[0]
        try:
            uid = fake.press(user, user, message["message_id"], data,
                             language_code=LANGS[user])
        except ValueError:
            time.sleep(0.1)
            continue
        said = answer_text(fake, uid)
        if said is None:
            break
        time.sleep(0.1)  # (refused: a view the bot was just replacing; look again)
    else:
        raise AssertionError("nobody's private message shows the moves")
    t.wait_change(before)
    new = [m for m in t.db.moves(t.table_id)[len(moves):] if m["actor"] != "system"]
    assert new and new[0]["actor"] == "player", new  # the button counted (a new round's deal
    # may come before it: the last move ended a round and the next was dealt meanwhile)
    return bool(message["text"].startswith("⏰"))


def sent(fake: FakeBotApi, chat: int, since: int = 0, prefix: str = "") -> list[dict]:
    """The messages the bot sent to a chat (sendMessage calls answered ok) after ``since``."""
    return [c for c in fake.calls("sendMessage", since=since)
            if int(c["params"]["chat_id"]) == chat and c.get("status", 200) == 200
            and str(c["params"].get("text", "")).startswith(prefix)]


def deadline(row: dict) -> datetime | None:
    return as_utc(row["next_deadline"]) if row["next_deadline"] else None


__all__ = ["SimClock"]
