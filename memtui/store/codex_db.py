"""Codex's sqlite files: ``detect_layout``, ``read_codex_dbs`` (``mode=ro``) and the one
write, ``forget_thread_memory`` (Codex's own forget, one ``BEGIN IMMEDIATE`` over both files).
A layout memtui does not know is never written. Every failure is a ``CodexDbError`` naming the
file.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from memtui.errors import StoreError
from memtui.store.codex_models import (
    CONSOLIDATE_JOB_KIND,
    GLOBAL_JOB_KEY,
    LAYOUT_MEMORIES_DB,
    LAYOUT_MEMORIES_V2,
    LAYOUT_NONE,
    LAYOUT_OLD,
    LAYOUT_STATE_DB,
    LAYOUT_UNKNOWN,
    STAGE1_JOB_KIND,
    TIME_ANNOTATION,
    CodexDbRead,
    CodexLayout,
    DatabaseFile,
    ForgetRows,
    JobRow,
    Stage1Row,
    ThreadRow,
)
from memtui.store.repository import columns_of

CODEX_DB_FILE_NAME = "memories_1.sqlite"
CODEX_V2_DB_FILE_NAME = "memories_v2_1.sqlite"
STATE_DB_FILE_NAME = "state_5.sqlite"
DEFAULT_READ_BUSY_TIMEOUT_S = 2.0
"""How long a read waits for a lock held by a running Codex before giving up."""
DEFAULT_WRITE_BUSY_TIMEOUT_S = 5.0
"""How long ``forget_thread`` waits for a lock held by a running Codex before giving up."""
MEMORY_FILE_RE = re.compile(r"^memories(?:_v(\d+))?_(\d+)\.sqlite$")
STATE_FILE_RE = re.compile(r"^state_(\d+)\.sqlite$")
KNOWN_DB_FILE_NAMES = frozenset({CODEX_DB_FILE_NAME, CODEX_V2_DB_FILE_NAME, STATE_DB_FILE_NAME})
MAX_ROWS_PER_TABLE = 100_000
"""Rows read per table at most: a browsing bound, far above what Codex keeps."""

STAGE1_TABLE = "stage1_outputs"
JOBS_TABLE = "jobs"
PROGRESS_TABLE = "consolidation_progress"
THREADS_TABLE = "threads"
MIGRATIONS_TABLE = "_sqlx_migrations"
REQUIRED_TABLES = (STAGE1_TABLE, JOBS_TABLE)
OLD_MEMORY_TABLES = frozenset({"thread_memory", "memory_phase1_jobs"})
"""Tables of the memory schema Codex used before 2026-02-10 (not supported)."""
FIRST_STATE_MEMORY_MIGRATION = 6
"""The state migration that added ``stage1_outputs`` and ``jobs`` to ``state_5.sqlite``."""
POLLUTED = "polluted"
"""``threads.memory_mode`` of a thread Codex must forget and never extract again."""
DEFAULT_RETRY_REMAINING = 3
"""Retries an enqueued global consolidation gets at least (Codex's ``DEFAULT_RETRY_REMAINING``)."""
STATE_SCHEMA = "state"
"""The name ``state_5.sqlite`` is attached under while a forget spans both files."""

STAGE1_KEY_COLUMNS = ("thread_id",)
JOBS_KEY_COLUMNS = ("kind", "job_key", "status")

ReadT = TypeVar("ReadT")
RowT = TypeVar("RowT")

_BUSY_ERROR_NAMES = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_BUSY_SNAPSHOT",
                               "SQLITE_BUSY_RECOVERY", "SQLITE_LOCKED_SHAREDCACHE"})
_NOT_DB_ERROR_NAMES = frozenset({"SQLITE_NOTADB", "SQLITE_CORRUPT"})
_READONLY_FALLBACK_NAMES = frozenset({"SQLITE_READONLY_DIRECTORY", "SQLITE_CANTOPEN",
                                      "SQLITE_READONLY", "SQLITE_READONLY_RECOVERY",
                                      "SQLITE_READONLY_CANTINIT"})


