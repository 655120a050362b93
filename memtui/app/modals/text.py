"""A read-only text screen (``/memory status``, help): literal text, scrollable."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui.app.modals.base import Dialog, ResultType

if TYPE_CHECKING:
    from memtui.app.app import MemtuiApp


class ScrollTextDialog(Dialog[ResultType]):
    """A title, a scrollable read-only body (made of ``Text``, never markup), key hints."""

    def __init__(self, title: str, body: RenderableType, hint: str) -> None:
        super().__init__(title)
        self._body = body
        self._hint = hint

    def compose_body(self) -> ComposeResult:
        """The scrollable body, the key hints."""
        with VerticalScroll(classes="dialog-scroll"):
            yield Static(self._body, classes="dialog-body")
        yield Static(Text(self._hint, style="dim"), classes="dialog-hint")


class TextModal(ScrollTextDialog[None]):
    """A title and a body made of ``Text`` (never markup); any close key dismisses it."""

    BOX = "text"
    BINDINGS = [
        Binding("escape,q,enter", "close", "close", tooltip="Close", id="text.close"),
        Binding("c", "copy", "copy", tooltip="Copy", id="text.copy"),
    ]

    def __init__(self, title: str, body: RenderableType, copy_text: str | None = None) -> None:
        super().__init__(title, body, "esc close" + (" · c copy" if copy_text else ""))
        self._copy_text = copy_text

    def action_copy(self) -> None:
        """Copy the text (when the screen was given one)."""
        if self._copy_text is not None:
            cast("MemtuiApp", self.app).copy_text(self._copy_text, self.dialog_title.lower())
