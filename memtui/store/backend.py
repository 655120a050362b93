"""The store's interface: what every backend (SQLite, PostgreSQL) gives the layers above.

The repositories are shared; each backend supplies its connections, transactions, change
detection and the SQL pieces that differ (``store.dialect``). What exists on one backend only
(the write-ahead log a forget must truncate) answers "nothing to do" elsewhere.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeAlias, TypeVar, overload

from memtui.store.ids import IdFactory, default_ids
from memtui.store.timeutil import Clock, format_time, system_clock

_WRITE_ENDS_LOCK = threading.Lock()
MadeT = TypeVar("MadeT", covariant=True)
ConnT = TypeVar("ConnT")

if TYPE_CHECKING:
    from memtui.errors import StoreError
    from memtui.store.agent_writes import AgentWriteRepository
    from memtui.store.audit import AuditRepository
    from memtui.store.codex_rollout_files import RolloutFileRepository
    from memtui.store.dialect import Dialect
    from memtui.store.identity import IdentityRepository
    from memtui.store.maintenance import VacuumResult
    from memtui.store.memories import MemoryRepository
    from memtui.store.model_ledger import ModelLedgerRepository
    from memtui.store.purges import PurgeRepository
    from memtui.store.recall import RecallRepository
    from memtui.store.sessions import SessionRepository
    from memtui.store.settings import SettingsRepository
    from memtui.store.tasks import TaskRepository
    from memtui.store.ticket_lane import TicketLane

    Lane: TypeAlias = TicketLane[Any]
    """A stream of reads where each new request makes the older ones obsolete."""


class Cursor(Protocol):
    """What a statement returns on either backend."""

    @property
    def rowcount(self) -> int:
        """Rows changed by the statement (-1 when not known)."""

    def fetchone(self) -> Any:
        """The next row, or None."""

    def fetchall(self) -> list[Any]:
        """Every remaining row."""

    def __iter__(self) -> Iterator[Any]:
        """The remaining rows, one by one."""

    def close(self) -> None:
        """Release the cursor's rows."""


class Connection(Protocol):
    """A connection as the repositories use it: statements with ``?`` placeholders."""

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        """Run one statement; returns a ``Cursor``."""

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Any:
        """Run one statement once per parameter row."""


class Lazy(Generic[MadeT]):
    """An attribute made on first use and kept on its instance: ``name`` in ``module``,
    imported then, called with the instance (the store's repositories, the engine's areas)."""

    def __init__(self, module: str, name: str) -> None:
        self._module, self._maker, self._name = module, name, ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type) -> Lazy[MadeT]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> MadeT: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Lazy[MadeT] | MadeT:
        if instance is None:
            return self
        made: MadeT = getattr(importlib.import_module(self._module), self._maker)(instance)
        instance.__dict__[self._name] = made  # read from the instance from now on
        return made


class ThreadState(threading.local, Generic[ConnT]):
    """One thread's connection, transaction depth, whether it may write (and whether its
    connection is a pool's), and a lane's connection and ticket check (``bound_to``)."""

    def __init__(self) -> None:
        self.conn: ConnT | None = None
        self.depth = 0
        self.writing = False
        self.pooled = False
        self.bound: ConnT | None = None
        self.obsolete: Callable[[], bool] | None = None
        """For a lane's reader: whether its ticket is obsolete (no statement starts then)."""


