"""What a memory pane's filter is set to (chosen in ``FilterModal``; kept by the pane)."""

from __future__ import annotations

from dataclasses import dataclass

ALL = "all"


@dataclass(frozen=True)
class FilterChoice:
    """A list filter as chosen in the app (``None`` = any)."""

    kind: str | None = None
    status: str | None = "active"
    source: str | None = None

    def describe(self) -> str:
        """Short words for the pane's title line."""
        parts = [self.status or "all statuses"]
        if self.kind:
            parts.append(f"kind {self.kind}")
        if self.source:
            parts.append(f"source {self.source}")
        return " · ".join(parts)

    @property
    def status_arg(self) -> str:
        """The status as the engine's list filter takes it (``all`` for any)."""
        return self.status or ALL
