"""``TextView``: a ``Static`` showing a ``rich.text.Text`` that asks for a layout only when
its height may change (``Static.update`` lays the whole screen out again by default)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class TextView(Static):
    """A ``Static`` for store text already made safe as ``Text`` (never markup)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", markup=False, id=id, classes=classes)
        self._shown: Text = Text()

    def needs_layout(self, text: Text) -> bool:
        """Whether showing ``text`` may change this widget's height (not for a fixed height,
        nor for a text that fits the one line the widget has now)."""
        height = self.styles.height
        if height is not None and not height.is_auto:
            return False
        return self.size.height != 1 or "\n" in text.plain \
            or text.cell_len > self.content_region.width

    def show(self, text: Text) -> None:
        """Show ``text`` (nothing to do when it is already shown)."""
        if text == self._shown and text.style == self._shown.style:
            return  # (Text's == compares the characters and spans, not the base style)
        self._shown = text
        self.update(text, layout=self.needs_layout(text))
