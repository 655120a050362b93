"""A read-only text screen (``/memory status``, help): literal text, scrollable."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui.app.modals.base import Dialog, ResultType


@runtime_checkable
class CopiesText(Protocol):
    """An app that can copy text to the clipboard (``MemtuiApp``; the dialog does not import
    the app, which imports the dialog)."""

    def copy_text(self, text: str, what: str) -> None:
        """Copy ``text``; ``what`` names it in the notice."""


class ScrollTextDialog(Dialog[ResultType]):
    """A title, a scrollable read-only body (a renderable built from ``Text``, never markup)
    and a line of key hints."""

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__(title)
        self._body = body

    def hint(self) -> str:
        """The key hints under the body."""
        raise NotImplementedError

    def compose_body(self) -> ComposeResult:
        """The scrollable body, the key hints."""
        with VerticalScroll(classes="dialog-scroll"):
            yield Static(self._body, classes="dialog-body")
        yield Static(Text(self.hint(), style="dim"), classes="dialog-hint")


class TextModal(ScrollTextDialog[None]):
    """Show a title and a renderable built from ``Text`` (never markup); any close key
    dismisses it."""

    BOX = "text"
    BINDINGS = [
        Binding("escape,q,enter", "close", "close", tooltip="Close", id="text.close"),
        Binding("c", "copy", "copy", tooltip="Copy", id="text.copy"),
    ]

    def __init__(self, title: str, body: RenderableType, copy_text: str | None = None) -> None:
        super().__init__(title, body)
        self._copy_text = copy_text

    def hint(self) -> str:
        """Close, and copy when there is text to copy."""
        return "esc close" + (" · c copy" if self._copy_text else "")

    def action_close(self) -> None:
        """Close the screen."""
        self.dismiss(None)

    def action_copy(self) -> None:
        """Copy the text (when the screen was given one)."""
        if self._copy_text is not None and isinstance(self.app, CopiesText):
            self.app.copy_text(self._copy_text, self.dialog_title.lower())
