"""Playing Scat, Run Fast and climbing through the Telegram end-to-end harness, and checking
that no hidden card shows where it must not.

* ``Chooser`` – one person's way of pressing the buttons of their message: Scat draws (or
  takes) and then discards, knocks now and then; Run Fast and climbing play from the paged
  lists of legal plays, turn pages and switch kind tabs, sometimes build a play card by card
  (``ui.k.sel``, ``ui.t.<card>`` …, ``ui.play``) or a Run Fast triple with two in two steps
  (``ui.tt.<rank>``, then ``ui.x.<card>`` twice; an airplane ``ui.ta.…``, then its kickers),
  and pass when they have to. What was done is
  counted in ``Chooser.seen``.
* ``play_private_game`` – a private table played to its end, one press at a time.
* ``CardGroupGame`` – ``GroupGame`` for these games: every person moves from their private
  chat with their own ``Chooser``.
* ``leaks`` – every version of every bot message in a chat, checked against the game state it
  was drawn for (outbox creation time → replay of seed and move log): no card of
  ``engine.GAMES[game].hidden_cards(state)`` may show, apart from what is public knowledge by
  then (Scat: every card that lay face up on the discard pile this round – also one taken back
  into a hand, everybody saw it) and, in a player's own chat, what that seat may know (its
  hand; in climbing also its side of the card exchange).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chatbot.service import FEATURES
from chatbot.service.core.basics import BASICS
from chatbot.service.core.registry import Registry
from engine import GAMES
from tests.conftest import joker_codes
from tests.fakes.telegram_api import FakeBotApi

from .harness import (
    WAIT,
    Db,
    GroupGame,
    actionable,
    as_utc,
    buttons,
    codes,
    made_at,
    parse_data,
    peek,
    snapshot,
    version_datas,
    versions,
)

# Table buttons that are no move and no selection step (lobby, "my cards", "next round" …).
TABLE_UI = {*Registry((BASICS, *FEATURES)).table_buttons, "next"}
POLL = 0.005  # seconds between two looks at a message while a private game is played
COACH = ("tip", "review")  # the coach's buttons: no moves
_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")


def card_tokens(value: str) -> set[str]:
    """Every card written in a text: ``K♥``, ``10♠`` and the jokers (as ``BJ``/``RJ``)."""
    return {m.group(1) + m.group(2) for m in _CARD.finditer(value) if m.group(1)} \
        | joker_codes(value)


def turn_codes(msg: dict | None, table_id: int) -> dict[str, str]:
    """code → data of the moves and selection steps on a message (empty: not on turn)."""
    return {c: d for c, d in codes(msg, table_id).items() if c.split(".")[0] not in TABLE_UI}


def play_cards(game: str, code: str) -> list[str]:
    """The card codes of a play button's action code."""
    return [c.code for c in GAMES[game].parse_action(code).cards]


# ------------------------------------------------------------------------------ choosing moves


