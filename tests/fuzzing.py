"""A fuzzer for the service: random inputs from five people in two groups and their private
chats, all four games, every check after every input.

``Fuzzer(engine, seed).step()`` sends one random input – a command with random arguments, a
button press (valid, stale, forged, truncated, another table's or another chat's), an update
key used before, or deadlines fired after moving the fake clock – and then checks:

* nothing raised and nothing was logged as failed (refusals are ``Outcome(ok=False)``);
* every new move-log row is for the seat on turn; a ``player`` row comes from a press by that
  seat's person; ``timeout`` only from a timeout deadline; ``cpu``/``away`` only for CPU or
  away seats, from a deadline or played on in the same input after a move or a start; the new
  rows replay to the stored state;
* each changed table's invariants (``INVARIANTS``: cards and coins/points conserved, and the
  engine tests' ``check_state``);
* no group message, button label or command answer shows a card hidden in the table's state
  beyond its public view; a private chat or a press's alert nothing beyond its own seat's
  observation and the public move log;
* a refused input, an update key seen before and a stale or early deadline change nothing.

Used by ``tests/chatbot/test_fuzz.py`` (``strict``: the first problem raises ``Violation``)
and ``bench/fuzz.py`` (counts). A seed replays a run (table seeds are drawn from it too).

The checks after every input, the tables' invariants and the snapshots they compare are in
``tests/fuzzing_checks.py`` (``Fuzzer`` inherits them).
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import replace
from logging.handlers import BufferingHandler
from types import SimpleNamespace

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

import fsm
from chatbot.presenters import PRESENTERS
from chatbot.service import ChatRef, Outcome, Service, Settings, UserRef
from chatbot.service.core import menus
from engine import GAMES
from tests.conftest import FakeClock
from tests.fuzzing_checks import (
    _MOVE,
    _OUTBOX,
    _TABLE,
    INVARIANTS,
    KNOWN_BUGS,
    PLATFORM,
    Snap,
    Violation,
    _Checks,
    shown_cards,
)

__all__ = ["INVARIANTS", "KNOWN_BUGS", "PLATFORM", "Fuzzer", "Snap", "Violation", "shown_cards"]

KINDS = {"command": 12, "press": 26, "turn": 24, "stale": 5, "forged": 8, "foreign": 5,
         "repeat": 3, "tick": 9, "deadline": 7, "bad_fire": 3}
COMMANDS = {"new": 30, "start": 12, "help": 3, "rules": 3, "language": 6, "stop": 5, "": 1,
            "xyzzy": 2, "NEW": 1, "new\x00": 1, "__init__": 1, "stop now": 1}
LEVELS = ("anfaenger", "normal", "experte", "", "godlike", "EXPERTE", "Anfänger")
NUMBERS = ("", "0", "1", "1", "2", "2", "3", "4", "5", "6", "7", "99", "-1", "2.5", "٣", "²",
           "9" * 30)
GARBAGE = ("\x00", "ß" * 300, "x" * 5000, "🂡 🂢", "v1:1:0:knock", "--help", "=", "a=b=c",
           "'; DROP TABLE chat; --", "\u202e", "K♥ 10♠", "hands=", "%s%n", "\n\n")
CODES = ("swap.ZZ.QQ", "kick.", "opt.nothing", "ui.t.ZZ", "ui.x", "ui.go", "lvl", "cur", "clock",
         "fill", "again", "back", "cards", "next", "join", "leave", "start", "stop", "knock",
         "pass", "draw", "deal", "all", "g.schwimmen.2.normal", "x" * 48)
NUMS = ("-1", "00", "1e3", "٣", "²", " 1", str(2**31), str(2**63), "9" * 11, "0x1")
PEOPLE = (("alice", "Alice", "alice", "de"), ("bob", "Bob", None, "en"),
          ("carol", "Carol", "carol", None), ("dave", "Dave", None, "fr"),
          ("erin", "Erin", "erin", "de"))  # Erin is an admin of the first group
_OLDER = re.compile(r"^(v1:\d+:)([1-9]\d*)(?=:)")


class Fuzzer(_Checks):
    """Owns a service, its fake clock and a random source; ``step()`` is one input + checks."""

    def __init__(self, engine: Engine, seed: int, *, tag: str = "", strict: bool = True,
                 tolerate_known: bool = True, experte_budget: float = 0.005) -> None:
        self.engine, self.rng, self.tag = engine, random.Random(seed), tag
        self.strict, self.tolerate_known = strict, tolerate_known
        self.clock = FakeClock()
        self.service = Service(engine, Settings(cpu_delay=0, next_round_delay=1,
                                                group_timeout=30, experte_budget=experte_budget),
                               clock=self.clock)
        self.users = [UserRef(f"{tag}{u}", n, un, lang) for u, n, un, lang in PEOPLE]
        self.groups = [ChatRef(PLATFORM, f"{tag}g{i}", "group", f"Tisch {i}") for i in (1, 2)]
        self.owner = {f"{tag}p-{u.external_id}": u for u in self.users}
        self.chats = self.groups + [ChatRef(PLATFORM, c) for c in self.owner]
        self.counts: Counter[str] = Counter()
        self.problems: list[str] = []
        self.trail: deque[str] = deque(maxlen=40)  # the last inputs, for the reports
        self.views: dict[str, dict[str, list[str]]] = {c.external_id: {} for c in self.chats}
        self.stale: dict[str, deque[str]] = {c.external_id: deque(maxlen=100) for c in self.chats}
        self.snaps: dict[int, Snap] = {}
        self.open: set[int] = set()  # ids of the open tables (lobby or playing)
        self.pids: dict[str, int] = {}
        self.chat_ids: dict[int, str] = {}
        self.keys: list[str] = []  # update keys of committed inputs (a refusal rolls back)
        self.made = 0
        with engine.connect() as c:  # rows made before this fuzzer are none of its business
            self.first_table, self.last_move, self.last_outbox = (
                c.execute(select(func.max(m.c.id))).scalar() or 0 for m in (_TABLE, _MOVE, _OUTBOX))
        self.log = BufferingHandler(2**62)  # the warnings and errors the service logs (a failed
        self.log.setLevel(logging.WARNING)  # deadline says so only there)
        logging.getLogger("chatbot").addHandler(self.log)
        menus.random = SimpleNamespace(  # type: ignore[assignment]
            SystemRandom=lambda: random.Random(self.rng.random()))  # table seeds from ours

    def close(self) -> None:
        logging.getLogger("chatbot").removeHandler(self.log)
        menus.random = random

    def run(self, inputs: int) -> None:
        for _ in range(inputs):
            self.step()

    def check(self) -> None:
        """The checks over whatever changed since the last input (made by no one)."""
        self._check("check", None, None, None, None, nothing=False)

    # ------------------------------------------------------------------ inputs
    def step(self) -> None:
        """One random input (a tick may fire several deadlines), each checked."""
        kind = self.rng.choices(list(KINDS), list(KINDS.values()))[0]
        if kind in ("press", "stale", "foreign", "repeat"):
            return self._pressing(kind)
        getattr(self, "_" + kind)()

    def _who(self, chat: ChatRef) -> UserRef:
        """The owner of a private chat; anyone in a group."""
        user = self.owner.get(chat.external_id) or self.rng.choice(self.users)
        return replace(user, is_admin=user is self.users[4] and chat is self.groups[0])

    def _shown(self, chat: str) -> list[str]:
        return [d for row in self.views[chat].values() for d in row]

    def _command(self, key: str | None = None) -> None:
        r = self.rng
        chat, name = r.choice(self.chats), r.choices(list(COMMANDS), list(COMMANDS.values()))[0]
        if name == "language":
            args = r.choice(("de", "en", "EN", "fr", "", "e", "deutsch", *GARBAGE[:4]))
        elif name != "new" or r.random() < 0.1:
            args = r.choice(("", "", "schwimmen", *GARBAGE))
        else:
            game = r.choice((*GAMES, *GAMES, "", "SCHWIMMEN", "klimbing", "💩"))
            words = [game, r.choice(NUMBERS), r.choice(LEVELS)][:r.choice((1, 3, 3, 3))]
            for option, values in getattr(PRESENTERS.get(game), "OPTION_CHOICES", {}).items():
                if r.random() < 0.3:
                    words.append(f"{option}={r.choice([*values, 'x', ''])}".lower())
            if r.random() < 0.1:
                words.insert(r.randrange(len(words) + 1), r.choice(GARBAGE))
            args = " ".join(words)
        self._input("repeat" if key else "command", chat, self._who(chat), name=name, args=args,
                    key=key)

    def _pressing(self, kind: str) -> None:
        """A button a chat shows (``press``), showed before (``stale``), another chat shows or
        showed (``foreign``), or shows, pressed with an update key used before (``repeat``)."""
        r = self.rng
        key = r.choice(self.keys) if kind == "repeat" and self.keys else None
        if kind == "repeat" and key and r.random() < 0.5:
            return self._command(key)

        def pool(chat: str) -> list[str]:
            if kind == "stale":  # replaced ones, and shown ones with an older version
                return [*self.stale[chat], *(_OLDER.sub(lambda m: f"{m[1]}{int(m[2]) - 1}", d)
                                             for d in self._shown(chat))]
            return self._shown(chat) + (list(self.stale[chat]) if kind == "foreign" else [])
        sources = [c.external_id for c in self.chats if pool(c.external_id)]
        if not sources:
            return self._command()
        source = r.choice(sources)
        chat = r.choice([c for c in self.chats if (c.external_id != source) == (kind == "foreign")])
        self._input(kind, chat, self._who(chat), data=r.choice(pool(source)), key=key)

    def _turn(self) -> None:
        """Move a game on: the person on turn presses a move (from their view, or its code),
        a lobby fills and starts, a CPU's deadline comes, the next round is dealt."""
        live = [self.snaps[i] for i in sorted(self.open)]
        if not live:
            return self._command()
        t, r = self.rng.choice(live), self.rng
        chat = next(c for c in self.chats if c.external_id == t.chat)
        users = {self.pids.get(u.external_id): u for u in self.users}
        if t.fsm_state == fsm.LOBBY:
            idle = [u for pid, u in users.items() if pid not in
                    {s.player_id for s in t.seats.values()}]
            start = len(t.seats) >= GAMES[t.game].MIN_SEATS and r.random() < 0.6
            user = users.get(t.opener_id) if start or not idle else r.choice(idle)
            code = "start" if start else "join" if idle else r.choice(("fill", "start", "clock"))
            return self._input("turn", chat, user or self._who(chat),
                               data=f"v1:{t.id}:{t.version}:{code}")
        game = GAMES[t.game]
        seat = t.seats.get(game.to_act(t.state)) if t.state is not None else None
        if seat is None or seat.is_cpu or seat.away or seat.player_id not in users:
            if t.next_deadline is not None:
                self.clock.set(t.next_deadline)
                return self._fire(t.id, t.version)
            person = next((s for s in t.seats.values() if s.player_id in users), None)
            return self._input("turn", chat, users[person.player_id] if person else
                               self._who(chat), data=f"v1:{t.id}:{t.version}:next")
        user = users[seat.player_id]
        where = chat if t.is_private else ChatRef(PLATFORM, f"{self.tag}p-{user.external_id}")
        view = self.views[where.external_id].get(f"{'t' if t.is_private else 'h'}{t.id}", [])
        moves = [d for d in view if d.split(":")[-1] not in ("cards", "back", "again")]
        if moves and r.random() < 0.85:
            return self._input("turn", where, user, data=r.choice(moves))
        code = r.choice(game.legal_actions(t.state)).code
        self._input("turn", r.choice((chat, where)), user, data=f"v1:{t.id}:{t.version}:{code}")

    def _forged(self) -> None:
        r = self.rng
        t = r.choice(list(self.snaps.values())) if self.snaps else None
        tid, ver = (t.id, t.version) if t else (r.randint(0, 9), 0)
        valid = [d for c in self.views for d in self._shown(c)] or ["v1:0:0:g.scat"]
        made: list[Callable[[], str | None]] = [
            lambda: r.choice(("", "v1", "v1:", "v1::::", "v2:1:0:knock", "garbage", "v1:0:0:",
                              "\x00" * 3, "v1:1:0:knock\n", "ｖ1:1:0:knock")),
            lambda: f"v1:{r.choice(NUMS)}:{ver}:knock",
            lambda: f"v1:{tid}:{r.choice(NUMS)}:next",
            lambda: f"v1:{tid}:{ver}:{r.choice(CODES)}",
            lambda: f"v1:{tid}:{ver}:kick.{r.choice((*NUMS, str(r.randint(-3, 99))))}",
            lambda: f"v1:{tid}:{ver}:{''.join(r.choice('.:aZ09_~é') for _ in range(9))}",
            lambda: (d := r.choice(valid))[:r.randrange(len(d))],  # truncated
            lambda: r.choice(valid) + r.choice(("x", ".1", "0", " ", ":1")),
            lambda: f"v1:0:0:g.{r.choice((*GAMES, ''))}.{r.choice(NUMBERS)}.{r.choice(LEVELS)}",
            lambda: f"v1:0:0:lang.{r.choice(('xx', 'de', 'en', ''))}",
            lambda: f"v1:{tid}:{ver}:{r.choice(GAMES[t.game].legal_actions(t.state)).code}"
            if t and t.state is not None and t.fsm_state in fsm.PLAYING else None,  # anyone
            lambda: None,
        ]
        chat = r.choice(self.chats)
        self._input("forged", chat, self._who(chat), data=r.choice(made)())

    def _tick(self) -> None:
        """Time passes (0 s to an hour), then every due deadline of ours is fired."""
        self.clock.advance(self.rng.choice((0, 0.5, 1, 2, 10, 15, 16, 29, 31, 60, 120, 3600)))
        for table_id, version in self.service.due(limit=30):
            if table_id > self.first_table:
                self._fire(table_id, version)

    def _deadline(self) -> None:
        """The clock jumps to the soonest deadline of ours, which is fired."""
        for table_id, version, when in self.service.next_deadlines(limit=50):
            if table_id > self.first_table:
                self.clock.set(when)
                return self._fire(table_id, version)
        self._tick()

    def _bad_fire(self) -> None:
        """A stale, future or early claim of a deadline: must do nothing."""
        if not self.snaps:
            return self._tick()
        t = self.rng.choice(list(self.snaps.values()))
        early = t.next_deadline is not None and t.next_deadline > self.clock()
        version = t.version if early and self.rng.random() < 0.5 else \
            t.version + self.rng.choice((-2, -1, 1))
        self._fire(t.id, version, bad=True)

    def _input(self, kind: str, chat: ChatRef, user: UserRef, *, name: str | None = None,
               args: str = "", data: str | None = None, key: str | None = None) -> None:
        repeated = key is not None
        if not repeated:
            self.made += 1
            key = None if self.rng.random() < 0.05 else f"{self.tag}k{self.made}"
        what = repr(data) if name is None else f"/{name!r} {args!r}"[:100]
        self.trail.append(f"{kind} {chat.external_id} {user.external_id} {what} key={key} "
                          f"t={self.clock():%H:%M:%S}")
        self.counts["input " + kind] += 1
        out: Outcome | None = None
        try:
            out = self.service.command(chat, user, name, args, update_key=key) if name is not None \
                else self.service.press(chat, user, data, update_key=key)
        except Exception as exc:
            self._exception(exc)
        if out is not None and not out.ok:
            self.counts["refused " + kind] += 1
        elif out is not None and key and not repeated:
            self.keys.append(key)
        self._check(kind, chat, user, data, out, nothing=repeated or out is None or not out.ok)

    def _fire(self, table_id: int, version: int, bad: bool = False) -> None:
        before = self.snaps.get(table_id)
        kind = before.deadline_kind if before else None
        self.trail.append(f"fire {table_id} v{version} ({kind}) t={self.clock():%H:%M:%S}")
        self.counts["input bad_fire" if bad else "input fire"] += 1
        fired: bool | None = False
        try:
            fired = self.service.fire_due(table_id, version)
        except Exception as exc:
            self._exception(exc)
        if fired:
            self.counts[f"fired {kind}"] += 1
            if bad:
                self._problem("stale deadline", f"a stale/early claim fired table {table_id}")
        self._check("fire", None, None, None, None, nothing=not fired, fire_kind=kind)
