"""A focusable list drawn line by line (Textual's Line API), with a cursor; ``ItemList``
shows a small in-memory list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.app.textual_compat import update_scroll_size
from memtui.textsafe import one_line

T = TypeVar("T")

EMPTY_TEXT_INDENT = 2
"""Columns before the wrapped message of an empty list."""
CURSOR_MARK = "›"
"""Drawn in the first column of the cursor row, so it shows without color (NO_COLOR)."""


@dataclass
class RowMessage(Message):
    """A message about one row of a list: the list that sent it and the row's index."""

    line_list: LineList
    index: int


ROW_LEAD_CELLS = 2
"""A row starts with the cursor mark and a space; the row's own text has the rest."""


class LineList(ScrollView, can_focus=True):
    """A list of one-line rows with a cursor; subclasses implement ``row_count`` and
    ``row_text``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "move(1)", "down", show=False, tooltip="Cursor down", id="list.down"),
        Binding("up,k", "move(-1)", "up", show=False, tooltip="Cursor up", id="list.up"),
        Binding("home", "move_to(0)", "first", show=False, tooltip="First row", id="list.first"),
        Binding("end,G", "move_to(-1)", "last", show=False, tooltip="Last row", id="list.last"),
        Binding("pagedown", "page(1)", "page down", show=False,
                tooltip="One screen down", id="list.page_down"),
        Binding("pageup", "page(-1)", "page up", show=False,
                tooltip="One screen up", id="list.page_up"),
        Binding("ctrl+d", "page(0.5)", "half page down", show=False,
                tooltip="Half a screen down (vim)", id="list.half_down"),
        Binding("ctrl+u", "page(-0.5)", "half page up", show=False,
                tooltip="Half a screen up (vim)", id="list.half_up"),
        Binding("enter", "open", "open", show=False,
                tooltip="Open the row (memory detail, task, version)", id="list.open"),
    ]

    COMPONENT_CLASSES = {"line-list--cursor", "line-list--dim", "line-list--marked",
                         "line-list--match", "line-list--loading"}

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
    """How many rows (``update_size``): a new count neither lays the screen out nor repaints
    the rows (whoever changed them does)."""

    DEFAULT_CSS = """
    LineList {
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
    }
    LineList > .line-list--cursor { background: $block-cursor-blurred-background;
                                    text-style: bold; }
    LineList:focus > .line-list--cursor { background: $block-cursor-background;
                                          color: $block-cursor-foreground; }
    LineList > .line-list--dim { color: $text-muted; }
    LineList > .line-list--marked { color: $text-warning; text-style: bold; }
    LineList > .line-list--match { background: $warning 40%; text-style: bold underline; }
    LineList > .line-list--loading { color: $text-muted; text-style: italic; }
    """

    class CursorMoved(RowMessage):
        """The cursor moved to another row (or the rows under it changed)."""

    class Opened(RowMessage):
        """Enter was pressed on a row."""

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._cursor = 0
        self._frame_style: Style | None = None
        self._frame_width: int | None = None

    def row_count(self) -> int:
        """How many rows the list has."""
        raise NotImplementedError

    def row_text(self, index: int, width: int) -> Text | None:
        """The text of one row (``None``: not loaded yet, a placeholder is drawn)."""
        raise NotImplementedError

    def rows_wanted(self, start: int, end: int) -> None:
        """Rows ``start..end`` are about to be shown (subclasses prefetch here)."""

    def row_segments(self, index: int, width: int) -> tuple[list[Segment], int] | None:
        """A row drawn straight to segments in the frame's styles, and the cells they take
        (at most ``width``); ``None``: draw ``row_text``."""
        return None

    def frame_begun(self, base: Style) -> None:
        """A frame starts drawing rows in the widget's style ``base``."""

    def frame_ended(self) -> None:
        """The frame's rows are drawn."""

    @property
    def cursor(self) -> int:
        """The index of the cursor row."""
        return self._cursor

    def move_cursor(self, index: int, *, scroll: bool = True, announce: bool = True) -> None:
        """Put the cursor on ``index`` (clamped), scrolling it into view."""
        count = self.row_count()
        index = max(0, min(index, count - 1)) if count else 0
        old = self._cursor
        self._cursor = index
        if scroll:
            self._scroll_cursor_into_view()
        if old != index:
            self._refresh_row(old)
        self._refresh_row(index)
        if announce:
            self.post_message(self.CursorMoved(self, index))

    def _scroll_cursor_into_view(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, immediate=True)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False, immediate=True)

    def _refresh_row(self, index: int) -> None:
        top = round(self.scroll_y)
        if top <= index < top + self.size.height:
            self.refresh_line(index)

    def update_size(self) -> None:
        """Tell the scroll view how many rows there are (the scroll bar follows, no layout)."""
        size = Size(0, self.row_count())
        if size == self.virtual_size:
            return
        self.virtual_size = size
        if self.is_attached and self.container_size:
            update_scroll_size(self, size)

    def action_move(self, rows: int) -> None:
        """Move the cursor ``rows`` rows down (up when negative)."""
        self.move_cursor(self._cursor + rows)

    def action_move_to(self, index: int) -> None:
        """Move the cursor to row ``index`` (-1: the last row)."""
        self.move_cursor(index if index >= 0 else self.row_count() - 1)

    def action_page(self, screens: float) -> None:
        """Move the cursor ``screens`` screens down (up when negative; half: vim's ctrl+d)."""
        rows = max(1, int(abs(screens) * max(1, self.scrollable_content_region.height - 1)))
        self.move_cursor(self._cursor + (rows if screens > 0 else -rows))

    def action_open(self) -> None:
        """Open the cursor row."""
        if self.row_count():
            self.post_message(self.Opened(self, self._cursor))

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor to the row; a second click on it opens it."""
        index = round(self.scroll_y) + event.y
        if 0 <= index < self.row_count():
            if index == self._cursor and event.chain >= 2:
                self.action_open()
            else:
                self.move_cursor(index, scroll=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Prefetch the rows that come into view."""
        super().watch_scroll_y(old_value, new_value)
        top = round(new_value)
        self.rows_wanted(top, top + self.size.height)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the rows in ``crop``, the widget's style worked out once for the frame."""
        self._frame_style = self.rich_style
        self._frame_width = self.row_width
        self.frame_begun(self._frame_style)
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = self._frame_width = None
            self.frame_ended()

    @property
    def row_width(self) -> int:
        """The cells a row takes: the frame's while one is drawn, else worked out now."""
        if self._frame_width is not None:
            return self._frame_width
        return self.scrollable_content_region.width or self.size.width

    @property
    def base_style(self) -> Style:
        """The widget's own style: the frame's while one is drawn, else worked out now."""
        return self._frame_style if self._frame_style is not None else self.rich_style

    def render_message_line(self, y: int, message: str, style: str = "", top: int = 1) -> Strip:
        """Line ``y`` of a message shown instead of rows (an empty list, loading, an
        error): from line ``top`` down, wrapped so it reads whole at 80 columns."""
        width = self.row_width
        lines = Text(one_line(message), style=style).wrap(
            self.app.console, max(1, width - EMPTY_TEXT_INDENT))
        if message and top <= y < top + len(lines):
            text = Text(" " * EMPTY_TEXT_INDENT) + lines[y - top]
            text.truncate(width, overflow="ellipsis", pad=True)
            return Strip(list(text.render(self.app.console)), width).apply_style(
                self.base_style)
        return Strip.blank(width, self.base_style)

    def render_line(self, y: int) -> Strip:
        """Draw row ``scroll_y + y``."""
        width = self.row_width
        base = self.base_style
        index = round(self.scroll_y) + y
        if index >= self.row_count():
            return Strip.blank(width, base)
        is_cursor = index == self._cursor
        text_width = max(1, width - ROW_LEAD_CELLS)
        drawn = self.row_segments(index, text_width)
        if drawn is not None:
            segments, cells = drawn
            line_segments = [Segment((CURSOR_MARK if is_cursor else " ") + " ", base),
                             *segments]
            if cells < text_width:
                line_segments.append(Segment(" " * (text_width - cells), base))
            strip = Strip(line_segments, width)
        else:
            strip = self._text_row_strip(index, text_width, width, is_cursor, base)
        if is_cursor:
            cursor_style = self.get_component_rich_style("line-list--cursor")
            if self.app.no_color:
                cursor_style += Style(reverse=True)
            strip = Strip(Segment.apply_style(list(strip), post_style=cursor_style), width)
        return strip.crop_extend(0, width, base)

    def _text_row_strip(self, index: int, text_width: int, width: int, is_cursor: bool,
                        base: Style) -> Strip:
        """Row ``index`` drawn from ``row_text`` (or the placeholder while it loads)."""
        text = self.row_text(index, text_width)
        if text is None:
            text = Text("…", style=self.get_component_rich_style("line-list--loading"))
        line = Text(CURSOR_MARK if is_cursor else " ", end="")
        line.append(" ")
        line.append_text(text)
        line.truncate(width, overflow="ellipsis", pad=True)
        return Strip(list(line.render(self.app.console)), width).apply_style(base)


