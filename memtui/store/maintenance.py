"""SQL for maintenance: integrity checks, full-text rebuilds, whole-store dump and load."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memtui.errors import StoreError
from memtui.jsonable import JsonMixin
from memtui.store.dialect import marks

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend as Store

EXPORT_TABLES = ("users", "projects", "project_members", "profiles", "memories",
                 "forgotten_sources", "audit", "user_settings", "tasks", "task_followups",
                 "quotas", "extraction_log", "interactions", "bundles", "bundle_documents",
                 "consolidations", "model_usage", "extraction_details")
"""Every table a backup holds, parents first. Full-text tables are rebuilt, not exported."""
FTS_TABLES = ("memories_fts", "tasks_fts", "interactions_fts")
INTEGRITY_ROWS_LIMIT = 100
SCAN_BATCH_ROWS = 1000
"""Rows read per query when ``doctor`` looks at every row."""
KEYLESS_TABLES = ("project_members",)
"""Tables without a rowid (``WITHOUT ROWID``): read whole, never rewritten by a repair."""
UNNUMBERED_ON_POSTGRES = ("extraction_details",)
"""Tables PostgreSQL keeps without a ``rowid`` (migration 9): there, like ``KEYLESS_TABLES``."""
KEY_ORDER = {"project_members": "project_id, user_id", "extraction_details": "task_id"}
"""How a dump orders the rows of tables that may have no row number: by primary key."""
APPEND_ONLY_TABLES = ("audit",)
"""Tables whose rows may not be changed (a trigger refuses it)."""

_READABLE_PROJECTS = "(SELECT project_id FROM project_members WHERE user_id = :user)"
_EXPORTED_TASKS = f"(SELECT id FROM tasks WHERE project_id IN {_READABLE_PROJECTS})"
_EXPORTED_BUNDLES = (f"(SELECT id FROM bundles WHERE project_id IN {_READABLE_PROJECTS} "
                     "OR (schedule IS NOT NULL AND created_by = :user))")
USER_SCOPE: dict[str, str] = {
    "users": (f"id = :user OR id IN (SELECT user_id FROM project_members WHERE project_id IN "
              f"{_READABLE_PROJECTS}) OR id IN (SELECT created_by FROM projects WHERE id IN "
              f"{_READABLE_PROJECTS}) OR id IN (SELECT owner FROM memories WHERE scope = "
              f"'project' AND project IN {_READABLE_PROJECTS}) OR id IN (SELECT user_id FROM "
              f"tasks WHERE project_id IN {_READABLE_PROJECTS}) OR id IN (SELECT created_by "
              f"FROM bundles WHERE id IN {_EXPORTED_BUNDLES})"),
    "projects": f"id IN {_READABLE_PROJECTS}",
    "project_members": f"project_id IN {_READABLE_PROJECTS}",
    "profiles": "user_id = :user",
    "memories": (f"(scope = 'user' AND owner = :user) OR (scope = 'project' AND project IN "
                 f"{_READABLE_PROJECTS})"),
    "forgotten_sources": "forgotten_by = :user",
    "audit": "actor = :user",
    "user_settings": "user_id = :user",
    "tasks": f"project_id IN {_READABLE_PROJECTS}",
    "task_followups": f"from_task IN {_EXPORTED_TASKS} AND to_task IN {_EXPORTED_TASKS}",
    "quotas": "user_id = :user",
    "extraction_log": f"user_id = :user AND task_id IN {_EXPORTED_TASKS}",
    "interactions": (f"user_id = :user AND (project_id IS NULL OR project_id IN "
                     f"{_READABLE_PROJECTS})"),
    "bundles": f"id IN {_EXPORTED_BUNDLES}",
    "bundle_documents": f"bundle_id IN {_EXPORTED_BUNDLES}",
    "consolidations": "user_id = :user",
    "model_usage": "user_id = :user",
    "extraction_details": f"user_id = :user AND task_id IN {_EXPORTED_TASKS}",
}
"""What one user's export holds of each table: their own rows, the projects they belong to
with their members, memories, tasks, follow-ups and bundles, and the users those rows name."""
USER_SCOPE_COLUMNS: dict[str, dict[str, str]] = {
    "tasks": {"parent_id": f"CASE WHEN parent_id IN {_EXPORTED_TASKS} THEN parent_id END"},
}
"""Columns a user's export reads through an expression: a sub-task keeps its parent only when
the parent is exported too."""


class UndecodableText(bytes):
    """A stored text value that is not valid UTF-8 (``scan_rows`` yields it as its bytes)."""


SEQ_TABLES = ("memories", "audit", "tasks", "task_followups", "interactions",
              "consolidations", "model_usage")
"""Tables numbered by ``seq`` (SQLite's rowid; on PostgreSQL an identity column)."""


def table_columns(store: Store, table: str) -> list[str]:
    """The columns of a table, in order (on PostgreSQL without ``fts`` and ``rowid``)."""
    if table not in EXPORT_TABLES:
        raise ValueError(f"unknown table {table!r}")
    if store.dialect.is_sqlite:
        return [row[1] for row in store.execute(f"PRAGMA table_info({table})").fetchall()]
    return [row[0] for row in store.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = ? AND is_generated = 'NEVER' "
        "AND column_name <> 'rowid' ORDER BY ordinal_position", (table,)).fetchall()]


