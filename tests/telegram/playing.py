"""Playing through the Telegram end-to-end tests the way a person would: greeting the bot, the
private menu to a table, a private game to its end, and a group game of several people
(``GroupGame``), pressing only what a message shows, one press at a time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import GAMES
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_process import WAIT
from tests.telegram.keyboards import (
    actionable,
    answer_text,
    buttons,
    codes,
    move_datas,
    peek,
    peek_all,
    pick_move,
    press_and_settle,
    snapshot,
    table_of,
)

# ------------------------------------------------------------------------------ games


def greet(fake: FakeBotApi, user: int, name: str) -> None:
    """/start in the user's private chat, and wait for the greeting."""
    since = fake.last_seq()
    fake.send_text(user, user, "/start", user_first_name=name)
    fake.wait_for_call("sendMessage", lambda c: int(c["params"]["chat_id"]) == user
                       and "Stammtisch" in c["params"]["text"], timeout=WAIT, since=since)


def private_menu_to_table(fake: FakeBotApi, user: int, opponents: int = 1,
                          level: str = "anfaenger",
                          game: str = "schwimmen") -> tuple[int, int]:
    """/new in a private chat and the menu buttons (game, number of CPU opponents, level):
    returns (table id, table message id)."""
    since = fake.last_seq()
    fake.send_text(user, user, "/new")
    menu = fake.wait_for(lambda: next((m for m in fake.messages(user, include_deleted=False)
                                       if any(d == f"v1:0:0:g.{game}" for _, d in buttons(m))),
                                      None), WAIT, message="the game menu")
    steps = [f"v1:0:0:g.{game}", f"v1:0:0:g.{game}.{opponents}",
             f"v1:0:0:g.{game}.{opponents}.{level}"]
    for i, data in enumerate(steps):
        if i > 0:
            shown = fake.wait_for(lambda d=data, n=steps[i + 1:]: (found := {x for _, x in buttons(
                fake.message(user, menu["message_id"]))}) and (d in found or n and n[0] in found)
                and found, WAIT, message=f"menu button {data}")
            if data not in shown:  # a question with one answer is not asked (Run Fast)
                continue
        uid = fake.press(user, user, menu["message_id"], data)
        assert answer_text(fake, uid) is None
    msg = fake.wait_for(lambda: next((m for m in fake.messages(user, include_deleted=False)
                                      if table_of(m) and m["message_id"] != menu["message_id"]
                                      and fake.calls("sendMessage", since=since)), None),
                        WAIT, message="the private table message")
    return table_of(msg), msg["message_id"]  # type: ignore[return-value]


def play_private(fake: FakeBotApi, user: int, table_id: int, message_id: int,
                 rng: random.Random, on_step: Callable[[int], None] | None = None,
                 max_steps: int = 3000) -> dict:
    """Press the table message's buttons (a random move, or "next") until "again" shows."""
    for step in range(max_steps):
        msg = fake.wait_for(lambda: (m := peek(fake, user, message_id))
                            and actionable(m, table_id) and m, WAIT,
                            message="buttons on the private table message")
        found = codes(msg, table_id)
        if "again" in found:
            return msg
        if on_step is not None:
            on_step(step)
        data = found["next"] if "next" in found else found["skip"] if "skip" in found \
            else pick_move(rng, move_datas(msg, table_id))  # ("skip": out, to the result)
        answer = press_and_settle(fake, user, user, message_id, data)
        assert answer is None or "veraltet" in answer or "out of date" in answer, answer
    raise AssertionError("the private game did not end")