@dataclass
class Chooser:
    """How one person plays: picks the next button of their message for the current view."""

    game: str
    rng: random.Random
    select_chance: float = 0.2  # build a play card by card
    page_chance: float = 0.15  # turn a page of the play list
    tab_chance: float = 0.1  # look at the plays of another kind
    knock_bias: float = 0.3  # Scat: knock when allowed
    pass_bias: float = 0.05  # climbing: pass although a play is possible
    plan: list[str] = field(default_factory=list)  # card codes being selected
    seen: Counter = field(default_factory=Counter)
    last: str = ""

    def choose(self, msg: dict, table_id: int) -> str:
        """The callback data to press next (the message shows this person's turn)."""
        # (the coach's "💡 Tip" is no move: against the Anfänger it is under every turn)
        found = {c: d for c, d in turn_codes(msg, table_id).items() if c not in COACH}
        assert found, f"no move on {msg.get('text')!r}"
        code = self._scat(found) if self.game == "scat" else self._plays(msg, found)
        self.last = code
        return found[code]

    def _scat(self, found: dict[str, str]) -> str:
        drops = sorted(c for c in found if c.startswith("drop."))
        if drops:
            if self.last in ("draw", "take"):  # the second press of the turn
                self.seen[f"{self.last}_then_drop"] += 1
            return self.rng.choice(drops)
        if "knock" in found and self.rng.random() < self.knock_bias:
            self.seen["knock"] += 1
            return "knock"
        options = [c for c in ("draw", "take", "pass") if c in found] or ["knock"]
        code = "draw" if "draw" in options and not self.seen["draw"] else self.rng.choice(options)
        self.seen[code] += 1
        return code

    def _is_play(self, code: str) -> bool:
        if self.game == "runfast":
            return code.startswith("p.")
        return not code.startswith(("ui.", "g.")) and code != "pass"

    def _plays(self, msg: dict, found: dict[str, str]) -> str:
        labels = {parse_data(d)[2]: label for label, d in buttons(msg)  # type: ignore[index]
                  if parse_data(d)}
        hand = [c for c in found if c.startswith("ui.t.")]
        other_tabs = [c for c in found if c.startswith("ui.k.") and c != "ui.k.sel"
                      and not labels[c].startswith("• ")]
        kickers = [c for c in found if c.startswith("ui.x.") and not labels[c].startswith("✅")]
        if kickers:  # run fast: a triple chosen, now its kickers (the second one plays)
            self.seen["kicker"] += 1
            return self.rng.choice(sorted(kickers))
        if hand:  # the hand to pick from
            picked = {c[5:] for c in hand if labels[c].startswith("✅")}
            if not set(self.plan) <= {c[5:] for c in hand}:
                self.plan = []  # a plan from an earlier turn (the clock played for us)
            if self.plan:
                wrong = sorted(picked - set(self.plan))
                todo = [c for c in self.plan if c not in picked]
                if wrong or todo:
                    self.seen["toggle"] += 1
                    return f"ui.t.{(wrong or todo)[0]}"
                self.plan = []
                self.seen["select_play"] += 1
                return "ui.play"
            if picked:
                self.seen["clear"] += 1
                return "ui.clear"
            if other_tabs:
                return self.rng.choice(other_tabs)
            self.seen["pass_no_play"] += 1
            return "pass"  # climbing: nothing beats (only the pick tab and Pass)
        self.plan = []
        plays = [c for c in found if self._is_play(c)]
        triples = sorted(c for c in found if c.startswith(("ui.tt.", "ui.ta.")))
        if triples and (not plays or self.rng.random() < 0.5):  # run fast: triples first
            self.seen["triple"] += 1
            return self.rng.choice(triples)
        if not plays:
            gives = sorted(c for c in found if c.startswith("g."))
            if gives:  # climbing: the winner gives a card back
                self.seen["give_back"] += 1
                return self.rng.choice(gives)
            assert "pass" in found, found
            self.seen["pass_only" if len(found) == 1 else "pass_no_play"] += 1
            return "pass"
        pages = [c for c in found if c.startswith("ui.p.") and labels[c] in ("◀", "▶")]
        roll = self.rng.random()
        if pages and (roll < self.page_chance or not self.seen["page"]):
            self.seen["page"] += 1
            return self.rng.choice(pages)
        if other_tabs and self.rng.random() < self.tab_chance:
            self.seen["tab"] += 1
            return self.rng.choice(other_tabs)
        if "ui.k.sel" in found and (self.rng.random() < self.select_chance
                                    or not self.seen["select_play"]):
            self.plan = play_cards(self.game, self.rng.choice(plays))
            self.seen["select_start"] += 1
            return "ui.k.sel"
        if "pass" in found and self.rng.random() < self.pass_bias:
            self.seen["pass"] += 1
            return "pass"
        self.seen["list_play"] += 1
        return self.rng.choice(plays)


