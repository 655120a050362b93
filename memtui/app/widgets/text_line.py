"""``TextLine``: a one-line bar whose ``rich.text.Text`` is drawn straight to its strip
(``text_line_strip``).

The header, the pane bar and the key bar are one line each that is never wrapped or aligned,
so they skip Textual's ``Content`` layout (a shorter path for the app's first frame). The
segments are the cells Textual's path draws, with the offsets its text selection reads
(``tests/app/test_text_line.py`` compares them); a wider text is cut at the widget's width.
"""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget


class TextLine(Widget):
    """A widget of one line of text: subclasses draw it in ``render``; it is painted by
    ``text_line_strip`` (the header, the pane bar, the key bar)."""

    def render(self) -> Text:
        """The line."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        """The line drawn straight from ``render`` (blank lines below it)."""
        return text_line_strip(self, self.render() if y == 0 else None)


def text_line_strip(widget: Widget, text: Text | None) -> Strip:
    """A line of a one-line widget: ``text`` cut at the widget's width (``None``: a blank
    line, as below the first)."""
    width = widget.size.width
    style = widget.visual_style.rich_style
    background = Style(bgcolor=style.bgcolor)
    if text is None:
        return Strip.blank(width, background)
    console = widget.app.console
    if text.cell_len > width:  # cut before the first character that does not fit whole
        text = text[:_fitting(text.plain, width)]
    if text.style:  # (rich's ``Text.render`` leaves the text's own style to its caller)
        style += console.get_style(text.style)
    segments = []
    offset = 0
    for segment in text.render(console):
        segments.append(Segment(segment.text, style + segment.style + _at(offset)
                                if segment.style else style + _at(offset)))
        offset += len(segment.text)
    return Strip(segments).extend_cell_length(width, background)


def _fitting(plain: str, width: int) -> int:
    """How many characters of ``plain`` fit whole in ``width`` cells (a wide character that
    would be cut in two is left out: its half cannot be drawn)."""
    cells = 0
    for index, char in enumerate(plain):
        cells += cell_len(char)
        if cells > width:
            return index
    return len(plain)


@lru_cache(maxsize=1024)
def _at(offset: int) -> Style:
    """The meta Textual gives each piece of a line: where in the text it starts (``offset``,
    which its text selection reads)."""
    return Style.from_meta({"offset": (offset, 0)})
