"""The SQLite store: opening and checking the file, migrations, connections, transactions.

One file in WAL mode shared by several processes; a connection per thread; writes in
``BEGIN IMMEDIATE`` transactions that wait for a busy database instead of failing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.errors import PermissionDenied, QueryInterrupted, StoreError, TransactionLost
from memtui.private_files import OTHERS_READ, create_private_file, make_private_folder
from memtui.store.backend import StoreBackend, ThreadState
from memtui.store.dialect import POSTGRESQL, SQLITE
from memtui.store.fts_levels import keep_levels_bounded
from memtui.store.ids import IdFactory
from memtui.store.postgres.adapter import is_postgres_url
from memtui.store.schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS
from memtui.store.timeutil import Clock, format_time

if TYPE_CHECKING:
    from memtui.store.maintenance import VacuumResult
    from memtui.store.query_lane import QueryLane

BUSY_TIMEOUT_MS = 10_000
"""How long SQLite itself waits for a lock before answering busy."""
BUSY_RETRY_SECONDS = 30.0
"""How long a write keeps retrying a busy database before it gives up."""
BUSY_RETRY_PAUSE_SECONDS = 0.05
CHECKPOINT_ATTEMPT_MS = 100
"""How long one truncating checkpoint attempt waits for readers (``purge_deleted``)."""
SQLITE_HEADER = b"SQLite format 3\x00"
_PAGE_SIZE_OFFSET = 16
_PAGE_COUNT_OFFSET = 28
_STAYED_BUSY = "the database stayed busy"


_CONNECTION_SERIALS = itertools.count(1)


class _Connection(sqlite3.Connection):
    """A store connection that knows its serial number (``Store.change_stamp``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.serial = next(_CONNECTION_SERIALS)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


def _wal_bytes(path: Path) -> int:
    try:
        return path.with_name(path.name + "-wal").stat().st_size
    except OSError:
        return 0


def _roll_back_hot_journal(path: Path) -> None:
    """Let SQLite roll back a journal left by a process killed mid-write (as any open does), so
    the file is judged as it was before (a kill while a new store switches to WAL leaves a
    first page that reads as "not SQLite")."""
    journal = path.with_name(path.name + "-journal")
    try:
        if journal.stat().st_size == 0:
            return
    except OSError:
        return
    try:
        with contextlib.closing(sqlite3.connect(str(path), isolation_level=None,
                                                timeout=BUSY_TIMEOUT_MS / 1000)) as conn:
            conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.Error:
        return  # the file is judged below as it is


READ_ONLY_REASON = ("the store file is read-only: browsing works, nothing can be written "
                    "(make it writable to change it)")
"""Why a write is refused on a store opened read-only."""


def is_read_only_file(path: Path) -> bool:
    """Whether the file's permissions refuse writing (to anyone, or to this process)."""
    mode = path.stat().st_mode
    return mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) == 0 or \
        not os.access(path, os.W_OK)


