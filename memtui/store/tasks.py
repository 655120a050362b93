"""SQL for tasks, follow-ups, quotas, auto-memory settings and the extraction log."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.store.database import Store


class TaskRepository:
    """Tasks, follow-ups, quotas, settings, extraction log."""

    def __init__(self, store: Store) -> None:
        self._store = store
