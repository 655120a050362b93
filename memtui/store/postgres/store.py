"""The PostgreSQL store: a pool of connections, transactions, migrations, change messages.

A statement outside a transaction borrows a pooled connection (autocommit); a transaction
or snapshot holds one for the thread until the outermost block ends. Writers take turns on
an advisory lock, as with SQLite's ``BEGIN IMMEDIATE``, so every read-check-write rule holds
across machines. ``data_version()`` counts the notifications every committed write sends.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from memtui.errors import QueryInterrupted, StoreError
from memtui.store.backend import Connection, Lazy, StoreBackend, ThreadState
from memtui.store.dialect import POSTGRESQL
from memtui.store.ids import IdFactory
from memtui.store.postgres.adapter import parameters, redact_url, scrub, statement
from memtui.store.postgres.schema import (
    CHANGES_CHANNEL,
    PG_LATEST_VERSION,
    PG_MIGRATIONS,
    STORE_MARK,
)
from memtui.store.schema import APPLICATION_ID
from memtui.store.timeutil import Clock, format_time

if TYPE_CHECKING:
    from memtui.store.maintenance import VacuumResult
    from memtui.store.postgres.lane import PgQueryLane
    from memtui.store.postgres.repositories import PgRecallRepository

WRITE_LOCK_KEY = APPLICATION_ID
"""The advisory lock every write transaction holds (``pg_advisory_xact_lock``)."""
MIGRATION_LOCK_KEY = APPLICATION_ID + 1
"""The advisory lock a process holds while it checks and migrates the schema."""
CONNECT_TIMEOUT_S = 10
"""How long opening a connection waits for the server."""
POOL_MAX_SIZE = 8
"""Pooled connections at most per store (lanes and the listener have their own)."""
POOL_TIMEOUT_S = 30.0
"""How long a statement waits for a free pooled connection."""
CUSTOM_PLANS = "SET plan_cache_mode = force_custom_plan"
"""Run on every connection: each statement is planned for its own parameters (a generic plan
is blind to whether the words searched are rare or common)."""
CUSTOM_PLANS_SINCE = 120_000
"""``plan_cache_mode`` exists from PostgreSQL 12 on."""
PRUNED_TERMS = ("removed the word counts recall remembered before the last delete or change "
                "of text (common_terms)")
"""What ``vacuum`` says it did first (schema migration 7)."""
PRUNE_COMMON_TERMS = ("DELETE FROM common_terms c USING term_epochs e "
                      "WHERE c.source = e.source AND c.epoch < e.epoch")
"""Remove the remembered word counts whose epoch is not their table's any more."""
VACUUMED_TABLES = ("memories", "forgotten_sources", "audit", "tasks", "task_followups",
                   "extraction_log", "interactions", "bundle_documents", "consolidations",
                   "pending_purges", "agent_sessions", "codex_rollout_files", "common_terms",
                   "agent_writes", "extraction_details")
"""Tables ``vacuum`` runs over: every table whose rows a forget or an edit deletes or rewrites."""


def configure_connection(conn: psycopg.Connection[Any]) -> None:
    """Session settings of every connection the store opens (``CUSTOM_PLANS``)."""
    if conn.info.server_version >= CUSTOM_PLANS_SINCE:
        conn.execute(CUSTOM_PLANS)


class PgConnection:
    """A connection as the repositories use it (``?`` statements): bound to one psycopg
    connection, or running each statement on the thread's or a borrowed one."""

    def __init__(self, store: PostgresStore,
                 raw: psycopg.Connection[Any] | None = None) -> None:
        self._store = store
        self._raw = raw

    def execute(self, sql: str, parameters_: Any = (), /) -> Any:
        """Run one statement; returns psycopg's cursor (rows fetched with it)."""
        return self._store._run(sql, parameters_, many=False, held=self._raw)

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Any:
        """Run one statement per parameter row (pipelined by psycopg)."""
        return self._store._run(sql, seq_of_parameters, many=True, held=self._raw)

    @property
    def in_transaction(self) -> bool:
        """Whether the bound connection is inside a transaction (False when unbound)."""
        return self._raw is not None and not self._raw.closed and \
            self._raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE


