"""Messages and keyboards as the Telegram end-to-end tests read them from the fake Bot API: the
versions of a message (and when the database made them), buttons and their codes, peeking,
pressing and waiting for the answer, the moves a private view offers.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from tests.dealing import until_a_turn
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db, as_utc
from tests.telegram.bot_process import MOVE_HEADS, WAIT

# ------------------------------------------------------------------------------ message versions

_MENTION = re.compile(r"\[([^\[\]]+)\]\(tg://user\?id=\d+\)")


def versions(msg: dict) -> list[tuple[str, tuple[str, ...]]]:
    """(text, button labels) of every version a message had, oldest first."""
    out = []
    for v in [*msg["history"], msg]:
        markup = v.get("reply_markup") or {}
        labels = tuple(b.get("text", "") for row in markup.get("inline_keyboard") or []
                       for b in row)
        out.append((v.get("text") or "", labels))
    return out


def version_datas(msg: dict) -> list[str]:
    """The callback data of every button any version of a message had."""
    return [b.get("callback_data") or "" for v in [*msg["history"], msg]
            for row in (v.get("reply_markup") or {}).get("inline_keyboard") or [] for b in row]


def made_at(db: Db, chat: int) -> dict[tuple[str, tuple[str, ...]], list[datetime]]:
    """When each view (text, labels) for a chat was made: its outbox rows' creation times."""
    import json

    made: dict[tuple[str, tuple[str, ...]], list[datetime]] = {}
    for row in db.outbox(chat):
        rows = row["buttons"]
        if isinstance(rows, str):
            rows = json.loads(rows)
        labels = tuple(b[0] for r in rows or [] for b in r)
        key = (_MENTION.sub(r"\1", row["text"]), labels)
        made.setdefault(key, []).append(as_utc(row["created_at"]))
    return made


# ------------------------------------------------------------------------------ messages, buttons


def buttons(msg: dict | None) -> list[tuple[str, str]]:
    """(label, callback data) of a message's inline keyboard."""
    if not msg:
        return []
    markup = msg.get("reply_markup") or {}
    return [(b.get("text", ""), b.get("callback_data", ""))
            for row in markup.get("inline_keyboard") or [] for b in row]


def parse_data(data: str) -> tuple[int, int, str] | None:
    parts = data.split(":", 3)
    if len(parts) != 4 or parts[0] != "v1":
        return None
    try:
        return int(parts[1]), int(parts[2]), parts[3]
    except ValueError:
        return None


def codes(msg: dict | None, table_id: int | None = None) -> dict[str, str]:
    """code → callback data for the table buttons of a message."""
    out: dict[str, str] = {}
    for _, data in buttons(msg):
        parsed = parse_data(data)
        if parsed and parsed[0] > 0 and (table_id is None or parsed[0] == table_id):
            out[parsed[2]] = data
    return out


ALWAYS_OFFERED = ("resign", "log")  # "🏳 Aufgeben" and "📜 Verlauf" on every running view


def actionable(msg: dict | None, table_id: int | None = None) -> dict[str, str]:
    """``codes`` but for the buttons every view of a running game offers ("🏳 Resign",
    "📜 Log"): what there is to do now (a move, the next round, play again)."""
    return {c: d for c, d in codes(msg, table_id).items()
            if c.split(".")[0] not in ALWAYS_OFFERED}


def move_datas(msg: dict | None, table_id: int | None = None) -> list[str]:
    return [d for c, d in codes(msg, table_id).items() if c.split(".")[0] in MOVE_HEADS]


def table_of(msg: dict | None) -> int | None:
    for _, data in buttons(msg):
        parsed = parse_data(data)
        if parsed and parsed[0] > 0:
            return parsed[0]
    return None


def _light(m: Any) -> dict:
    return {"chat_id": m.chat_id, "message_id": m.message_id, "text": m.text,
            "reply_markup": copy.deepcopy(m.reply_markup), "deleted": m.deleted,
            "edit_count": len(m.history)}


def peek(fake: FakeBotApi, chat: int, message_id: int) -> dict | None:
    """A message as ``fake.message`` gives it, but without its (growing) edit history:
    polling loops call this a lot."""
    with fake._lock:
        m = fake._msgs.get(int(chat), {}).get(int(message_id))
        return _light(m) if m is not None else None


def peek_all(fake: FakeBotApi, chat: int, include_deleted: bool = False) -> list[dict]:
    """The bot's messages in a chat like ``fake.messages``, without edit histories."""
    with fake._lock:
        msgs = sorted(fake._msgs.get(int(chat), {}).values(), key=lambda m: m.message_id)
        return [_light(m) for m in msgs if m.from_bot and (include_deleted or not m.deleted)]


def snapshot(msg: dict | None) -> tuple[Any, ...]:
    if msg is None:
        return (None,)
    return (msg["text"], msg.get("reply_markup"), msg["deleted"])


def bot_texts(fake: FakeBotApi, chat_ids: Iterable[int]) -> list[str]:
    """Every text the bot ever showed in these chats (all versions of all messages)."""
    out = []
    for chat in chat_ids:
        for m in fake.messages(chat):
            out.append(m["text"] or "")
            out.extend(h.get("text") or "" for h in m["history"])
    return out


def answer_text(fake: FakeBotApi, update_id: int, timeout: float = WAIT) -> str | None:
    """The text the bot answered a button press with (``None``: answered without text)."""
    answer = fake.wait_for(lambda: (fake.query_answer(update_id) or {}).get("answered")
                           and fake.query_answer(update_id), timeout,
                           message=f"an answer to the press in update {update_id}")
    return (answer.get("answer") or {}).get("text")


def pick_move(rng: random.Random, datas: list[str], knock_bias: float = 0.3) -> str:
    """A random move; knocking a bit more often than chance keeps games short."""
    knocks = [d for d in datas if d.endswith(":knock")]
    if knocks and rng.random() < knock_bias:
        return knocks[0]
    return rng.choice(datas)


def press_and_settle(fake: FakeBotApi, chat: int, user: int, message_id: int, data: str,
                     timeout: float = WAIT) -> str | None:
    """Press a button and wait until the press was handled: answered with a text (a refusal,
    returned), or answered and the message changed (or went away)."""
    before = snapshot(peek(fake, chat, message_id))
    uid = fake.press(chat, user, message_id, data)
    answer = answer_text(fake, uid, timeout)
    if answer:
        return answer
    fake.wait_for(lambda: snapshot(peek(fake, chat, message_id)) != before, timeout,
                  message=f"message {message_id} in chat {chat} to change after {data}")
    return None


def private_turn(fake: FakeBotApi, user: int, table_id: int, message_id: int) -> dict:
    """The private table message once the person is on turn; a round that ended before
    (a 31 dealt, or a CPU first) is followed into the next one ("next", ``tests.dealing``)."""
    shown: dict = {}

    def turn() -> dict | None:
        shown["msg"] = fake.wait_for(lambda: (m := fake.message(user, message_id)) and (
            move_datas(m, table_id) or codes(m, table_id).get("next")) and m, WAIT,
            message="a move to make")
        return shown["msg"] if move_datas(shown["msg"], table_id) else None

    def deal_on() -> None:
        assert press_and_settle(fake, user, user, message_id,
                                codes(shown["msg"], table_id)["next"]) is None

    return until_a_turn(turn, deal_on)


def private_moves(fake: FakeBotApi, user: int, table_id: int, message_id: int) -> list[str]:
    """The move buttons of a private table message, once the person is on turn
    (``private_turn``)."""
    return move_datas(private_turn(fake, user, table_id, message_id), table_id)
