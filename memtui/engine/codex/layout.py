"""Which of Codex's database layouts a home has, in words."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.engine.codex.paths import memories_dir_name
from memtui.jsonable import JsonMixin
from memtui.store.codex_models import (
    LAYOUT_MEMORIES_DB,
    LAYOUT_MEMORIES_V2,
    LAYOUT_NONE,
    LAYOUT_OLD,
    LAYOUT_STATE_DB,
    LAYOUT_UNKNOWN,
    CodexLayout,
)

LAYOUT_WORDS = {
    LAYOUT_MEMORIES_V2: "memories in memories_v2_1.sqlite and memories_v2/, threads in "
                        "state_5.sqlite (Codex 0.169 to 0.171)",
    LAYOUT_UNKNOWN: "a layout memtui does not know (a newer Codex); read where its tables "
                    "are the known ones, never written",
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
    memories_folder: str = "memories"
    """The name of the memory files' folder in the home (``memories_v2`` in the v2 layout)."""
    unknown_files: tuple[str, ...] = ()
    writable: bool = True
    """Whether memtui may write this layout (with the explicit flag)."""

    @property
    def jobs_complete(self) -> bool:
        """False for a layout memtui does not know or the oldest one: the jobs read (if any)
        may not be all there is, so "nothing stuck" cannot be said."""
        return self.name not in (LAYOUT_UNKNOWN, LAYOUT_OLD)

    @property
    def summary_always_written(self) -> bool:
        """False in the v2 layout, where Codex writes ``memory_summary.md`` only once a
        consolidation succeeded (before that its absence is no problem)."""
        return self.name != LAYOUT_MEMORIES_V2

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
    unknown = tuple(info.path for info in layout.unknown)
    description = LAYOUT_WORDS.get(layout.name, layout.name)
    if unknown:
        description = f"{', '.join(Path(path).name for path in unknown)}: {description}"
    memory_db = next((info for info in (layout.memories_v2, *layout.unknown)
                      if info is not None and info.path == layout.memory_db_path),
                     layout.memories)
    return LayoutInfo(
        name=layout.name, description=description,
        supported=layout.supported, state_path=layout.state.path,
        state_version=layout.state.version, memories_path=memory_db.path,
        memories_version=memory_db.version, memory_db=layout.memory_db_path,
        memories_folder=memories_dir_name(layout), unknown_files=unknown,
        writable=layout.supported)
