"""What tests need to look at a store on either backend (raw SQL that differs)."""

from __future__ import annotations

from collections.abc import Callable
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
