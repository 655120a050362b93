"""The one-line bars (header, pane bar, key bar) draw their line straight from ``Text``
(``text_line``): exactly the cells Textual's own ``Content`` path draws, at any width, with
bold, dim, reverse, hover and a disabled key, and under ``NO_COLOR``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, opened, settle
from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget

from memtui.app.widgets.key_bar import KeyBar
from memtui.app.widgets.pane_bar import PaneBar
from memtui.app.widgets.status import StatusHeader
from memtui.app.widgets.text_line import text_line_strip

WIDTHS = (120, 80, 43, 12)


def _colour(colour: Color | None) -> Any:
    """A colour as the terminal gets it (rich's ``red`` is Textual's ``color(1)``)."""
    return None if colour is None else (colour.type, colour.number, colour.triplet)


def _look(style: Style | None) -> Any:
    """What the terminal shows of a style, and its meta (where the text selection reads
    each character's offset)."""
    if style is None:
        return None
    return (_colour(style.color), _colour(style.bgcolor), style._attributes & style._set_attributes,
            style._set_attributes, style._meta)


def _cells(strip: Strip) -> tuple[int, list[Any]]:
    """A line's length and its characters with how they look (how a line is cut into
    segments does not show on the terminal)."""
    return strip.cell_length, [(char, _look(segment.style)) for segment in strip
                               for char in segment.text]


def _textuals(widget: Widget) -> Strip:
    """The widget's first line as Textual draws a ``render`` that returns ``Text``: its
    content line, padded to the width in the widget's background (``StylesCache``)."""
    widget._render_cache = None  # type: ignore[assignment]
    widget._dirty_regions.add(widget.region)  # (Textual renders again when dirty)
    widget._layout_cache.clear()
    inner, _outer = StylesCache().get_inner_outer(*widget.background_colors)
    return Widget.render_line(widget, 0).adjust_cell_length(widget.size.width,
                                                            inner.rich_style)


def _bars(app: App[Any]) -> list[Widget]:
    return [app.screen.query_one(kind) for kind in (StatusHeader, PaneBar, KeyBar)]


@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize("width", WIDTHS)
@app_test
async def test_the_bars_draw_textuals_cells(tmp_path: Path, width: int, no_color: bool,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    async with opened(tmp_path, size=(width, 30)) as (app, pilot):
        keys = app.screen.query_one(KeyBar)
        keys._set_hover(keys.items()[0])  # a hovered key: its own style
        await settle(pilot)
        for bar in _bars(app):
            ours = bar.render_line(0)
            assert ours.cell_length == width
            assert _cells(ours) == _cells(_textuals(bar)), type(bar).__name__
            assert bar.render_line(1).cell_length == width  # (a line below: blank)


class StyledLine(Widget):
    """A one-line widget drawn by ``text_line_strip``, in the CSS given."""

    DEFAULT_CSS = "StyledLine { height: 1; }"

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def render(self) -> Text:
        return self.text


LINES = {
    "styles": Text.assemble(("bold", "bold"), " ", ("dim", "dim"), " ", ("rev", "reverse"),
                            " ", ("red on blue", "red on blue"), " ünï 漢字", end=""),
    "full": Text("x" * 38 + "漢", end=""),
    "empty": Text("", end=""),
    "base style": Text("whole line styled", style="italic underline", end=""),
}
"""Lines that fit the widget's 40 cells (the bars fit their line to the width themselves)."""
CSS = {
    "plain": "",
    "colours": "background: darkgreen; color: yellow;",
    "text-style": "text-style: bold italic; background: #203040;",
    "translucent": "background: red 40%; color: white 70%;",
}


class LinesApp(App[None]):
    """One ``StyledLine``."""

    def __init__(self, text: Text, css: str) -> None:
        self.CSS = f"StyledLine {{ {css} }}"  # (read as the app starts)
        super().__init__()
        self.line = StyledLine(text)

    def compose(self) -> ComposeResult:
        yield self.line


@pytest.mark.parametrize("css", sorted(CSS))
@pytest.mark.parametrize("line", sorted(LINES))
@app_test
async def test_any_text_and_style_draw_textuals_cells(line: str, css: str) -> None:
    app = LinesApp(LINES[line], CSS[css])
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        ours = text_line_strip(app.line, app.line.text)
        assert ours.cell_length == 40
        assert _cells(ours) == _cells(_textuals(app.line))
        if css == "colours":  # (the app's CSS is the widget's)
            assert list(ours)[-1].style.bgcolor.triplet == (0, 100, 0)
        blank = text_line_strip(app.line, None)  # a line below the first
        assert blank.text == " " * 40
        assert _cells(blank) == _cells(text_line_strip(app.line, Text("")))


@pytest.mark.parametrize("width", [10, 11])
@app_test
async def test_a_line_too_long_is_cut_at_the_width_never_in_a_wide_character(
        width: int) -> None:
    app = LinesApp(Text("abc" + "漢" * 20, style="reverse", end=""), "")
    async with app.run_test(size=(width, 3)) as pilot:
        await pilot.pause()
        line = text_line_strip(app.line, app.line.text)
        assert line.cell_length == width
        assert line.text == "abc" + "漢" * ((width - 3) // 2) + " " * ((width - 3) % 2)
        last = list(line)[-1]
        assert bool(last.style and last.style.reverse) == (width % 2 == 1)  # pad: background