class CodexDbError(StoreError, code="codex_db_error"):
    """Codex's ``memories_1.sqlite`` cannot be read or written; the message is one line."""


class CodexDbMissing(CodexDbError, code="codex_db_missing"):
    """The database file does not exist (or is not a regular file)."""


class CodexDbLocked(CodexDbError, code="codex_db_locked"):
    """Another process (usually a running Codex) holds a lock longer than the timeout."""


class CodexDbNotADatabase(CodexDbError, code="codex_db_not_a_database"):
    """The file is not an SQLite database, or it is corrupt."""


class CodexDbReadOnly(CodexDbError, code="codex_db_read_only", exit_code=4):
    """The database (or its folder) cannot be written: a read-only file, folder or file
    system, an immutable file. Exit 4, as every agent file memtui may not write."""


class CodexDbSchemaError(CodexDbError, code="codex_db_schema"):
    """The database lacks the tables or key columns of Codex's memory index."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _map_error(error: sqlite3.Error, path: Path, timeout_s: float) -> CodexDbError:
    name = getattr(error, "sqlite_errorname", "") or ""
    message = _one_line(str(error))
    lowered = message.lower()
    if name in _BUSY_ERROR_NAMES or "locked" in lowered or "busy" in lowered:
        return CodexDbLocked(
            f"{path}: database is locked by another process (is Codex running?); "
            f"gave up after {timeout_s:g} s")
    if name in _NOT_DB_ERROR_NAMES or "not a database" in lowered or "malformed" in lowered:
        return CodexDbNotADatabase(f"{path}: not an SQLite database or corrupt ({message})")
    if "readonly" in lowered or "read-only" in lowered:
        return CodexDbReadOnly(f"{path}: the database is read-only ({message})")
    return CodexDbError(f"{path}: {message}")


def _check_file(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise CodexDbMissing(f"{path}: Codex memory database not found") from None
    except OSError as error:
        reason = _one_line(str(error.strerror or error))
        raise CodexDbError(f"{path}: cannot access ({reason})") from None
    if not stat.S_ISREG(mode):
        raise CodexDbMissing(f"{path}: not a regular file")


def _connect(path: Path, mode: str, timeout_s: float, *, immutable: bool = False
             ) -> sqlite3.Connection:
    uri = f"{path.absolute().as_uri()}?mode={mode}" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None,
                           check_same_thread=False)
    conn.text_factory = lambda value: value.decode("utf-8", "replace")
    return conn


def _table_columns(conn: sqlite3.Connection, table: str, schema: str = "main") -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA {schema}.table_info({table})")}


def _require_schema(conn: sqlite3.Connection, path: Path) -> set[str]:
    tables = _schema_tables(conn, "main")
    missing = [name for name in REQUIRED_TABLES if name not in tables]
    if missing:
        raise CodexDbSchemaError(
            f"{path}: not a Codex memory database (missing table(s): {', '.join(missing)})")
    for table, keys in ((STAGE1_TABLE, STAGE1_KEY_COLUMNS), (JOBS_TABLE, JOBS_KEY_COLUMNS)):
        absent = [column for column in keys if column not in _table_columns(conn, table)]
        if absent:
            raise CodexDbSchemaError(
                f"{path}: table {table} lacks column(s) {', '.join(absent)}")
    return tables


def _select(conn: sqlite3.Connection, table: str, row_class: Any, order_by: str, limit: int,
            key_column: str | None = None) -> list[tuple[Any, ...]]:
    """The rows of ``table`` as ``row_class``'s fields in order (NULL for a column the table
    lacks; the first field read from ``key_column`` when given)."""
    columns = columns_of(row_class).split(", ")
    present = _table_columns(conn, table)
    select_list = ", ".join(name if name in present else f"NULL AS {name}"
                            for name in [key_column or columns[0], *columns[1:]])
    sql = f"SELECT {select_list} FROM {table} ORDER BY {order_by} LIMIT ?"
    return conn.execute(sql, (limit,)).fetchall()


def _as_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return int(value) if value == value and abs(value) < 2**63 else None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _as_text(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return None if value is None else str(value)


def _blank_none(value: object) -> str | None:
    return _as_text(value) or None


_READERS: dict[str, Callable[[object], object]] = {
    "str": lambda value: _as_text(value) or "", "str | None": _as_text, "int | None": _as_int,
    TIME_ANNOTATION: _as_int, "bool": lambda value: bool(_as_int(value) or 0)}
"""How a column is read into a row dataclass's field, by the field's annotation."""


def _row_of(cls: Callable[..., RowT], row: tuple[Any, ...], *, blank_none: bool = False) -> RowT:
    """``cls`` of a row whose columns follow its fields, each read as its field's type
    (``blank_none``: an empty optional text is None)."""
    readers = {**_READERS, "str | None": _blank_none} if blank_none else _READERS
    return cls(*(readers[str(field.type)](value)
                 for field, value in zip(fields(cast(Any, cls)), row, strict=True)))


def _keyed_rows(conn: sqlite3.Connection, table: str, row_class: Callable[..., RowT],
                order_by: str, max_rows: int, has_key: Callable[[tuple[Any, ...]], object],
                skipped: list[str]) -> tuple[RowT, ...]:
    """The rows of ``table`` with their key columns set; each other one noted in ``skipped``."""
    rows = _select(conn, table, row_class, order_by, max_rows)
    skipped += [f"{table} row {index}: empty key column(s); skipped"
                for index, row in enumerate(rows, start=1) if not has_key(row)]
    return tuple(_row_of(row_class, row) for row in rows if has_key(row))


def _read_memory(conn: sqlite3.Connection, path: Path, max_rows: int, read: CodexDbRead
                 ) -> CodexDbRead:
    conn.execute("BEGIN")
    try:
        tables = _require_schema(conn, path)
        skipped: list[str] = []
        stage1 = _keyed_rows(conn, STAGE1_TABLE, Stage1Row, "thread_id", max_rows,
                             lambda row: _as_text(row[0]), skipped)
        jobs = _keyed_rows(conn, JOBS_TABLE, JobRow, "kind, job_key", max_rows,
                           lambda row: _as_text(row[0]) and row[1] is not None
                           and _as_text(row[2]), skipped)
        max_threads = None
        if PROGRESS_TABLE in tables and "max_thread_count" in _table_columns(conn, PROGRESS_TABLE):
            found = conn.execute(
                f"SELECT max_thread_count FROM {PROGRESS_TABLE} LIMIT 1").fetchone()
            max_threads = _as_int(found[0]) if found else None
    finally:
        conn.execute("ROLLBACK")
    return replace(read, memory_read=True, stage1_outputs=stage1, jobs=jobs,
                   max_thread_count=max_threads, skipped_rows=tuple(skipped))


def read_codex_db(db_path: Path, read: CodexDbRead, *,
                  busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S,
                  max_rows: int = MAX_ROWS_PER_TABLE) -> CodexDbRead:
    """``read`` with the stage-1 outputs, jobs and consolidation progress of one file, in one
    read-only snapshot; a ``CodexDbError`` naming the file."""
    path = Path(db_path)
    _check_file(path)
    return _read_only(path, busy_timeout_s, lambda conn: _read_memory(conn, path, max_rows, read))


def _read_only(path: Path, timeout_s: float, read: Callable[[sqlite3.Connection], ReadT], *,
               immutable: bool = False) -> ReadT:
    """``read`` on a ``mode=ro`` connection, else ``immutable=1`` (a WAL file in a read-only
    folder); an SQLite error as a ``CodexDbError``."""
    try:
        with contextlib.closing(_connect(path, "ro", timeout_s, immutable=immutable)) as conn:
            conn.execute("PRAGMA query_only = ON")
            return read(conn)
    except sqlite3.Error as error:
        if immutable or getattr(error, "sqlite_errorname", "") not in _READONLY_FALLBACK_NAMES:
            raise _map_error(error, path, timeout_s) from None
    return _read_only(path, timeout_s, read, immutable=True)


# ---- layouts ------------------------------------------------------------------------------------


def _database_file(conn: sqlite3.Connection, path: Path) -> DatabaseFile:
    tables = _schema_tables(conn, "main")
    version = None
    if MIGRATIONS_TABLE in tables:
        where = " WHERE success" if "success" in _table_columns(conn, MIGRATIONS_TABLE) else ""
        row = conn.execute(f"SELECT MAX(version) FROM {MIGRATIONS_TABLE}{where}").fetchone()
        version = _as_int(row[0]) if row else None
    return DatabaseFile(str(path), True, frozenset(tables), version)


def inspect_database(path: Path, busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S
                     ) -> DatabaseFile:
    """A Codex sqlite file's tables and newest migration, read-only; never raises."""
    if not path.exists():
        return DatabaseFile(str(path), False)
    try:
        _check_file(path)
        return _read_only(path, busy_timeout_s, lambda conn: _database_file(conn, path))
    except CodexDbError as error:
        return DatabaseFile(str(path), True, error=error.message.removeprefix(f"{path}: "))


