"""Live pages: which open pages watch which table, woken after every committed change.

In this process the service's listeners report each commit (a move on the page, in the chat,
by a CPU or by the turn clock). Across processes on PostgreSQL every input's transaction
sends ``NOTIFY stammtisch_tables`` with the ids of the tables it changed (delivered only if
it commits — see ``chatbot.service.transaction``), and each process ``LISTEN``s on a
connection of its own (psycopg's ``Connection.notifies``, as its documentation shows). A page
is woken more than once for one change at worst; it sends a view only when it changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterable, Iterator

from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)
CHANNEL = "stammtisch_tables"
RETRY = 2.0  # seconds before the listener connects again after losing its connection


class Hub:
    """The pages of this process, by table. ``changed`` may be called from any thread."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watch: dict[int, set[asyncio.Event]] = {}
        self.closing = False  # the server shuts down: open streams end

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
            for event in self._watch.get(table_id, ()):
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
