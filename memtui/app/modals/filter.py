"""Choose what a memory list shows: kind, status (or its stale memories) and source."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Label, RadioButton, RadioSet

from memtui.app.filter_choice import ALL, STALE, FilterChoice
from memtui.app.modals.editor import FormDialog
from memtui.store.models import KINDS, SOURCES, STATUSES

ONE_LINE_CHOICES = 6
"""A row with more choices than this is laid out on a grid (it would not fit 80 columns)."""


class FilterModal(FormDialog[FilterChoice]):
    """Three rows of choices; Enter applies, Escape cancels."""

    BOX = "filter"
    BINDINGS = [
        Binding("ctrl+s", "save", "apply", tooltip="Apply the filter", id="filter.apply"),
        Binding("escape", "close", "cancel", tooltip="Cancel", id="filter.cancel"),
    ]

    def __init__(self, current: FilterChoice) -> None:
        super().__init__("Filter the list")
        self._current = current

    def compose_body(self) -> ComposeResult:
        """One radio row each for kind, status and source."""
        rows = (("kind", (ALL, *KINDS), self._current.kind or ALL),
                ("status", (*STATUSES, ALL, STALE), self._current.status or ALL),
                ("source", (ALL, *SOURCES), self._current.source or ALL))
        for name, values, chosen in rows:
            yield Label(name)
            many = " -many" if len(values) > ONE_LINE_CHOICES else ""
            with RadioSet(id=f"filter-{name}", classes=f"filter-row{many}"):
                for value in values:
                    yield RadioButton(value, value=value == chosen, id=f"{name}-{value}")
        yield from self.compose_buttons("Apply", focusable=True)

    def _chosen(self, name: str) -> str | None:
        pressed = self.query_one(f"#filter-{name}", RadioSet).pressed_button
        value = pressed.id.split("-", 1)[1] if pressed is not None and pressed.id else ALL
        return None if value == ALL else value

    def draft(self) -> FilterChoice:
        """The chosen filter."""
        return FilterChoice(kind=self._chosen("kind"), status=self._chosen("status"),
                            source=self._chosen("source"))
