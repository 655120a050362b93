"""The base of every repository: the store its SQL runs through, and rows as dataclasses."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from memtui.store.dialect import marks

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from memtui.store.backend import Cursor, StoreBackend

RowT = TypeVar("RowT")
DataT = TypeVar("DataT", bound="DataclassInstance")


def columns_of(row_class: Any) -> str:
    """The column list (``a, b``) of a row dataclass whose fields are named as its columns."""
    return ", ".join(field.name for field in fields(row_class))


def row_values(row: object) -> tuple[Any, ...]:
    """A row dataclass's values in field order, booleans as 0/1 (integer columns)."""
    return tuple(int(value) if isinstance(value, bool) else value
                 for value in vars(row).values())


@cache
def row_maker(row_class: type[DataT]) -> Callable[[Sequence[Any]], DataT]:
    """``row_values``' inverse: a row dataclass from a row's first values in field order
    (later columns ignored), the fields typed ``bool`` from their 0/1."""
    kinds = [field.type in ("bool", bool) for field in fields(row_class)]
    width = len(kinds)
    if not any(kinds):
        return lambda row: row_class(*row[:width])
    return lambda row: row_class(*(bool(value) if flag else value
                                   for flag, value in zip(kinds, row[:width], strict=False)))


class Repository:
    """SQL for one area of the store, run through ``store`` (connection and dialect)."""

    def __init__(self, store: StoreBackend) -> None:
        self._store = store

    def _insert(self, table: str, row: object, tail: str = "") -> Cursor:
        """Insert a row dataclass whose fields are named as ``table``'s columns (``tail``: an
        ``ON CONFLICT`` clause)."""
        values = row_values(row)
        return self._store.execute(f"INSERT INTO {table}({columns_of(row)}) "
                                   f"VALUES ({marks(values)}){tail}", values)

    def _text(self, sql: str, params: Any = ()) -> str | None:
        """The first column of the statement's first row (None without a row)."""
        row = self._store.execute(sql, params).fetchone()
        value: str | None = None if row is None else row[0]
        return value

    def _texts(self, sql: str, params: Any = ()) -> list[str]:
        """The first column of every row of the statement (ids)."""
        return [row[0] for row in self._store.execute(sql, params).fetchall()]

    def _count(self, sql: str, params: Any = ()) -> int:
        """The statement's one number (a ``count(*)``)."""
        return int(self._store.execute(sql, params).fetchone()[0])

    def _one(self, make: Callable[[Sequence[Any]], RowT], sql: str,
             params: Any = ()) -> RowT | None:
        """The statement's first row as ``make`` makes it (None without a row)."""
        row = self._store.execute(sql, params).fetchone()
        return None if row is None else make(row)

    def _all(self, make: Callable[[Sequence[Any]], RowT], sql: str,
             params: Any = ()) -> list[RowT]:
        """Every row of the statement as ``make`` makes it."""
        return [make(row) for row in self._store.execute(sql, params).fetchall()]
