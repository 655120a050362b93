"""``ListPane``: a pane whose main part is one list (Bundles, Codex, History, Inbox, Log).
It names the list by ``LIST_ID``; the list is what gets focus when the pane is shown, and
moving its cursor shows the selected row below it."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar, cast

from textual.widget import Widget

from memtui.app.panes.base import Pane
from memtui.app.widgets.line_list import LineList

ListType = TypeVar("ListType", bound=LineList)


class ListPane(Pane, Generic[ListType]):
    """A pane built round one list widget (``ListType``) with id ``LIST_ID``."""

    LIST_ID: ClassVar[str] = ""
    """The id of the pane's list (its ``compose`` yields the list with it)."""

    @property
    def item_list(self) -> ListType:
        """The pane's list."""
        return cast(ListType, self.query_one(f"#{self.LIST_ID}", LineList))

    def focus_target(self) -> Widget | None:
        """The list."""
        return self.item_list

    def _update_preview(self) -> None:
        """Show the selected row below the list (each pane says how)."""
        raise NotImplementedError

    def on_line_list_cursor_moved(self, message: LineList.CursorMoved) -> None:
        """Show the row the cursor moved to."""
        message.stop()
        self._update_preview()