def _has_memory_tables(info: DatabaseFile) -> bool:
    return all(name in info.tables for name in REQUIRED_TABLES)


def _db_file_order(name: str) -> tuple[int, int, int]:
    """Newest first: a memory file before a state file, a higher version first."""
    memory = MEMORY_FILE_RE.match(name)
    if memory:
        return (1, int(memory.group(1) or 1), int(memory.group(2)))
    state = STATE_FILE_RE.match(name)
    return (0, int(state.group(1)) if state else 0, 0)


def unknown_database_names(sqlite_home: Path) -> list[str]:
    """Codex database files of a sqlite home whose name memtui does not know, newest first."""
    try:
        names = [entry.name for entry in sqlite_home.iterdir()]
    except OSError:
        return []
    unknown = [name for name in names if name not in KNOWN_DB_FILE_NAMES
               and (MEMORY_FILE_RE.match(name) or STATE_FILE_RE.match(name))]
    return sorted(unknown, key=_db_file_order, reverse=True)


def detect_layout(sqlite_home: Path, busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S
                  ) -> CodexLayout:
    """Inspect the Codex databases of a sqlite home (read-only): ``state_5.sqlite``,
    ``memories_1.sqlite``, ``memories_v2_1.sqlite`` and any file of an unknown layout. A
    ``memories_v2_1.sqlite`` makes it v2 even when unreadable (its error shown, not an empty
    older file's rows)."""
    unknown = [inspect_database(sqlite_home / name, busy_timeout_s)
               for name in unknown_database_names(sqlite_home)]
    state = inspect_database(sqlite_home / STATE_DB_FILE_NAME, busy_timeout_s)
    if not state.exists:  # a newer state file may still hold the known ``threads``
        state = next((info for info in unknown if STATE_FILE_RE.match(Path(info.path).name)
                      and THREADS_TABLE in info.tables), state)
    memories = inspect_database(sqlite_home / CODEX_DB_FILE_NAME, busy_timeout_s)
    memories_v2 = inspect_database(sqlite_home / CODEX_V2_DB_FILE_NAME, busy_timeout_s)
    if unknown:
        found = next((info.path for info in (*unknown, memories_v2, memories, state)
                      if info.exists and info.error is None
                      and _has_memory_tables(info)), None)  # the newest readable one
        return CodexLayout(LAYOUT_UNKNOWN, state, memories, found, memories_v2, tuple(unknown))
    if memories_v2.exists:
        return CodexLayout(LAYOUT_MEMORIES_V2, state, memories, memories_v2.path, memories_v2)
    if memories.exists and _has_memory_tables(memories):
        return CodexLayout(LAYOUT_MEMORIES_DB, state, memories, memories.path, memories_v2)
    if state.exists and _has_memory_tables(state):
        return CodexLayout(LAYOUT_STATE_DB, state, memories, state.path, memories_v2)
    if state.exists and (state.tables & OLD_MEMORY_TABLES or (
            state.error is None and THREADS_TABLE in state.tables and not memories.exists
            and state.version is not None and state.version < FIRST_STATE_MEMORY_MIGRATION)):
        return CodexLayout(LAYOUT_OLD, state, memories, None, memories_v2)
    return CodexLayout(LAYOUT_NONE, state, memories, None, memories_v2)


