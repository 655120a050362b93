"""``TicketLane``: what both backends' query lanes share.

A lane is one stream of reads where each new request makes the older ones obsolete (search
as you type). ``begin()`` hands out a ticket and stops an older reader's running statement;
the store asks the ticket before each statement, and one watchdog thread repeats the stop
while an obsolete reader is still inside ``reading()``. Readers enter and leave, and stops
are sent, under one lock: a stop never reaches a newer reader's statement.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from memtui.errors import QueryInterrupted

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend

ConnectionT = TypeVar("ConnectionT")

OBSOLETE = "a newer read replaced this one"
"""What ``QueryInterrupted`` says for an obsolete read."""


class TicketLane(Generic[ConnectionT]):
    """The lane's tickets, reader and watchdog; a backend implements the stubs below."""

    restop_interval: float = 0.05
    """Seconds between two stops of the watchdog while an obsolete reader still reads."""

    def __init__(self, store: StoreBackend) -> None:
        self._store = store
        self._conn: ConnectionT | None = None
        """The lane's own connection (made by ``_connection`` on first use)."""
        self._newest = 0
        self._ticket_lock = threading.Lock()
        self._reader_lock = threading.Lock()
        self._reading: int | None = None
        """The ticket of the reader inside ``reading()`` (under the ticket lock)."""
        self.interrupted = 0
        """How many reads a newer ticket stopped (for tests and the benchmark)."""

    # ---- for a backend ------------------------------------------------------------------

    def _connection(self) -> ConnectionT:
        """The lane's own connection (made on first use)."""
        raise NotImplementedError

    def _stop_locked(self) -> None:
        """Stop the statement running on the lane's connection (the ticket lock is held)."""
        raise NotImplementedError

    def _bound(self, conn: ConnectionT, ticket: int) -> contextlib.AbstractContextManager[None]:
        """Bind this thread's store calls to ``conn``, asking the ticket before each statement."""
        return self._store.bound_to(conn, lambda: not self.is_current(ticket))

    def _is_stop(self, error: BaseException) -> bool:
        """Whether ``error`` itself is what a statement the lane stopped raises."""
        raise NotImplementedError

    def _stopped_by_lane(self, error: BaseException) -> bool:
        """Whether ``error``, or an error it wraps, came from a statement the lane stopped."""
        seen: BaseException | None = error
        while seen is not None:
            if self._is_stop(seen):
                return True
            seen = seen.__cause__ or seen.__context__
        return False

    def _end_read(self, conn: ConnectionT) -> None:
        """Leave the connection ready for the next reader (a snapshot cut short ends)."""
        raise NotImplementedError

    # ---- the lane -----------------------------------------------------------------------

    def begin(self) -> int:
        """A ticket for a new read; older tickets are obsolete and their reader is stopped."""
        with self._ticket_lock:
            self._newest += 1
            ticket = self._newest
            if self._reading is not None:
                self._stop_locked()
                _WATCHDOG.watch(self)
        return ticket

    def _restop(self) -> bool:
        """Stop the obsolete reader again; False (unwatched) once none is in ``reading()``."""
        with self._ticket_lock:
            reading = self._reading
            if reading is None or self.is_current(reading):
                _WATCHDOG.unwatch(self)
                return False
            self._stop_locked()
            return True

    def is_current(self, ticket: int) -> bool:
        """Whether no newer ticket has been handed out."""
        return ticket == self._newest

    @contextlib.contextmanager
    def reading(self, ticket: int) -> Iterator[None]:
        """Run the block's reads on the lane's connection; ``QueryInterrupted`` once obsolete."""
        with self._reader_lock:
            with self._ticket_lock:
                if not self.is_current(ticket):
                    raise QueryInterrupted(OBSOLETE)
                self._reading = ticket
            try:
                conn = self._connection()
            except BaseException:
                with self._ticket_lock:
                    self._reading = None
                raise
            try:
                with self._bound(conn, ticket):
                    yield
            except QueryInterrupted:
                self.interrupted += 1  # a statement of the obsolete read did not start
                raise
            except Exception as error:
                if not self.is_current(ticket) and self._stopped_by_lane(error):
                    self.interrupted += 1
                    raise QueryInterrupted(OBSOLETE) from error
                raise
            finally:
                with self._ticket_lock:
                    self._reading = None  # no stop is sent from here on
                self._end_read(conn)


class _Watchdog:
    """The one thread that repeats the stops of every lane with an obsolete reader inside.
    Lock order: a lane's ticket lock, then the watchdog's."""

    def __init__(self) -> None:
        self._lanes: set[TicketLane[Any]] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, lane: TicketLane[Any]) -> None:
        """Watch ``lane`` (its ticket lock is held) until its obsolete reader has left."""
        with self._changed:
            self._lanes.add(lane)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memtui-lane-stop",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()

    def unwatch(self, lane: TicketLane[Any]) -> None:
        """Stop watching ``lane`` (its ticket lock is held)."""
        with self._changed:
            self._lanes.discard(lane)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._lanes:
                    self._changed.wait()
                lanes = list(self._lanes)
                self._changed.wait(min(lane.restop_interval for lane in lanes))
            for lane in lanes:
                try:
                    lane._restop()
                except Exception:  # noqa: BLE001 - a lane that cannot be stopped (its
                    with self._changed:  # store closed) is no longer watched; the
                        self._lanes.discard(lane)  # thread keeps serving the others


_WATCHDOG = _Watchdog()
