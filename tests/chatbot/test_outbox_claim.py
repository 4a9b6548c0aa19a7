"""Claimed outbox delivery (issue 16, items 1 and 2): each row goes out once however many
processes share the database, a chat's rows in order, and Telegram's limits hold for all the
processes together. Each ``ClaimingOutbox`` here stands for one process (its own holder id and
its own engine, so its own connections)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections import defaultdict
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select as core_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.delivery import LEASE_SECONDS, Claim, ClaimingOutbox, OutboxStore, Retry, plan
from chatbot.delivery.leases import db_time
from chatbot.telegram.limits import Limits
from storage.db import aware, make_engine, transaction
from storage.models import Outbox, OutboxLease
from tests.conftest import FakeClock, engine_url

FREE = Limits(per_chat_interval=0.0, group_per_minute=10**6, global_per_second=10**6)


def db_now(engine: Engine) -> datetime:
    """The database's time now."""
    with engine.connect() as conn:
        value = conn.execute(core_select(db_time())).scalar_one()
    return aware(value)


def put(engine: Engine, clock: FakeClock, chat: str, texts: list[str],
        slot: str | None = None) -> list[int]:
    with transaction(engine) as session:
        rows = [Outbox(platform="telegram", chat_external_id=chat, slot=slot, text=t,
                       buttons=[], not_before=clock(), created_at=clock()) for t in texts]
        session.add_all(rows)
        session.flush()
        return [r.id for r in rows]  # type: ignore[misc]


def process(engine: Engine, clock: FakeClock, limits: Limits = FREE,
            name: str | None = None) -> ClaimingOutbox:
    return ClaimingOutbox(OutboxStore(engine, "telegram", clock=clock), limits, holder=name)


def sent_all(claimer: ClaimingOutbox, claim: Claim) -> None:
    """Every item delivered now (the calls' times replace the places the claim held)."""
    now = claimer.store.clock().timestamp()
    calls: dict[str, list[float]] = {}
    for item in claim.items:
        if plan(item) != "keep":
            calls.setdefault(item.chat, []).append(now)
    claimer.finish(claim, [(item, f"m{item.id}", None) for item in claim.items], calls)


def leases_age(engine: Engine, seconds: float) -> None:
    """The database's clock moves on by ``seconds`` as the leases see it (their expiries are
    its times, not a process's: moved back instead)."""
    with transaction(engine) as session:
        for lease in session.exec(select(OutboxLease)).all():
            lease.expires_at = lease.expires_at - timedelta(seconds=seconds)
            session.add(lease)


def status(engine: Engine) -> dict[int, tuple[str, str | None, str | None]]:
    with Session(engine) as session:
        return {r.id: (r.status, r.claimed_by, r.message_id)
                for r in session.exec(select(Outbox)).all()}


def test_a_leased_chat_is_skipped_by_other_processes_until_given_back(db_engine, clock):
    a, b = process(db_engine, clock, name="a"), process(db_engine, clock, name="b")
    put(db_engine, clock, "1", ["one", "two"])
    put(db_engine, clock, "2", ["three"])
    first = a.claim()
    assert sorted(first.chats) == ["1", "2"] and len(first.items) == 3
    assert b.claim().items == []  # a holds both chats
    sent_all(a, first)
    assert b.claim().items == []  # nothing left to send
    put(db_engine, clock, "1", ["four"])
    again = b.claim()  # the chats were given back: b may take them now
    assert [i.text for i in again.items] == ["four"]
    assert {v[1] for v in status(db_engine).values()} == {"a", "b"}


def test_a_dead_process_loses_its_lease_after_the_expiry(db_engine, clock):
    dead, alive = process(db_engine, clock, name="dead"), process(db_engine, clock, name="alive")
    (row,) = put(db_engine, clock, "7", ["hello once"])
    assert [i.id for i in dead.claim().items] == [row]  # ... and the process dies here
    leases_age(db_engine, LEASE_SECONDS - 1)
    assert alive.claim().items == []
    leases_age(db_engine, 2)
    taken = alive.claim()
    assert [i.id for i in taken.items] == [row]
    sent_all(alive, taken)
    # the row remembers who tried it first (the dead process) and the message it made
    assert status(db_engine)[row] == ("sent", "dead", f"m{row}")


