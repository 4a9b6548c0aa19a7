"""The outbox leases as statements: taken, given back and checked on the database's clock.

A lease's expiry is written and compared by the database (``db_time``: PostgreSQL's ``now()``,
SQLite's ``'now'``), never from a process's clock: a process whose clock is behind or ahead,
or steps, neither takes a lease another holds nor makes its own look expired to the others.
Giving a chat back is the fence: it matches this holder, and only the chats it returns have
their outcomes recorded (``claim.ClaimingOutbox.record``).
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Float, bindparam, or_, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from storage.models import OutboxLease, SendWindow

from .rows import OUTBOX

LEASE = OutboxLease.__table__  # type: ignore[attr-defined]
WINDOW = SendWindow.__table__  # type: ignore[attr-defined]
_EPOCH = datetime(1970, 1, 1).astimezone()


class db_time(FunctionElement[datetime]):  # noqa: N801 (an SQL function, named like one)
    """The database's time now, plus the seconds given (a bound ``Float``), if any."""

    type = DateTime(timezone=True)
    inherit_cache = True
    name = "db_time"


def _plus(element: db_time, compiler: Any, **kw: Any) -> str | None:
    return compiler.process(element.clauses, **kw) if len(element.clauses) else None


@compiles(db_time)
def _standard(element: db_time, compiler: Any, **kw: Any) -> str:
    seconds = _plus(element, compiler, **kw)
    return "CURRENT_TIMESTAMP" if seconds is None else \
        f"(CURRENT_TIMESTAMP + {seconds} * INTERVAL '1 second')"


@compiles(db_time, "postgresql")
def _postgresql(element: db_time, compiler: Any, **kw: Any) -> str:
    seconds = _plus(element, compiler, **kw)  # (now(): the transaction's start)
    return "now()" if seconds is None else f"(now() + make_interval(secs => {seconds}))"


@compiles(db_time, "sqlite")
def _sqlite(element: db_time, compiler: Any, **kw: Any) -> str:
    # UTC text with microseconds, as SQLAlchemy stores a DateTime on SQLite (so it compares)
    seconds = _plus(element, compiler, **kw) or "0"
    return f"(strftime('%Y-%m-%d %H:%M:%f', julianday('now') + {seconds} / 86400.0) || '000')"


def holder_id() -> str:
    """This process's name in the leases: host, pid and a random part (pids repeat)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"


def dead_on_this_host(holder: str, me: str) -> bool:
    """Whether a lease holder named by ``holder_id`` was a process on this host that is gone:
    its pid runs no more (or only as a zombie), or it is our own pid with another random part
    (a restarted container's process 1)."""
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host != me.partition(":")[0] or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return holder != me
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # (it runs, as another user)
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def pending_chats() -> Any:
    """The chats with rows due (``not_before`` is the writer's time for the row: when it may
    go, not who may send it)."""
    return core_select(OUTBOX.c.chat_external_id).where(
        OUTBOX.c.platform == bindparam("b_platform"), OUTBOX.c.status == "pending",
        OUTBOX.c.not_before <= bindparam("b_now"))


_FREE = (core_select(LEASE.c.chat_external_id)
         .where(LEASE.c.platform == bindparam("b_platform"),
                or_(LEASE.c.holder == "", LEASE.c.holder == bindparam("b_holder"),
                    LEASE.c.expires_at < db_time()),
                LEASE.c.chat_external_id.in_(pending_chats()))
         .order_by(LEASE.c.expires_at).limit(bindparam("b_chats"))
         .with_for_update(skip_locked=True))
# the free (or expired) leases of chats with due rows, taken until the database's now + the
# lease (rows another pass has locked are skipped)
TAKE = (update(LEASE)
        .where(LEASE.c.platform == bindparam("b_platform"),
               LEASE.c.chat_external_id.in_(_FREE))
        .values(holder=bindparam("b_holder"),
                expires_at=db_time(bindparam("b_lease", type_=Float)))
        .returning(LEASE.c.chat_external_id, LEASE.c.sends))
# the fence: a chat given back by its holder only (locking the lease row until the outcomes
# are recorded in the same transaction); a lease lost meanwhile returns nothing
GIVE_BACK = (update(LEASE)
             .where(LEASE.c.platform == bindparam("b_platform"),
                    LEASE.c.holder == bindparam("b_holder"),
                    LEASE.c.chat_external_id == bindparam("b_chat"))
             .values(holder="", expires_at=db_time(), sends=bindparam("b_sends"))
             .returning(LEASE.c.chat_external_id))
HELD = core_select(LEASE.c.holder).where(
    LEASE.c.platform == bindparam("b_platform"), LEASE.c.holder != "",
    LEASE.c.holder != bindparam("b_holder")).distinct()
FREE_HOLDER = update(LEASE).where(
    LEASE.c.platform == bindparam("b_platform"),
    LEASE.c.holder.in_(bindparam("b_holders", expanding=True))).values(holder="")
_INSERTS: dict[tuple[str, str], Any] = {}


def insert(dialect: str, what: str) -> Any:
    """New lease rows for chats with due rows ("leases"; params ``b_platform``, ``b_now``),
    and the send window row ("window", once)."""
    stmt = _INSERTS.get((dialect, what))
    if stmt is None:
        ins = sqlite_insert if dialect == "sqlite" else pg_insert
        if what == "leases":
            sub = pending_chats().distinct().subquery()
            stmt = ins(LEASE).from_select(
                ["platform", "chat_external_id", "holder", "expires_at"],
                core_select(bindparam("b_platform"), sub.c.chat_external_id,
                            bindparam("b_free", ""), bindparam("b_epoch", _EPOCH))
                .where(sub.c.chat_external_id.is_not(None)))  # (SQLite: SELECT … WHERE …
            stmt = stmt.on_conflict_do_nothing(  # … ON CONFLICT parses only with a WHERE)
                index_elements=["platform", "chat_external_id"])
        else:
            stmt = ins(WINDOW).values(platform=bindparam("b_platform"), sends=[]) \
                .on_conflict_do_nothing(index_elements=["platform"])
        _INSERTS[(dialect, what)] = stmt
    return stmt
