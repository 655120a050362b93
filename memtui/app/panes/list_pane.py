"""``ListPane``: a pane whose main part is one ``ItemList`` (Bundles, Codex, History,
Inbox). It names the list by ``LIST_ID``, and the list is what gets focus when the pane
is shown."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual.widget import Widget

from memtui.app.panes.base import Pane
from memtui.app.widgets.line_list import ItemList

RowType = TypeVar("RowType")


class ListPane(Pane, Generic[RowType]):
    """A pane built round one ``ItemList[RowType]`` with id ``LIST_ID``."""

    LIST_ID: ClassVar[str] = ""
    """The id of the pane's list (its ``compose`` yields the list with it)."""

    @property
    def item_list(self) -> ItemList[RowType]:
        """The pane's list."""
        return self.query_one(f"#{self.LIST_ID}", ItemList)

    def focus_target(self) -> Widget | None:
        """The list."""
        return self.item_list