def check_store_file(path: Path, *, allow_read_only: bool = False) -> bool:
    """Check a path can hold a memtui store, writing nothing (but rolling back a hot journal,
    as opening it would): True when the file has content, False when a new store would be
    made; else a one-line ``StoreError`` (a read-only file too, unless ``allow_read_only``)."""
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, not a memtui database")
    if not path.parent.is_dir():
        raise StoreError(f"{path}: folder {path.parent} does not exist")
    if not path.exists():
        return False
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise StoreError(f"{path}: not a regular file")
    read_only = is_read_only_file(path)
    if read_only and not allow_read_only:
        raise StoreError(f"{path}: the file is read-only")
    if not read_only:
        _roll_back_hot_journal(path)
    size = path.stat().st_size
    if size == 0:
        if read_only:
            raise StoreError(f"{path}: the file is read-only (and empty: no store to show)")
        return False
    with path.open("rb") as handle:
        header = handle.read(100)
    if not header.startswith(SQLITE_HEADER):
        raise StoreError(f"{path}: not a memtui database (not an SQLite file)")
    if len(header) < 100:
        raise StoreError(f"{path}: the database file is truncated")
    page_size = int.from_bytes(header[_PAGE_SIZE_OFFSET:_PAGE_SIZE_OFFSET + 2], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(header[_PAGE_COUNT_OFFSET:_PAGE_COUNT_OFFSET + 4], "big")
    if page_size and page_count and size < page_size * page_count and not _wal_bytes(path):
        # While another process checkpoints, page 1 (with the new page count) can reach the
        # file before the pages that extend it: only a file with no live WAL is judged.
        raise StoreError(f"{path}: the database file is truncated")
    return True


def check_store_owner(path: Path) -> None:
    """Refuse (``PermissionDenied``) a whole-store export unless the OS user running memtui
    owns the store file (asked before opening it: a mistyped path makes no new store)."""
    try:
        owner = path.stat().st_uid
    except OSError as error:
        raise StoreError(f"{path}: cannot read the store file ({error.strerror})") from None
    if not hasattr(os, "geteuid") or owner != os.geteuid():
        raise PermissionDenied(f"{path}: a whole-store export (--all) is only for the OS user "
                               "who owns the store file; without --all, export what you may "
                               "read")


class Store(StoreBackend):
    """A memtui store on one SQLite file: connections, transactions, clock and ids."""

    dialect = SQLITE
    _local: ThreadState[sqlite3.Connection]

    def __init__(self, path: Path, *, clock: Clock | None = None,
                 ids: IdFactory | None = None, read_only: bool = False) -> None:
        super().__init__(str(path), clock=clock, ids=ids, read_only=read_only)
        self.path = path
        self._connections: list[sqlite3.Connection] = []

    # -- connections ---------------------------------------------------------------------

    def open_connection(self) -> sqlite3.Connection:
        """A new connection that the store closes with the rest (a ``QueryLane``'s)."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self.path}: the store is closed")
        target = f"{self.path.resolve().as_uri()}?mode=ro" if self.read_only else str(self.path)
        try:
            conn = sqlite3.connect(target, uri=self.read_only, isolation_level=None,
                                   timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                                   factory=_Connection)
            for pragma in (f"busy_timeout = {BUSY_TIMEOUT_MS}", "foreign_keys = ON",
                           "secure_delete = ON", "synchronous = NORMAL", "temp_store = MEMORY"):
                conn.execute(f"PRAGMA {pragma}")
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: cannot open the database ({error})") from None
        with self._lock:
            self._connections.append(conn)
        return conn

    def lane(self) -> QueryLane:
        """A new ``QueryLane`` (search as you type)."""
        from memtui.store.query_lane import QueryLane

        return QueryLane(self)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection. ``TransactionLost`` inside a transaction SQLite already
        rolled back, and ``QueryInterrupted`` for a lane's obsolete reader: every statement
        asks for it, so none runs outside its transaction or for an answer nobody wants."""
        state = self._local
        if state.obsolete is not None and state.obsolete():
            raise QueryInterrupted("a newer read replaced this one")
        conn = state.conn if state.conn is not None else state.bound
        if conn is None:
            conn = state.conn = self.open_connection()
        elif state.depth > 0 and not conn.in_transaction:
            raise self._lost()
        return conn

    def _lost(self) -> TransactionLost:
        return TransactionLost(f"{self.path}: SQLite rolled the transaction back when one "
                               "of its statements failed; nothing it wrote was kept")

    def _close_connections(self) -> None:
        with self._lock:
            self._closed = True
            for conn in self._connections:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._connections.clear()

    # -- transactions --------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self, *, shared: bool = False) -> Iterator[sqlite3.Connection]:
        """``StoreBackend.transaction`` as ``BEGIN IMMEDIATE``, retried while the database is
        busy (SQLite has one writer: ``shared`` changes nothing). Once SQLite itself rolled it
        back (an interrupt, a full disk), the block's later statements and its end raise
        ``TransactionLost``."""
        if self.read_only:
            raise StoreError(f"{self.path}: {READ_ONLY_REASON}")
        conn = self.conn
        if self._local.depth > 0:
            self._local.depth += 1
            try:
                yield conn
            finally:
                self._local.depth -= 1
            return
        self._while_busy(conn, "BEGIN IMMEDIATE", sqlite3.OperationalError, _STAYED_BUSY)
        self._local.depth = 1
        self._local.writing = True
        try:
            yield conn
            if not conn.in_transaction:
                raise self._lost()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        else:
            self._while_busy(conn, "COMMIT", sqlite3.Error, "could not commit", roll_back=True)
        finally:
            self._local.depth = 0
            self._local.writing = False
            self.write_ended()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: several queries see one consistent state of the store."""
        conn = self.conn
        if self._local.depth > 0 or conn.in_transaction:
            yield conn
            return
        self._while_busy(conn, "BEGIN", sqlite3.OperationalError, _STAYED_BUSY)
        self._local.depth = 1
        try:
            yield conn
        finally:
            self._local.depth = 0
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")

    def _while_busy(self, conn: sqlite3.Connection, statement: str, caught: type[sqlite3.Error],
                    failure: str, roll_back: bool = False) -> None:
        """Run ``statement``, retried while the database is busy; any other ``caught`` error
        (or one past ``BUSY_RETRY_SECONDS``) is raised as ``failure`` (after a rollback)."""
        deadline = time.monotonic() + BUSY_RETRY_SECONDS
        while True:
            try:
                conn.execute(statement)
                return
            except caught as error:
                busy = isinstance(error, sqlite3.OperationalError) and _is_busy(error)
                if not busy or time.monotonic() > deadline:
                    if roll_back:
                        with contextlib.suppress(sqlite3.Error):
                            conn.execute("ROLLBACK")
                    raise StoreError(f"{self.path}: {failure} ({error})") from None
                time.sleep(BUSY_RETRY_PAUSE_SECONDS)

    # -- change detection ----------------------------------------------------------------

    def data_version(self) -> int:
        """SQLite's ``data_version``: changes when another connection commits a write."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def change_stamp(self) -> tuple[int, ...] | None:
        """``StoreBackend.change_stamp`` with the serial number of the connection it was read
        on: ``data_version`` counts per connection, so two connections' stamps never compare
        equal."""
        stamp = super().change_stamp()
        return None if stamp is None else (int(getattr(self.conn, "serial", 0)), *stamp)

    def schema_version(self) -> int:
        """The schema version recorded in the file."""
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def vacuum(self, full: bool = False) -> VacuumResult:
        """Merge each full-text index into one segment, rebuild the file (``VACUUM``;
        ``secure_delete`` zeroes the freed pages), truncate the log (``full`` changes nothing);
        refused on a read-only store."""
        from memtui.store.maintenance import FTS_TABLES, VACUUM_WAL_WAIT_S, VacuumResult

        if self.read_only:
            raise StoreError(f"{self.path}: {READ_ONLY_REASON}")
        if self.conn.in_transaction or self._local.depth > 0:
            raise StoreError(f"{self.path}: cannot vacuum inside a transaction")
        before = self._bytes_on_disk()
        with self.transaction():
            for table in FTS_TABLES:
                self.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
                keep_levels_bounded(self, table)
        # VACUUM builds the new file as a temporary database: on disk, not in memory (where it
        # would hold a whole copy of the store).
        temp_store = int(self.execute("PRAGMA temp_store").fetchone()[0])
        self.execute("PRAGMA temp_store = FILE")
        try:
            self.execute("VACUUM")
        except sqlite3.OperationalError as error:
            raise StoreError(f"{self.path}: VACUUM failed ({error})") from None
        finally:
            self.execute(f"PRAGMA temp_store = {temp_store}")
        done = ["merged the full-text indexes (the words of deleted rows are gone from them)",
                "rebuilt the database file (VACUUM)"]
        pending = None
        if self.purge_deleted(VACUUM_WAL_WAIT_S):
            done.append("truncated the write-ahead log")
        else:
            pending = (f"another connection holds a read transaction, so {self.path.name}-wal "
                       "still holds older copies of pages; run it again once it lets go")
        return VacuumResult(full=full, bytes_before=before, bytes_after=self._bytes_on_disk(),
                            done=tuple(done), pending=pending)

    def _bytes_on_disk(self) -> int:
        try:
            size = self.path.stat().st_size
        except OSError as error:
            raise StoreError(f"{self.path}: cannot read the file's size "
                             f"({error.strerror})") from None
        return size + self.purge_backlog_bytes()

    def checkpoint(self) -> bool:
        """Fold the WAL into the main file and truncate it. False if readers prevented it."""
        row = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return bool(row) and row[0] == 0

    # -- backend-neutral maintenance -------------------------------------------------------

    def purge_deleted(self, wait_s: float) -> bool:
        """Checkpoint the write-ahead log and truncate it, so no older copy of a page (a deleted
        row's text) is left in it; attempts repeat while readers hold it, until ``wait_s`` has
        passed. False at once inside a transaction of this thread (it would block itself)."""
        conn = self.conn
        if self._local.depth > 0 or conn.in_transaction:
            return False
        deadline = time.monotonic() + max(0.0, wait_s)
        conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_ATTEMPT_MS}")
        try:
            while True:
                try:
                    if self.checkpoint():
                        return True  # truncated (a write after it adds only new frames)
                except sqlite3.OperationalError as error:
                    if not _is_busy(error):
                        raise StoreError(f"{self.path}: checkpoint failed ({error})") from None
                if time.monotonic() >= deadline:
                    return False
                time.sleep(BUSY_RETRY_PAUSE_SECONDS)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def purge_backlog_bytes(self) -> int:
        """The size of the write-ahead log file (0 when it is missing or truncated)."""
        return _wal_bytes(self.path)

    def purge_location(self) -> str:
        """The write-ahead log file's name."""
        return f"{self.path.name}-wal"

    def exposure_problems(self) -> list[str]:
        """The store file, when its mode lets other users read it."""
        try:
            mode = stat.S_IMODE(self.path.stat().st_mode)
        except OSError:
            return []
        if not mode & OTHERS_READ:
            return []
        return [f"{self.path}: other users can read the store (mode {mode:o}): chmod 600 it "
                "and its -wal and -shm files, unless you share it on purpose"]

    def check_whole_store_access(self) -> None:
        """Only the OS user who owns the store file may export it whole."""
        check_store_owner(self.path)

    def failure(self, error: BaseException) -> StoreError | None:
        """``database_failure`` for an ``sqlite3`` error."""
        if isinstance(error, sqlite3.Error):
            return database_failure(self.path, error)
        return None


