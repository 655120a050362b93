"""The pane bar: one line naming every pane (``1 Profile  2 User …``), the shown one marked,
drawn as text (Textual's ``Tabs`` builds a widget per tab). A click on a name posts
``Selected``; names that do not fit are cut around the shown pane, marked ``‹``/``›``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive

from memtui.app.widgets.clickable_line import ClickableLine

MORE_LEFT = "‹"
MORE_RIGHT = "›"
GAP = 1
"""Cells between two names."""


class PaneLabel(NamedTuple):
    """One name on the bar: the pane's id and the words shown (``2 User``)."""

    pane_id: str
    text: str


def visible_window(widths: Sequence[int], active: int, room: int) -> tuple[int, int]:
    """The names ``[start, end)`` to draw in ``room`` cells, always including ``active``:
    as many as fit from the left, else a window that ends at (or just after) it."""
    count = len(widths)
    if count == 0:
        return 0, 0
    active = min(max(active, 0), count - 1)

    def cells(start: int, end: int) -> int:
        used = sum(widths[start:end]) + GAP * (end - start - 1)
        return used + (1 + GAP if start > 0 else 0) + (GAP + 1 if end < count else 0)

    start, end = 0, count
    while end - start > 1 and cells(start, end) > room:
        if end - 1 > active:
            end -= 1
        else:
            start += 1
    return start, end


class PaneBar(ClickableLine[str]):
    """One line naming the panes; the shown one bold and highlighted (also under NO_COLOR)."""

    COMPONENT_CLASSES = {"pane-bar--active", "pane-bar--inactive", "pane-bar--hover",
                         "pane-bar--more"}
    DEFAULT_CSS = """
    PaneBar { height: 1; background: $background; }
    PaneBar > .pane-bar--active { background: $primary; color: $text; text-style: bold; }
    PaneBar > .pane-bar--inactive { color: $text-muted; }
    PaneBar > .pane-bar--hover { background: $boost; color: $text; }
    PaneBar > .pane-bar--more { color: $text-muted; }
    """

    active: reactive[str] = reactive("", layout=False)
    """The id of the pane shown."""

    @dataclass
    class Selected(Message):
        """A pane's name was clicked."""

        pane_id: str

    def __init__(self, labels: Sequence[PaneLabel], active: str, *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels = tuple(labels)
        self.badges: dict[str, str] = {}
        """A short text after a pane's name (the Inbox's count), by pane id."""
        self.set_reactive(PaneBar.active, active)

    def set_badge(self, pane_id: str, badge: str) -> None:
        """Show ``badge`` after a pane's name (empty: none)."""
        if self.badges.get(pane_id, "") != badge:
            self.badges[pane_id] = badge
            self.refresh()

    def label_texts(self, width: int) -> list[str]:
        """The names as drawn: with a cell of room on both sides when that still fits."""
        names = [f"{label.text} {self.badges[label.pane_id]}" if self.badges.get(label.pane_id)
                 else label.text for label in self.labels]
        padded = [f" {name} " for name in names]
        return padded if sum(map(len, padded)) + GAP * (len(padded) - 1) <= width else names

    def render(self) -> Text:
        """The names that fit, the shown one marked; remembers where each one is drawn."""
        width = self.size.width or 80
        texts = self.label_texts(width)
        ids = [label.pane_id for label in self.labels]
        active = ids.index(self.active) if self.active in ids else 0
        start, end = visible_window([len(text) for text in texts], active, width)
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, str]] = []
        more = self.get_component_rich_style("pane-bar--more")
        if start > 0:
            line.append(MORE_LEFT + " " * GAP, style=more)
        for index in range(start, end):
            if index > start:
                line.append(" " * GAP)
            style = self._style_for(ids[index])
            x = line.cell_len
            line.append(texts[index], style=style)
            spans.append((x, line.cell_len, ids[index]))
        if end < len(texts):
            line.append(" " * GAP + MORE_RIGHT, style=more)
        self.remember_spans(spans)
        return line

    def _style_for(self, pane_id: str) -> Style:
        if pane_id == self.active:
            style = self.get_component_rich_style("pane-bar--active")
            return style + Style(bold=True, reverse=True) if self.app.no_color else style
        if self.is_hovered(pane_id):
            return self.get_component_rich_style("pane-bar--hover")
        return self.get_component_rich_style("pane-bar--inactive")

    def watch_active(self) -> None:
        """Redraw when another pane is shown."""
        self.refresh()

    def tooltip_for(self, item: str) -> str | None:
        """Which pane a name shows."""
        title = next((label.text for label in self.labels if label.pane_id == item), item)
        return f"{title} — show this pane"

    def clicked(self, item: str) -> None:
        """Clicking a name shows that pane."""
        self.post_message(self.Selected(item))
