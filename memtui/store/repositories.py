"""Attach the store's repositories (one per area, each holding that area's SQL) to a Store."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.store.database import Store


def attach_repositories(store: Store) -> None:
    """Give ``store`` its repository attributes: identity, memories, audit, tasks, service."""
    from memtui.store.audit import AuditRepository
    from memtui.store.identity import IdentityRepository
    from memtui.store.memories import MemoryRepository
    from memtui.store.service_data import ServiceDataRepository
    from memtui.store.tasks import TaskRepository

    store.identity = IdentityRepository(store)
    store.memories = MemoryRepository(store)
    store.audit = AuditRepository(store)
    store.tasks = TaskRepository(store)
    store.service = ServiceDataRepository(store)