def _prepare(store: Store) -> None:
    conn = store.conn
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{store.path}: not a memtui database ({error})") from None
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        raise StoreError(f"{store.path}: not a memtui database")
    if version > LATEST_VERSION:
        raise StoreError(f"{store.path}: made by a newer memtui (schema {version}; this version "
                         f"knows up to {LATEST_VERSION}); upgrade memtui to open it")
    missing = _skipped_versions(conn, version)
    outdated = version < LATEST_VERSION or bool(missing)
    if store.read_only and outdated:
        raise StoreError(f"{store.path}: the file is read-only and was made by an older "
                         "memtui; opening it needs an upgrade, which writes: make it "
                         "writable once")
    if outdated:
        _migrate(store, version, missing)
    elif not store.read_only and \
            conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode = WAL")


def _recorded_versions(conn: sqlite3.Connection) -> set[int] | None:
    try:
        return {int(row[0]) for row in conn.execute("SELECT version FROM schema_migrations")}
    except sqlite3.DatabaseError:
        return None


def _skipped_versions(conn: sqlite3.Connection, version: int) -> frozenset[int]:
    """Migrations numbered below the file's version that it never ran (they run on opening)."""
    recorded = _recorded_versions(conn) if version else None
    if recorded is None:
        return frozenset()
    return frozenset(number for number, _script in MIGRATIONS
                     if number <= version and number not in recorded)


