"""``PlainLinesCache`` draws exactly the lines Textual's own ``StylesCache`` draws: for a
plain list (the fast path), and for a list with a border, padding, tint, hatch, outline or
opacity (Textual's path); with search highlights, the cursor, marks and ``NO_COLOR``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, demo_app, press, settle
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.line_list import ItemList
from memtui.app.widgets.plain_lines import PlainLinesCache, is_plain

BOXES = {
    "plain": "",
    "border": "border: round red;",
    "padding": "padding: 1 2;",
    "tint": "tint: red 30%;",
    "hatch": "hatch: cross green;",
    "outline": "outline: heavy blue;",
    "opacity": "opacity: 60%;",
    "text-opacity": "text-opacity: 50%;",
}


def _cells(strips: list[Strip]) -> list[tuple[int, list[Any]]]:
    """Each line's length and its characters with their styles (how a line is cut into
    segments does not show on the terminal)."""
    return [(strip.cell_length, [(char, segment.style) for segment in strip
                                 for char in segment.text]) for strip in strips]


def _both_ways(widget: Any) -> tuple[list[Strip], list[Strip]]:
    """The widget's lines through its own cache and through a new Textual ``StylesCache``."""
    region = Region(0, 0, *widget.region.size)
    assert isinstance(widget._styles_cache, PlainLinesCache)
    widget._styles_cache.clear()
    ours = widget._styles_cache.render_widget(widget, region)
    textual = StylesCache().render_widget(widget, region)
    return ours, textual


class ListApp(App[None]):
    """One ``ItemList`` of numbered rows, in the CSS given."""

    def __init__(self, box: str) -> None:
        super().__init__()
        self.box = box

    def compose(self) -> ComposeResult:
        rows = ItemList[int](lambda item, width: Text(f"row {item} " + "x" * item,
                                                      style="bold" if item % 2 else ""))
        rows.styles.height = 12
        if self.box:
            rows.set_styles(self.box)
        yield rows

    def on_mount(self) -> None:
        self.query_one(ItemList).set_items(list(range(30)))


@pytest.mark.parametrize("box", sorted(BOXES))
@app_test
async def test_the_lines_are_textuals_with_and_without_a_box(box: str) -> None:
    app = ListApp(BOXES[box])
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        rows = app.query_one(ItemList)
        rows.focus()
        await pilot.press("down", "down")
        await pilot.pause()
        assert is_plain(rows) == (box == "plain")
        ours, textual = _both_ways(rows)
        assert rows._styles_cache.plain == (box == "plain")
        assert len(ours) == 12
        assert _cells(ours) == _cells(textual)
        if box == "plain":
            assert "".join(segment.text for segment in ours[2]).startswith("› row 2 xx")


@pytest.mark.parametrize("no_color", [False, True])
@app_test
async def test_a_searched_memory_list_draws_the_same_lines(tmp_path: Path, no_color: bool,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           ) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        pane = app.current_pane()
        assert isinstance(pane, MemoriesPane)
        memory_list = pane.memory_list
        memory_list.focus()
        await press(pilot, "space", "j")  # a marked row; the cursor on the next
        await press(pilot, "slash", "p")
        memory_list.focus()
        await settle(pilot)
        assert memory_list.row_count() > 1
        assert is_plain(memory_list)
        ours, textual = _both_ways(memory_list)
        assert _cells(ours) == _cells(textual)
        # and through the list's own frame path (its row width worked out once): the same
        memory_list._styles_cache.clear()
        drawn = memory_list.render_lines(Region(0, 0, memory_list.size.width,
                                                memory_list.size.height))
        assert _cells(drawn) == _cells(textual)


@app_test
async def test_the_screen_and_the_panes_behind_the_lists_draw_textuals_lines(
        tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        behind = [screen, screen.query_one("#panes"), app.current_pane()]
        for widget in behind:
            assert is_plain(widget), widget
            ours, textual = _both_ways(widget)
            assert widget._styles_cache.plain
            assert len(ours) == widget.region.height
            assert _cells(ours) == _cells(textual), widget
