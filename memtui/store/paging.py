"""Pages of a newest-first list (memories, the extraction log), by keyset or by position:
the clauses and order a repository adds to its query. A list is ordered by a time column,
then an id column, both descending; the rows ``before`` a row (newer) and a page counted
from the end are read ascending and turned back into list order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from memtui.store.dialect import marks
from memtui.store.models import PageCursor

RowT = TypeVar("RowT")


@dataclass(frozen=True)
class Page:
    """What a query adds for one page: clauses, parameters, ORDER BY, whether rows come reversed."""

    clauses: tuple[str, ...]
    params: tuple[Any, ...]
    order: str
    reversed: bool

    def in_list_order(self, rows: Sequence[RowT]) -> list[RowT]:
        """The rows read, in list order (newest first)."""
        return list(reversed(rows)) if self.reversed else list(rows)


def keyset_page(time_column: str, id_column: str, after: PageCursor | None = None,
                before: PageCursor | None = None) -> Page:
    """The page after or before a row (see the module doc); the first page without either."""
    clauses: list[str] = []
    params: list[Any] = []
    if after is not None:
        clauses.append(f"({time_column}, {id_column}) < (?, ?)")
        params += [after.created_at, after.id]
    if before is not None:
        clauses.append(f"({time_column}, {id_column}) > (?, ?)")
        params += [before.created_at, before.id]
    return Page(tuple(clauses), tuple(params), _order(time_column, id_column, before is not None),
                before is not None)


def position_page(time_column: str, id_column: str, from_end: bool) -> Page:
    """A page by position (``LIMIT ? OFFSET ?``), counted from the top or from the end."""
    return Page((), (), _order(time_column, id_column, from_end), from_end)


def _order(time_column: str, id_column: str, ascending: bool) -> str:
    way = "ASC" if ascending else "DESC"
    return f"{time_column} {way}, {id_column} {way}"


def rows_in_order(execute: Callable[[str, Sequence[Any]], Any], table: str, alias: str,
                  columns: str, seqs: Sequence[int]) -> list[Sequence[Any]]:
    """``columns`` of ``table``'s rows with these seqs, in their order, in one query."""
    if not seqs:
        return []
    rows = execute(f"SELECT {alias}.seq, {columns} FROM {table} {alias} "
                   f"WHERE {alias}.seq IN ({marks(seqs)})", seqs).fetchall()
    by_seq = {row[0]: row[1:] for row in rows}
    return [by_seq[seq] for seq in seqs if seq in by_seq]