def _migrate(store: Store, current: int, skipped: frozenset[int] = frozenset()) -> None:
    conn = store.conn
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(f"{store.path}: could not switch the database to WAL mode")
    for version, script in MIGRATIONS:
        if version <= current and version not in skipped:
            continue
        stamp = format_time(store.clock())
        try:
            conn.executescript(
                "BEGIN IMMEDIATE;\n" + script
                + f"\nINSERT INTO schema_migrations(version, applied_at) VALUES ({version}, '{stamp}');"
                + f"\nPRAGMA application_id = {APPLICATION_ID};"
                + f"\nPRAGMA user_version = {max(version, current)};\nCOMMIT;"
            )
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if current == 0 and conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                continue  # another process created the schema at the same moment
            if version in (_recorded_versions(conn) or set()):
                continue  # another process ran this migration at the same moment
            raise StoreError(f"{store.path}: migration {version} failed ({error})") from None


SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside a database."""


def discard_empty_store(path: Path) -> None:
    """Delete an empty store file a command created, and its side files (once closed)."""
    for name in (path.name, *(path.name + suffix for suffix in SIDE_FILE_SUFFIXES)):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(name).unlink()


DAMAGE_WORDS = ("malformed", "not a database", "decode", "corrupt", "disk i/o", "disk image",
                "vtable constructor failed")
"""Words in SQLite's error messages that mean the file itself is damaged."""
MAX_ERROR_DETAIL_CHARS = 120
_QUOTED_TEXT = re.compile(r" with text '.*$")
"""The stored text SQLite quotes in a decode error (it may hold anything: never shown)."""


