"""A memory's detail view (provenance: the task it came from, its source, its use)."""

from __future__ import annotations

from textual.binding import Binding

from memtui.app.modals.text import ScrollTextDialog


class MemoryDetailModal(ScrollTextDialog[str | None]):
    """Shows one memory. Dismisses with the next action: ``"history"``, ``"correct"``,
    ``"copy"``, or None."""

    BOX = "detail"
    BINDINGS = [
        Binding("escape,q", "close", "close", tooltip="Close", id="detail.close"),
        Binding("h", "choose('history')", "history", tooltip="The memory's history",
                id="detail.history"),
        Binding("e", "choose('correct')", "correct", tooltip="Correct it", id="detail.correct"),
        Binding("c", "choose('copy')", "copy", tooltip="Copy its text", id="detail.copy"),
    ]

    def hint(self) -> str:
        """The detail's keys."""
        return "esc close · h history · e correct · c copy"

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)

    def action_choose(self, action: str) -> None:
        """Close and ask the app to do ``action``."""
        self.dismiss(action)
