"""Access to Codex's ``memories_1.sqlite`` (spec/40): read-only browsing and one curation write.

Browsing opens the file read-only (``mode=ro``) and never writes to it. The only write is
``forget_thread``: it deletes one thread's ``stage1_outputs`` row and its ``memory_stage1`` job
in one ``BEGIN IMMEDIATE`` transaction, waiting a bounded time for a running Codex.

Every failure is a ``CodexDbError`` subclass with a one-line message naming the file.
"""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memtui.errors import StoreError
from memtui.store.codex_models import (
    STAGE1_JOB_KIND,
    CodexDbSnapshot,
    ForgetDbResult,
    JobRow,
    Stage1Row,
)

CODEX_DB_FILE_NAME = "memories_1.sqlite"
"""File name of Codex's memory index inside ``$CODEX_SQLITE_HOME`` (default ``$CODEX_HOME``)."""
DEFAULT_READ_BUSY_TIMEOUT_S = 2.0
"""How long a read waits for a lock held by a running Codex before giving up."""
DEFAULT_WRITE_BUSY_TIMEOUT_S = 5.0
"""How long ``forget_thread`` waits for a lock held by a running Codex before giving up."""
MAX_ROWS_PER_TABLE = 100_000
"""Rows read per table at most: a browsing bound, far above what Codex keeps."""

STAGE1_TABLE = "stage1_outputs"
JOBS_TABLE = "jobs"
PROGRESS_TABLE = "consolidation_progress"
REQUIRED_TABLES = (STAGE1_TABLE, JOBS_TABLE)

STAGE1_COLUMNS = (
    "thread_id", "source_updated_at", "raw_memory", "rollout_summary", "rollout_slug",
    "generated_at", "usage_count", "last_usage", "selected_for_phase2",
    "selected_for_phase2_source_updated_at",
)
STAGE1_KEY_COLUMNS = ("thread_id",)
JOBS_COLUMNS = (
    "kind", "job_key", "status", "worker_id", "ownership_token", "started_at", "finished_at",
    "lease_until", "retry_at", "retry_remaining", "last_error", "input_watermark",
    "last_success_watermark",
)
JOBS_KEY_COLUMNS = ("kind", "job_key", "status")

_BUSY_ERROR_NAMES = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_BUSY_SNAPSHOT",
                               "SQLITE_BUSY_RECOVERY", "SQLITE_LOCKED_SHAREDCACHE"})
_NOT_DB_ERROR_NAMES = frozenset({"SQLITE_NOTADB", "SQLITE_CORRUPT"})
_READONLY_FALLBACK_NAMES = frozenset({"SQLITE_READONLY_DIRECTORY", "SQLITE_CANTOPEN",
                                      "SQLITE_READONLY", "SQLITE_READONLY_RECOVERY",
                                      "SQLITE_READONLY_CANTINIT"})


class CodexDbError(StoreError):
    """Codex's ``memories_1.sqlite`` cannot be read or written; the message is one line."""

    code = "codex_db_error"


class CodexDbMissing(CodexDbError):
    """The database file does not exist (or is not a regular file)."""

    code = "codex_db_missing"


class CodexDbLocked(CodexDbError):
    """Another process (usually a running Codex) holds a lock longer than the timeout."""

    code = "codex_db_locked"


class CodexDbNotADatabase(CodexDbError):
    """The file is not an SQLite database, or it is corrupt."""

    code = "codex_db_not_a_database"


class CodexDbSchemaError(CodexDbError):
    """The database lacks the tables or key columns of Codex's memory index."""

    code = "codex_db_schema"


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
        return CodexDbError(f"{path}: the database is read-only ({message})")
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


def _decode_text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _connect(path: Path, mode: str, timeout_s: float, *, immutable: bool = False
             ) -> sqlite3.Connection:
    query = f"mode={mode}" + ("&immutable=1" if immutable else "")
    uri = f"{path.absolute().as_uri()}?{query}"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout_s, isolation_level=None,
                           check_same_thread=False)
    conn.text_factory = _decode_text
    return conn


def _table_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}


def _existing_tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def _require_schema(conn: sqlite3.Connection, path: Path) -> set[str]:
    tables = _existing_tables(conn)
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


def _select(conn: sqlite3.Connection, table: str, columns: Sequence[str],
            order_by: str, limit: int) -> list[tuple[Any, ...]]:
    present = _table_columns(conn, table)
    select_list = ", ".join(name if name in present else f"NULL AS {name}" for name in columns)
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
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _stage1_from(row: tuple[Any, ...]) -> Stage1Row | None:
    thread_id = _as_text(row[0])
    if not thread_id:
        return None
    return Stage1Row(
        thread_id=thread_id,
        source_updated_at=_as_int(row[1]),
        raw_memory=_as_text(row[2]) or "",
        rollout_summary=_as_text(row[3]) or "",
        rollout_slug=_as_text(row[4]),
        generated_at=_as_int(row[5]),
        usage_count=_as_int(row[6]),
        last_usage=_as_int(row[7]),
        selected_for_phase2=bool(_as_int(row[8]) or 0),
        selected_for_phase2_source_updated_at=_as_int(row[9]),
    )


