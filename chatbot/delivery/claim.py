"""Claimed outbox delivery: several processes share one outbox, each row goes out once.

A process delivers a chat's rows only while it holds the chat's lease (a row of
``outbox_lease``, see ``leases``): a pass takes the free leases of chats with due rows (``FOR
UPDATE SKIP LOCKED``: two processes never wait for each other, nor take the same chat),
delivers, and records each chat's outcomes as soon as the chat is served, giving its lease back
in the same small transaction (``record``): a process killed mid-pass repeats only the calls
it had under way. So a chat's messages go out in order, one process at a time, and one chat's
backlog never holds another's back. Leases are timed by the database's clock, never by a
process's own; giving a chat back is the fence (only the holder's outcomes are recorded). A
process that dies in a pass holds its chats until the lease expires (``LEASE_SECONDS``), or
until a process on the same host sees that it runs no more (a restart frees them at once); no
pass starts a send later than ``SEND_WINDOW`` seconds (on its monotonic clock) after it took
its leases, so a slow process never overlaps the next holder.

The platform's limits (``SendLimits``, given by its adapter: Telegram's are in
``chatbot.telegram.limits``) are kept in the database too, so they hold for all processes
together: each lease row carries its chat's sends of the last minute, and ``send_window`` the
bot's sends of the last second. A pass counts a send when it claims it; a 429's
``retry_after`` postpones the chat's row in the database (every process sees it). These
windows are in the processes' own time (the store's clock): a process whose clock is off may
send too early or too late for the limits (Telegram answers a 429, the row waits), but which
process sends a row is decided by the lease alone, so no row goes twice for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import bindparam, update
from sqlalchemy import select as core_select

from .items import THREAD, CannotPin, Item, Retry
from .leases import (
    FREE_HOLDER,
    GIVE_BACK,
    HELD,
    TAKE,
    WINDOW,
    dead_on_this_host,
    holder_id,
    insert,
)
from .plain import OutboxStore
from .rows import (
    DROP_ROWS,
    MAX_ATTEMPTS,
    OUTBOX,
    PENDING_OF_CHATS,
    PER_CHAT,
    backoff,
    due,
    slot_effects,
    slot_row,
    slot_upsert,
    superseded,
    to_item,
)

Delivered = tuple[Item, str | None, Exception | None]  # an item sent: its message id, or its error


class SendLimits(Protocol):
    """A platform's sending limits, given by its adapter."""

    global_per_second: int  # the bot's sends in any second, all chats together

    def chat_wait(self, chat: str, sends: list[float], now: float) -> float:
        """Seconds until the next message to ``chat`` may go, given its sends (epoch
        seconds) of the last minute."""
        ...


LEASE_SECONDS = 30.0  # a dead process's chats are free again after this
SEND_WINDOW = 5.0  # no send starts later than this into a lease (requests time out at 5 s)
CHATS_PER_PASS = 100


@dataclass
class Claim:
    """What one pass may deliver."""

    items: list[Item]  # may go now, in order within each chat
    chats: list[str]  # leased for this pass (``finish`` gives them back)
    wait: float = 1.0  # seconds until more may go (limits, rows not due yet)
    until: float = field(default_factory=lambda: time.monotonic() + SEND_WINDOW)
    sends: int = 0  # items that need a platform call
    recent: dict[str, list[float]] = field(default_factory=dict)  # chats' sends before it
    claimed: dict[str, list[float]] = field(default_factory=dict)  # ... with its own counted
    tag: str = ""  # marks this pass's places in the bot-wide window until it finishes
    recorded: set[str] = field(default_factory=set)  # chats given back (``record``)


_MARK = update(OUTBOX).where(OUTBOX.c.id.in_(bindparam("b_ids", expanding=True)),
                              OUTBOX.c.claimed_by.is_(None)).values(
    claimed_by=bindparam("b_holder"))
_SENT = update(OUTBOX).where(OUTBOX.c.id == bindparam("b_row_id"),
                              OUTBOX.c.status == "pending").values(
    status="sent", sent_at=bindparam("b_sent_at"), message_id=bindparam("b_message_id"))
_ATTEMPTS = core_select(OUTBOX.c.id, OUTBOX.c.attempts).where(
    OUTBOX.c.id.in_(bindparam("b_ids", expanding=True)))
_FAILED = update(OUTBOX).where(OUTBOX.c.id == bindparam("b_row_id")).values(
    attempts=bindparam("b_attempts"), error=bindparam("b_error"), status=bindparam("b_status"),
    not_before=bindparam("b_not_before"))
_READ_WINDOW = core_select(WINDOW.c.sends).where(
    WINDOW.c.platform == bindparam("b_platform")).with_for_update()
_WRITE_WINDOW = update(WINDOW).where(WINDOW.c.platform == bindparam("b_platform")).values(
    sends=bindparam("b_sends"))


