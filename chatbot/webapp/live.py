"""Live pages: which open pages watch which table, woken after every committed change.

In this process the service's listeners report each commit (a move on the page, in the chat,
by a CPU or by the turn clock). Across processes on PostgreSQL every input's transaction
sends ``NOTIFY stammtisch_tables`` with the ids of the tables it changed (delivered only if
it commits — see ``chatbot.service.transaction``), and each process ``LISTEN``s on a
connection of its own (psycopg's ``Connection.notifies``, as its documentation shows). A page
is woken more than once for one change at worst; it sends a view only when it changed.

Pages are bounded: at most ``PER_PERSON`` streams of one person and ``WEBAPP_MAX_STREAMS``
in all (``Hub.admit``). A change is read once for all pages of the table and drawn once per
seat and language (and once for the public view): ``Hub.shared`` runs the work once on a
worker thread for every page asking for the same key and keeps the newest results, so all
pages of a seat are sent the same bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, TypeVar

from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)
CHANNEL = "stammtisch_tables"
RETRY = 2.0  # seconds before the listener connects again after losing its connection
PER_PERSON = 5  # open streams of one person
MAX_STREAMS = 2000  # open streams of this process (WEBAPP_MAX_STREAMS)
KEPT = 512  # results ``Hub.shared`` keeps (reads and drawn views of the newest changes)
T = TypeVar("T")


class Full(Exception):
    """No stream more: too many of this person's (429) or of everybody's (503)."""

    def __init__(self, status: int, retry_after: int) -> None:
        super().__init__(status)
        self.status, self.retry_after = status, retry_after


class Hub:
    """The pages of this process, by table. ``changed`` may be called from any thread."""

    def __init__(self, max_streams: int = MAX_STREAMS, per_person: int = PER_PERSON) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watch: dict[int, set[asyncio.Event]] = {}
        self._woken: dict[int, int] = {}  # table id -> its last wake (names a shared read)
        self._wakes = 0  # wakes so far (never the same number twice)
        self._people: dict[int, int] = {}  # person -> open streams
        self._shared: OrderedDict[Hashable, asyncio.Future[Any]] = OrderedDict()
        self.max_streams, self.per_person = max_streams, per_person
        self.streams = 0
        self.closing = False  # the server shuts down: open streams end

    @contextlib.contextmanager
    def admit(self, person: int) -> Iterator[None]:
        """One stream of ``person`` while it is open; ``Full`` when over a limit."""
        if self.streams >= self.max_streams:
            raise Full(503, 30)
        if self._people.get(person, 0) >= self.per_person:
            raise Full(429, 15)  # (a page gone without a word is noticed within 15 s)
        self.streams += 1
        self._people[person] = self._people.get(person, 0) + 1
        try:
            yield
        finally:
            self.streams -= 1
            left = self._people.pop(person) - 1
            if left:
                self._people[person] = left

    def woken(self, table_id: int) -> int:
        """The table's last wake (with the table id, the key of one read for all pages)."""
        return self._woken.get(table_id, 0)

    async def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()`` once on a worker thread for every page asking for ``key`` (the newest
        ``KEPT`` results are kept; a failure is not)."""
        future = self._shared.get(key)
        if future is None:
            future = asyncio.ensure_future(asyncio.to_thread(make))
            self._shared[key] = future

            def forget_failed(done: asyncio.Future[Any]) -> None:
                if (done.cancelled() or done.exception() is not None) \
                        and self._shared.get(key) is done:
                    del self._shared[key]

            future.add_done_callback(forget_failed)
            while len(self._shared) > KEPT:
                self._shared.popitem(last=False)
        else:
            self._shared.move_to_end(key)
        return await asyncio.shield(future)  # (a page going away cancels only its wait)

    @property
    def pages(self) -> int:
        return sum(len(s) for s in self._watch.values())

    @contextlib.contextmanager
    def watch(self, table_id: int) -> Iterator[asyncio.Event]:
        """An event set whenever the table changes, while the page is open."""
        self._loop = asyncio.get_running_loop()
        event = asyncio.Event()
        self._watch.setdefault(table_id, set()).add(event)
        try:
            yield event
        finally:
            pages = self._watch.get(table_id)
            if pages is not None:
                pages.discard(event)
                if not pages:
                    del self._watch[table_id]
                    self._woken.pop(table_id, None)

    def changed(self, table_ids: Iterable[int]) -> None:
        ids = [t for t in table_ids if t in self._watch]
        loop = self._loop
        if ids and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake, ids)

    def close(self) -> None:
        """End every open stream (the server is shutting down; pages reconnect elsewhere)."""
        self.closing = True
        self._wake(list(self._watch))

    def changed_all(self) -> None:
        """Every watched table may have changed (notifications were missed)."""
        self.changed(list(self._watch))

    def _wake(self, ids: list[int]) -> None:
        for table_id in ids:
            if table_id not in self._watch:
                continue
            self._wakes += 1
            self._woken[table_id] = self._wakes
            for event in self._watch[table_id]:
                event.set()


def parse(payload: str) -> list[int]:
    """Table ids of a notification (``"12,15"``); anything else is ignored."""
    return [int(p) for p in payload.split(",") if p.isascii() and p.isdigit() and len(p) < 12]


class Listener:
    """``LISTEN`` on PostgreSQL in a thread of its own, telling the hub (not on SQLite: one
    process per database file, the service's listeners tell it everything)."""

    def __init__(self, engine: Engine, hub: Hub) -> None:
        self.engine, self.hub = engine, hub
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()  # set once LISTEN is in place (tests wait for it)

    def start(self) -> None:
        if self.engine.dialect.name != "postgresql" or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="webapp-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self.engine.connect().execution_options(
                        isolation_level="AUTOCOMMIT") as conn:
                    conn.exec_driver_sql(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    self.hub.changed_all()  # (what changed while it was not listening)
                    raw = conn.connection.driver_connection
                    while not self._stop.is_set():
                        for note in raw.notifies(timeout=1.0):  # type: ignore[union-attr]
                            self.hub.changed(parse(note.payload))
            except Exception:
                self.listening.clear()
                log.warning("webapp: LISTEN connection lost; again in %.0f s", RETRY,
                            exc_info=True)
                self._stop.wait(RETRY)