class PostgresStore(StoreBackend):
    """A memtui store in a PostgreSQL database (see the module doc)."""

    dialect = POSTGRESQL
    _local: ThreadState[psycopg.Connection[Any]]

    def __init__(self, url: str, *, clock: Clock | None = None,
                 ids: IdFactory | None = None) -> None:
        super().__init__(redact_url(url), clock=clock, ids=ids)
        self._url = url
        self._pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        self._extra: list[psycopg.Connection[Any]] = []
        self._listener: psycopg.Connection[Any] | None = None
        self._listen_lock = threading.Lock()
        self._changes = 0
        self._listened = False
        self._unbound = PgConnection(self)
        self._adapters: weakref.WeakKeyDictionary[psycopg.Connection[Any], PgConnection] = \
            weakref.WeakKeyDictionary()

    # -- the repository that differs ----------------------------------------------------------

    recall: Lazy[PgRecallRepository] = Lazy("memtui.store.postgres.repositories",
                                            "PgRecallRepository")
    """Recall data, with PostgreSQL's full-text ranking."""

    def error(self, message: str, error: BaseException | None = None) -> StoreError:
        """A one-line ``StoreError`` naming the database (never its password)."""
        detail = ""
        if error is not None:
            detail = " ".join(str(error).split()) or type(error).__name__
            detail = f" ({scrub(detail, self._url)[:240]})"
        return StoreError(f"{self.location}: {message}{detail}")

    # -- connections ---------------------------------------------------------------------------

    def connect(self) -> psycopg.Connection[Any]:
        """A new autocommit connection outside the pool (closed with the store)."""
        with self._lock:
            if self._closed:
                raise self.error("the store is closed")
        conn: psycopg.Connection[Any] | None = None
        try:
            conn = psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            configure_connection(conn)
        except psycopg.Error as error:
            if conn is not None:
                with contextlib.suppress(psycopg.Error):
                    conn.close()
            raise self.error("cannot connect to the database", error) from None
        with self._lock:
            self._extra.append(conn)
        return conn

    def _get_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        pool = self._pool
        if pool is None:
            with self._lock:
                if self._closed:
                    raise self.error("the store is closed")
                if self._pool is None:
                    # check: a connection the server ended while it waited in the pool (a
                    # restart, an administrator's pg_terminate_backend, an idle timeout) is
                    # replaced before it is handed out, not found broken by the next call
                    self._pool = ConnectionPool(
                        self._url, min_size=1, max_size=POOL_MAX_SIZE, open=True,
                        kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                        configure=configure_connection, check=ConnectionPool.check_connection,
                        timeout=POOL_TIMEOUT_S, name="memtui")
                pool = self._pool
        return pool

    def _borrow(self) -> psycopg.Connection[Any]:
        if self._closed:
            raise self.error("the store is closed")
        try:
            return self._get_pool().getconn()
        except PoolTimeout as error:
            raise self.error("no database connection became free", error) from None

    def _give_back(self, conn: psycopg.Connection[Any]) -> None:
        pool = self._pool
        if pool is None:
            with contextlib.suppress(psycopg.Error):
                conn.close()
            return
        with contextlib.suppress(Exception):
            pool.putconn(conn)

    @property
    def conn(self) -> Connection:
        """This thread's connection: its transaction's or lane's, else one borrowing per call."""
        if self._closed:
            raise self.error("the store is closed")
        state = self._local
        held = state.conn if state.conn is not None else state.bound
        if held is None:
            return self._unbound
        with self._lock:  # one adapter per connection: the same object each time
            adapter = self._adapters.get(held)
            if adapter is None:
                adapter = self._adapters[held] = PgConnection(self, held)
            return adapter

    def _run(self, sql: str, params: Any, *, many: bool,
             held: psycopg.Connection[Any] | None = None) -> Any:
        if held is None:
            held = self._local.conn if self._local.conn is not None else self._local.bound
        query = statement(sql, params if not many else None)
        if held is not None:
            return self._run_on(held, query, params, many)
        conn = self._borrow()
        try:
            return self._run_on(conn, query, params, many)
        finally:
            self._give_back(conn)

    def execute_apart(self, sql: str, params: Any = ()) -> int:
        """Run one statement outside this thread's transaction; the rows it changed."""
        conn = self._borrow()
        try:
            cursor = self._run_on(conn, statement(sql, params), params, False)
            return int(cursor.rowcount)
        except psycopg.Error as error:
            raise self.error("database error", error) from None
        finally:
            self._give_back(conn)

    def _run_on(self, conn: psycopg.Connection[Any], query: str, params: Any,
                many: bool) -> Any:
        obsolete = self._local.obsolete
        if obsolete is not None and obsolete():
            raise QueryInterrupted("a newer read replaced this one")
        cursor = conn.cursor()
        if many:
            rows = [parameters(row) for row in params]
            if rows:
                cursor.executemany(query, rows)
            return cursor
        cursor.execute(query, parameters(params))
        return cursor

    def lane(self) -> PgQueryLane:
        """A new lane: a connection of its own; ``begin()`` cancels the obsolete query."""
        from memtui.store.postgres.lane import PgQueryLane

        return PgQueryLane(self)

    def _close_connections(self) -> None:
        """Close the pool, the listener and every connection this store opened."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            extra, self._extra = self._extra, []
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.close()
        for conn in extra:
            with contextlib.suppress(Exception):
                conn.close()
        with self._listen_lock:
            self._listener = None

    # -- transactions ----------------------------------------------------------------------

    def _open_block(self, begin: str) -> psycopg.Connection[Any]:
        state = self._local
        pooled = state.bound is None
        conn = self._borrow() if state.bound is None else state.bound
        try:
            conn.execute(begin)
        except psycopg.Error as error:
            if pooled:
                self._give_back(conn)
            raise self.error("cannot start a transaction", error) from None
        state.conn, state.depth, state.pooled = conn, 1, pooled
        return conn

    def _close_block(self, conn: psycopg.Connection[Any]) -> None:
        state = self._local
        pooled = state.pooled
        state.conn, state.depth, state.writing, state.pooled = None, 0, False, False
        if pooled:
            self._give_back(conn)

    def _lock_writers(self, conn: psycopg.Connection[Any], shared: bool = False) -> None:
        function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
        try:
            conn.execute(f"SELECT {function}(%s)", (WRITE_LOCK_KEY,))
        except psycopg.Error as error:
            raise self.error("could not wait for the other writers", error) from None
        self._local.writing = True

    @contextlib.contextmanager
    def transaction(self, *, shared: bool = False) -> Iterator[Connection]:
        """``StoreBackend.transaction``: an advisory lock (shared mode when ``shared``)."""
        state = self._local
        if state.depth > 0:
            assert state.conn is not None
            if not state.writing:  # a snapshot that goes on to write
                self._lock_writers(state.conn)
            state.depth += 1
            try:
                yield self.conn
            finally:
                state.depth -= 1
            return
        conn = self._open_block("BEGIN ISOLATION LEVEL READ COMMITTED")
        try:
            self._lock_writers(conn, shared)
            yield self.conn
            try:
                conn.execute("COMMIT")
            except psycopg.Error as error:
                # in SQLite's words where the engine looks for them (a deferred foreign key)
                raise self.error("could not commit (FOREIGN KEY constraint failed)"
                                 if isinstance(error, pg_errors.ForeignKeyViolation)
                                 else "could not commit", error) from None
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                conn.execute("ROLLBACK")
            raise
        finally:
            self._close_block(conn)
            self.write_ended()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read transaction (``REPEATABLE READ``): its queries see one state."""
        state = self._local
        if state.depth > 0:
            yield self.conn
            return
        conn = self._open_block("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try:
            yield self.conn
        finally:
            with contextlib.suppress(psycopg.Error):
                conn.execute("COMMIT" if conn.info.transaction_status
                             == psycopg.pq.TransactionStatus.INTRANS else "ROLLBACK")
            self._close_block(conn)

    # -- change detection --------------------------------------------------------------

    def _listening(self) -> psycopg.Connection[Any]:
        listener = self._listener
        if listener is None or listener.closed:
            listener = self.connect()
            listener.execute(f"LISTEN {CHANGES_CHANNEL}")
            if self._listened:
                self._changes += 1  # messages sent while it was gone are lost: say "changed"
            self._listener, self._listened = listener, True
        return listener

    def _drain(self, timeout_s: float, stop_after: int | None) -> int:
        with self._listen_lock:
            listener = self._listening()
            try:
                got = sum(1 for _ in listener.notifies(timeout=timeout_s, stop_after=stop_after))
            except psycopg.Error as error:
                self._listener = None
                raise self.error("lost the connection that watches for changes", error) \
                    from None
            self._changes += got
            return got

    def data_version(self) -> int:
        """How many change messages this store has received (never waits)."""
        self._drain(0.0, None)
        return self._changes

    def wait_for_change(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for a change message; True when one came."""
        return self._drain(max(0.0, timeout_s), 1) > 0

    def schema_version(self) -> int:
        """The newest migration recorded in ``schema_migrations``."""
        return int(self.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] or 0)

    # -- backend-neutral maintenance -------------------------------------------------------

    def purge_location(self) -> str:
        """Where deleted rows wait: the database's files until they are vacuumed."""
        return f"{self.location} (until VACUUM)"

    def check_whole_store_access(self) -> None:
        """Allowed: whoever can log in can read every table."""

    def failure(self, error: BaseException) -> StoreError | None:
        """A one-line error for a psycopg error (the password never in it)."""
        if isinstance(error, StoreError):
            return error
        if isinstance(error, psycopg.Error):
            return self.error("database error", error)
        return None

    def vacuum(self, full: bool = False) -> VacuumResult:
        """Drop the word counts that no longer hold, then ``VACUUM (ANALYZE)`` (or ``FULL``)
        each table rows are deleted from or rewritten in (sizes: those with their indexes)."""
        if self._local.depth > 0:
            raise self.error("cannot vacuum inside a transaction")
        from memtui.store.maintenance import VacuumResult

        verb = "VACUUM (FULL, ANALYZE)" if full else "VACUUM (ANALYZE)"
        conn = self.connect()
        try:
            owner = conn.execute(
                "SELECT min(tableowner) FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename = ANY(%s) AND NOT pg_has_role(current_user, tableowner, "
                "'USAGE')", (list(VACUUMED_TABLES),)).fetchone()
            if owner is not None and owner[0] is not None:
                # PostgreSQL would skip each table with a warning and vacuum nothing
                raise self.error(f"VACUUM needs the tables' owner: run it as {owner[0]}")
            before = self._table_bytes(conn)
            try:
                conn.execute(PRUNE_COMMON_TERMS)
            except psycopg.Error as error:
                raise self.error("removing outdated word counts failed", error) from None
            for table in VACUUMED_TABLES:
                try:
                    conn.execute(f"{verb} {table}")
                except psycopg.Error as error:
                    raise self.error(f"{verb} {table} failed", error) from None
            after = self._table_bytes(conn)
        finally:
            with contextlib.suppress(psycopg.Error):
                conn.close()
        what = ("rewrote the memory tables and their indexes into new files (VACUUM FULL)"
                if full else "marked the space of deleted rows free for reuse and dropped "
                "their words from the full-text indexes (VACUUM)")
        return VacuumResult(full=full, bytes_before=before, bytes_after=after,
                            done=(PRUNED_TERMS, what))

    @staticmethod
    def _table_bytes(conn: psycopg.Connection[Any]) -> int:
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(to_regclass(name))), 0) "
            "FROM unnest(%s::text[]) AS name", (list(VACUUMED_TABLES),)).fetchone()
        return int(row[0]) if row else 0


