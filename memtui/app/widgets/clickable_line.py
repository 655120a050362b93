"""A one-line widget drawn as text whose parts can be clicked and hovered: the base of the
pane bar and the key bar (``render`` records where each item landed: ``remember_spans``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from textual import events

from memtui.app.widgets.text_line import TextLine

ItemT = TypeVar("ItemT")


class ClickableLine(TextLine, Generic[ItemT]):
    """One line of clickable items; subclasses implement ``render`` and ``clicked``."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, ItemT]] = []
        self._hover: ItemT | None = None

    def remember_spans(self, spans: Sequence[tuple[int, int, ItemT]]) -> None:
        """Where each item was drawn in the last render: ``(start, end, item)`` columns."""
        self._spans = list(spans)

    def item_at(self, x: int) -> ItemT | None:
        """The item drawn at column ``x`` (as last rendered), if any."""
        for start, end, item in self._spans:
            if start <= x < end:
                return item
        return None

    def is_hovered(self, item: ItemT) -> bool:
        """Whether the pointer is over ``item`` (draw it highlighted)."""
        return self._hover is not None and item == self._hover

    def tooltip_for(self, item: ItemT) -> str | None:
        """The tooltip while ``item`` is hovered (none by default)."""
        return None

    def clicked(self, item: ItemT) -> None:
        """``item`` was clicked."""
        raise NotImplementedError

    def on_click(self, event: events.Click) -> None:
        """A click on an item goes to ``clicked``."""
        item = self.item_at(event.x)
        if item is not None:
            event.stop()
            self.clicked(item)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Highlight the item under the pointer and show its tooltip."""
        self._set_hover(self.item_at(event.x))

    def on_leave(self, _event: events.Leave) -> None:
        """The pointer left: nothing is highlighted."""
        self._set_hover(None)

    def _set_hover(self, item: ItemT | None) -> None:
        if item != self._hover:
            self._hover = item
            self.tooltip = self.tooltip_for(item) if item is not None else None
            self.refresh()
