"""A memory's detail view (provenance: the task it came from, its source, its use)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from memtui.app.modals.base import Dialog


class MemoryDetailModal(Dialog[str | None]):
    """Shows one memory. Dismisses with the next action: ``"history"``, ``"correct"``,
    ``"copy"``, or None."""

    BINDINGS = [
        Binding("escape,q", "close", "close", tooltip="Close", id="detail.close"),
        Binding("h", "choose('history')", "history", tooltip="The memory's history",
                id="detail.history"),
        Binding("e", "choose('correct')", "correct", tooltip="Correct it", id="detail.correct"),
        Binding("c", "choose('copy')", "copy", tooltip="Copy its text", id="detail.copy"),
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        """Title, scrollable detail, key hint."""
        with Vertical(classes="dialog dialog-detail"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self._body, classes="dialog-body")
            yield Static(Text("esc close · h history · e correct · c copy", style="dim"),
                         classes="dialog-hint")

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)

    def action_choose(self, action: str) -> None:
        """Close and ask the app to do ``action``."""
        self.dismiss(action)
