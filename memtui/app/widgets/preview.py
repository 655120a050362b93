"""The scrolling detail area under a list (History, Log, Bundles, Codex): the selected row's
whole text (its CSS comes with it, off the first frame)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

T = TypeVar("T")
SourceType = TypeVar("SourceType")


def selection_preview(source: SourceType | None, selected: T | None, items: Sequence[T],
                      describe: Callable[[Text, T], None],
                      overview: Callable[[Text, SourceType], None], empty: str,
                      unselected: str) -> RenderableType:
    """The preview under a list read from ``source``: the selected item (``describe``), or
    dim why there is none (``empty``, ``unselected``), then the source's ``overview``."""
    if source is None:
        return ""
    text = Text()
    if selected is not None:
        describe(text, selected)
    else:
        text.append(unselected if items else empty, style="dim")
    overview(text, source)
    return text


class PreviewScroll(VerticalScroll):
    """A bordered, scrollable area holding one ``Static`` (``text_id``) with the detail."""

    SCOPED_CSS = False
    DEFAULT_CSS = """
    .preview-scroll { height: 7; border-top: hkey $primary 50%; padding: 0 1; }
    .preview-text { width: 1fr; }
    .-tall .preview-scroll { height: 12; }
    """

    def __init__(self, text_id: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="preview-scroll")
        self._text_id = text_id

    def compose(self) -> ComposeResult:
        """The detail text."""
        yield Static("", id=self._text_id, classes="preview-text")

    def show(self, content: RenderableType) -> None:
        """Show ``content`` (store text in it must already be literal ``Text``)."""
        self.query_one(f"#{self._text_id}", Static).update(content)
