"""What tests need to look at a store on either backend (raw SQL that differs), to write to it
as another process would, or to damage an SQLite file."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from memtui.engine.api import Engine
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store

T = TypeVar("T")


def is_postgres(store: StoreBackend) -> bool:
    """Whether the store is a PostgreSQL database."""
    return not store.dialect.is_sqlite


def fulltext_count(store: StoreBackend, word: str) -> int:
    """How many memories' full-text entries hold ``word`` (FTS5 rows on SQLite, the
    ``tsvector`` column on PostgreSQL)."""
    if store.dialect.is_sqlite:
        sql = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"
    else:
        sql = "SELECT count(*) FROM memories WHERE fts @@ to_tsquery('simple', ?)"
    return int(store.execute(sql, (word,)).fetchone()[0])


def interaction_count(store: StoreBackend, user_id: str) -> int:
    """How many interactions the user has."""
    return int(store.execute("SELECT count(*) FROM interactions WHERE user_id = ?",
                             (user_id,)).fetchone()[0])


def elsewhere(target: Any, user: str, act: Callable[[Engine], T], **options: Any) -> T:
    """``act`` on ``user``'s engine over a second connection to the store at ``target``
    (``options`` as for ``open_store``), as another process (or, on PostgreSQL, another
    machine) would; closed after."""
    other = open_store(target, **options)
    try:
        return act(Engine(other, user))
    finally:
        other.close()


LEGACY_TEXT_COLUMNS = (("users", "display_name"), ("profiles", "display_name"),
                       ("profiles", "preferences"), ("memories", "content"), ("tasks", "goal"),
                       ("tasks", "prompt"), ("tasks", "result"), ("bundle_documents", "content"))
"""The free text a store written before control characters were stripped may hold raw."""


def plant_legacy_text(target: StoreBackend | Path, marker: str, text: str) -> None:
    """Replace ``marker`` by ``text`` (control characters and all) in the stored free text
    of a store (or a store file), as an older memtui left it: raw SQL, since every engine
    write now strips them."""
    store = open_store(target) if isinstance(target, Path) else target
    with store.transaction():
        for table, column in LEGACY_TEXT_COLUMNS:
            value = json.dumps(text)[1:-1] if column == "preferences" else text
            store.execute(f"UPDATE {table} SET {column} = replace({column}, ?, ?)",
                          (marker, value))
    if store is not target:
        store.close()


def damage_memories(path: Path, *, fulltext: bool = False, checkpoint: bool = False) -> Path:
    """Overwrite the SQLite file's pages of the memories table (``fulltext``: and of its
    full-text index) and every page after the schema's last root page with 0x5A bytes
    (``checkpoint``: after moving the WAL into the file): the schema still reads, the
    memories do not."""
    tables = "tbl_name = 'memories'" + (" OR tbl_name LIKE 'memories_fts%'" if fulltext else "")
    conn = sqlite3.connect(path)
    if checkpoint:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    roots = [row[0] for row in conn.execute(
        f"SELECT rootpage FROM sqlite_master WHERE rootpage > 0 AND ({tables})")]
    last_root = conn.execute("SELECT max(rootpage) FROM sqlite_master").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:
        for page in roots + list(range(last_root + 1, pages + 1)):
            handle.seek((page - 1) * page_size)
            handle.write(b"\x5a" * page_size)
    return path
