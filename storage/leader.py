"""One leader among the processes sharing a database: a PostgreSQL advisory lock.

``LeaderLock(engine, "telegram:poll")`` tries ``pg_try_advisory_lock`` on a connection of its
own (autocommit, kept open while it leads). PostgreSQL drops the lock the moment that
connection ends — the process exits, is killed, or loses the network — so a follower that
tries again every second or so takes over within seconds. On SQLite (one process per database
file) the process always leads.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)
_TRY = text("SELECT pg_try_advisory_lock(:key)")
_UNLOCK = text("SELECT pg_advisory_unlock(:key)")
_PING = text("SELECT 1")


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for a lock name (advisory locks are numbered)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class LeaderLock:
    """Leadership of one role (e.g. polling one bot's updates) among processes. Blocking
    calls: run them off the event loop."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.engine, self.name, self.key = engine, name, lock_key(name)
        self._conn: Connection | None = None
        self._guard = threading.Lock()
        self._sqlite = engine.dialect.name == "sqlite"

    @property
    def held(self) -> bool:
        return self._sqlite or self._conn is not None

    def try_acquire(self) -> bool:
        """Take the lock if it is free (or already ours); False if another process leads."""
        if self._sqlite:
            return True
        with self._guard:
            if self._conn is not None:
                return True
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            try:
                got = bool(conn.execute(_TRY, {"key": self.key}).scalar())
            except Exception:
                conn.close()
                raise
            if not got:
                conn.close()
                return False
            self._conn = conn
            log.info("leader of %s", self.name)
            return True

    def still_held(self) -> bool:
        """Whether the lock's connection is alive (if it broke, PostgreSQL has let the lock
        go and another process may lead now: this one no longer does)."""
        if self._sqlite:
            return True
        with self._guard:
            if self._conn is None:
                return False
            try:
                self._conn.execute(_PING)
                return True
            except Exception:
                log.warning("lost the leader lock of %s (its connection broke)", self.name)
                self._drop()
                return False

    def release(self) -> None:
        if self._sqlite:
            return
        with self._guard:
            if self._conn is None:
                return
            with contextlib.suppress(Exception):  # a broken connection: the lock is gone
                self._conn.execute(_UNLOCK, {"key": self.key})
            self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.invalidate()  # never back to the pool: it may still hold the lock
            finally:
                conn.close()
