"""Plumbing for the Telegram end-to-end tests.

The bot runs as a separate process (``stammtisch telegram``) against the in-process fake Bot API
(``tests.fakes.telegram_api.FakeBotApi``). These helpers start and stop it, read its database
with plain SQL (SQLite file or PostgreSQL), read keyboards, and play games by pressing buttons
the way a person would: only what a message currently shows, one press at a time.
"""

from __future__ import annotations

import copy
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from engine import GAMES
from storage.db import database_url
from tests.fakes.telegram_api import FakeBotApi

ROOT = Path(__file__).resolve().parents[2]
STAMMTISCH = ROOT / ".venv" / "bin" / "stammtisch"
TOKEN = "123456:TEST-token"
WAIT = 60.0  # generous: the suite must never depend on speed

MOVE_HEADS = ("swap", "all", "pass", "knock")
TRACEBACK_MARKERS = ("Traceback", 'File "', "Exception", "Error:", "sqlalchemy", "psycopg")
_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")


def card_symbols(value: str) -> set[str]:
    """Every card symbol (``K♥``, ``10♠``) written in a text."""
    return {m.group(1) + m.group(2) for m in _CARD_RE.finditer(value)}


# ------------------------------------------------------------------------------ the bot process


@dataclass
class BotProcess:
    """One run of ``stammtisch telegram`` with its own log file."""

    env: dict[str, str]
    cwd: Path
    log_path: Path
    proc: subprocess.Popen | None = None

    def start(self, fake: FakeBotApi, timeout: float = WAIT) -> BotProcess:
        since = fake.last_seq()
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen([str(STAMMTISCH), "telegram"], env=self.env, cwd=self.cwd,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.wait_ready(fake, since, timeout)
        return self

    def wait_ready(self, fake: FakeBotApi, since: int, timeout: float = WAIT) -> None:
        """Ready = the commands were registered (the last step before polling begins)."""

        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.log()}")
            calls = fake.calls("setMyCommands", since=since)
            langs = {c["params"].get("language_code") for c in calls}
            return {"de", "en", None} <= langs

        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot did not get ready:\n{self.log()}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown at all."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        """Terminate, and kill if it does not end in time."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"


def bot_env(fake: FakeBotApi, db_url: str, **overrides: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TELEGRAM_", "DATABASE_URL", "TURN_", "CPU_", "NEXT_ROUND",
                                "DEFAULT_LANGUAGE", "LOG_LEVEL"))}
    env.update({
        "TELEGRAM_TOKEN": TOKEN,
        "TELEGRAM_BASE_URL": fake.url,
        "DATABASE_URL": db_url,
        "CPU_DELAY": "0.05",
        "TURN_TIMEOUT": "60",
        "NEXT_ROUND_DELAY": "0.2",
        "TELEGRAM_CHAT_INTERVAL": "0.02",
        "TELEGRAM_GROUP_PER_MINUTE": "100000",
        "TELEGRAM_GLOBAL_PER_SECOND": "100000",
        "DEFAULT_LANGUAGE": "de",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "INPUT_RATE": "off",  # the players here are scripts (tests of flood control set it)
    })
    env.update({k: str(v) for k, v in overrides.items()})
    return env


# ------------------------------------------------------------------------------ the database


def as_utc(value: Any) -> datetime:
    """A time read with plain SQL (SQLite gives text, PostgreSQL an aware datetime)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime), value
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Db:
    """Read-only plain-SQL access to the bot's database (no models: no coupling, no locks)."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = create_engine(database_url(url), poolclass=NullPool)

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(text(sql), params)]

    def table(self, table_id: int) -> dict[str, Any]:
        rows = self.rows("SELECT * FROM game_table WHERE id = :t", t=table_id)
        assert rows, f"no table {table_id}"
        return rows[0]

    def moves(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM move WHERE table_id = :t ORDER BY seq", t=table_id)

    def seats(self, table_id: int) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM seat WHERE table_id = :t ORDER BY seat_no", t=table_id)

    def outbox(self, chat: int | None = None) -> list[dict[str, Any]]:
        if chat is None:
            return self.rows("SELECT * FROM outbox ORDER BY id")
        return self.rows("SELECT * FROM outbox WHERE chat_external_id = :c ORDER BY id",
                         c=str(chat))

    def result(self, table_id: int) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM result WHERE table_id = :t", t=table_id)
        return rows[0] if rows else None

    def dispose(self) -> None:
        self.engine.dispose()


def replay(db: Db, table_id: int) -> Callable[[datetime], Any]:
    """``state_at(when)``: the table's engine state after every move logged at or before
    ``when`` (the table's seed and move log, replayed with the engine)."""
    import json

    table = db.table(table_id)
    game = GAMES[table["game"]]
    options = table["options"]
    if isinstance(options, str):
        options = json.loads(options)
    n = len(db.seats(table_id))
    states = [(datetime.min.replace(tzinfo=UTC),
               game.new_game(n, (options or {}).get("engine") or {}, int(table["seed"])))]
    for move in db.moves(table_id):
        state, _ = game.apply(states[-1][1], move["code"])
        states.append((as_utc(move["at"]), state))

    def state_at(when: datetime) -> Any:
        found = states[0][1]
        for at, state in states:
            if at <= when:
                found = state
            else:
                break
        return found

    return state_at


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


def private_moves(fake: FakeBotApi, user: int, table_id: int, message_id: int) -> list[str]:
    """The move buttons of a private table message, once the person is on turn; a round that
    ended on the deal (a 31 dealt) is followed into the next one ("next")."""
    for _ in range(5):
        msg = fake.wait_for(lambda: (m := fake.message(user, message_id)) and (
            move_datas(m, table_id) or codes(m, table_id).get("next")) and m, WAIT,
            message="a move to make")
        datas = move_datas(msg, table_id)
        if datas:
            return datas
        press_and_settle(fake, user, user, message_id, codes(msg, table_id)["next"])
    raise AssertionError("no move to make after five rounds")


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
        """The opener taps "➕ 🤖" in the lobby ``n`` times (``None``: every free seat)."""
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
