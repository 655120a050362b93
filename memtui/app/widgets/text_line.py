"""``TextLine``: a one-line bar (the header, the pane bar, the key bar) whose
``rich.text.Text`` is drawn straight to its strip, skipping Textual's ``Content`` layout: the
same cells, with the offsets Textual's text selection reads."""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget


class TextLine(Widget):
    """A widget of one line of text, drawn by subclasses in ``render``."""

    def render(self) -> Text:
        """The line."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        """The line drawn straight from ``render`` (blank lines below it)."""
        return text_line_strip(self, self.render() if y == 0 else None)


def text_line_strip(widget: Widget, text: Text | None) -> Strip:
    """A line of a one-line widget: ``text`` cut at the widget's width (``None``: blank)."""
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
    """How many characters of ``plain`` fit whole in ``width`` cells."""
    cells = 0
    for index, char in enumerate(plain):
        cells += cell_len(char)
        if cells > width:
            return index
    return len(plain)


@lru_cache(maxsize=1024)
def _at(offset: int) -> Style:
    """The meta Textual gives each piece of a line: where in the text it starts."""
    return Style.from_meta({"offset": (offset, 0)})
