"""``memtui.store.bench_data`` on PostgreSQL: rows go in with ``COPY``, the secondary indexes
are built once at the end. Only for a fresh database, never one people use."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql

from memtui.store.bench_data import ROW_COLUMNS

if TYPE_CHECKING:
    from memtui.store.postgres.store import PostgresStore

LOADED_TABLES = ("memories", "tasks", "extraction_log")
"""The tables a generated store fills with many rows (their secondary indexes wait)."""


def copy_rows(conn: psycopg.Connection[Any], table: str, rows: Iterable[Sequence[Any]],
              columns: str | None = None) -> int:
    """``COPY table(columns) FROM STDIN`` of ``rows`` (``columns``: by default the table's
    ``ROW_COLUMNS``); returns how many were sent."""
    names = [name.strip() for name in (columns or ROW_COLUMNS[table]).split(",")]
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(n) for n in names))
    sent = 0
    with conn.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:  # psycopg escapes each value and sends the rows in blocks
            copy.write_row(row)
            sent += 1
    return sent


def secondary_indexes(conn: psycopg.Connection[Any], table: str) -> list[tuple[str, str]]:
    """(name, CREATE INDEX statement) of the table's indexes that no constraint owns."""
    rows = conn.execute(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = to_regclass(%s) AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY c.relname",
        (table,)).fetchall()
    return [(row[0], row[1]) for row in rows]


@contextlib.contextmanager
def bulk_load(store: PostgresStore,
              tables: Sequence[str] = LOADED_TABLES) -> Iterator[psycopg.Connection[Any]]:
    """A connection to load rows on (``copy_rows``; each ``transaction()`` block commits at its
    end) without the tables' secondary indexes, which are built again after it."""
    conn = store.connect()
    dropped: list[tuple[str, str]] = []
    try:
        with conn.transaction():
            for table in tables:
                for name, definition in secondary_indexes(conn, table):
                    conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
                    dropped.append((name, definition))
        try:
            yield conn
        finally:
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
            with conn.transaction():
                for _name, definition in dropped:
                    conn.execute(definition)
            for table in tables:
                conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))
    finally:
        with contextlib.suppress(psycopg.Error):
            conn.close()