class StoreBackend(ABC):
    """A memtui store: repositories, transactions, clock and ids, on some database."""

    dialect: Dialect
    """The SQL pieces that differ between backends."""
    _local: ThreadState[Any]

    def __init__(self, location: str, *, clock: Clock | None = None,
                 ids: IdFactory | None = None, read_only: bool = False) -> None:
        self.location = location
        """Where the store is, for people: a file path, or a URL without its password."""
        self.read_only = read_only
        """Opened read-only: reads work; every transaction is refused with the reason."""
        self.clock: Clock = clock or system_clock
        self.ids: IdFactory = ids or default_ids
        self.before_close: list[Callable[[], object]] = []
        """Called by ``close()`` first (the engine's background writes finish there)."""
        self._lock = threading.Lock()
        self._closed = False
        self._local = ThreadState()

    # -- repositories (each imported on first use: the app's first frame needs two) -----

    identity: Lazy[IdentityRepository] = Lazy("memtui.store.identity", "IdentityRepository")
    memories: Lazy[MemoryRepository] = Lazy("memtui.store.memories", "MemoryRepository")
    audit: Lazy[AuditRepository] = Lazy("memtui.store.audit", "AuditRepository")
    tasks: Lazy[TaskRepository] = Lazy("memtui.store.tasks", "TaskRepository")
    codex_rollout_files: Lazy[RolloutFileRepository] = Lazy(
        "memtui.store.codex_rollout_files", "RolloutFileRepository")
    recall: Lazy[RecallRepository] = Lazy("memtui.store.recall", "RecallRepository")
    settings: Lazy[SettingsRepository] = Lazy("memtui.store.settings", "SettingsRepository")
    sessions: Lazy[SessionRepository] = Lazy("memtui.store.sessions", "SessionRepository")
    agent_writes: Lazy[AgentWriteRepository] = Lazy(
        "memtui.store.agent_writes", "AgentWriteRepository")
    model_ledger: Lazy[ModelLedgerRepository] = Lazy(
        "memtui.store.model_ledger", "ModelLedgerRepository")
    purges: Lazy[PurgeRepository] = Lazy("memtui.store.purges", "PurgeRepository")

    # -- what the store is -----------------------------------------------------------------

    @property
    def is_closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._closed

    def close(self) -> None:
        """Run every ``before_close`` callback, then close every connection (any thread)."""
        for callback in list(self.before_close):
            callback()
        self._close_connections()
        self._local = ThreadState()

    def prepared(self, prepare: Callable[[Any], None]) -> Self:
        """This store after ``prepare(self)`` (checks, migrations), else closed, raising."""
        try:
            prepare(self)
        except BaseException:
            self.close()
            raise
        return self

    @abstractmethod
    def _close_connections(self) -> None:
        """Close every connection this store opened (any thread)."""

    def now(self) -> str:
        """The store clock's current time in the stored form."""
        return format_time(self.clock())

    def new_id(self, prefix: str) -> str:
        """A new id with the given prefix."""
        return self.ids(prefix)

    # -- statements and transactions ---------------------------------------------------

    @property
    @abstractmethod
    def conn(self) -> Connection:
        """This thread's connection (inside a transaction: the transaction's)."""

    def execute(self, sql: str, params: Any = ()) -> Cursor:
        """Run one statement on this thread's connection."""
        cursor: Cursor = self.conn.execute(sql, params)
        return cursor

    @abstractmethod
    def transaction(self, *, shared: bool = False) -> contextlib.AbstractContextManager[Connection]:
        """A write transaction, all or nothing, re-entrant within a thread; writers take
        turns, so what the block reads stays true until it commits. ``shared``: the block
        writes only rows it claimed (``tasks.claim``), so it may run beside other shared ones
        (extraction workers on several machines)."""

    @abstractmethod
    def snapshot(self) -> contextlib.AbstractContextManager[Connection]:
        """A read transaction: several queries see one consistent state of the store."""

    @abstractmethod
    def lane(self) -> Lane:
        """A new query lane (search as you type)."""

    @contextlib.contextmanager
    def bound_to(self, conn: Any, obsolete: Callable[[], bool] | None = None) -> Iterator[None]:
        """Run this thread's store calls in the block on ``conn`` (a lane's connection);
        ``obsolete`` (a lane's ticket check) is asked before each statement, which raises
        ``QueryInterrupted`` instead of starting once it says True."""
        state = self._local
        saved = dict(vars(state))
        ThreadState.__init__(state)  # a fresh place: no transaction of the thread's
        state.bound, state.obsolete = conn, obsolete
        try:
            yield
        finally:
            vars(state).update(saved)

    # -- change detection and versions --------------------------------------------------

    @abstractmethod
    def data_version(self) -> int:
        """A number that changes when another connection (any process, any machine) commits."""

    writes_ended = 0
    """Write transactions ended (committed or rolled back) through this object."""

    def write_ended(self) -> None:
        """Count one write transaction ended (committed or rolled back)."""
        with _WRITE_ENDS_LOCK:
            self.writes_ended += 1

    def change_stamp(self) -> tuple[int, ...] | None:
        """A value that changes when any connection commits a write, this one included, or
        one of this object's write transactions rolls back (compare one thread's stamps).
        None inside a write transaction or when changes cannot be watched: keep nothing."""
        from memtui.errors import StoreError

        if self._local.writing:
            return None
        try:
            return self.data_version(), self.writes_ended
        except StoreError:
            return None

    def wait_for_change(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for another connection's write (here: one look, no wait)."""
        before = self.data_version()
        return self.data_version() != before

    @abstractmethod
    def schema_version(self) -> int:
        """The schema version recorded in the store."""

    def is_empty(self) -> bool:
        """Whether the store holds no rows in any exported table (a new store)."""
        from memtui.store.maintenance import EXPORT_TABLES

        return not any(self.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                       for table in EXPORT_TABLES)

    # -- forgetting and maintenance (backend-neutral) -------------------------------------

    def purge_deleted(self, wait_s: float) -> bool:
        """Erase older copies of deleted rows kept outside the tables (SQLite's write-ahead
        log), waiting up to ``wait_s`` for readers; True when none is left there."""
        return True

    def purge_backlog_bytes(self) -> int:
        """How many bytes may still hold older copies of deleted rows (0: none)."""
        return 0

    @abstractmethod
    def purge_location(self) -> str:
        """Where older copies of deleted rows wait for ``purge_deleted``, for people."""

    def exposure_problems(self) -> list[str]:
        """Store files other users of this machine can read, one line each (none on a server)."""
        return []

    @abstractmethod
    def check_whole_store_access(self) -> None:
        """Raise ``PermissionDenied`` unless whoever runs memtui may export the whole store."""

    @abstractmethod
    def failure(self, error: BaseException) -> StoreError | None:
        """The one-line ``StoreError`` for this backend's driver error (else None)."""

    @abstractmethod
    def vacuum(self, full: bool = False) -> VacuumResult:
        """Give back the space of deleted rows and rewrite the pages that held them
        (``full``: ``VACUUM FULL`` where there is one); ``StoreError`` inside a transaction."""