def press_and_wait(fake: FakeBotApi, chat: int, user: int, message_id: int, data: str,
                   timeout: float = WAIT) -> dict:
    """Press a button; wait for the answer and, unless it is an alert (a refusal), for the
    message to change. Returns the answer (``text``, ``show_alert``)."""
    before = snapshot(peek(fake, chat, message_id))
    uid = fake.press(chat, user, message_id, data)
    answer = fake.wait_for(lambda: (a := fake.query_answer(uid)) and a["answered"] and a,
                           timeout, message=f"an answer to {data}", interval=POLL)
    got = answer.get("answer") or {}
    if not (got.get("text") and got.get("show_alert")):
        fake.wait_for(lambda: snapshot(peek(fake, chat, message_id)) != before, timeout,
                      message=f"message {message_id} in chat {chat} to change after {data}",
                      interval=POLL)
    return got


def play_private_game(fake: FakeBotApi, user: int, table_id: int, message_id: int,
                      chooser: Chooser, max_steps: int = 5000) -> dict:
    """Press the private table message's buttons until "again" shows; returns that message.
    No press may be refused."""
    for _ in range(max_steps):
        msg = fake.wait_for(lambda: (m := peek(fake, user, message_id))
                            and actionable(m, table_id) and m, WAIT,
                            message="buttons on the private table message", interval=POLL)
        found = codes(msg, table_id)
        if "again" in found:
            return msg
        data = found["next"] if "next" in found else found["skip"] if "skip" in found \
            else chooser.choose(msg, table_id)  # ("skip": the person is out, to the result)
        answer = press_and_wait(fake, user, user, message_id, data)
        assert not answer.get("show_alert"), (data, answer, msg["text"])
    raise AssertionError("the private game did not end")


@dataclass
class CardGroupGame(GroupGame):
    """A group table of Scat, Run Fast or climbing; each person has a ``Chooser``."""

    choosers: dict[int, Chooser] = field(default_factory=dict)
    skip_first: int = 0  # leave this many turns to the clock before any other press

    def chooser(self, user: int) -> Chooser:
        if user not in self.choosers:
            self.choosers[user] = Chooser(self.game, random.Random(self.rng.random()))
        return self.choosers[user]

    def turn_datas(self, msg: dict) -> list[str]:
        return list(turn_codes(msg, self.table_id).values())

    def pick(self, user: int, msg: dict) -> str:
        return self.chooser(user).choose(msg, self.table_id)

    def step(self, skip_chance: float = 0.0, extras: bool = False) -> bool:
        if self.skip_first and not self.finished and (turn := self.on_turn()) is not None:
            key = (turn[0], turn[1]["message_id"])
            if key not in self.skipped:
                self.skipped.add(key)
                self.skip_first -= 1
            return False
        try:
            return super().step(skip_chance=skip_chance, extras=extras)
        except ValueError:  # pressed on a message that was just replaced: look again
            return False

    def seen(self) -> Counter:
        total: Counter = Counter()
        for c in self.choosers.values():
            total.update(c.seen)
        return total

    def play_until(self, done: Callable[[], bool], timeout: float, **kwargs: Any) -> None:
        deadline = time.monotonic() + timeout
        while not self.finished and not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"group {self.group}: no end in sight\n"
                                     f"{self.fake.summary()}")
            if not self.step(**kwargs):
                time.sleep(0.02)


# ------------------------------------------------------------------------------ leak check


def _seat_knows(game: str, state: Any, seat: int) -> set[str]:
    """What a seat may see in its own chat on top of the public: its hand, and in climbing its
    side of the exchange (the card it gave away, or got back)."""
    obs = GAMES[game].observation(state, seat)
    cards = set(obs.hand)
    if game == "climbing" and obs.exchange is not None:
        cards |= {c for c in (obs.exchange.given, obs.exchange.back) if c is not None}
    return {c.symbol for c in cards}


def public_known(game: str, state: Any, before: set[str], round_no: int | None) -> set[str]:
    """The cards public by now although they may be in a hand: in Scat every card that lay
    face up on the discard pile this round (``before``: up to the state of round
    ``round_no`` before the last move)."""
    if game != "scat":
        return set()
    seen = set(before) if state.round_no == round_no else set()
    return seen | {c.symbol for c in state.discard}


