"""A memories row as a ``Memory``, shared by memories.py and search_pages.py without either
importing the other."""

from __future__ import annotations

from memtui.store.models import Memory
from memtui.store.repository import columns_of, row_maker

MEMORY_COLUMNS = columns_of(Memory)
"""The memories columns a ``Memory`` is made of, in the order of its fields."""
row_to_memory = row_maker(Memory)
"""A memories row (in MEMORY_COLUMNS order, the fields' order) as a Memory."""
