"""The base of every repository: the store its SQL runs through."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend


def columns_of(row_class: Any) -> str:
    """The column list (``a, b``) of a row dataclass whose fields are named as its columns."""
    return ", ".join(field.name for field in fields(row_class))


def row_values(row: object) -> tuple[Any, ...]:
    """A row dataclass's values in field order, booleans as 0/1 (integer columns)."""
    return tuple(int(value) if isinstance(value, bool) else value
                 for value in vars(row).values())


class Repository:
    """SQL for one area of the store, run through ``store`` (connection and dialect)."""

    def __init__(self, store: StoreBackend) -> None:
        self._store = store