def row_number(store: Store, table: str) -> str:
    """The column that numbers a table's rows in insertion order (``rowid`` on SQLite)."""
    return "seq" if table in SEQ_TABLES and not store.dialect.is_sqlite else "rowid"


def dump_rows(store: Store, table: str, *, user: str | None = None) -> Iterator[dict[str, Any]]:
    """Every row of a table as a dict, in key order (``user``: only that user's export's)."""
    columns = table_columns(store, table)
    order = KEY_ORDER.get(table) or row_number(store, table)
    if user is None:
        cursor = store.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
    else:
        override = USER_SCOPE_COLUMNS.get(table, {})
        select = ", ".join(f"{override[c]} AS {c}" if c in override else c for c in columns)
        cursor = store.execute(f"SELECT {select} FROM {table} WHERE {USER_SCOPE[table]} "
                               f"ORDER BY {order}", {"user": user})
    for row in cursor:
        yield dict(zip(columns, row, strict=True))


def _decoded(value: Any) -> Any:
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return UndecodableText(value)


def scan_rows(store: Store, table: str) -> Iterator[tuple[int | None, dict[str, Any]]]:
    """Every row of a table as ``(rowid or None, row)``, read in batches; text that is not
    valid UTF-8 comes as ``UndecodableText`` instead of failing the read."""
    columns = table_columns(store, table)
    keyless = _keyless(store, table)
    after = 0
    while True:
        batch = _read_batch(store, table, columns, keyless, after)
        yield from batch
        if keyless or len(batch) < SCAN_BATCH_ROWS:
            return
        after = int(batch[-1][0] or 0)


def _keyless(store: Store, table: str) -> bool:
    """Whether the table's rows have no row number on this backend."""
    return table in KEYLESS_TABLES or (table in UNNUMBERED_ON_POSTGRES
                                       and not store.dialect.is_sqlite)


def _read_batch(store: Store, table: str, columns: list[str], keyless: bool,
                after: int) -> list[tuple[int | None, dict[str, Any]]]:
    if keyless:
        sql = f"SELECT NULL, {', '.join(columns)} FROM {table}"
        params: tuple[int, ...] = ()
    else:
        number = row_number(store, table)
        sql = (f"SELECT {number}, {', '.join(columns)} FROM {table} WHERE {number} > ? "
               f"ORDER BY {number} LIMIT {SCAN_BATCH_ROWS}")
        params = (after,)
    if not store.dialect.is_sqlite:  # text is always valid UTF-8 there
        return [(row[0], dict(zip(columns, row[1:], strict=True)))
                for row in store.execute(sql, params).fetchall()]
    conn = store.conn
    assert isinstance(conn, sqlite3.Connection)
    previous = conn.text_factory
    for as_bytes in (False, True):  # a batch holding text that is not UTF-8: read as bytes
        conn.text_factory = bytes if as_bytes else previous
        try:
            rows = conn.execute(sql, params).fetchall()
            break
        except sqlite3.DatabaseError as error:
            if as_bytes or "decode" not in str(error).lower() or \
                    not isinstance(error, sqlite3.OperationalError):
                raise StoreError(f"{table}: cannot be read ({error})") from None
        finally:
            conn.text_factory = previous
    return [(row[0], {c: _decoded(v) if as_bytes else v
                      for c, v in zip(columns, row[1:], strict=True)}) for row in rows]


