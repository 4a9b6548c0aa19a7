"""Tournaments played through the fake Bot API (issue 48): the group's announcement and what
the bot said there, the tournament's rows in the bot's database, and the people playing their
tables the way a person does — each in their private chat, pressing only what their newest
view of a table shows, everybody on turn at once (as people at several tables do), every
press answered before the next look (``Entrants``). Who sits where comes from the draw the
group was shown, checked against the database."""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine import GAMES
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.bot_db import Db
from tests.telegram.bot_process import WAIT
from tests.telegram.cardgames import turn_codes
from tests.telegram.keyboards import answer_text, buttons, parse_data, peek_all, pick_move, snapshot

DRAW = re.compile(r"^🏆 (?:Runde|Round) (\d+) (?:von|of) (\d+) – (?:die Tische|the tables):")


def greet_all(fake: FakeBotApi, names: dict[int, str]) -> None:
    """Everybody writes /start privately (all at once), each greeting waited for."""
    since = fake.last_seq()
    for user, name in names.items():
        fake.send_text(user, user, "/start", user_first_name=name)
    fake.wait_for(lambda: {int(c["params"]["chat_id"]) for c in fake.calls(
        "sendMessage", since=since)} >= set(names), WAIT, message="every greeting")


def group_said(fake: FakeBotApi, group: int, since: int = 0) -> list[str]:
    """The texts the bot sent into the group (``sendMessage`` answered ok), in order."""
    return [str(c["params"]["text"]) for c in fake.calls("sendMessage", since=since)
            if int(c["params"]["chat_id"]) == group and c.get("status", 200) == 200]


def wait_said(fake: FakeBotApi, group: int, start: str, since: int = 0,
              timeout: float = WAIT) -> str:
    """The first text the bot sent into the group after ``since`` that starts so."""
    return fake.wait_for(lambda: next((t for t in group_said(fake, group, since)
                                       if t.startswith(start)), None), timeout,
                         message=f"a message {start!r} in chat {group}")


def announcement(fake: FakeBotApi, group: int) -> dict:
    """The tournament's announcement in the group (the newest message with its buttons)."""
    return fake.wait_for(lambda: next((m for m in reversed(peek_all(fake, group))
                                       if any(d.startswith("v1:0:0:tn.") and d.count(".") == 2
                                              for _, d in buttons(m))), None),
                         WAIT, message="the tournament's announcement")


def tournament_id(msg: dict) -> int:
    return int(next(d for _, d in buttons(msg) if d.startswith("v1:0:0:tn."))
               .rsplit(".", 1)[1])


def draw_of(text: str) -> list[list[str]]:
    """The tables of a draw as the group reads it: ``1. Bruno, Ede, Alma`` → names."""
    lines = text.split("\n")[1:]
    return [line.split(". ", 1)[1].split(", ") for line in lines if re.match(r"^\d+\. ", line)]


def press_ok(fake: FakeBotApi, chat: int, user: int, message_id: int, data: str,
             lang: str = "de") -> str | None:
    """A press, its answer's text (``None``: answered without one)."""
    return answer_text(fake, fake.press(chat, user, message_id, data, language_code=lang))


# ------------------------------------------------------------------------------ the database


def tournament_row(db: Db) -> dict[str, Any]:
    return db.rows("SELECT * FROM tournament ORDER BY id DESC")[0]


def round_tables(db: Db, round_no: int) -> list[dict[str, Any]]:
    t = tournament_row(db)
    return db.rows("SELECT * FROM tournament_table WHERE tournament_id = :t AND round_no = :r "
                   "ORDER BY table_no", t=t["id"], r=round_no)


def seats_of(row: dict[str, Any]) -> list[int | None]:
    """A tournament table's seats (player ids; ``None``: a CPU's)."""
    seats = row["seats"]
    return json.loads(seats) if isinstance(seats, str) else list(seats)


def player_ids(db: Db) -> dict[int, int]:
    """Telegram user id → the bot's player id."""
    return {int(r["external_id"]): int(r["id"]) for r in db.rows(
        "SELECT id, external_id FROM player WHERE platform = 'telegram'")}


def points_by_person(db: Db) -> dict[int, Fraction]:
    """Tournament points per player id, summed from ``tournament_score`` alone."""
    out: dict[int, Fraction] = {}
    for r in db.rows("SELECT player_id, points_num, points_den FROM tournament_score"):
        out[r["player_id"]] = out.get(r["player_id"], Fraction(0)) + Fraction(
            r["points_num"], r["points_den"])
    return out