class ClaimingOutbox:
    """An ``OutboxStore`` used by several processes at once (see the module docstring)."""

    def __init__(self, store: OutboxStore, limits: SendLimits,
                 holder: str | None = None) -> None:
        self.store, self.limits = store, limits
        self.holder = holder or holder_id()
        self.engine, self.platform = store.engine, store.platform
        self._window_ready = False
        self._passes = 0
        self._orphans_freed = False

    def free_orphans(self) -> list[str]:
        """Give back the leases of this host's processes that run no more, so that a restarted
        process takes their chats at once instead of after ``LEASE_SECONDS`` (a process on
        another host that died still holds its chats until its leases expire). Returns the
        holders whose leases were freed."""
        with self.store.write_lock, self.engine.begin() as conn:
            held = [r.holder for r in conn.execute(
                HELD, {"b_platform": self.platform, "b_holder": self.holder})
                if dead_on_this_host(r.holder, self.holder)]
            if held:
                conn.execute(FREE_HOLDER, {"b_platform": self.platform, "b_holders": held})
        self._orphans_freed = True
        return held

    def claim(self, limit: int = 200) -> Claim:
        """Lease the chats that have due rows and are free, and pick what may go now."""
        if not self._orphans_freed:
            self.free_orphans()
        now_dt = self.store.clock()
        now = now_dt.timestamp()
        started = time.monotonic()
        with self.store.write_lock, self.engine.begin() as conn:
            dialect = conn.dialect.name
            if not self._window_ready:
                conn.execute(insert(dialect, "window"), {"b_platform": self.platform})
                self._window_ready = True
            conn.execute(insert(dialect, "leases"), {"b_platform": self.platform,
                                                     "b_now": now_dt})
            leased = conn.execute(TAKE, {"b_platform": self.platform, "b_holder": self.holder,
                                         "b_now": now_dt, "b_chats": CHATS_PER_PASS,
                                         "b_lease": LEASE_SECONDS}).all()
            if not leased:
                return Claim([], [], wait=1.0, until=started + SEND_WINDOW)
            recent = {r.chat_external_id: [s for s in (r.sends or []) if s > now - 60]
                      for r in leased}
            before = {chat: list(sends) for chat, sends in recent.items()}
            items, waits = self._pick(conn, recent, now_dt, now, limit)
            wanted = [i for i in items if i.plan != "keep"]
            self._passes += 1
            tag = f"{self.holder}#{self._passes}"
            granted = self._take_window(conn, len(wanted), now, tag) if wanted else 0
            if granted < len(wanted):  # the bot-wide limit: the rest waits (chat order kept)
                waits.append(1.0)
                cut = {i.id for i in wanted[granted:]}
                stopped: set[str] = set()
                kept = []
                for item in items:
                    if item.chat in stopped or item.id in cut:
                        stopped.add(item.chat)
                        continue
                    kept.append(item)
                items = kept
            for item in items:  # (in the lease rows when the pass finishes)
                if item.plan != "keep":
                    recent[item.chat].append(now)
            sending = [i.id for i in items if i.plan != "keep"]
            if sending:
                conn.execute(_MARK, {"b_ids": sending, "b_holder": self.holder})
        return Claim(items, list(recent), wait=min([1.0, *waits]),
                     until=started + SEND_WINDOW, sends=len(sending), recent=before, claimed=recent,
                     tag=tag)

    def _pick(self, conn: Any, recent: dict[str, list[float]], now_dt: datetime, now: float,
              limit: int) -> tuple[list[Item], list[float]]:
        """The rows of the leased chats that may go now (limits kept, superseded views of a
        slot dropped); and how long the others wait."""
        rows, waits = due(conn.execute(PENDING_OF_CHATS, {
            "platform": self.platform, "per_chat": PER_CHAT, "chats": list(recent)}), now_dt)
        rows_by_chat: dict[str, list[Any]] = {chat: [] for chat in recent}
        for r in rows:
            rows_by_chat[r.chat_external_id].append(r)
        old = superseded(rows)
        items: list[Item] = []
        dropped: list[int] = []
        for chat, chat_rows in rows_by_chat.items():
            sends = list(recent[chat])
            for r in chat_rows:
                if r.id in old:
                    dropped.append(r.id)
                    continue
                if len(items) >= limit:
                    break
                item = to_item(r)
                if item.plan != "keep":
                    wait = self.limits.chat_wait(chat, sends, now)
                    if wait > 0:
                        waits.append(wait)
                        break
                    sends.append(now)
                items.append(item)
        if dropped:
            conn.execute(DROP_ROWS, {"ids": dropped})
        return items, waits

    def _take_window(self, conn: Any, wanted: int, now: float, tag: str) -> int:
        """Take up to ``wanted`` places in the bot-wide window (row-locked: processes take
        turns); how many were granted. A place is held until its pass finishes (then the
        send's real time replaces it) or, if the process died, until its lease expires: so a
        pass whose calls go out late never overlaps the next second's sends."""
        window = self._window(conn, now)
        granted = max(0, min(wanted, self.limits.global_per_second - len(window)))
        if granted:
            held = [now + LEASE_SECONDS, tag]
            conn.execute(_WRITE_WINDOW, {"b_platform": self.platform,
                                         "b_sends": window + [held] * granted})
        return granted

    def _window(self, conn: Any, now: float) -> list[list[Any]]:
        """The bot-wide window: [time, tag] of sends in the last second and of places held."""
        sends = conn.execute(_READ_WINDOW, {"b_platform": self.platform}).scalar() or []
        return [s for s in sends if isinstance(s, list) and s[0] > now - 1.0]

    def _record_calls(self, conn: Any, claim: Claim, calls: dict[str, list[float]],
                      now: float) -> None:
        """The pass's places in the bot-wide window become its calls' times."""
        done = [t for times in calls.values() for t in times]
        window = [s for s in self._window(conn, now) if s[1] != claim.tag]
        conn.execute(_WRITE_WINDOW, {"b_platform": self.platform,
                                     "b_sends": window + [[t, ""] for t in done]})

    @staticmethod
    def _failures(conn: Any, failed: list[tuple[Item, Exception]],
                  now_dt: datetime) -> list[dict[str, Any]]:
        """Failed rows: retried later with growing backoff (at least a 429's retry_after),
        given up when permanent or after ``MAX_ATTEMPTS``."""
        attempts = dict(conn.execute(_ATTEMPTS, {"b_ids": [i.id for i, _ in failed]}).all())
        out = []
        for item, error in failed:
            tries = attempts.get(item.id, 0) + 1
            retry = isinstance(error, Retry) and tries < MAX_ATTEMPTS
            after = backoff(tries, error.after) if isinstance(error, Retry) else 0.0
            out.append({"b_row_id": item.id, "b_attempts": tries, "b_error": str(error)[:500],
                        "b_status": "pending" if retry else
                        "dropped" if isinstance(error, CannotPin) else "failed",
                        "b_not_before": now_dt + timedelta(seconds=after)})
        return out

    def record(self, claim: Claim, outcomes: list[Delivered],
               calls: dict[str, list[float]] | None = None, chats: list[str] | None = None,
               window: bool = False) -> list[str]:
        """Record the outcomes of some of a pass's chats (``chats``: by default those of the
        outcomes) and give those chats back, in one transaction. Fenced: each chat is given
        back first, by this holder only (the lease row stays locked until the commit), and only
        the outcomes of the chats it gave back are recorded; a chat whose lease was lost (it
        expired and another process took it) is left as the new holder finds it. ``calls``:
        when (epoch seconds) each chat's platform calls went out (the chat's sends in the
        limits; without it the claim's times stay). ``window``: the pass's places in the
        bot-wide window become its calls' times (the pass's last record). Returns the chats
        given back."""
        if chats is None:
            chats = list(dict.fromkeys(item.chat for item, _, _ in outcomes))
        window = window and calls is not None and claim.sends > 0
        if not chats and not window:
            return []
        now_dt = self.store.clock()
        with self.store.write_lock, self.engine.begin() as conn:
            held = {chat for chat in chats if conn.execute(GIVE_BACK, {
                "b_platform": self.platform, "b_holder": self.holder, "b_chat": chat,
                "b_sends": claim.recent.get(chat, []) + calls.get(chat, [])
                if calls is not None else claim.claimed.get(chat, [])}).first()}
            self._outcomes(conn, [o for o in outcomes if o[0].chat in held], now_dt)
            # the bot-wide window last: lease rows before the window row, in the order a
            # claim locks them (two processes locking them the other way round deadlock)
            if window and calls is not None:
                self._record_calls(conn, claim, calls, now_dt.timestamp())
        claim.recorded.update(chats)
        return sorted(held)

    def _outcomes(self, conn: Any, outcomes: list[Delivered], now_dt: datetime) -> None:
        """Sent rows with their message id, the slots' messages, retries with their backoff."""
        sent, slots, failed = [], [], []
        acted = []
        for item, message_id, error in outcomes:
            if item.action and not isinstance(error, Retry):
                acted.append((item, error))
            if error is None:
                sent.append({"b_row_id": item.id, "b_sent_at": now_dt,
                             "b_message_id": message_id})
                if item.slot and message_id is not None and item.action in (None, THREAD):
                    slots.append(slot_row(self.platform, item, message_id, now_dt))
            else:
                failed.append((item, error))
        if sent:
            conn.execute(_SENT, sent)
        if slots:
            conn.execute(slot_upsert(conn.dialect.name), slots)
        for item, error in acted:  # (after the slots: a view of the pass came first)
            slot_effects(conn, self.platform, item, error)
        if failed:
            conn.execute(_FAILED, self._failures(conn, failed, now_dt))

    def finish(self, claim: Claim, outcomes: list[Delivered],
               calls: dict[str, list[float]] | None = None) -> list[str]:
        """End a pass: record the outcomes of the chats not recorded yet and give them (and the
        chats it leased but had nothing to send for) back, with the bot-wide window, in one
        transaction (``record``). Returns the chats given back."""
        chats = [chat for chat in claim.chats if chat not in claim.recorded]
        return self.record(claim, [o for o in outcomes if o[0].chat in chats], calls, chats,
                           window=True)