# -- opening ---------------------------------------------------------------------------------


def _prepare(store: PostgresStore) -> None:
    """Check the database is a memtui store (or empty), refuse a newer schema, migrate."""
    conn = store.connect()
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
        try:
            _check_and_migrate(store, conn)
        finally:
            with contextlib.suppress(psycopg.Error):
                conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
    except psycopg.Error as error:
        raise store.error("cannot prepare the database", error) from None
    finally:
        with contextlib.suppress(psycopg.Error):
            conn.close()


def _check_and_migrate(store: PostgresStore, conn: psycopg.Connection[Any]) -> None:
    row = conn.execute(
        "SELECT obj_description(to_regclass('schema_migrations'), 'pg_class'), "
        "(SELECT count(*) FROM pg_tables WHERE schemaname = current_schema())").fetchone()
    assert row is not None
    mark, tables = row
    if mark is None:
        if tables:
            raise store.error("not a memtui database (it holds other tables)")
        version, recorded = 0, set[int]()
    elif mark != STORE_MARK:
        raise store.error("not a memtui database")
    else:
        recorded = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
        version = max(recorded, default=0)
    if version > PG_LATEST_VERSION:
        raise store.error(f"made by a newer memtui (schema {version}; this version knows up "
                          f"to {PG_LATEST_VERSION}); upgrade memtui to open it")
    for number, script in PG_MIGRATIONS:
        if number in recorded:
            continue
        stamp = format_time(store.clock())
        try:
            with conn.transaction():
                conn.execute(script)
                conn.execute("INSERT INTO schema_migrations(version, applied_at) "
                             "VALUES (%s, %s)", (number, stamp))
        except psycopg.Error as error:
            raise store.error(f"migration {number} failed", error) from None


def open_postgres_store(url: str, *, clock: Clock | None = None,
                        ids: IdFactory | None = None) -> PostgresStore:
    """Open (creating or migrating) the memtui store at ``url``; ``StoreError`` when it cannot."""
    return PostgresStore(url, clock=clock, ids=ids).prepared(_prepare)