def update_value(store: Store, table: str, rowid: int, column: str, value: Any,
                 expected: Any) -> bool:
    """Rewrite one column of one row if it still holds ``expected`` (``doctor --repair``,
    inside a transaction); False when a writer changed it since it was read."""
    if column not in table_columns(store, table) or table in APPEND_ONLY_TABLES \
            or _keyless(store, table):
        raise ValueError(f"{table}.{column} cannot be rewritten")
    cursor = store.execute(f"UPDATE {table} SET {column} = ? WHERE {row_number(store, table)} "
                           f"= ? AND {column} {store.dialect.is_} ?", (value, rowid, expected))
    return cursor.rowcount == 1


def load_row(store: Store, table: str, row: dict[str, Any], *, skip_existing: bool) -> bool:
    """Insert one dumped row (call inside a transaction). Returns False if it was skipped."""
    columns = table_columns(store, table)
    unknown = set(row) - set(columns)
    if unknown:
        raise ValueError(f"unknown columns for {table}: {', '.join(sorted(unknown))}")
    names = [c for c in columns if c in row]
    into = f"{table}({', '.join(names)}) VALUES ({marks(names)})"
    sql = store.dialect.insert_ignore(into) if skip_existing else f"INSERT INTO {into}"
    return store.execute(sql, [row[c] for c in names]).rowcount > 0


def defer_foreign_keys(store: Store) -> None:
    """Check foreign keys at commit (a load inserts children and parents in any order)."""
    store.execute(store.dialect.defer_foreign_keys)


def finish_load(store: Store) -> None:
    """After a load (inside its transaction): move PostgreSQL's identity sequences past the
    loaded row numbers (SQLite numbers on from the largest)."""
    if store.dialect.is_sqlite:
        return
    for table in SEQ_TABLES:
        store.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'seq'), "
                      f"coalesce((SELECT max(seq) FROM {table}), 0) + 1, false)")


def sqlite_integrity(store: Store) -> list[str]:
    """SQLite's ``integrity_check`` and ``foreign_key_check`` (damage reported, not raised)."""
    problems: list[str] = []
    if not store.dialect.is_sqlite:
        return problems  # PostgreSQL checks its pages and enforces foreign keys itself
    try:
        rows = store.execute(f"PRAGMA integrity_check({INTEGRITY_ROWS_LIMIT})").fetchall()
        problems += [f"sqlite: {line}" for row in rows if row[0] != "ok"
                     for line in str(row[0]).splitlines() if line.strip()]
        for table, rowid, parent, _fk in store.execute("PRAGMA foreign_key_check").fetchall():
            problems.append(f"foreign key: {table} row {rowid} points to a missing {parent} row")
    except sqlite3.DatabaseError as error:
        problems.append(f"sqlite: the database is damaged ({error})")
    return problems


def fts_integrity(store: Store) -> list[str]:
    """Each full-text index agrees with its content table (FTS5 ``integrity-check``)."""
    problems: list[str] = []
    if not store.dialect.is_sqlite:
        return problems  # generated tsvector columns cannot fall out of step
    for table in FTS_TABLES:
        try:
            store.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError as error:
            problems.append(f"full-text index {table} is out of step with its rows ({error})")
    return problems


def rebuild_fts(store: Store) -> None:
    """Rebuild every full-text index from its content table."""
    for table in FTS_TABLES:  # PostgreSQL's GIN indexes have the same names
        store.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')"
                      if store.dialect.is_sqlite else f"REINDEX INDEX {table}")


def chain_problems(store: Store) -> list[str]:
    """Supersede-chain invariants: status and link agree, same scope, no dangling link or cycle."""
    problems = _found(store, [
        ("SELECT id FROM memories WHERE status = 'superseded' AND superseded_by IS NULL",
         "memory {} is superseded but points to no newer version"),
        ("SELECT id FROM memories WHERE status = 'active' AND superseded_by IS NOT NULL",
         "memory {} is active but points to a newer version"),
        ("SELECT m.id FROM memories m LEFT JOIN memories n ON n.id = m.superseded_by "
         "WHERE m.superseded_by IS NOT NULL AND n.id IS NULL",
         "memory {} points to a newer version that does not exist (half chain)"),
        ("SELECT m.id FROM memories m JOIN memories n ON n.id = m.superseded_by "
         f"WHERE m.scope != n.scope OR m.project {store.dialect.is_not} n.project "
         "OR (m.scope = 'user' AND m.owner != n.owner)",
         "memory {} is superseded by a memory of another scope"),
        ("SELECT id FROM memories WHERE status = 'pending' AND superseded_by IS NOT NULL",
         "memory {} is waiting for review but points to a newer version"),
        ("SELECT m.id FROM memories m LEFT JOIN memories n ON n.id = m.replaces "
         "WHERE m.replaces IS NOT NULL AND n.id IS NULL",
         "memory {} waits for review as a correction of a memory that does not exist "
         "(reject it)"),
        ("SELECT m.id FROM memories m JOIN memories n ON n.id = m.replaces "
         f"WHERE m.scope != n.scope OR m.project {store.dialect.is_not} n.project "
         "OR (m.scope = 'user' AND m.owner != n.owner)",
         "memory {} would correct a memory of another scope"),
    ])
    problems += [f"memory {memory_id} is in a supersede cycle"
                 for memory_id in supersede_cycles(store)[:INTEGRITY_ROWS_LIMIT]]
    return problems