def test_rate_limits_hold_across_processes_and_restarts(db_engine, clock):
    """Issue 15 item 11 and issue 16 item 2: a group's sends of the last minute are in its
    lease row; another process (or a restarted one) keeps to 20 a minute and 1 a second."""
    limits = Limits(per_chat_interval=1.0, group_per_minute=20, global_per_second=30)
    a, b = process(db_engine, clock, limits, "a"), process(db_engine, clock, limits, "b")
    put(db_engine, clock, "-100", [f"m{i}" for i in range(25)])
    sent = 0
    for step in range(40):
        claimer = a if step % 2 else b
        claim = claimer.claim()
        assert len(claim.items) <= 1  # one a second per chat
        sent += len(claim.items)
        sent_all(claimer, claim)
        clock.advance(1.0)
    assert sent == 20  # the 21st waits for the first to be a minute old
    clock.advance(60 - 40 + 0.5)
    assert len(process(db_engine, clock, limits, "new").claim().items) == 1


def test_the_bot_wide_limit_is_shared(db_engine, clock):
    limits = Limits(per_chat_interval=1.0, group_per_minute=20, global_per_second=30)
    for chat in range(50):
        put(db_engine, clock, str(chat), ["hi"])
    a, b = process(db_engine, clock, limits, "a"), process(db_engine, clock, limits, "b")
    first = a.claim()
    second = b.claim()  # the other chats, but the second's window is used up
    assert len(first.items) == 30 and len(second.items) == 0
    sent_all(a, first)
    sent_all(b, second)
    clock.advance(1.01)
    assert len(b.claim().items) == 20


def test_a_429_holds_the_chat_for_every_process(db_engine, clock):
    a, b = process(db_engine, clock, name="a"), process(db_engine, clock, name="b")
    put(db_engine, clock, "5", ["first", "second"])
    claim = a.claim()
    a.finish(claim, [(claim.items[0], None, Retry(7.0, "rate limited for 7s"))])
    clock.advance(5)
    assert b.claim().items == []  # the chat's first row is not due: its second waits too
    clock.advance(3)
    assert [i.text for i in b.claim().items] == ["first", "second"]


def test_superseded_views_of_a_slot_are_dropped_not_sent(db_engine, clock):
    a = process(db_engine, clock)
    put(db_engine, clock, "9", ["v1", "v2", "v3"], slot="t1")
    claim = a.claim()
    assert [i.text for i in claim.items] == ["v3"]
    assert sorted(s for s, _, _ in status(db_engine).values()) == ["dropped", "dropped",
                                                                     "pending"]


@pytest.mark.postgres
def test_three_processes_deliver_every_row_exactly_once_and_in_order(pg_engine, clock):
    """151 rows in 30 chats; three processes (three engines) claim and record concurrently
    until nothing is left: every row is claimed by exactly one of them, once, and each chat's
    rows are taken in order."""
    ids: dict[str, list[int]] = {}
    for chat in range(30):
        ids[str(chat)] = put(pg_engine, clock, str(chat), [f"c{chat} r{i}" for i in range(5)])
    ids["0"] += put(pg_engine, clock, "0", ["hello once"])
    engines = [make_engine(engine_url(pg_engine)) for _ in range(3)]
    taken: dict[int, list[str]] = defaultdict(list)
    order: dict[str, list[int]] = defaultdict(list)
    guard = threading.Lock()
    errors: list[BaseException] = []

    def run(name: str, engine: Engine) -> None:
        claimer = process(engine, clock, name=name)
        idle = 0
        try:
            while idle < 20:
                claim = claimer.claim(limit=7)
                with guard:
                    for item in claim.items:
                        taken[item.id].append(name)
                        order[item.chat].append(item.id)
                sent_all(claimer, claim)
                idle = idle + 1 if not claim.items else 0
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f"p{i}", e)) for i, e in enumerate(engines)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for engine in engines:
        engine.dispose()
    assert not errors
    every = [i for chat_ids in ids.values() for i in chat_ids]
    assert sorted(taken) == sorted(every)
    assert all(len(who) == 1 for who in taken.values()), "a row was claimed twice"
    assert all(order[chat] == chat_ids for chat, chat_ids in ids.items())
    assert {s for s, _, _ in status(pg_engine).values()} == {"sent"}
    with Session(pg_engine) as session:  # every lease given back
        assert {lease.holder for lease in session.exec(select(OutboxLease)).all()} == {""}


