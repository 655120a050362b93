"""``ErrorLine``: the line under a field (or a dialog) that says why an input was refused;
it takes no room while empty (CSS ``:empty`` always matches a ``Static``)."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class ErrorLine(Static):
    """A message line shown only while it holds text."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.display = False

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content`` (hide the line when it is empty) and bring it into view."""
        super().update(content, layout=layout)
        shown = bool(str(content))
        self.display = shown
        if shown and self.is_mounted:
            self.call_after_refresh(self.scroll_visible, animate=False)

    @property
    def message(self) -> str:
        """The text shown now ('' when hidden)."""
        return str(self.render()) if self.display else ""