def _read_threads(conn: sqlite3.Connection, max_rows: int) -> tuple[ThreadRow[int], ...]:
    if THREADS_TABLE not in _schema_tables(conn, "main"):
        return ()
    rows = _select(conn, THREADS_TABLE, ThreadRow, "id", max_rows, key_column="id")
    return tuple(_row_of(ThreadRow, row, blank_none=True) for row in rows if _as_text(row[0]))


def read_codex_dbs(sqlite_home: Path, *, busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S,
                   max_rows: int = MAX_ROWS_PER_TABLE) -> CodexDbRead:
    """The layout, ``threads`` and the memory tables of a sqlite home, read-only; never
    raises for a database problem (each is in ``memory_error`` / ``threads_error``)."""
    layout = detect_layout(sqlite_home, busy_timeout_s)
    state_path = Path(layout.state.path)
    read = CodexDbRead(layout, threads_error=layout.state.error)
    if layout.state.exists and layout.state.error is None:
        try:
            read = replace(read, threads=_read_only(state_path, busy_timeout_s,
                                                    lambda conn: _read_threads(conn, max_rows)))
        except CodexDbError as error:
            read = replace(read, threads_error=error.message.removeprefix(f"{state_path}: "))
    if layout.memory_db_path is not None:
        path = Path(layout.memory_db_path)
        try:
            return read_codex_db(path, read, busy_timeout_s=busy_timeout_s, max_rows=max_rows)
        except CodexDbError as error:
            return replace(read, memory_error=error.message.removeprefix(f"{path}: "))
    if layout.memories.exists:
        missing = ", ".join(n for n in REQUIRED_TABLES if n not in layout.memories.tables)
        return replace(read, memory_error=layout.memories.error
                       or f"not a Codex memory database (missing table(s): {missing})")
    return read


