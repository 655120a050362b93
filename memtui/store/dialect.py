"""The small SQL pieces that differ between SQLite and PostgreSQL.

The repositories' statements are shared; where the two databases spell a thing differently
(ignoring a duplicate row, a list passed as JSON, a planner hint), the statement asks the
store's ``dialect`` for the piece. Queries that differ as a whole (full-text search) live in
backend-specific repository subclasses instead (``memtui.store.postgres.repositories``).
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass


def marks(values: Sized) -> str:
    """``?, ?, ?``: one placeholder per value (an ``IN (...)`` list, a ``VALUES`` row)."""
    return ", ".join("?" * len(values))


@dataclass(frozen=True)
class Dialect:
    """SQL spellings of one backend. ``name`` is ``sqlite`` or ``postgresql``."""

    name: str

    @property
    def is_sqlite(self) -> bool:
        """Whether this is SQLite's dialect."""
        return self.name == "sqlite"

    def insert_ignore(self, into: str) -> str:
        """``INSERT`` of ``into`` (``table(columns) VALUES (...)``) that skips a row whose
        key already exists."""
        if self.is_sqlite:
            return f"INSERT OR IGNORE INTO {into}"
        return f"INSERT INTO {into} ON CONFLICT DO NOTHING"

    def greatest(self, first: str, second: str) -> str:
        """The larger of two values."""
        return f"max({first}, {second})" if self.is_sqlite else f"GREATEST({first}, {second})"

    def indexed_by(self, index: str) -> str:
        """A planner hint to read the table through ``index`` (SQLite only; PostgreSQL's
        planner picks by statistics)."""
        return f" INDEXED BY {index}" if self.is_sqlite else ""

    def json_values(self, marker: str = "?") -> str:
        """A subquery of the text values of a JSON array passed as one parameter."""
        if self.is_sqlite:
            return f"(SELECT value FROM json_each({marker}))"
        return f"(SELECT json_array_elements_text(CAST({marker} AS json)))"

    @property
    def is_not(self) -> str:
        """The operator that compares two values, NULL as a value: true when they differ."""
        return "IS NOT" if self.is_sqlite else "IS DISTINCT FROM"

    @property
    def is_(self) -> str:
        """The operator that compares two values, NULL as a value: true when they are equal."""
        return "IS" if self.is_sqlite else "IS NOT DISTINCT FROM"


SQLITE = Dialect("sqlite")
"""SQLite's spellings."""
POSTGRESQL = Dialect("postgresql")
"""PostgreSQL's spellings."""
