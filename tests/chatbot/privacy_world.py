"""The world of the privacy tests: Zebulon, who played private and group games, answered a
Stammtisch evening, played the daily deal and hid his stats, with Bob and Carol, who played
with him; a second group game still running with all three; and the whole database as text
(``dump``: every table, every column)."""

from __future__ import annotations

import json
import random
from typing import Any

from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, col, select

from chatbot.service import UserRef
from storage.models import GameTable, Outbox, Player, Seat
from tests.chatbot.evenings import answer, berlin, current, new_game, open_table, play, step
from tests.chatbot.service.harness import (
    BOB,
    CAROL,
    GROUP,
    Harness,
    new_private_game,
    play_private_to_the_end,
    private,
)

ZED = UserRef("zed-90417", "Zebulon Quaxl", username="zebquax", language="de")
PEOPLE = [ZED, BOB, CAROL]
NEEDLES = ("90417", "Zebulon", "Quaxl", "zebquax")  # his id, his name, his username


def dump(engine: Any) -> str:
    """Every row of every table of the bot, every column, as text."""
    lines = []
    with engine.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            for row in conn.execute(core_select(table)):
                lines.append(f"{table.name}: " + " | ".join(map(str, row)))
    return "\n".join(lines)


def found(engine: Any) -> list[str]:
    """The lines of the dump that name Zebulon."""
    return [line for line in dump(engine).splitlines() if any(n in line for n in NEEDLES)]


def last_text(h: Harness, chat_id: str) -> str:
    with Session(h.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.chat_external_id == chat_id)
                           .order_by(col(Outbox.id).desc())).first()
        assert row is not None
        return row.text


def said(h: Harness, chat: Any, user: UserRef, command: str, args: str = "") -> str:
    """A command's answer as its chat shows it (the newest message there)."""
    out = h.command(chat, user, command, args)
    assert out.ok, out.text
    return last_text(h, chat.external_id)


def build(h: Harness) -> dict[str, int]:
    """Zebulon's life with the bot; returns the tables: ``group_done`` (an evening's game,
    finished), ``group_running``, ``private_done``, ``daily``."""
    h.clock.set(berlin(0, 12))  # Monday noon
    for user in PEOPLE:
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, BOB, "abend", "fr 20:00 wöchentlich schwimmen").ok
    step(h, "announce")
    for user in PEOPLE:
        answer(h, user, "y")
    for kind in ("day", "soon", "start"):
        step(h, kind)
    lobby = open_table(h)
    assert lobby is not None and lobby.id is not None
    data = h.buttons(GROUP, lobby.id)["start"]
    assert h.press(GROUP, BOB, data).changed
    play(h, lobby.id, PEOPLE, 3)
    running = new_game(h, [BOB, ZED, CAROL])
    h.run_deadlines(running, kinds=("next", "cpu"))
    done = new_private_game(h, ZED, opponents=1)
    play_private_to_the_end(h, done, ZED, random.Random(5))
    daily = h.command(private(ZED), ZED, "tagesspiel", "schwimmen")
    assert daily.ok and daily.table_id
    assert h.command(private(ZED), ZED, "stats", "hide").ok
    assert current(h).state == "running"
    return {"group_done": lobby.id, "group_running": running, "private_done": done,
            "daily": daily.table_id}


def exported(h: Harness, user: UserRef = ZED, command: str = "meinedaten") -> dict[str, Any]:
    """``/meinedaten``: the JSON file that reaches the private chat, read."""
    chat = private(user).external_id
    before = len(h.transport.files.get(chat, []))
    assert h.command(private(user), user, command).ok
    h.postman.deliver()
    files = h.transport.files.get(chat, [])
    assert len(files) == before + 1, "one file in the private chat"
    name, data = files[-1]
    assert name.endswith(".json")
    return json.loads(data)  # type: ignore[no-any-return]


def seats_of(h: Harness, table_id: int) -> list[Seat]:
    return h.seats(table_id)


def person(h: Harness, external_id: str) -> Player | None:
    with Session(h.engine) as session:
        return session.exec(select(Player).where(Player.external_id == external_id)).first()


def table_state(h: Harness, table_id: int) -> str:
    with Session(h.engine) as session:
        table = session.get(GameTable, table_id)
        assert table is not None
        return table.fsm_state
