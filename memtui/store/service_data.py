"""SQL for the service's data: interactions, bundles and their documents, consolidations."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.store.database import Store


class ServiceDataRepository:
    """Interactions, bundles, bundle documents, consolidation records."""

    def __init__(self, store: Store) -> None:
        self._store = store
