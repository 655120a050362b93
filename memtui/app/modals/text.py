"""A read-only text screen (``/memory status``, help): literal text, scrollable."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from memtui.app.modals.base import Dialog


@runtime_checkable
class CopiesText(Protocol):
    """An app that can copy text to the clipboard (``MemtuiApp``; the dialog does not import
    the app, which imports the dialog)."""

    def copy_text(self, text: str, what: str) -> None:
        """Copy ``text``; ``what`` names it in the notice."""


class TextModal(Dialog[None]):
    """Show a title and a renderable built from ``Text`` (never markup); any close key
    dismisses it."""

    BINDINGS = [
        Binding("escape,q,enter", "close", "close", tooltip="Close", id="text.close"),
        Binding("c", "copy", "copy", tooltip="Copy", id="text.copy"),
    ]

    def __init__(self, title: str, body: RenderableType, copy_text: str | None = None) -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._copy_text = copy_text

    def compose(self) -> ComposeResult:
        """The title and the scrollable body."""
        with Vertical(classes="dialog dialog-text"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self._body, classes="dialog-body")
            yield Static(Text("esc close" + (" · c copy" if self._copy_text else ""),
                              style="dim"), classes="dialog-hint")

    def action_close(self) -> None:
        """Close the screen."""
        self.dismiss(None)

    def action_copy(self) -> None:
        """Copy the text (when the screen was given one)."""
        if self._copy_text is not None and isinstance(self.app, CopiesText):
            self.app.copy_text(self._copy_text, self._title.lower())