# ---- forget ------------------------------------------------------------------------------------


def _thread_state(conn: sqlite3.Connection, schema: str, thread_id: str
                  ) -> tuple[bool, str | None]:
    if THREADS_TABLE not in _schema_tables(conn, schema):
        return False, None
    has_mode = "memory_mode" in _table_columns(conn, THREADS_TABLE, schema)
    select = "memory_mode" if has_mode else "NULL"
    row = conn.execute(f"SELECT {select} FROM {schema}.{THREADS_TABLE} WHERE id = ?",
                       (thread_id,)).fetchone()
    return (row is not None, _as_text(row[0]) if row else None)


def _schema_tables(conn: sqlite3.Connection, schema: str) -> set[str]:
    rows = conn.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")
    return {str(row[0]) for row in rows}


def _plan_rows(conn: sqlite3.Connection, thread_schema: str | None, thread_id: str
               ) -> ForgetRows:
    found, mode = (_thread_state(conn, thread_schema, thread_id) if thread_schema
                   else (False, None))
    column = "selected_for_phase2" if "selected_for_phase2" in _table_columns(
        conn, STAGE1_TABLE) else "0"
    stage1, selected = conn.execute(f"SELECT COUNT(*), MAX({column}) FROM {STAGE1_TABLE} "
                                    "WHERE thread_id = ?", (thread_id,)).fetchone()
    jobs = conn.execute(f"SELECT COUNT(*) FROM {JOBS_TABLE} WHERE kind = ? AND job_key = ?",
                        (STAGE1_JOB_KIND, thread_id)).fetchone()[0]
    return ForgetRows(found, mode, int(stage1), int(jobs), bool(_as_int(selected) or 0))


def unknown_layout_refusal(layout: CodexLayout) -> CodexDbSchemaError:
    """The error of a write into a layout memtui does not know (nothing is written)."""
    names = ", ".join(Path(info.path).name for info in layout.unknown) or layout.name
    return CodexDbSchemaError(f"{Path(layout.state.path).parent}: Codex keeps its memories in a "
                              f"layout memtui does not know ({names}); memtui never writes it")


