"""The store: the only code that runs SQL. Plain dataclasses cross its interface."""

from memtui.store.database import Store, open_store
from memtui.store.models import (
    KINDS,
    ROLES,
    SCOPES,
    SOURCES,
    STATUSES,
    Memory,
    MemoryFilter,
    PageCursor,
    Profile,
    Project,
)

__all__ = ["KINDS", "ROLES", "SCOPES", "SOURCES", "STATUSES", "Memory", "MemoryFilter",
           "PageCursor", "Profile", "Project", "Store", "open_store"]
