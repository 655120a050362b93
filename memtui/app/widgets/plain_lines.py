"""``PlainLinesCache``: Textual's per-widget line cache, minus the per-line CSS box work for a
widget that has no box.

Textual draws each line of a widget through ``StylesCache.render_line``, which reads the
widget's border, outline, padding, tint, hatch and opacity again for every line (some 900
style look-ups for a 25-row list) to draw what, for a list without any of them, is the
content line itself. On a search keystroke every row of the list is new, and that work was
about a third of drawing the list: a frame redrawing the whole list, its search box, title
and preview at 120x40 took 3.2 ms with it and 2.7 ms without (timed under Pilot, on the
benchmark's million-memory store).

``PlainLinesCache`` looks once per frame whether the widget is plain -- no border, outline,
padding, tint, hatch, text opacity or opacity -- and if so makes each line exactly as
Textual's content path does for such a widget (the content line, cut or padded to the
content width in the widget's background). Anything else, and every line of a widget that is
not plain, goes through Textual's own ``render_line``. Everything around the lines stays
Textual's: which lines are dirty, the lines kept between frames, the app's line filters
(true colour, ``NO_COLOR``), cropping. ``tests/test_plain_lines.py`` checks the lines are the
same as Textual's, plain or not.

The containers behind the lists (the main screen, the pane deck, each pane) draw this way too
(``draw_plainly``): their lines are background, and the first frame draws every one of them
-- 2.5-3 ms of that frame at 120x40 through ``StylesCache.render_line``, under 0.5 ms here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual._styles_cache import StylesCache
from textual.strip import Strip

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.terminal_theme import TerminalTheme
    from textual.color import Color
    from textual.content import Content
    from textual.css.styles import StylesBase
    from textual.geometry import Region, Size, Spacing
    from textual.style import Style
    from textual.widget import Widget

NO_SPACING = (0, 0, 0, 0)


def is_plain(widget: Widget) -> bool:
    """Whether the widget's lines are its content lines alone: no border, outline, padding,
    tint, hatch, text opacity or opacity (the gutter is the padding plus a cell for each
    border edge, so an empty gutter means neither)."""
    styles = widget.styles
    return (tuple(styles.gutter) == NO_SPACING
            and not any(edge for edge, _color in styles.outline)
            and not styles.tint.a
            and not (styles.has_rule("hatch") and styles.hatch != "none")
            and styles.text_opacity == 1.0
            and widget.opacity == 1.0)


def draw_plainly(widget: Widget) -> None:
    """Give the widget a ``PlainLinesCache`` (call it as the widget is made)."""
    widget._styles_cache = PlainLinesCache()


class PlainLinesCache(StylesCache):
    """A widget's ``StylesCache`` that draws the lines of a plain widget (``is_plain``)
    without the CSS box work; see the module doc."""

    def __init__(self) -> None:
        super().__init__()
        self.plain = False
        """Whether the frame being drawn is of a plain widget (set per frame)."""

    def render_widget(self, widget: Widget, region: Region) -> list[Strip]:
        """Draw the widget's lines in ``region`` (Textual's, with the plain check first)."""
        self.plain = is_plain(widget)
        return super().render_widget(widget, region)

    def render_line(self, styles: StylesBase, y: int, size: Size, content_size: Size,
                    padding: Spacing, base_background: Color, background: Color,
                    render_content_line: Callable[[int], Strip],
                    border_title: tuple[Content, Color, Color, Style] | None,
                    border_subtitle: tuple[Content, Color, Color, Style] | None,
                    opacity: float, ansi_theme: TerminalTheme, native_ansi: bool) -> Strip:
        """Line ``y``: for a plain widget, its content line in the content width (what
        Textual's content path makes of it); else Textual's ``render_line``."""
        if not self.plain:
            return super().render_line(styles, y, size, content_size, padding,
                                       base_background, background, render_content_line,
                                       border_title, border_subtitle, opacity, ansi_theme,
                                       native_ansi)
        inner, _outer = self.get_inner_outer(base_background, background)
        if y < content_size.height:
            line = render_content_line(y).adjust_cell_length(content_size.width,
                                                             inner.rich_style)
        else:
            line = Strip.blank(content_size.width, inner.rich_style)
        # Textual copies the line into a new strip of the widget's width: the same cells
        return line if line.cell_length == size.width else Strip(line, size.width)