def database_failure(path: Path, error: sqlite3.Error) -> StoreError:
    """The one-line error for an SQLite failure that reached a front end, naming ``memtui
    doctor``; the detail is cut short (SQLite's decode errors quote the stored text)."""
    detail = _QUOTED_TEXT.sub("", " ".join(str(error).split()))
    if len(detail) > MAX_ERROR_DETAIL_CHARS:
        detail = detail[:MAX_ERROR_DETAIL_CHARS - 1] + "…"
    if any(word in detail.lower() for word in DAMAGE_WORDS):
        return StoreError(f"{path}: the database is damaged ({detail}); run `memtui doctor` "
                          "to see what is wrong")
    return StoreError(f"{path}: database error ({detail}); run `memtui doctor` to check "
                      "the store")


def backend_name(target: str | os.PathLike[str]) -> str:
    """The dialect name of the store ``target`` names (``sqlite``, ``postgresql``), unopened."""
    return POSTGRESQL.name if is_postgres_url(target) else SQLITE.name


def open_store(target: str | os.PathLike[str], *, clock: Clock | None = None,
               ids: IdFactory | None = None, create_folder: bool = False,
               allow_read_only: bool = False) -> StoreBackend:
    """Open the store ``target`` names: a ``postgresql://`` URL, else an SQLite file."""
    if is_postgres_url(target):
        from memtui.store.postgres.store import open_postgres_store

        return open_postgres_store(str(target).strip(), clock=clock, ids=ids)
    return open_sqlite_store(target, clock=clock, ids=ids, create_folder=create_folder,
                             allow_read_only=allow_read_only)


def open_sqlite_store(path: str | os.PathLike[str], *, clock: Clock | None = None,
                      ids: IdFactory | None = None, create_folder: bool = False,
                      allow_read_only: bool = False) -> Store:
    """Open (creating or migrating as needed) the memtui store at ``path``; a one-line
    ``StoreError`` for a file that cannot be one (nothing written to it). A new store file is
    ``0600``; ``create_folder`` makes a missing parent folder ``0700``; ``allow_read_only``
    opens a read-only file read-only."""
    target = Path(path).expanduser()
    if create_folder:
        make_private_folder(target.parent)
    existed = check_store_file(target, allow_read_only=allow_read_only)
    if not existed:  # SQLite gives the -wal, -shm and -journal files the store file's mode
        create_private_file(target.resolve())  # where SQLite makes it, through any symlink
    read_only = existed and allow_read_only and is_read_only_file(target)
    return Store(target, clock=clock, ids=ids, read_only=read_only).prepared(_prepare)