def _supported(layout: CodexLayout) -> Path:
    """The file holding the memory tables; else the error that says why there is none."""
    if layout.memory_db_path is not None:
        return Path(layout.memory_db_path)
    if layout.name == LAYOUT_OLD:
        raise CodexDbSchemaError(f"{layout.state.path}: its memory schema is older than Codex "
                                 "2026-02; not supported")
    for info in (layout.memories, layout.state):
        if info.exists and info.error is not None:
            raise _state_error(info)
    if layout.memories.exists:
        raise CodexDbSchemaError(f"{layout.memories.path}: not a Codex memory database "
                                 "(missing table(s): stage1_outputs, jobs)")
    raise CodexDbMissing(f"{layout.memories.path}: Codex memory database not found")


def plan_forget_thread_memory(sqlite_home: Path, thread_id: str, *,
                              busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S
                              ) -> ForgetRows:
    """What the databases hold for one thread (read-only): for a dry run of a forget."""
    layout = detect_layout(sqlite_home, busy_timeout_s)

    def read(conn: sqlite3.Connection) -> ForgetRows:
        schema = "main" if layout.name == LAYOUT_STATE_DB else None
        plan = replace(_plan_rows(conn, schema, thread_id), layout=layout.name)
        if schema is None and layout.state.exists and layout.state.error is None:
            found, mode = _read_only(Path(layout.state.path), busy_timeout_s,
                                     lambda state: _thread_state(state, "main", thread_id))
            plan = replace(plan, thread_found=found, memory_mode=mode)
        return plan

    return _read_only(_supported(layout), busy_timeout_s, read)


_ENQUEUE_GLOBAL_SQL = f"""
INSERT INTO {JOBS_TABLE} (kind, job_key, status, worker_id, ownership_token, started_at,
    finished_at, lease_until, retry_at, retry_remaining, last_error, input_watermark,
    last_success_watermark)
VALUES (?, ?, 'pending', NULL, NULL, NULL, NULL, NULL, NULL, ?, NULL, ?, 0)
ON CONFLICT(kind, job_key) DO UPDATE SET
    status = CASE WHEN status = 'running' THEN 'running' ELSE 'pending' END,
    retry_at = CASE WHEN status = 'running' THEN retry_at ELSE NULL END,
    retry_remaining = MAX(retry_remaining, excluded.retry_remaining),
    input_watermark = CASE
        WHEN excluded.input_watermark > COALESCE(input_watermark, 0)
            THEN excluded.input_watermark
        ELSE COALESCE(input_watermark, 0) + 1 END
"""
"""Codex's enqueue of the global consolidation: ``pending`` unless running, no retry wait,
at least ``DEFAULT_RETRY_REMAINING`` retries, the input watermark raised."""


def _state_error(info: DatabaseFile) -> CodexDbError:
    error = info.error or "cannot be read"
    error_type = CodexDbLocked if "locked" in error else CodexDbNotADatabase \
        if "not an SQLite" in error else CodexDbError
    return error_type(f"{info.path}: {error}")


def _open_for_forget(layout: CodexLayout, busy_timeout_s: float, thread_schema: str | None
                     ) -> sqlite3.Connection:
    path = _supported(layout)  # an unknown layout is refused before
    _check_file(path)
    conn = _connect(path, "rw", busy_timeout_s)
    if layout.name == LAYOUT_STATE_DB:
        return conn
    if layout.state.exists and layout.state.error is not None:
        conn.close()  # never forget half: without the polluted mark Codex would re-extract
        raise _state_error(layout.state)
    if thread_schema == STATE_SCHEMA:
        uri = f"{Path(layout.state.path).absolute().as_uri()}?mode=rw"
        conn.execute(f"ATTACH DATABASE ? AS {STATE_SCHEMA}", (uri,))
    return conn


@contextlib.contextmanager
def _write_transaction(path: Path, busy_timeout_s: float,
                       connect: Callable[[], sqlite3.Connection]) -> Iterator[sqlite3.Connection]:
    """The connection ``connect`` opens, for one write (the block begins and commits it), then
    closed; an SQLite error rolls it back and is raised as a ``CodexDbError``."""
    conn: sqlite3.Connection | None = None
    try:
        conn = connect()
        yield conn
    except sqlite3.Error as error:
        if conn is not None and conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise _map_error(error, path, busy_timeout_s) from None
    finally:
        if conn is not None:
            conn.close()


