"""Outbox leases on the database's clock, and the fence (issue 38, items 8 and 9).

Two ``ClaimingOutbox`` holders on one real PostgreSQL database, each with its own engine (its
own connections) and its own clock: one right, one off by 40 s or stepping 31 s. Whatever a
process's clock says, no chat another process holds is taken, so no row is sent twice; and a
holder that lost its lease records nothing over the new holder's outcomes."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.delivery import LEASE_SECONDS, Claim, ClaimingOutbox, OutboxStore, Retry, plan
from chatbot.telegram.limits import Limits
from storage.db import make_engine, transaction
from storage.models import Outbox, OutboxLease
from tests.conftest import FakeClock, engine_url

pytestmark = pytest.mark.postgres
FREE = Limits(per_chat_interval=0.0, group_per_minute=10**6, global_per_second=10**6)


@pytest.fixture
def engines(pg_engine: Engine) -> Iterator[tuple[Engine, Engine]]:
    """Two processes' engines on the test's database."""
    pair = (make_engine(engine_url(pg_engine)), make_engine(engine_url(pg_engine)))
    yield pair
    for engine in pair:
        engine.dispose()


def clock_at(offset: float) -> FakeClock:
    """A process's clock, ``offset`` seconds off the real time (the database's)."""
    return FakeClock(datetime.now(UTC) + timedelta(seconds=offset))


def put(engine: Engine, chats: int, per_chat: int = 1) -> list[int]:
    """Rows due for every process (written a minute before the slowest clock's now)."""
    due = datetime.now(UTC) - timedelta(minutes=2)
    with transaction(engine) as session:
        rows = [Outbox(platform="telegram", chat_external_id=str(chat), text=f"c{chat} r{i}",
                       buttons=[], not_before=due, created_at=due)
                for chat in range(chats) for i in range(per_chat)]
        session.add_all(rows)
        session.flush()
        return [r.id for r in rows]  # type: ignore[misc]


def process(engine: Engine, clock: FakeClock, name: str) -> ClaimingOutbox:
    return ClaimingOutbox(OutboxStore(engine, "telegram", clock=clock), FREE, holder=name)


def sent_all(claimer: ClaimingOutbox, claim: Claim, tag: str = "") -> list[str]:
    """Every item delivered (message id ``m<row><tag>``); the chats recorded."""
    now = claimer.store.clock().timestamp()
    calls: dict[str, list[float]] = {}
    for item in claim.items:
        if plan(item) != "keep":
            calls.setdefault(item.chat, []).append(now)
    return claimer.finish(claim, [(item, f"m{item.id}{tag}", None) for item in claim.items],
                          calls)


def leases_age(engine: Engine, seconds: float) -> None:
    """The database's clock moves on by ``seconds`` as the leases see it."""
    with transaction(engine) as session:
        for lease in session.exec(select(OutboxLease)).all():
            lease.expires_at = lease.expires_at - timedelta(seconds=seconds)
            session.add(lease)


def outbox(engine: Engine) -> dict[int, tuple[str, str | None]]:
    with Session(engine) as session:
        return {r.id: (r.status, r.message_id) for r in session.exec(select(Outbox)).all()}


@pytest.mark.parametrize("offset", [-40.0, 40.0])
def test_a_process_whose_clock_is_off_by_40_s_takes_no_chat_another_holds(
        engines: tuple[Engine, Engine], offset: float) -> None:
    """Before: a process 40 s behind wrote leases already expired for the others (its now +
    30 s), which took its chats while it was sending them; one 40 s ahead took the others'."""
    right_engine, off_engine = engines
    right = process(right_engine, clock_at(0), "right")
    off = process(off_engine, clock_at(offset), "off")
    ids = put(right_engine, chats=10)
    first, second = (off, right) if offset < 0 else (right, off)
    taken = first.claim()
    assert sorted(i.id for i in taken.items) == ids
    assert second.claim().items == [], "a chat held by the other process was taken"
    assert sorted(sent_all(first, taken)) == sorted(taken.chats)
    assert second.claim().items == []  # (sent: nothing left)
    assert {status for status, _ in outbox(right_engine).values()} == {"sent"}


def test_processes_40_s_apart_send_every_row_once(engines: tuple[Engine, Engine]) -> None:
    """Both claim and deliver concurrently until nothing is left: each row is claimed by one
    of them, once, each chat's rows in order."""
    ids = put(engines[0], chats=30, per_chat=4)
    taken: Counter[int] = Counter()
    order: dict[str, list[int]] = {}
    guard = threading.Lock()
    errors: list[BaseException] = []

    def run(claimer: ClaimingOutbox) -> None:
        idle = 0
        try:
            while idle < 20:
                claim = claimer.claim(limit=9)
                with guard:
                    for item in claim.items:
                        taken[item.id] += 1
                        order.setdefault(item.chat, []).append(item.id)
                sent_all(claimer, claim)
                idle = idle + 1 if not claim.items else 0
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(process(engine, clock_at(shift), name),))
               for engine, shift, name in ((engines[0], 0.0, "right"),
                                           (engines[1], -40.0, "behind"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(taken) == sorted(ids)
    assert [i for i, n in taken.items() if n > 1] == [], "rows sent twice"
    assert all(rows == sorted(rows) for rows in order.values())
    assert {status for status, _ in outbox(engines[0]).values()} == {"sent"}


def test_a_clock_step_of_31_s_neither_frees_a_lease_nor_loses_one(
        engines: tuple[Engine, Engine]) -> None:
    """Before: a process whose clock stepped 31 s ahead saw the others' leases (30 s) run
    out and took their chats in flight."""
    a_clock, b_clock = clock_at(0), clock_at(0)
    a, b = process(engines[0], a_clock, "a"), process(engines[1], b_clock, "b")
    (row,) = put(engines[0], chats=1)
    in_flight = a.claim()
    assert [i.id for i in in_flight.items] == [row]
    b_clock.advance(31)  # b's clock steps
    assert b.claim().items == []
    a_clock.advance(31)  # a's too: its lease is still its own
    assert sent_all(a, in_flight) == ["0"]
    assert outbox(engines[0])[row] == ("sent", f"m{row}")


@pytest.mark.parametrize("new_holder", ["holds it", "gave it back"])
def test_a_holder_that_lost_its_lease_records_nothing(engines: tuple[Engine, Engine],
                                                      new_holder: str) -> None:
    """The fence: a's lease expired on the database's clock and b took the chat; a's late
    outcomes (a retry here, which would postpone the row) are not recorded, b's stand."""
    a, b = process(engines[0], clock_at(0), "a"), process(engines[1], clock_at(0), "b")
    first, second = put(engines[0], chats=1, per_chat=2)
    late = a.claim()
    leases_age(engines[0], LEASE_SECONDS + 1)
    taken = b.claim()
    assert [i.id for i in taken.items] == [first, second]
    b_first = [(taken.items[0], "mb", None)]
    if new_holder == "gave it back":
        assert b.finish(taken, b_first, {}) == ["0"]
    assert a.finish(late, [(late.items[0], "ma", None),
                           (late.items[1], None, Retry(9.0, "late"))], {}) == []
    rows = outbox(engines[0])
    assert rows[second] == ("pending", None)
    assert rows[first] == (("sent", "mb") if new_holder == "gave it back" else ("pending", None))
    with Session(engines[0]) as session:
        assert session.get(OutboxLease, ("telegram", "0")).holder == (  # type: ignore[union-attr]
            "" if new_holder == "gave it back" else "b")
        assert session.get(Outbox, second).not_before < datetime.now(UTC)  # type: ignore[union-attr]