def timeline(db: Db, table_id: int) -> Callable[[datetime], tuple[Any, set[str]]]:
    """``at(when)`` → (engine state after every move logged at or before ``when``, the cards
    that are public knowledge then although ``hidden_cards`` may hold them)."""
    table = db.table(table_id)
    game_id = table["game"]
    game = GAMES[game_id]
    options = table["options"]
    if isinstance(options, str):
        options = json.loads(options)
    n = len(db.seats(table_id))
    state = game.new_game(n, (options or {}).get("engine") or {}, int(table["seed"]))
    steps: list[tuple[datetime, Any, set[str]]] = []

    known = public_known(game_id, state, set(), None)
    steps.append((datetime.min.replace(tzinfo=UTC), state, known))
    for move in db.moves(table_id):
        round_no = state.round_no
        state, _ = game.apply(state, move["code"])
        known = public_known(game_id, state, known, round_no)
        steps.append((as_utc(move["at"]), state, known))

    def at(when: datetime) -> tuple[Any, set[str]]:
        found = steps[0]
        for step in steps:
            if step[0] <= when:
                found = step
            else:
                break
        return found[1], found[2]

    return at


def forbidden(game: str, state: Any, known: set[str], own_seat: int | None) -> set[str]:
    """The cards a view made in ``state`` must not show (to the group: ``own_seat`` None)."""
    secret = {c.symbol for c in GAMES[game].hidden_cards(state)} - known
    if own_seat is not None:
        secret -= _seat_knows(game, state, own_seat)
    return secret


def leaks(db: Db, fake: FakeBotApi, chat: int, table_id: int,
          own_seat: int | None) -> tuple[list[str], int, set[str]]:
    """Every version of every bot message in ``chat`` (text and button labels; in a group
    also the buttons' data) that shows a card hidden from its readers when the view was made.
    Returns (leaks, how many card-showing versions were checked, every card shown)."""
    game = db.table(table_id)["game"]
    at = timeline(db, table_id)
    made = made_at(db, chat)
    found: list[str] = []
    checked = 0
    shown_all: set[str] = set()
    for msg in fake.messages(chat):
        if own_seat is None:  # group buttons: only table buttons that are no move at all
            for data in version_datas(msg):
                parsed = parse_data(data)
                assert parsed is not None, data
                if parsed[0] == table_id:
                    assert parsed[2].split(".")[0] in TABLE_UI, f"group button {data}"
        for text, labels in versions(msg):
            shown = card_tokens("\n".join([text, *labels]))
            if not shown:
                continue
            checked += 1
            shown_all |= shown
            times = made.get((text, labels))
            assert times, f"chat {chat}: a message the outbox never made: {text!r} {labels}"
            bad = [shown & forbidden(game, *at(when), own_seat) for when in times]
            if all(bad):  # no moment this view was made for could show these cards
                found.append(f"chat {chat} message {msg['message_id']}: {sorted(bad[0])} in "
                             f"{text!r} {labels}")
    return found, checked, shown_all


def check_no_leaks(db: Db, fake: FakeBotApi, game: GroupGame) -> dict[str, Any]:
    """The leak check for a group game: the group chat and every player's private chat.
    Returns counts: versions checked in the group / in private chats, cards the group saw."""
    seats = {s["player_id"]: s["seat_no"] for s in db.seats(game.table_id) if s["player_id"]}
    players = {r["external_id"]: r["id"] for r in db.rows(
        "SELECT id, external_id FROM player WHERE platform = 'telegram'")}
    table = db.table(game.table_id)
    replayed = timeline(db, game.table_id)(datetime.max.replace(tzinfo=UTC))[0]
    assert json.loads(GAMES[table["game"]].to_json(replayed)) == json.loads(
        table["state_json"]), "the move log does not replay to the stored state"
    problems, group_checked, group_cards = leaks(db, fake, game.group, game.table_id, None)
    private_checked = 0
    for u in game.users:
        found, n, _ = leaks(db, fake, u, game.table_id, seats[players[str(u)]])
        problems += found
        private_checked += n
    assert not problems, "\n".join(problems[:20])
    return {"group": group_checked, "private": private_checked, "group_cards": group_cards}
