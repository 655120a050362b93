"""A memories row as a ``Memory``, shared by memories.py and search_pages.py without either
importing the other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memtui.store.models import Memory

MEMORY_COLUMNS = ("id, scope, owner, project, kind, content, status, superseded_by, source, "
                  "source_thread_id, created_at, updated_at, usage_count, last_used_at")
"""The memories columns a ``Memory`` is made of, in the order of its fields."""
_WIDTH = len(MEMORY_COLUMNS.split(","))


def row_to_memory(row: Sequence[Any]) -> Memory:
    """A memories row (in MEMORY_COLUMNS order, the fields' order) as a Memory."""
    return Memory(*row[:_WIDTH])
