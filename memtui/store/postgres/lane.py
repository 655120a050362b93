"""``PgQueryLane``: the query lane (``memtui.store.query_lane``) on PostgreSQL.

Same contract: ``begin()`` hands out a ticket and makes older ones obsolete; ``reading()``
runs the block's reads on the lane's own connection. Stopping an obsolete read is
PostgreSQL's cancel request (``conn.cancel_safe()``): the server stops the running
statement, which raises ``QueryCanceled`` in the reader, turned into ``QueryInterrupted``.
A cancel that reaches the server while its connection is idle is dropped by the server,
and ``begin()`` finishes sending it before the next reader can start, so a cancel never
stops a newer reader's statement. An obsolete reader can still send its next statement just
after such a dropped cancel (it checks its ticket, then the cancel comes, then the statement
goes out): while an obsolete reader stays in ``reading()``, a watchdog repeats the cancel
every ``RECANCEL_INTERVAL_S`` until it leaves. Readers enter and leave, and cancels are
sent, under one lock, so a repeated cancel never reaches a newer reader.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import errors as pg_errors

from memtui.errors import QueryInterrupted

if TYPE_CHECKING:
    from memtui.store.postgres.store import PostgresStore

CANCEL_TIMEOUT_S = 5.0
"""How long ``begin()`` waits for the server to take a cancel request."""
RECANCEL_INTERVAL_S = 0.05
"""How often the watchdog repeats the cancel while an obsolete reader is still reading."""


class PgQueryLane:
    """A connection for reads that a newer request makes obsolete (see module doc)."""

    def __init__(self, store: PostgresStore) -> None:
        self._store = store
        self._conn: psycopg.Connection[Any] | None = None
        self._newest = 0
        self._ticket_lock = threading.Lock()
        self._reader_lock = threading.Lock()
        self._reading: int | None = None
        """The ticket of the reader inside ``reading()`` (changed under the ticket lock)."""
        self._watching = False
        self.interrupted = 0
        """How many reads were interrupted because a newer ticket came."""

    def begin(self) -> int:
        """A ticket for a new read; the statement an older reader runs is cancelled now."""
        with self._ticket_lock:
            self._newest += 1
            ticket = self._newest
            if self._reading is not None:
                self._cancel_locked()
                if not self._watching:
                    self._watching = True
                    threading.Thread(target=self._watch, name="memtui-lane-cancel",
                                     daemon=True).start()
        return ticket

    def _cancel_locked(self) -> None:
        """Cancel the lane connection's running statement (the ticket lock is held)."""
        conn = self._conn
        if conn is not None and not conn.closed:
            with contextlib.suppress(psycopg.Error):
                conn.cancel_safe(timeout=CANCEL_TIMEOUT_S)

    def _watch(self) -> None:
        """Repeat the cancel while an obsolete reader is still inside ``reading()``."""
        while True:
            time.sleep(RECANCEL_INTERVAL_S)
            with self._ticket_lock:
                reading = self._reading
                if reading is None or self.is_current(reading):
                    self._watching = False
                    return
                self._cancel_locked()

    def is_current(self, ticket: int) -> bool:
        """Whether no newer ticket has been handed out."""
        return ticket == self._newest

    @contextlib.contextmanager
    def reading(self, ticket: int) -> Iterator[None]:
        """Run the block's store reads on this lane's connection; ``QueryInterrupted`` when
        the ticket is (or becomes) obsolete."""
        with self._reader_lock:
            with self._ticket_lock:
                if not self.is_current(ticket):
                    raise QueryInterrupted("a newer read replaced this one")
                self._reading = ticket
            try:
                conn = self._connection()
            except BaseException:
                with self._ticket_lock:
                    self._reading = None
                raise
            try:
                with self._store.bound_to(conn, lambda: not self.is_current(ticket)):
                    yield
            except QueryInterrupted:
                self.interrupted += 1
                raise
            except Exception as error:
                if _cancelled(error) and not self.is_current(ticket):
                    self.interrupted += 1
                    raise QueryInterrupted("a newer read replaced this one") from error
                raise
            finally:
                with self._ticket_lock:
                    self._reading = None  # no cancel is sent from here on
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


def _cancelled(error: BaseException) -> bool:
    """Whether an error came from a cancelled statement (possibly wrapped)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, pg_errors.QueryCanceled):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