def _mark_polluted(conn: sqlite3.Connection, schema: str, thread_id: str) -> bool:
    """Mark a thread ``polluted`` in ``<schema>.threads`` (Codex's durable opt-out), when
    that table has ``memory_mode``; True when the row changed."""
    if "memory_mode" not in _table_columns(conn, THREADS_TABLE, schema):
        return False
    return conn.execute(
        f"UPDATE {schema}.{THREADS_TABLE} SET memory_mode = ? WHERE id = ? AND memory_mode != ?",
        (POLLUTED, thread_id, POLLUTED)).rowcount > 0


def _mark_polluted_only(state: Path, thread_id: str, busy_timeout_s: float
                        ) -> ForgetRows:
    """Without a memory database yet, the durable opt-out alone (``threads`` only)."""
    with _write_transaction(state, busy_timeout_s,
                            lambda: _connect(state, "rw", busy_timeout_s)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        found, _mode = _thread_state(conn, "main", thread_id)
        polluted = found and _mark_polluted(conn, "main", thread_id)
        conn.execute("COMMIT")
        return ForgetRows(found, None, 0, 0, False, polluted, LAYOUT_NONE)


def forget_thread_memory(sqlite_home: Path, thread_id: str, now: int, *,
                         busy_timeout_s: float = DEFAULT_WRITE_BUSY_TIMEOUT_S
                         ) -> ForgetRows:
    """Forget one thread as Codex does, in one transaction over both files: mark it
    ``polluted``, delete its stage-1 row and job, and enqueue the global consolidation if the
    row had been selected (watermark ``now``)."""
    layout = detect_layout(sqlite_home, min(busy_timeout_s, DEFAULT_READ_BUSY_TIMEOUT_S))
    if layout.name == LAYOUT_UNKNOWN:
        raise unknown_layout_refusal(layout)
    if layout.name == LAYOUT_NONE and not layout.memories.exists and layout.state.exists \
            and layout.state.error is None and THREADS_TABLE in layout.state.tables:
        return _mark_polluted_only(Path(layout.state.path), thread_id, busy_timeout_s)
    path = Path(layout.memory_db_path or layout.state.path)
    thread_schema = "main" if layout.name == LAYOUT_STATE_DB else STATE_SCHEMA \
        if layout.state.exists and THREADS_TABLE in layout.state.tables else None
    with _write_transaction(path, busy_timeout_s,
                            lambda: _open_for_forget(layout, busy_timeout_s, thread_schema)
                            ) as conn:
        _require_schema(conn, path)
        conn.execute("PRAGMA secure_delete = ON")
        if thread_schema == STATE_SCHEMA:
            conn.execute(f"PRAGMA {STATE_SCHEMA}.secure_delete = ON")
        conn.execute("BEGIN IMMEDIATE")
        plan = _plan_rows(conn, thread_schema, thread_id)
        polluted = thread_schema is not None and plan.thread_found and \
            _mark_polluted(conn, thread_schema, thread_id)
        stage1 = conn.execute(f"DELETE FROM {STAGE1_TABLE} WHERE thread_id = ?",
                              (thread_id,)).rowcount
        jobs = conn.execute(f"DELETE FROM {JOBS_TABLE} WHERE kind = ? AND job_key = ?",
                            (STAGE1_JOB_KIND, thread_id)).rowcount
        if plan.selected_for_phase2:  # Codex's forget then enqueues the consolidation
            conn.execute(_ENQUEUE_GLOBAL_SQL, (CONSOLIDATE_JOB_KIND, GLOBAL_JOB_KEY,
                                               DEFAULT_RETRY_REMAINING, now))
        conn.execute("COMMIT")
        return replace(plan, memory_mode=None, stage1_rows=max(stage1, 0),
                       job_rows=max(jobs, 0), marked_polluted=polluted, layout=layout.name)

