"""Bulk loading for the benchmark's generated stores: only for a fresh store, never one people
use (``bulk_load`` drops the full-text triggers and rebuilds the indexes at the end)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from memtui.store.dialect import marks
from memtui.store.memories import MEMORY_COLUMNS

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend
    from memtui.store.database import Store

MEMORY_ROW_COLUMNS = MEMORY_COLUMNS + ", goal_key"
TASK_ROW_COLUMNS = ("id, project_id, user_id, goal, prompt, status, parent_id, started_at, "
                    "finished_at, result, cost_usd, continuation, external_context, source, "
                    "source_ref, created_at")
LOG_ROW_COLUMNS = "task_id, user_id, project_id, outcome, reason, memory_id, forced, at"
ROW_COLUMNS = {"memories": MEMORY_ROW_COLUMNS, "tasks": TASK_ROW_COLUMNS,
               "extraction_log": LOG_ROW_COLUMNS}
"""Column order of the row tuples each table of a generated store takes."""

_FTS_TABLES = {"memories": "memories_fts", "tasks": "tasks_fts"}
_BULK_CACHE_KIB = 262_144


@contextlib.contextmanager
def bulk_load(store: Store, tables: Sequence[str] = ("memories", "tasks")) -> Iterator[None]:
    """Load rows fast into a new store: full-text triggers off, back (with one rebuild) after."""
    conn = store.conn
    saved = {name: conn.execute(f"PRAGMA {name}").fetchone()[0]
             for name in ("synchronous", "cache_size", "foreign_keys")}
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(f"PRAGMA cache_size = -{_BULK_CACHE_KIB}")
    conn.execute("PRAGMA foreign_keys = OFF")  # the generator writes consistent rows
    triggers: dict[str, list[tuple[str, str]]] = {}
    with store.transaction():
        for table in tables:
            triggers[table] = store.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? "
                "AND name LIKE ? ORDER BY name", (table, f"{_FTS_TABLES[table]}%")).fetchall()
            for name, _sql in triggers[table]:
                store.execute(f'DROP TRIGGER "{name}"')
    try:
        yield
    finally:
        with store.transaction():
            for table in tables:
                fts = _FTS_TABLES[table]
                store.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
                for _name, sql in triggers[table]:
                    store.execute(sql)
        for name, value in saved.items():
            conn.execute(f"PRAGMA {name} = {int(value)}")


def insert_rows(store: Store, table: str, rows: Iterable[Sequence[Any]]) -> None:
    """Insert rows given as tuples in the table's ``ROW_COLUMNS`` order (in a transaction)."""
    columns = ROW_COLUMNS[table]
    store.conn.executemany(
        f"INSERT INTO {table}({columns}) VALUES ({marks(columns.split(','))})", rows)


def table_counts(store: StoreBackend) -> dict[str, int]:
    """Row counts of the tables a generated store fills (for the generator's summary)."""
    return {table: int(store.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("users", "projects", "memories", "tasks", "extraction_log")}


def fulltext_consistent(store: Store) -> bool:
    """Whether the memories full-text index matches the table (FTS5 integrity-check)."""
    try:
        store.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")
    except Exception:  # noqa: BLE001 - sqlite reports a corrupt index as an error
        return False
    return True
