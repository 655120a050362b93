"""``QueryLane``: the query lane (``memtui.store.ticket_lane``) on SQLite: reads on a connection
of its own (a warm page cache); an obsolete one is stopped with ``sqlite3_interrupt``."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TYPE_CHECKING

from memtui.errors import QueryInterrupted
from memtui.store.ticket_lane import TicketLane

if TYPE_CHECKING:
    from memtui.store.database import Store

RESTOP_INTERVAL_S = 0.002
"""How often the watchdog repeats the interrupt (the newer reader waits: well under a frame)."""


class QueryLane(TicketLane[sqlite3.Connection]):
    """A store connection for reads that a newer request makes obsolete (see module doc)."""

    restop_interval = RESTOP_INTERVAL_S
    _store: Store

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._store.is_closed:
            self._conn = self._store.open_connection()  # StoreError once the store is closed
        return self._conn

    def _stop_locked(self) -> None:
        conn = self._conn
        if conn is not None:
            with contextlib.suppress(sqlite3.ProgrammingError):  # closed with the store
                conn.interrupt()  # thread-safe; only the statements running now are stopped

    def _is_stop(self, error: BaseException) -> bool:
        """An interrupted statement (or the store's error for it)."""
        return isinstance(error, QueryInterrupted) or (
            isinstance(error, sqlite3.OperationalError) and "interrupt" in str(error).lower())

    def _end_read(self, conn: sqlite3.Connection) -> None:
        with contextlib.suppress(sqlite3.Error):  # (a connection closed with the store)
            if conn.in_transaction:  # a snapshot cut short by the interrupt
                conn.execute("ROLLBACK")
