"""``QueryLane``: one stream of reads where each new request makes the older ones obsolete.

Search as you type asks the store one question per keystroke, and only the newest answer
matters. A lane gives such a stream a connection of its own (its page cache stays warm from
one keystroke to the next) and makes cancelling real: ``begin()`` hands out a ticket and
makes every older ticket obsolete; a read running under an obsolete ticket is interrupted by
SQLite (``begin()`` calls ``sqlite3_interrupt`` on the lane's connection, and a progress
handler asks every ``PROGRESS_HANDLER_STEPS`` virtual-machine steps whether its ticket is
still the newest, for a statement started after that), so it stops at once instead of
running to the end in the background while the newer query waits for the CPU.

``begin()`` is cheap and thread-safe (the UI thread calls it on every key); ``reading()``
runs in a worker thread and binds the lane's connection to that thread for the block, so
the repositories' ordinary queries run on it. One reader at a time uses a lane: a newer
reader waits for the older one, which its own ``begin()`` has just interrupted.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from memtui.errors import QueryInterrupted

if TYPE_CHECKING:
    from memtui.store.database import Store

PROGRESS_HANDLER_STEPS = 50_000
"""SQLite virtual-machine steps between two looks at the lane's newest ticket (a few ms of
work). ``begin()`` interrupts the running statement at once (``sqlite3_interrupt``); the
handler only catches a statement started after that by the obsolete reader. Each look takes
the GIL, so looking far more often slows the UI thread while a long read runs."""


class QueryLane:
    """A store connection for reads that a newer request makes obsolete (see module doc)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn: sqlite3.Connection | None = None
        self._newest = 0
        self._ticket_lock = threading.Lock()
        self._reader_lock = threading.Lock()
        self.interrupted = 0
        """How many reads were interrupted because a newer ticket came (for tests and the
        benchmark)."""

    def begin(self) -> int:
        """A ticket for a new read; every older ticket is obsolete from now on, and the
        statement an older reader is running is interrupted now."""
        with self._ticket_lock:
            self._newest += 1
            ticket = self._newest
        conn = self._conn
        if conn is not None and self._reader_lock.locked():
            conn.interrupt()  # thread-safe; only the statements running now are stopped
        return ticket

    def is_current(self, ticket: int) -> bool:
        """Whether no newer ticket has been handed out."""
        return ticket == self._newest

    @contextlib.contextmanager
    def reading(self, ticket: int) -> Iterator[None]:
        """Run the block's store reads on this lane's connection, interrupted as soon as a
        newer ticket exists. Raises ``QueryInterrupted`` when the ticket is (or becomes)
        obsolete; any other error passes through unchanged."""
        with self._reader_lock:
            if not self.is_current(ticket):
                raise QueryInterrupted("a newer read replaced this one")
            conn = self._connection()
            conn.set_progress_handler(lambda: not self.is_current(ticket),
                                      PROGRESS_HANDLER_STEPS)
            try:
                with self._store.bound_to(conn):
                    yield
            except sqlite3.OperationalError as error:
                if "interrupt" in str(error).lower() and not self.is_current(ticket):
                    self.interrupted += 1
                    raise QueryInterrupted("a newer read replaced this one") from error
                raise
            except Exception as error:
                if not self.is_current(ticket) and _caused_by_interrupt(error):
                    self.interrupted += 1
                    raise QueryInterrupted("a newer read replaced this one") from error
                raise
            finally:
                conn.set_progress_handler(None, 0)
                if conn.in_transaction:  # a snapshot cut short by the interrupt
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None or self._store.is_closed:
            self._conn = self._store.open_connection()  # StoreError once the store is closed
        return self._conn


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether an error was raised because SQLite interrupted a statement (the store may
    have wrapped the ``sqlite3`` error in one of its own)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, sqlite3.OperationalError) and "interrupt" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False
