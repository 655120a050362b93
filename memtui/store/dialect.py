"""The SQL pieces that differ between SQLite and PostgreSQL: the repositories' statements are
shared and ask the store's ``dialect`` for them (only recall's full-text plans, which differ
as a whole, live in a subclass in ``memtui.store.postgres``).
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from dataclasses import dataclass

from memtui.store.search_terms import fts_query, pg_tsquery


def marks(values: Sized) -> str:
    """``?, ?, ?``: one placeholder per value (an ``IN (...)`` list, a ``VALUES`` row)."""
    return ", ".join("?" * len(values))


def upsert(table: str, columns: str, key: str) -> str:
    """``INSERT`` of one row of ``columns`` (``a, b``) into ``table``, an existing ``key``
    (its columns) getting the other columns' new values."""
    names = [column.strip() for column in columns.split(",")]
    keys = {column.strip() for column in key.split(",")}
    updates = ", ".join(f"{name} = excluded.{name}" for name in names if name not in keys)
    return (f"INSERT INTO {table}({columns}) VALUES ({marks(names)}) "
            f"ON CONFLICT({key}) DO UPDATE SET {updates}")


def qualified(columns: str, alias: str) -> str:
    """A column list (``a, b``) with each column named through ``alias`` (``m.a, m.b``)."""
    return ", ".join(f"{alias}.{column.strip()}" for column in columns.split(","))


_SQLITE_CHAIN = """
    WITH RECURSIVE chain(id) AS (
        SELECT ?
        UNION
        SELECT m.superseded_by FROM memories m JOIN chain c ON m.id = c.id
            WHERE m.superseded_by IS NOT NULL
        UNION
        SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
    )
    SELECT id FROM chain"""
_POSTGRESQL_CHAIN = """
    WITH RECURSIVE chain(id) AS (
        SELECT CAST(? AS text) COLLATE "C"
        UNION
        SELECT n.id FROM chain c CROSS JOIN LATERAL (
            SELECT m.superseded_by AS id FROM memories m
                WHERE m.id = c.id AND m.superseded_by IS NOT NULL
            UNION ALL
            SELECT m.id FROM memories m WHERE m.superseded_by = c.id
        ) n
    )
    SELECT id FROM chain"""


@dataclass(frozen=True)
class Dialect:
    """SQL spellings of one backend. ``name`` is ``sqlite`` or ``postgresql``."""

    name: str
    term_quote: str
    """The quote around one full-text term (an FTS5 phrase, a ``to_tsquery`` lexeme)."""
    any_term: str
    """How a full-text query joins terms any of which may match."""
    all_terms: str
    """How a full-text query joins terms that must all match."""
    chain_walk: str
    """Every id connected to the memory ``?`` by supersede links, both directions."""
    skip_locked: str
    """Ends a ``SELECT`` of tasks ``t``: lock its rows, skipping those held (not on SQLite)."""
    goal_lock: str | None
    """Locks one (project, goal) pair until the transaction ends (None on SQLite)."""
    materialized: str
    """Makes a ``WITH`` step run as written (nothing on SQLite: ``INDEXED BY`` pins the plan)."""
    defer_foreign_keys: str
    """Check foreign keys at commit rather than per row."""
    optimize: str
    """Refresh the planner's statistics."""
    is_: str
    """Equality with NULL as a value."""
    is_not: str
    """``is_``'s negation."""
    search_query: Callable[[str], str | None]
    """Typed text as a safe full-text query (None without a word)."""

    @property
    def is_sqlite(self) -> bool:
        """Whether this is SQLite's dialect."""
        return self.name == "sqlite"

    def term(self, word: str) -> str:
        """One word (a ``\\w+`` run: never holds a quote) as a full-text term."""
        return f"{self.term_quote}{word}{self.term_quote}"

    def any_of(self, words: list[str]) -> str:
        """A full-text term matching any of ``words`` (one word: ``term``)."""
        if len(words) == 1:
            return self.term(words[0])
        return "(" + self.any_term.join(self.term(word) for word in words) + ")"

    def matches(self, fts_table: str, alias: str) -> str:
        """The full-text condition on the row ``alias`` (``fts_table``: SQLite's index)."""
        if self.is_sqlite:
            return f"{alias}.seq IN (SELECT rowid FROM {fts_table} WHERE {fts_table} MATCH ?)"
        return f"{alias}.fts @@ to_tsquery('simple', ?)"

    def insert_ignore(self, into: str) -> str:
        """``INSERT`` of ``into`` (``table(columns) VALUES (...)``) skipping an existing key."""
        if self.is_sqlite:
            return f"INSERT OR IGNORE INTO {into}"
        return f"INSERT INTO {into} ON CONFLICT DO NOTHING"

    def greatest(self, first: str, second: str) -> str:
        """The larger of two values."""
        return f"max({first}, {second})" if self.is_sqlite else f"GREATEST({first}, {second})"

    def indexed_by(self, index: str) -> str:
        """A planner hint to read the table through ``index`` (SQLite only)."""
        return f" INDEXED BY {index}" if self.is_sqlite else ""

    def json_values(self, marker: str = "?") -> str:
        """A subquery of the text values of a JSON array passed as one parameter."""
        if self.is_sqlite:
            return f"(SELECT value FROM json_each({marker}))"
        return f"(SELECT json_array_elements_text(CAST({marker} AS json)))"

    def ranked(self, fts_table: str, table: str, alias: str, columns: str, where: str) -> str:
        """``columns`` and the score (higher is better) of the rows of ``table`` (as
        ``alias``) matching the full-text query (first parameter) and ``where``, best first,
        at most the last parameter of them (``fts_table``: SQLite's full-text table)."""
        if self.is_sqlite:
            return (f"SELECT {columns}, -f.rank FROM {fts_table} f JOIN {table} {alias} "
                    f"ON {alias}.seq = f.rowid "
                    f"WHERE {fts_table} MATCH ? AND {where} ORDER BY f.rank LIMIT ?")
        return (f"SELECT {columns}, ts_rank({alias}.fts, q) FROM {table} {alias}, "
                "to_tsquery('simple', ?) q "
                f"WHERE {alias}.fts @@ q AND {where} "
                f"ORDER BY ts_rank({alias}.fts, q) DESC, {alias}.seq DESC LIMIT ?")


SQLITE = Dialect(
    "sqlite", term_quote='"', any_term=" OR ", all_terms=" AND ", chain_walk=_SQLITE_CHAIN,
    skip_locked="", goal_lock=None, materialized="",
    defer_foreign_keys="PRAGMA defer_foreign_keys = ON", optimize="PRAGMA optimize",
    is_="IS", is_not="IS NOT", search_query=fts_query)
"""SQLite's spellings."""
POSTGRESQL = Dialect(
    "postgresql", term_quote="'", any_term=" | ", all_terms=" & ",
    chain_walk=_POSTGRESQL_CHAIN, skip_locked=" ORDER BY t.id FOR UPDATE OF t SKIP LOCKED",
    goal_lock="SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))",
    materialized=" MATERIALIZED", defer_foreign_keys="SET CONSTRAINTS ALL DEFERRED",
    optimize="ANALYZE", is_="IS NOT DISTINCT FROM", is_not="IS DISTINCT FROM",
    search_query=pg_tsquery)
"""PostgreSQL's spellings."""
