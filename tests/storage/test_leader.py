"""The leader lock (issue 16, item 3): one holder among processes; a holder whose
connection ends loses it at once and another takes over; SQLite always leads."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from storage.db import make_engine
from storage.leader import LeaderLock, lock_key
from tests.conftest import engine_url


def test_the_lock_key_is_stable_and_names_differ() -> None:
    assert lock_key("telegram:poll:1") == lock_key("telegram:poll:1")
    assert lock_key("telegram:poll:1") != lock_key("telegram:poll:2")
    assert -2**63 <= lock_key("x") < 2**63


def test_on_sqlite_the_one_process_always_leads(sqlite_engine: Engine) -> None:
    lock = LeaderLock(sqlite_engine, "telegram:poll:1")
    assert lock.try_acquire() and lock.still_held() and lock.held


@pytest.mark.postgres
def test_one_leader_and_a_takeover_when_its_connection_ends(pg_engine: Engine) -> None:
    other = make_engine(engine_url(pg_engine))  # a second process's engine
    try:
        first, second = LeaderLock(pg_engine, "role"), LeaderLock(other, "role")
        assert first.try_acquire()
        assert first.try_acquire()  # again: still ours
        assert not second.try_acquire()
        unrelated = LeaderLock(other, "another role")
        assert unrelated.try_acquire()  # roles are independent
        # the leader's connection dies (as when the process is killed): the lock goes with it
        with other.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_locks "
                              "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() "
                              "AND objid = (:key & 4294967295)"), {"key": lock_key("role")})
            conn.commit()
        assert not first.still_held() and not first.held
        assert second.try_acquire()
        assert not first.try_acquire()  # the old leader is a follower now
        second.release()
        assert first.try_acquire()
        first.release()
        unrelated.release()
    finally:
        other.dispose()
