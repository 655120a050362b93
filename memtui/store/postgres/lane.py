"""``PgQueryLane``: the query lane (``memtui.store.ticket_lane``) on PostgreSQL: an obsolete
read is cancelled (again by the watchdog: a cancel reaching an idle connection is dropped)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import errors as pg_errors

from memtui.store.ticket_lane import TicketLane

if TYPE_CHECKING:
    from memtui.store.postgres.store import PostgresStore

CANCEL_TIMEOUT_S = 5.0
"""How long ``begin()`` waits for the server to take a cancel request."""
RECANCEL_INTERVAL_S = 0.05
"""How often the watchdog repeats the cancel while an obsolete reader is still reading."""


class PgQueryLane(TicketLane[psycopg.Connection[Any]]):
    """A connection for reads that a newer request makes obsolete (see module doc)."""

    restop_interval = RECANCEL_INTERVAL_S
    _store: PostgresStore

    def _stop_locked(self) -> None:
        """Cancel the lane connection's running statement (the ticket lock is held)."""
        conn = self._conn
        if conn is not None and not conn.closed:
            with contextlib.suppress(psycopg.Error):
                conn.cancel_safe(timeout=CANCEL_TIMEOUT_S)

    def _is_stop(self, error: BaseException) -> bool:
        """A cancelled statement."""
        return isinstance(error, pg_errors.QueryCanceled)

    def _end_read(self, conn: psycopg.Connection[Any]) -> None:
        for _attempt in range(2):  # a cancel sent just before may hit the first
            if conn.closed or \
                    conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                break
            with contextlib.suppress(psycopg.Error):
                conn.execute("ROLLBACK")

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._store.is_closed:
            self._conn = self._store.connect()  # StoreError once the store is closed
        return self._conn