def test_a_pass_holds_its_places_in_the_window_until_it_finishes(db_engine, clock):
    """A pass whose calls go out late must not overlap the next second's sends: its places
    count until it finishes (or its lease expires, if the process died)."""
    limits = Limits(per_chat_interval=0.0, group_per_minute=10**6, global_per_second=10)
    for chat in range(20):
        put(db_engine, clock, str(chat), ["hi"])
    a, b = process(db_engine, clock, limits, "a"), process(db_engine, clock, limits, "b")
    slow = a.claim()
    assert len(slow.items) == 10
    clock.advance(2.0)  # a's calls are still under way
    assert b.claim().items == []
    sent_all(a, slow)  # done now: they count from now
    c = process(db_engine, clock, limits, "c")
    full = c.claim()
    assert full.items == [] and full.chats  # (it leased chats, none may send: given back)
    c.finish(full, [], {})
    clock.advance(1.01)
    assert len(b.claim().items) == 10


def test_a_lease_is_renewed_only_by_its_holder(db_engine, clock):
    """... until the database's now + ``LEASE_SECONDS`` (the process's clock plays no part:
    this one is years ahead)."""
    a = process(db_engine, clock, name="a")
    put(db_engine, clock, "3", ["x"])
    before = db_now(db_engine)
    a.claim()
    after = db_now(db_engine)
    with Session(db_engine) as session:
        lease = session.get(OutboxLease, ("telegram", "3"))
        assert lease is not None and lease.holder == "a"
        lease_time = timedelta(seconds=LEASE_SECONDS)
        assert before + lease_time <= aware(lease.expires_at) <= after + lease_time


def _dead_pid() -> int:
    """The pid of a process of this host that has ended (and been waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("before", ["a dead pid", "our own pid"])
def test_a_restarted_process_takes_the_chats_of_a_dead_process_on_its_host_at_once(
        db_engine, clock, before):
    host = socket.gethostname()[:40]
    # a killed process; or one that had our pid (a container's process 1 before a restart)
    pid = _dead_pid() if before == "a dead pid" else os.getpid()
    dead = process(db_engine, clock, name=f"{host}:{pid}:aaaaaa")
    (row,) = put(db_engine, clock, "7", ["hello once"])
    assert [i.id for i in dead.claim().items] == [row]  # ... and the process is killed here
    restarted = process(db_engine, clock)  # no time has passed: the lease has not expired
    taken = restarted.claim()
    assert [i.id for i in taken.items] == [row]
    sent_all(restarted, taken)
    assert status(db_engine)[row][0] == "sent"


def test_leases_of_living_or_remote_processes_are_not_taken_early(db_engine, clock):
    host = socket.gethostname()[:40]
    alive = process(db_engine, clock, name=f"{host}:{os.getppid()}:cccccc")  # (our parent)
    remote = process(db_engine, clock, name=f"elsewhere:{_dead_pid()}:dddddd")
    put(db_engine, clock, "1", ["one"])
    assert alive.claim().items
    put(db_engine, clock, "2", ["two"])
    assert remote.claim().items
    other = process(db_engine, clock)
    assert other.free_orphans() == [] and other.claim().items == []
    leases_age(db_engine, LEASE_SECONDS + 1)
    assert sorted(other.claim().chats) == ["1", "2"]
