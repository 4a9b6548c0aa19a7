"""``/meinedaten`` and ``/vergessen`` end to end through the fake Bot API, the bot a separate
process on SQLite and on PostgreSQL: the file arrives as a ``sendDocument`` whose JSON holds
the person's rows; after ``/vergessen`` and its button, no row of the bot's whole database
holds their Telegram id, their name or their username."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from sqlalchemy import create_engine
from sqlalchemy import select as core_select
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (the tables of the dump)
from storage.db import database_url
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.harness import (
    WAIT,
    BotProcess,
    answer_text,
    buttons,
    greet,
    play_private,
    private_menu_to_table,
)

ZED, BEN, GROUP = 918273645, 4702, -1004700
NEEDLES = (str(ZED), "Zebulon", "zebquax")


def dump(db_url: str) -> str:
    """Every row of every table of the bot's database, every column, as text."""
    engine = create_engine(database_url(db_url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return "\n".join(f"{t.name}: " + " | ".join(map(str, row))
                             for t in SQLModel.metadata.sorted_tables
                             for row in conn.execute(core_select(t)))
    finally:
        engine.dispose()


def _newest(fake: FakeBotApi, chat: int, head: str, seen: set[int]) -> dict:
    return fake.wait_for(lambda: next((m for m in fake.messages(chat, include_deleted=False)
                                       if m["message_id"] not in seen
                                       and (m["text"] or "").startswith(head)), None),
                         WAIT, message=f"a message starting {head!r} in {chat}")


def test_my_data_comes_as_a_file_and_forgetting_leaves_no_trace(
        fake: FakeBotApi, start_bot: Callable[..., BotProcess], db_url: str) -> None:
    start_bot(db_url)
    fake.send_text(ZED, ZED, "/start", user_first_name="Zebulon", username="zebquax")
    greet(fake, BEN, "Ben")
    table_id, message_id = private_menu_to_table(fake, ZED, opponents=1, level="anfaenger")
    play_private(fake, ZED, table_id, message_id, random.Random(47))
    # a group lobby Ben opened, Zebulon joined: the group's table message names him
    fake.send_text(GROUP, BEN, "/new schwimmen", chat_title="Stammtisch")
    lobby = _newest(fake, GROUP, "🃏", set())
    join = next(d for _label, d in buttons(lobby) if d.endswith(":join"))
    assert answer_text(fake, fake.press(GROUP, ZED, lobby["message_id"], join)) is not None
    fake.wait_for(lambda: "Zebulon" in (fake.message(GROUP, lobby["message_id"]) or {}).get(
        "text", ""), WAIT, message="the lobby names Zebulon")

    # /meinedaten: a note, then the file
    seen = {m["message_id"] for m in fake.messages(ZED)}
    fake.send_text(ZED, ZED, "/meinedaten", user_first_name="Zebulon", username="zebquax")
    _newest(fake, ZED, "📄 Hier ist alles, was ich über dich speichere", seen)
    sent = fake.wait_for(lambda: fake.documents(ZED), WAIT, message="the file")
    assert sent[0]["file_name"].startswith("stammtisch-meine-daten-")
    assert sent[0]["mime_type"] == "application/json"
    data = json.loads(sent[0]["data"])
    assert data["person"]["platform"] == "telegram"
    assert (data["person"]["id"], data["person"]["name"], data["person"]["username"]) == (
        str(ZED), "Zebulon", "zebquax")
    assert data["person"]["private_chat"] == str(ZED)
    assert {s["table"] for s in data["seats"]} >= {table_id}
    assert [r["table"] for r in data["results"]] == [table_id]
    assert data["moves"] and all(m["table"] in {s["table"] for s in data["seats"]}
                                 for m in data["moves"])
    assert [g["group"] for g in data["groups_seen_in"]] == ["Stammtisch"]
    assert any(n in dump(db_url) for n in NEEDLES)

    # /vergessen, then the button
    seen = {m["message_id"] for m in fake.messages(ZED)}
    fake.send_text(ZED, ZED, "/vergessen", user_first_name="Zebulon", username="zebquax")
    question = _newest(fake, ZED, "⚠️ Soll ich dich vergessen?", seen)
    labels = {label: d for label, d in buttons(question)}
    assert list(labels) == ["🗑 Ja, vergiss mich", "Abbrechen"]
    update = fake.press(ZED, ZED, question["message_id"], labels["🗑 Ja, vergiss mich"])
    assert answer_text(fake, update) == (
        "✅ Erledigt: Ich habe dich vergessen. Wenn du mir wieder schreibst, fängst du als "
        "neuer Spieler an.")
    fake.wait_for(lambda: "Zebulon" not in (fake.message(GROUP, lobby["message_id"]) or {})
                  .get("text", ""), WAIT, message="the lobby without Zebulon")
    everything = dump(db_url)
    left = [line for line in everything.splitlines() if any(n in line for n in NEEDLES)]
    assert left == [], "\n".join(left)
    assert "Ben" in everything  # (the dump is the bot's database, full of the others)
