"""Plain dataclasses that cross the store's interface, one module per area, imported from
here (``from memtui.store.models import Memory``): a name is resolved on first use (PEP 562),
so the app's first frame does not pay for the task and service classes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

SCOPES = ("user", "project")
KINDS = ("fact", "preference", "decision", "convention")
STATUSES = ("active", "superseded", "pending")
SOURCES = ("manual", "note", "auto", "import", "mcp", "service")
ROLES = ("owner", "member", "reader")
TASK_STATUSES = ("queued", "running", "completed", "failed", "interrupted", "merged")
LOG_OUTCOMES = ("extracted", "superseded_previous", "skipped", "error")

_AREAS: dict[str, tuple[str, ...]] = {
    "identity": ("User", "Project", "Membership", "Profile", "AuditEntry"),
    "memories": ("Memory", "MemoryFilter", "PageCursor"),
    "tasks": ("Task", "Followup", "LogEntry", "ScanRow", "QuotaRow", "DedupeRow",
              "EXTRACTED_OUTCOMES"),
    "service": ("Interaction", "BundleDocument"),
}
_AREA_OF = {name: area for area, names in _AREAS.items() for name in names}

if TYPE_CHECKING:
    from memtui.store.models.identity import AuditEntry, Membership, Profile, Project, User
    from memtui.store.models.memories import Memory, MemoryFilter, PageCursor
    from memtui.store.models.service import BundleDocument, Interaction
    from memtui.store.models.tasks import (
        EXTRACTED_OUTCOMES,
        DedupeRow,
        Followup,
        LogEntry,
        QuotaRow,
        ScanRow,
        Task,
    )


def __getattr__(name: str) -> Any:
    """A model class, from its area's module (imported now if it was not yet)."""
    area = _AREA_OF.get(name)
    if area is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{area}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_AREA_OF])


__all__ = [
    "EXTRACTED_OUTCOMES", "KINDS", "LOG_OUTCOMES", "ROLES", "SCOPES", "SOURCES", "STATUSES",
    "TASK_STATUSES", "AuditEntry", "BundleDocument", "DedupeRow", "Followup",
    "Interaction", "LogEntry", "Membership", "Memory", "MemoryFilter", "PageCursor", "Profile",
    "Project", "QuotaRow", "ScanRow", "Task", "User",
]