def _job_from(row: tuple[Any, ...]) -> JobRow | None:
    kind, job_key, status = (_as_text(row[0]), _as_text(row[1]), _as_text(row[2]))
    if not kind or job_key is None or not status:
        return None
    return JobRow(
        kind=kind, job_key=job_key, status=status,
        worker_id=_as_text(row[3]), ownership_token=_as_text(row[4]),
        started_at=_as_int(row[5]), finished_at=_as_int(row[6]),
        lease_until=_as_int(row[7]), retry_at=_as_int(row[8]),
        retry_remaining=_as_int(row[9]), last_error=_as_text(row[10]),
        input_watermark=_as_int(row[11]), last_success_watermark=_as_int(row[12]),
    )


def _convert(rows: list[tuple[Any, ...]], build: Callable[[tuple[Any, ...]], Any],
             table: str, skipped: list[str]) -> list[Any]:
    out = []
    for index, row in enumerate(rows, start=1):
        item = build(row)
        if item is None:
            skipped.append(f"{table} row {index}: empty key column(s); skipped")
        else:
            out.append(item)
    return out


def _read_all(conn: sqlite3.Connection, path: Path, max_rows: int) -> CodexDbSnapshot:
    conn.execute("BEGIN")
    try:
        tables = _require_schema(conn, path)
        skipped: list[str] = []
        stage1 = _convert(_select(conn, STAGE1_TABLE, STAGE1_COLUMNS, "thread_id", max_rows),
                          _stage1_from, STAGE1_TABLE, skipped)
        jobs = _convert(_select(conn, JOBS_TABLE, JOBS_COLUMNS, "kind, job_key", max_rows),
                        _job_from, JOBS_TABLE, skipped)
        max_threads = None
        if PROGRESS_TABLE in tables and "max_thread_count" in _table_columns(conn, PROGRESS_TABLE):
            found = conn.execute(
                f"SELECT max_thread_count FROM {PROGRESS_TABLE} LIMIT 1").fetchone()
            max_threads = _as_int(found[0]) if found else None
    finally:
        conn.execute("ROLLBACK")
    return CodexDbSnapshot(stage1_outputs=tuple(stage1), jobs=tuple(jobs),
                           max_thread_count=max_threads, skipped_rows=tuple(skipped))


def read_codex_db(db_path: Path, *, busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S,
                  max_rows: int = MAX_ROWS_PER_TABLE) -> CodexDbSnapshot:
    """Read stage-1 outputs, jobs and consolidation progress, read-only, in one snapshot.

    Opens ``file:...?mode=ro``; when SQLite cannot open a WAL database read-only (a read-only
    folder without ``-shm`` file), retries with ``immutable=1``. Nothing is ever written.
    Raises ``CodexDbMissing``, ``CodexDbLocked``, ``CodexDbNotADatabase``,
    ``CodexDbSchemaError`` or ``CodexDbError``.
    """
    path = Path(db_path)
    _check_file(path)
    try:
        return _read_with(path, busy_timeout_s, max_rows, immutable=False)
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorname", "") not in _READONLY_FALLBACK_NAMES:
            raise _map_error(error, path, busy_timeout_s) from None
    try:
        return _read_with(path, busy_timeout_s, max_rows, immutable=True)
    except sqlite3.Error as error:
        raise _map_error(error, path, busy_timeout_s) from None


def _read_with(path: Path, timeout_s: float, max_rows: int, *, immutable: bool
               ) -> CodexDbSnapshot:
    conn = _connect(path, "ro", timeout_s, immutable=immutable)
    try:
        conn.execute("PRAGMA query_only = ON")
        return _read_all(conn, path, max_rows)
    finally:
        conn.close()


def read_stage1_outputs(db_path: Path, *,
                        busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S
                        ) -> tuple[Stage1Row, ...]:
    """The ``stage1_outputs`` rows, ordered by thread id (read-only; see ``read_codex_db``)."""
    return read_codex_db(db_path, busy_timeout_s=busy_timeout_s).stage1_outputs


def read_jobs(db_path: Path, *, busy_timeout_s: float = DEFAULT_READ_BUSY_TIMEOUT_S
              ) -> tuple[JobRow, ...]:
    """The ``jobs`` rows with all columns, ordered by kind and key (read-only)."""
    return read_codex_db(db_path, busy_timeout_s=busy_timeout_s).jobs


def forget_thread(db_path: Path, thread_id: str,
                  busy_timeout_s: float = DEFAULT_WRITE_BUSY_TIMEOUT_S) -> ForgetDbResult:
    """Delete one thread's ``stage1_outputs`` row and ``memory_stage1`` job in one transaction.

    Takes the write lock with ``BEGIN IMMEDIATE``, waiting up to ``busy_timeout_s`` for a
    running Codex; then raises ``CodexDbLocked`` and nothing is changed. Deleted pages are
    zeroed (``secure_delete``). The file is never created: a missing file is ``CodexDbMissing``.
    """
    path = Path(db_path)
    _check_file(path)
    try:
        conn = _connect(path, "rw", busy_timeout_s)
    except sqlite3.Error as error:
        raise _map_error(error, path, busy_timeout_s) from None
    try:
        _require_schema(conn, path)
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("BEGIN IMMEDIATE")
        stage1 = conn.execute(f"DELETE FROM {STAGE1_TABLE} WHERE thread_id = ?",
                              (thread_id,)).rowcount
        jobs = conn.execute(f"DELETE FROM {JOBS_TABLE} WHERE kind = ? AND job_key = ?",
                            (STAGE1_JOB_KIND, thread_id)).rowcount
        conn.execute("COMMIT")
        return ForgetDbResult(stage1_deleted=max(stage1, 0), jobs_deleted=max(jobs, 0))
    except sqlite3.Error as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise _map_error(error, path, busy_timeout_s) from None
    finally:
        conn.close()