@dataclass
class GroupGame:
    """A group table driven by several people (user ids), each with a private chat."""

    fake: FakeBotApi
    group: int
    users: list[int]
    names: dict[int, str]
    rng: random.Random
    table_id: int = 0
    table_msg: int = 0
    pressed: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    skipped: set[tuple[int, int]] = field(default_factory=set)
    finished: bool = False
    knock_bias: float = 0.3
    game: str = "schwimmen"

    @property
    def title(self) -> str:
        """The group's name as the fake Bot API gives it (a player's private view of the
        group's table names it)."""
        return f"Stammtisch Test {abs(self.group)}"

    def hello(self) -> None:
        """Everybody starts the bot privately (and is greeted) before the table opens."""
        for u in self.users:
            greet(self.fake, u, self.names[u])

    def open(self, extra: Callable[[], None] | None = None) -> None:
        """/new in the group by the first user, the game (``self.game``), the others join,
        the opener starts."""
        fake, opener = self.fake, self.users[0]
        fake.send_text(self.group, opener, "/new", user_first_name=self.names[opener])
        menu = fake.wait_for(lambda: next((m for m in fake.messages(self.group)
                                           if any(d == f"v1:0:0:g.{self.game}"
                                                  for _, d in buttons(m))), None),
                             WAIT, message="the group game menu")
        uid = fake.press(self.group, opener, menu["message_id"], f"v1:0:0:g.{self.game}")
        assert answer_text(fake, uid) is None
        lobby = fake.wait_for(lambda: next((m for m in fake.messages(self.group)
                                            if "join" in codes(m)), None),
                              WAIT, message="the lobby")
        self.table_id, self.table_msg = table_of(lobby), lobby["message_id"]  # type: ignore[assignment]
        for u in self.users[1:]:
            data = self.wait_code("join")
            assert press_and_settle(fake, self.group, u, self.table_msg, data) \
                in (None, "Du bist dabei."), "join refused"
            fake.wait_for(lambda u=u: self.names[u] in (fake.message(
                self.group, self.table_msg) or {}).get("text", ""), WAIT,
                message=f"{self.names[u]} in the lobby")
        if extra is not None:
            extra()
        data = self.wait_code("start")
        uid = fake.press(self.group, opener, self.table_msg, data)
        assert answer_text(fake, uid) in (None, "Los geht's!")
        fake.wait_for(lambda: "start" not in codes(self.table_message()), WAIT,
                      message="the game to start")

    def table_message(self) -> dict:
        """The table message; followed when the bot posted it anew further down (it does so
        once it has scrolled away) and deleted the old copy."""
        msg = peek(self.fake, self.group, self.table_msg) or {}
        if msg.get("deleted"):
            newer = [m for m in peek_all(self.fake, self.group)
                     if m["message_id"] > self.table_msg and table_of(m) == self.table_id]
            if newer:
                self.table_msg = newer[-1]["message_id"]
                msg = newer[-1]
        return msg

    def add_cpus(self, n: int | None = None) -> None:
        """The opener taps "➕ CPU" in the lobby ``n`` times (``None``: every free seat)."""
        if n is None:
            n = GAMES[self.game].MAX_SEATS - len(self.users)
        for _ in range(n):
            assert press_and_settle(self.fake, self.group, self.users[0], self.table_msg,
                                    self.wait_code("fill.+")) is None

    def wait_code(self, code: str) -> str:
        return self.fake.wait_for(lambda: codes(self.table_message(), self.table_id).get(code),
                                  WAIT, message=f"the {code!r} button on the table message")

    def hand_message(self, user: int) -> dict | None:
        """The user's current private message for this table (newest, not deleted)."""
        found = None
        for m in peek_all(self.fake, user):
            if m["text"] and self.title in m["text"].splitlines()[0]:
                found = m
        return found

    def turn_datas(self, msg: dict) -> list[str]:
        """The move buttons of a private message (empty: not on turn)."""
        return move_datas(msg, self.table_id)

    def pick(self, user: int, msg: dict) -> str:
        """The button (callback data) ``user`` presses on their private message."""
        return pick_move(self.rng, self.turn_datas(msg), self.knock_bias)

    def on_turn(self) -> tuple[int, dict] | None:
        for u in self.users:
            m = self.hand_message(u)
            if m and self.turn_datas(m):
                return u, m
        return None

    def step(self, skip_chance: float = 0.0, extras: bool = False) -> bool:
        """One look at the chats and at most one press; ``True`` when something was pressed.
        With ``skip_chance`` a player sometimes lets the clock run out on a turn."""
        fake, rng = self.fake, self.rng
        table = self.table_message()
        found = codes(table, self.table_id)
        if "again" in found:
            self.finished = True
            return False
        table_key = (self.group, self.table_msg)
        fresh = self.pressed.get(table_key) != snapshot(table)
        if extras and fresh and rng.random() < 0.05:
            user = rng.choice(self.users)
            for code in ("back", "cards", "next"):
                if code in found and rng.random() < 0.5:
                    self.pressed[table_key] = snapshot(table)
                    # (the table may be edited meanwhile: a real client presses the keyboard it
                    # still shows, and the bot answers a stale press)
                    fake.press(self.group, user, self.table_msg, found[code], check_data=False)
                    return True
        turn = self.on_turn()
        if turn is None:
            if "next" in found and fresh and rng.random() < 0.3:
                self.pressed[table_key] = snapshot(table)
                fake.press(self.group, rng.choice(self.users), self.table_msg, found["next"],
                           check_data=False)
                return True
            return False
        user, msg = turn
        key = (user, msg["message_id"])
        snap = snapshot(msg)
        if self.pressed.get(key) == snap or key in self.skipped:
            return False  # already pressed on this view, or this turn is left to the clock
        if skip_chance and rng.random() < skip_chance:
            self.skipped.add(key)
            return False
        self.pressed[key] = snap
        fake.press(user, user, msg["message_id"], self.pick(user, msg))
        return True

    def play_to_end(self, timeout: float = 180.0, **kwargs: Any) -> None:
        deadline = time.monotonic() + timeout
        while not self.finished:
            if time.monotonic() > deadline:
                raise AssertionError(f"group {self.group}: the game did not end\n"
                                     f"{self.fake.summary()}")
            if not self.step(**kwargs):
                time.sleep(0.02)
