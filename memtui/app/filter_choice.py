"""What a memory pane's filter is set to (chosen in ``FilterModal``; kept by the pane)."""

from __future__ import annotations

from dataclasses import dataclass

ALL = "all"
STALE = "stale"
"""The status choice that lists the list's stale active memories (``engine.staleness``)."""


@dataclass(frozen=True)
class FilterChoice:
    """A list filter as chosen in the app (``None`` = any)."""

    kind: str | None = None
    status: str | None = "active"
    source: str | None = None

    def describe(self) -> str:
        """Short words for the pane's title line."""
        parts = (self.status or "all statuses", self.kind and f"kind {self.kind}",
                 self.source and f"source {self.source}")
        return " · ".join(part for part in parts if part)

    @property
    def stale(self) -> bool:
        """Whether the list shows its stale memories (read whole, bounded, by the engine)."""
        return self.status == STALE

    @property
    def status_arg(self) -> str:
        """The status as the engine's filter takes it (``all`` for any; stale ones are active)."""
        return "active" if self.stale else self.status or ALL
