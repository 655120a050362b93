"""Which of Codex's database layouts a home has, in words (spec/40, "Versions").

Codex has kept its memory tables in three places. memtui reads and writes the two newer ones
and names the oldest instead of showing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from memtui.engine.codex.models import JsonMixin
from memtui.store.codex_models import (
    LAYOUT_MEMORIES_DB,
    LAYOUT_NONE,
    LAYOUT_OLD,
    LAYOUT_STATE_DB,
    CodexLayout,
)

LAYOUT_WORDS = {
    LAYOUT_MEMORIES_DB: "memories in memories_1.sqlite, threads in state_5.sqlite "
                        "(Codex since 2026-05-26)",
    LAYOUT_STATE_DB: "memories inside state_5.sqlite (Codex 2026-02-10 to 2026-05-26)",
    LAYOUT_OLD: "older than Codex 2026-02 (thread_memory / memory_phase1_jobs tables); "
                "not supported",
    LAYOUT_NONE: "no Codex database found",
}
"""One line per layout, as ``codex show`` and the Codex pane print it."""


@dataclass(frozen=True)
class LayoutInfo(JsonMixin):
    """A home's layout for people and ``--json``: its name, words, files and versions."""

    name: str
    description: str
    supported: bool
    state_path: str
    state_version: int | None
    """The newest state migration applied (``_sqlx_migrations``), None without one."""
    memories_path: str
    memories_version: int | None
    memory_db: str | None
    """The file that holds ``stage1_outputs`` and ``jobs`` (None when none does)."""

    @property
    def schema_words(self) -> str:
        """``state schema 40, memories schema 1`` (the parts known)."""
        parts = []
        if self.state_version is not None:
            parts.append(f"state schema {self.state_version}")
        if self.memories_version is not None:
            parts.append(f"memories schema {self.memories_version}")
        return ", ".join(parts) or "schema version unknown"


def describe_layout(layout: CodexLayout) -> LayoutInfo:
    """The engine's view of a detected layout."""
    return LayoutInfo(
        name=layout.name, description=LAYOUT_WORDS.get(layout.name, layout.name),
        supported=layout.supported, state_path=layout.state.path,
        state_version=layout.state.version, memories_path=layout.memories.path,
        memories_version=layout.memories.version, memory_db=layout.memory_db_path)
