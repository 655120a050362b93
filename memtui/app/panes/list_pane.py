"""``ListPane``: a title line, one list (id ``<PANE_ID>-list``, focused when the pane is
shown) and the selected row's details below it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from memtui.app.panes.base import Pane
from memtui.app.widgets.line_list import ItemList, LineList
from memtui.app.widgets.preview import PreviewScroll

ListType = TypeVar("ListType", bound=LineList)


class ListPane(Pane, Generic[ListType]):
    """A pane built round one list widget (``ListType``, a ``LIST_CLASS`` of ``_row`` lines)."""

    LIST_CLASS: ClassVar[Callable[..., LineList]] = ItemList
    """The list's class (an ``ItemList`` unless the pane pages its rows)."""
    EMPTY_TEXT: ClassVar[str] = ""
    """What the list says while it has no rows."""
    DETAIL_HEIGHT: ClassVar[str | None] = None
    """The details' height beside the list's ``1fr`` (None: the CSS's fixed height)."""

    def compose(self) -> ComposeResult:
        """Title, the list, the selected row's details."""
        yield Static("", classes="pane-title", id=f"{self.PANE_ID}-title")
        yield self.LIST_CLASS(self._row, id=f"{self.PANE_ID}-list", empty_text=self.EMPTY_TEXT)
        scroll = PreviewScroll(f"{self.PANE_ID}-preview", id=f"{self.PANE_ID}-scroll")
        if self.DETAIL_HEIGHT is not None:
            scroll.styles.height = self.DETAIL_HEIGHT
        yield scroll

    def _row(self, item: Any, width: int) -> Text:
        """One row of the list in ``width`` columns (each pane says how)."""
        raise NotImplementedError

    @property
    def item_list(self) -> ListType:
        """The pane's list."""
        return cast(ListType, self.query_one(f"#{self.PANE_ID}-list", LineList))

    def show_title(self, title: Text) -> None:
        """Show ``title`` on the title line."""
        self.query_one(f"#{self.PANE_ID}-title", Static).update(title)

    def focus_target(self) -> Widget | None:
        """The list."""
        return self.item_list

    def preview(self) -> RenderableType:
        """What the details below the list show for the selected row (each pane says how)."""
        raise NotImplementedError

    def _update_preview(self) -> None:
        """Show the selected row below the list."""
        self.query_one(PreviewScroll).show(self.preview())

    def on_line_list_cursor_moved(self, message: LineList.CursorMoved) -> None:
        """Show the row the cursor moved to."""
        message.stop()
        self._update_preview()
