"""The base of every repository: the store its SQL runs through."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.store.backend import StoreBackend


class Repository:
    """SQL for one area of the store, run through ``store`` (connection and dialect)."""

    def __init__(self, store: StoreBackend) -> None:
        self._store = store