class ItemList(LineList, Generic[T]):
    """A ``LineList`` over a small in-memory sequence, drawn by a row function."""

    def __init__(self, render_row: Callable[[T, int], Text], *, empty_text: str = "",
                 name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._items: list[T] = []
        self._render_row = render_row
        self.empty_text = empty_text

    @property
    def items(self) -> list[T]:
        """The rows (do not change the list in place; call ``set_items``)."""
        return self._items

    def set_items(self, items: Sequence[T], *, key: Callable[[T], object] | None = None,
                  keep: object = None) -> None:
        """Show these rows. With ``key``, the cursor stays on the row whose key is ``keep``
        (None: the current row's); else, or when there is none, it keeps its position."""
        current = self.current()
        if key is not None and keep is None and current is not None:
            keep = key(current)
        self._items = list(items)
        self.update_size()
        found = (position for position, item in enumerate(self._items)
                 if key is not None and keep is not None and key(item) == keep)
        self.move_cursor(next(found, self._cursor), scroll=True)
        self.refresh()

    def current(self) -> T | None:
        """The item under the cursor."""
        return self._items[self._cursor] if 0 <= self._cursor < len(self._items) else None

    def row_count(self) -> int:
        """How many items there are."""
        return len(self._items)

    def row_text(self, index: int, width: int) -> Text | None:
        """One item drawn by the row function."""
        return self._render_row(self._items[index], width)

    def render_line(self, y: int) -> Strip:
        """A row; in an empty list, a line of the wrapped ``empty_text``."""
        if self._items:
            return super().render_line(y)
        return self.render_message_line(y, self.empty_text, "dim", top=0)
