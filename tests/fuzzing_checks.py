"""The checks of the service fuzzer (``tests/fuzzing.py``) after every input: the tables'
invariants per game, the snapshot of a table an input is compared with, and the checks of
new moves, views and leaks of hidden cards (a mix-in of ``Fuzzer``).
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.engine import Row

import fsm
from chatbot.service import ChatRef, Outcome, UserRef
from engine import GAMES, climbing, runfast, scat, schwimmen
from engine.cards import BY_CODE
from storage.models import Chat, GameTable, Move, Outbox, Player, Seat
from tests.conftest import card_symbols, joker_codes
from tests.engine import test_climbing_properties as climbing_props
from tests.engine import test_runfast_properties as runfast_props
from tests.engine import test_scat_properties as scat_props
from tests.engine import test_schwimmen_properties as schwimmen_props

PLATFORM = "fuzz"
# Bugs found and not yet fixed, tolerated – counted as ``known <name>`` – unless told not to,
# so that a run goes on looking for others: an exception whose traceback matches. (The two
# the fuzzer found first, a "²" taken for a digit and a Scat group message naming the card
# taken from the discard pile, are fixed; tests/chatbot/test_fuzz.py keeps them so.)
KNOWN_BUGS: dict[str, re.Pattern[str]] = {}
_SLOT = re.compile(r"[th](\d+)")
_TABLE, _SEAT, _MOVE, _OUTBOX, _CHAT, _PLAYER = (
    m.__table__ for m in (GameTable, Seat, Move, Outbox, Chat, Player))  # type: ignore[attr-defined]


def shown_cards(text: str) -> set[str]:
    """Every card symbol a text shows, the climbing jokers (``BJ``, ``RJ``) included."""
    return card_symbols(text) | joker_codes(text)


def _schwimmen(s: Any, first: Any) -> None:
    dealt = [c for h in s.hands for c in h] + list(s.middle)
    assert len(dealt) == len(set(dealt)) and set(dealt) <= set(schwimmen.DECK), "32 cards"
    assert sum(s.coins) + s.pot == sum(first.coins) + first.pot, "coins + pot"
    schwimmen_props.check_state(s, sum(first.coins) + first.pot)


def _scat(s: Any, first: Any) -> None:
    every = [c for h in s.hands for c in h] + list(s.discard) + list(s.stock)
    assert len(every) == 52 and set(every) == set(scat.DECK), "52 cards"
    assert all(0 <= n <= scat.LIVES for n in s.lives), "lives"
    scat_props.check_state(s)


def _runfast(s: Any, first: Any) -> None:
    a, b, c = s.hands
    assert not (a & b or a & c or b & c or s.played & (a | b | c)), "hands, played disjoint"
    assert a | b | c | s.played == runfast.DECK_MASK and sum(s.scores) == 0, "48 cards, sum 0"
    runfast_props.check_state(s, None)


def _climbing(s: Any, first: Any) -> None:
    every = sorted([c for h in s.hands for c in h] + list(s.played))
    assert every == sorted(climbing.DECK), "54 cards"
    assert sum(s.scores) % 6 == 0, "3 + 2 + 1 + 0 points a round"
    climbing_props.check_state(s)


INVARIANTS: dict[str, Callable[[Any, Any], None]] = {
    "schwimmen": _schwimmen, "scat": _scat, "runfast": _runfast, "climbing": _climbing}


class Violation(AssertionError):
    """A check failed (strict mode)."""


@dataclass
class Snap:
    """A table as the last input left it: its row, engine state, seats and public log."""

    row: Row[Any]  # the game_table row: ``.version``, ``.fsm_state``, ``.deadline_kind`` …
    chat: str
    state: Any
    first: Any  # the state it was dealt with (the move log replays from here)
    seats: dict[int, Row[Any]]
    public: set[str]  # card symbols the public move log names

    def __getattr__(self, name: str) -> Any:
        return getattr(self.row, name)


class _Checks:
    """The checks of ``Fuzzer`` after every input."""

    # ------------------------------------------------------------------ checks
    def _problem(self, what: str, detail: str) -> None:
        self.counts["violation " + what] += 1
        report = f"{what}: {detail}\nlast inputs:\n  " + "\n  ".join(self.trail)
        if len(self.problems) < 20:
            self.problems.append(report)
        if self.strict:
            raise Violation(report)

    def _known(self, name: str) -> bool:
        """Count a known bug instead of failing (when told to tolerate them)."""
        self.counts["known " + name] += self.tolerate_known
        return self.tolerate_known

    def _exception(self, exc: BaseException | None, text: str = "") -> None:
        text = text or "".join(traceback.format_exception(exc))
        known = next((n for n, p in KNOWN_BUGS.items() if p.search(text)), None)
        if not (known and self._known(known)):
            self.counts["exceptions"] += 1
            self._problem("exception", text)

    def _check(self, kind: str, chat: ChatRef | None, user: UserRef | None, data: str | None,
               out: Outcome | None, nothing: bool, fire_kind: str | None = None) -> None:
        records, self.log.buffer = self.log.buffer, []
        for rec in records:
            self._exception(None, f"logged {rec.levelname}: {rec.getMessage()}\n" + "".join(
                traceback.format_exception(*rec.exc_info) if rec.exc_info else ""))
        with self.engine.connect() as c:  # Core rows: the checks' own cost stays small
            moves = c.execute(select(_MOVE).where(_MOVE.c.id > self.last_move)
                              .order_by(_MOVE.c.id)).all()
            rows = c.execute(select(_OUTBOX).where(_OUTBOX.c.id > self.last_outbox)
                             .order_by(_OUTBOX.c.id)).all()
            moved = {m.table_id for m in moves}
            watch = [*self.open, *moved]
            tables = []
            for t in c.execute(select(_TABLE).where(or_(
                    _TABLE.c.id > max([self.first_table, *self.snaps]), _TABLE.c.id.in_(watch)))):
                if t.id not in self.snaps or self.snaps[t.id].version != t.version or t.id in moved:
                    tables.append(t)
                else:  # a reminder moves the deadline on without a new version
                    self.snaps[t.id].row = t
            seats = c.execute(select(_SEAT).where(_SEAT.c.table_id.in_([t.id for t in tables]))
                              ).all() if tables else []
            unknown = [t.chat_id for t in tables if t.chat_id not in self.chat_ids]
            for row in c.execute(select(_CHAT).where(_CHAT.c.id.in_(unknown))) if unknown else ():
                self.chat_ids[row.id] = row.external_id
            if len(self.pids) < len(self.users):
                self.pids = {p.external_id: p.id for p in c.execute(select(_PLAYER).where(
                    _PLAYER.c.platform == PLATFORM,
                    _PLAYER.c.external_id.in_([u.external_id for u in self.users])))}
        self.last_move = max([self.last_move] + [m.id for m in moves])
        self.last_outbox = max([self.last_outbox] + [r.id for r in rows])
        if nothing and (moves or rows or tables):
            self._problem("refusal changed", f"{len(moves)} moves, {len(rows)} views, tables "
                          f"{[t.id for t in tables]} after a refused/repeated/unfired input")
        pid = self.pids.get(user.external_id) if user else None
        for t in tables:
            before = self.snaps.get(t.id)
            snap = self._snap(t, [x for x in seats if x.table_id == t.id], before)
            self._moves(kind, snap, before, [m for m in moves if m.table_id == t.id], pid,
                        f"deadline {fire_kind}" if kind == "fire" else (data or "").split(":")[-1])
            try:
                if snap.state is not None:
                    INVARIANTS[snap.game](snap.state, snap.first)
            except AssertionError as exc:
                self._problem("invariant", f"table {t.id} ({t.game}): {exc!r}")
            self.counts["finished"] += snap.fsm_state == fsm.FINISHED and (
                before is None or before.fsm_state != fsm.FINISHED)
        changed = [t.id for t in tables]
        for row in rows:
            self._view(row, changed)
        if out is not None and out.text and chat is not None:  # a press's alert: to the presser
            m = re.fullmatch(r"v1:(\d+):.*", data or "", re.S)
            ids = [int(m[1])] if m else [i for i in changed if self.snaps[i].chat == chat.external_id]
            self._leak(out.text, ids, pid if data is not None or chat.kind == "private" else None,
                       f"answer to {user.external_id if user else '?'}")

    def _snap(self, t: Row[Any], seats: list[Row[Any]], before: Snap | None) -> Snap:
        game = GAMES[t.game]
        state = game.from_json(t.state_json) if t.state_json else None
        first = before.first if before and before.first is not None else \
            game.new_game(len(seats), t.options.get("engine") or {}, t.seed) if state else None
        events = [(e.get("kind"), v) for e in t.log or [] for v in (e.get("data") or {}).values()]
        codes = [w for _k, v in events for w in (v if isinstance(v, list) else [v])
                 if isinstance(w, str) and w in BY_CODE]
        (self.open.add if t.fsm_state in fsm.OPEN else self.open.discard)(t.id)
        self.snaps[t.id] = Snap(t, self.chat_ids.get(t.chat_id, "?"), state, first,
                                {x.seat_no: x for x in seats}, {BY_CODE[w].symbol for w in codes})
        return self.snaps[t.id]

    def _moves(self, kind: str, t: Snap, before: Snap | None, moves: list[Row[Any]],
               pid: int | None, cause: str) -> None:
        """Each new move: for the seat on turn, by the right actor; the log replays."""
        game = GAMES[t.game]
        state = before.state if before and before.state is not None else t.first
        started, seq = before is None or before.state is None, before.version if before else 0
        for i, m in enumerate(moves):
            seat, was = t.seats.get(m.seat_no), before.seats.get(m.seat_no) if before else None
            on_turn = game.to_act(state) if state is not None else None
            self.counts["move " + m.actor] += 1
            # (skipping to the result plays the CPUs' rest, the deals between rounds too)
            ok = {"system": m.code == "deal" and (i == 0 and cause in ("next", "deadline next")
                                                  or cause in ("skip", "skip.again")),
                  "player": kind not in ("fire", "command") and i == 0 and was is not None
                  and not was.is_cpu and was.player_id == pid is not None,
                  "timeout": i == 0 and cause == "deadline timeout"
                  and seat is not None and not seat.is_cpu,
                  "cpu": seat is not None and seat.is_cpu
                  and (i or started or cause in ("deadline cpu", "skip", "skip.again")),
                  "away": seat is not None and seat.away and not seat.is_cpu
                  and (i or cause == "deadline cpu")}.get(m.actor, False)
            if (m.actor != "system" and m.seat_no != on_turn) or not seq < m.seq <= t.version \
                    or (before is not None and before.fsm_state in fsm.CLOSED) or state is None:
                ok = False
            if not ok:
                return self._problem("move", f"table {t.id} ({t.game}) move {m.seq} {m.actor} "
                                     f"seat {m.seat_no} {m.code!r}: on turn {on_turn}, input "
                                     f"{kind} ({cause}) by player {pid}")
            seq = m.seq
            try:
                state, _ = game.apply(state, m.code)
            except Exception as exc:
                return self._problem("replay", f"table {t.id} move {m.seq} {m.code}: {exc!r}")
        if t.state is not None and state != t.state:
            self._problem("replay", f"table {t.id} ({t.game}): the move log does not give the "
                          f"stored state (v{t.version})")

    def _view(self, row: Row[Any], changed: list[int]) -> None:
        """Check an outbox row for hidden cards; it becomes the chat's newest buttons."""
        chat, m = row.chat_external_id, _SLOT.fullmatch(row.slot or "")
        pid = self.pids.get(self.owner[chat].external_id) if chat in self.owner else None
        ids = [int(m[1])] if m else [row.table_id] if row.table_id else \
            [i for i in changed if self.snaps[i].chat == chat or pid in
             {s.player_id for s in self.snaps[i].seats.values()}]
        labels = [b[0] for r in row.buttons or [] for b in r]
        self._leak("\n".join([row.text, *labels]), ids, pid, f"view to {chat}")
        if (views := self.views.get(chat)) is None:
            return
        self.stale[chat].extend(views.pop(row.slot or f"#{row.id}", []))
        if data := [b[1] for r in row.buttons or [] for b in r]:
            views[row.slot or f"#{row.id}"] = data
        while len(views) > 8:
            self.stale[chat].extend(views.pop(next(iter(views))))

    def _leak(self, text: str, ids: list[int], pid: int | None, where: str) -> None:
        """Cards in ``text`` hidden in a table's state beyond what its reader may see: the
        public view (a group), or the own seat's observation and the public log (a person).
        A leak only if no table the text may be about allows them."""
        seen, found = shown_cards(text), []
        for tid in ids if seen else []:
            if (t := self.snaps.get(tid)) is None or t.state is None:
                continue
            game = GAMES[t.game]
            seat = next((n for n, s in t.seats.items() if pid and s.player_id == pid
                         and not s.is_cpu), None)
            view = game.public_view(t.state) if seat is None else game.observation(t.state, seat)
            allowed = {c.symbol for c in view.visible_cards()} | (t.public if pid else set())
            leaked = seen & {c.symbol for c in game.hidden_cards(t.state)} - allowed
            if not leaked:
                return
            found.append(f"{sorted(leaked)} of table {tid} ({t.game}, {t.fsm_state}, seat {seat})")
        if found:
            self._problem("hidden card", f"{where} shows {'; '.join(found)}:\n{text[:600]}")