def supersede_cycles(store: Store) -> list[str]:
    """Ids of the memories in a supersede cycle, sorted (a recursive query would be quadratic)."""
    return cycle_members({row[0]: row[1] for row in store.execute(
        "SELECT id, superseded_by FROM memories WHERE superseded_by IS NOT NULL")})


def cycle_members(newer: Mapping[str, str]) -> list[str]:
    """The ids on a cycle of ``newer`` (id -> the id that supersedes it), sorted, in one walk
    that steps on each id once (not those on a chain that ends or leads into a cycle)."""
    on_cycle: list[str] = []
    walked: set[str] = set()
    for start in newer:
        path: dict[str, int] = {}
        memory_id = start
        while memory_id not in walked and memory_id not in path:
            path[memory_id] = len(path)
            following = newer.get(memory_id)
            if following is None:  # the chain ends
                break
            memory_id = following
        else:
            if memory_id in path:  # came back to its own path
                on_cycle += list(path)[path[memory_id]:]
        walked.update(path)
    return sorted(on_cycle)


def _found(store: Store, checks: Sequence[tuple[str, str]]) -> list[str]:
    """Each check's message, formatted with each row (at most ``INTEGRITY_ROWS_LIMIT``) its
    query finds."""
    return [message.format(*row) for sql, message in checks
            for row in store.execute(f"{sql} LIMIT {INTEGRITY_ROWS_LIMIT}").fetchall()]


def tombstone_problems(store: Store) -> list[str]:
    """No memory may come from a task whose memory was forgotten."""
    return _found(store, [("SELECT m.id, m.source_thread_id FROM memories m JOIN "
                           "forgotten_sources f ON f.source_thread_id = m.source_thread_id "
                           "WHERE m.source = 'auto'",
                           "memory {} was recreated from forgotten task {}")])


def log_problems(store: Store) -> list[str]:
    """Extraction-log rows and details name existing tasks, and existing or forgotten memories."""
    return _found(store, [
        *((f"SELECT l.task_id FROM {table} l LEFT JOIN tasks t ON t.id = l.task_id "
           "WHERE t.id IS NULL", f"{what} for missing task {{}}") for table, what in
          (("extraction_log", "extraction log row"), ("extraction_details", "extraction details"))),
        ("SELECT task_id FROM extraction_log WHERE outcome IN "
         "('extracted', 'superseded_previous') AND memory_id IS NULL",
         "extraction log row {} says a memory was written but has none"),
        ("SELECT l.task_id, l.memory_id FROM extraction_log l "
         "LEFT JOIN memories m ON m.id = l.memory_id "
         "LEFT JOIN forgotten_sources f ON f.source_thread_id = l.task_id "
         "WHERE l.memory_id IS NOT NULL AND m.id IS NULL AND f.source_thread_id IS NULL",
         "extraction log row {} names memory {}, which is gone without a tombstone")])


def delete_orphan_log_rows(store: Store) -> int:
    """Remove extraction-log rows and extraction details whose task no longer exists."""
    return sum(store.execute(f"DELETE FROM {table} WHERE task_id NOT IN (SELECT id FROM tasks)"
                             ).rowcount for table in ("extraction_log", "extraction_details"))


def optimize(store: Store) -> None:
    """Let the database refresh its planner statistics."""
    store.execute(store.dialect.optimize)


VACUUM_WAL_WAIT_S = 3.0
"""How long a vacuum waits for readers to let go of the write-ahead log."""


@dataclass(frozen=True)
class VacuumResult(JsonMixin):
    """What ``Store.vacuum`` did: sizes before and after, the steps that ran, what is pending."""

    full: bool
    bytes_before: int
    bytes_after: int
    done: tuple[str, ...]
    pending: str | None = None