def shown(points: Fraction) -> str:
    """Points as the German standings write them: ``4``, ``2,5``."""
    if points.denominator == 1:
        return str(points.numerator)
    return f"{float(points):.2f}".rstrip("0").rstrip(".").replace(".", ",")


def standings_lines(text: str) -> list[tuple[int, str, str]]:
    """(rank, name, points) of each line of a standings message's table."""
    out = []
    for line in text.split("\n"):
        m = re.match(r"^\s*(\d+)\. (.{12}) +(\S+) +\S+ +\S+$", line)
        if m:
            out.append((int(m.group(1)), m.group(2).rstrip(), m.group(3)))
    return out


# ------------------------------------------------------------------------------ playing


def runfast_pick(found: dict[str, str], labels: dict[str, str]) -> str:
    """A Run Fast turn that sheds fast: a triple's kicker when one is being chosen, else the
    play of the most cards the list shows, else a triple, else pass."""
    kickers = sorted(c for c in found if c.startswith("ui.x.")
                     and not labels.get(c, "").startswith("✅"))
    if kickers:
        return kickers[0]
    plays = [c for c in found if c.startswith("p.")]
    if plays:
        return max(plays, key=lambda c: (len(GAMES["runfast"].parse_action(c).cards), c))
    triples = sorted(c for c in found if c.startswith(("ui.tt.", "ui.ta.")))
    if triples:
        return triples[0]
    assert "pass" in found, found
    return "pass"


@dataclass
class Entrants:
    """The tournament's people (user id → name) playing their tables from their private
    chats: everybody whose newest view of a table shows a move presses one, then each press's
    answer is waited for. ``idle`` people do not press (they leave their turns to the clock).
    ``accepted`` keeps every press answered without a refusal: (table, version, code)."""

    fake: FakeBotApi
    names: dict[int, str]
    game: str
    rng: random.Random
    knock_bias: float = 0.9
    idle: set[int] = field(default_factory=set)
    pressed: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    accepted: list[tuple[int, int, str]] = field(default_factory=list)
    refused: Counter = field(default_factory=Counter)

    def view(self, user: int) -> dict | None:
        """The person's newest private message that shows a move (``None``: not on turn)."""
        for msg in reversed(peek_all(self.fake, user)):
            if turn_codes(msg, self.table_of(msg)):
                return msg
        return None

    @staticmethod
    def table_of(msg: dict) -> int:
        for _, data in buttons(msg):
            parsed = parse_data(data)
            if parsed and parsed[0] > 0:
                return parsed[0]
        return -1

    def pick(self, msg: dict) -> str:
        table = self.table_of(msg)
        found = turn_codes(msg, table)
        if self.game == "runfast":
            labels = {parse_data(d)[2]: label for label, d in buttons(msg)  # type: ignore[index]
                      if parse_data(d)}
            return found[runfast_pick(found, labels)]
        return pick_move(self.rng, list(found.values()), self.knock_bias)

    def on_turn(self) -> list[tuple[int, dict]]:
        """Who may press now: (user, view) of everybody on turn with a view not pressed yet."""
        out = []
        for user in self.names:
            if user in self.idle:
                continue
            msg = self.view(user)
            if msg is not None and self.pressed.get((user, msg["message_id"])) != snapshot(msg):
                out.append((user, msg))
        return out

    def step(self) -> int:
        """One press by everybody on turn; their answers waited for. How many pressed."""
        sent = []
        for user, msg in self.on_turn():
            data = self.pick(msg)
            try:
                uid = self.fake.press(user, user, msg["message_id"], data)
            except ValueError:  # (the view was just replaced: look again)
                continue
            self.pressed[(user, msg["message_id"])] = snapshot(msg)
            sent.append((uid, data))
        for uid, data in sent:
            self.answered(uid, data)
        return len(sent)

    def answered(self, uid: int, data: str) -> None:
        """Wait for a press's answer; an accepted one is kept."""
        said = answer_text(self.fake, uid)
        table, version, code = parse_data(data)  # type: ignore[misc]
        if said is None:
            self.accepted.append((table, version, code))
        else:
            self.refused[said] += 1

    def play_until(self, done: Callable[[], bool], timeout: float = 240.0,
                   between: Callable[[], None] | None = None) -> None:
        """Press until ``done()``; ``between`` runs after every look."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"no end in sight\n{self.fake.summary()}")
            if between is not None:
                between()
            if not self.step():
                time.sleep(0.03)
