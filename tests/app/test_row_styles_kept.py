"""The memory list keeps its rows' styles from frame to frame (``MemoryList.frame_begun``),
and they are always the ones Textual's CSS gives now: after focus moves, the theme changes,
or a class on an ancestor restyles only a row part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, calls_to, demo_app, open_user_search, opened, press, settle
from textual.widget import Widget

from memtui.app.widgets.memory_list import ROW_PART_CLASSES, MemoryList
from memtui.app.widgets.memory_row import RowStyles

RED_MATCHES = "MemoriesPane.-red-matches MemoryList > .line-list--match { color: red; }"
GREEN_DIM_FOCUSED = "MemoryList:focus > .line-list--dim { color: green; }"
"""Focus restyles a row part (the app's own CSS restyles only the cursor on focus)."""


def _fresh(memory_list: MemoryList) -> RowStyles:
    """The rows' styles worked out now from Textual's CSS (nothing kept)."""
    memory_list._rich_style_cache.clear()
    base = memory_list.rich_style
    return RowStyles(base, *(base + memory_list.get_component_rich_style(name)
                             for name in ROW_PART_CLASSES))


async def _drawn(pilot: Any, memory_list: MemoryList) -> RowStyles:
    """The styles the list's next frame drew its rows in."""
    memory_list.refresh()
    await settle(pilot)
    kept = memory_list._row_styles_for
    assert kept is not None
    return kept[2]


@app_test
async def test_the_rows_styles_are_kept_and_always_the_css_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = demo_app(tmp_path)
    async with opened(app, size=(100, 30)) as (app, pilot):
        pane = await open_user_search(app, pilot)
        await press(pilot, "p")
        memory_list = pane.memory_list
        calls = calls_to(monkeypatch, Widget, "get_component_rich_style")
        first = await _drawn(pilot, memory_list)
        calls.clear()
        assert await _drawn(pilot, memory_list) is first  # kept: nothing worked out again
        assert not [names for widget, names in calls
                    if widget is memory_list and names[0] in ROW_PART_CLASSES]
        assert first == _fresh(memory_list)

        app.stylesheet.add_source(GREEN_DIM_FOCUSED, read_from=("test", "GREEN_DIM_FOCUSED"))
        app.stylesheet.reparse()
        app.stylesheet.update(app.screen)
        await settle(pilot)
        unfocused = await _drawn(pilot, memory_list)
        memory_list.focus()  # focus moves from the search box to the list
        await settle(pilot)
        focused = await _drawn(pilot, memory_list)
        assert focused == _fresh(memory_list) and focused.dim != unfocused.dim
        assert focused.dim.color is not None and focused.dim.color.triplet == (0, 128, 0)

        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(pilot)
        themed = await _drawn(pilot, memory_list)
        assert themed == _fresh(memory_list) and themed != first

        # a class on an ancestor restyles only the matches: the list's own style is the same
        app.stylesheet.add_source(RED_MATCHES, read_from=("test", "RED_MATCHES"))
        app.stylesheet.reparse()
        app.stylesheet.update(app.screen)
        await settle(pilot)
        before = await _drawn(pilot, memory_list)
        pane.add_class("-red-matches")
        await settle(pilot)
        red = await _drawn(pilot, memory_list)
        assert red.base == before.base and red.match != before.match
        assert red == _fresh(memory_list)
        assert red.match.color is not None and red.match.color.triplet == (255, 0, 0)

        # an ancestor's opacity: the list's own style is the same, the matches' background
        # (a colour with alpha) is not
        parts = memory_list._row_parts_styles()
        pane.styles.opacity = 0.5
        await settle(pilot)
        faded = await _drawn(pilot, memory_list)
        # (the case under test: nothing restyled, the list's own style the same)
        assert all(old is new for old, new in zip(parts, memory_list._row_parts_styles(),
                                                  strict=True))
        assert faded.base == red.base
        assert faded == _fresh(memory_list) and faded.match != red.match
        pane.styles.opacity = 1.0
        await settle(pilot)

        # an ancestor's own (inline) style: the list's style changes, its CSS is not applied
        parts = memory_list._row_parts_styles()
        pane.styles.background = "darkgreen"
        memory_list.styles.background = "darkgreen 40%"
        await settle(pilot)
        green = await _drawn(pilot, memory_list)
        assert all(old is new for old, new in zip(parts, memory_list._row_parts_styles(),
                                                  strict=True))  # (the case under test)
        assert green.base != red.base and green == _fresh(memory_list)

