"""``CroppedCompositor`` draws exactly the frames Textual's own compositor draws (partial and
full, on the main screen and over a dialog), while a partial frame asks only the widgets it
shows for their lines."""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, calls_to, demo_app, open_user_search, press, settle
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from memtui.app.app import MainScreen
from memtui.app.modals.base import Dialog
from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.cropped_compositor import CroppedCompositor, compose_cropped
from memtui.app.widgets.key_bar import KeyBar
from memtui.app.widgets.status import StatusHeader, StatusLine


@contextlib.contextmanager
def _drawing_as(compositor: Compositor, *, textuals: bool) -> Iterator[None]:
    """Within the block, the compositor picks its widgets as Textual's own does
    (``textuals``), or as it does itself."""
    if textuals:
        compositor._get_renders = types.MethodType(  # type: ignore[method-assign]
            Compositor._get_renders, compositor)
    try:
        yield
    finally:
        compositor.__dict__.pop("_get_renders", None)


def _partial_frame(app: Any, compositor: Compositor, regions: list[Region], *,
                   textuals: bool) -> str:
    """The terminal text of a partial frame updating ``regions``, drawn by the compositor's
    own ``_get_renders`` or (``textuals``) by Textual's."""
    with _drawing_as(compositor, textuals=textuals):
        compositor._dirty_regions = set(regions)
        update = compositor.render_partial_update()
        assert update is not None
        return update.render_segments(app.console)


def _full_frame(app: Any, compositor: Compositor, *, textuals: bool) -> str:
    """The terminal text of a full frame, drawn as ``_partial_frame`` says."""
    with _drawing_as(compositor, textuals=textuals):
        return compositor.render_full_update().render_segments(app.console)


def _regions_to_try(app: Any, pane: MemoriesPane) -> list[list[Region]]:
    """Updates of one or more regions: the list, the search box, both, a corner of the key
    bar, one cell of the header, a band across the whole screen, a widget's edge."""
    width, height = app.size
    memory_list, box = pane.memory_list, pane.search_box
    assert box is not None
    return [
        [memory_list.region],
        [box.region],
        [memory_list.region, box.region],
        [Region(width - 5, height - 1, 5, 1)],
        [Region(0, 0, 1, 1)],
        [Region(0, height // 2, width, 3)],
        [Region(memory_list.region.right - 1, memory_list.region.y, 3, 2)],
        [memory_list.region, Region(0, height - 1, width, 1)],
    ]


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 18)])
@app_test
async def test_partial_frames_are_textuals(tmp_path: Path, size: tuple[int, int]) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=size, notifications=True) as pilot:
        pane = await open_user_search(app, pilot)
        await press(pilot, "p")
        compositor = app.screen._compositor
        assert isinstance(compositor, CroppedCompositor)
        for overlay in (False, True):
            if overlay:  # a notification over the list's corner (a front layer)
                app.notify("a notification over the list " * 3, timeout=60)
                await settle(pilot)
                assert any(type(widget).__name__ == "Toast"
                           for widget in compositor.visible_widgets)
            for regions in _regions_to_try(app, pane):
                ours = _partial_frame(app, compositor, regions, textuals=False)
                textual = _partial_frame(app, compositor, regions, textuals=True)
                assert ours == textual, (overlay, regions)
                assert ours  # (the update drew something)


@app_test
async def test_full_frames_and_frames_over_a_dialog_are_textuals(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        main = app.screen._compositor
        assert isinstance(main, CroppedCompositor)
        assert _full_frame(app, main, textuals=False) == _full_frame(app, main, textuals=True)
        await press(pilot, "question_mark")  # the help dialog, over the main screen
        assert isinstance(app.screen, Dialog)
        dialog = app.screen._compositor
        assert isinstance(dialog, CroppedCompositor)
        width, height = app.size
        for regions in ([Region(0, 0, width, height)], [Region(2, 2, width // 2, 4)],
                        [Region(width // 3, height // 3, 10, 10)]):
            ours = _partial_frame(app, dialog, regions, textuals=False)
            assert ours == _partial_frame(app, dialog, regions, textuals=True), regions


@app_test
async def test_a_list_frame_asks_only_the_widgets_it_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await open_user_search(app, pilot)
        await press(pilot, "p")
        compositor = app.screen._compositor
        memory_list = pane.memory_list
        calls = calls_to(monkeypatch, Widget, "render_lines")
        for textuals in (False, True):
            calls.clear()
            _partial_frame(app, compositor, [memory_list.region], textuals=textuals)
            asked = [widget for widget, _crop in calls]
            bars = {type(widget) for widget in asked} & {KeyBar, StatusHeader, StatusLine}
            assert memory_list in asked
            if textuals:  # (Textual asks every widget whose clip is the screen)
                assert bars == {KeyBar, StatusHeader, StatusLine}
            else:
                assert not bars
                assert pane._preview not in asked and pane._title not in asked
            assert all(compositor.visible_widgets[widget][0].overlaps(memory_list.region)
                       for widget in asked) != textuals


def test_every_screen_of_the_app_composes_cropped() -> None:
    assert isinstance(MainScreen()._compositor, CroppedCompositor)
    assert isinstance(Dialog("A title")._compositor, CroppedCompositor)


class _ScrolledScreen(Screen[None]):
    """A header above a scrolled column of numbered lines, each its own widget: children
    cut by their parent's clip, and children scrolled out of it."""

    def __init__(self) -> None:
        super().__init__()
        compose_cropped(self)

    def compose(self) -> ComposeResult:
        yield Static("a header", id="top")
        with VerticalScroll(id="column"):
            for number in range(40):
                line = Static(f"line {number}\n" + "·" * (number % 17) + "\nend", id=f"n{number}")
                line.styles.height = 3
                yield line


class _ScrolledApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(_ScrolledScreen())


@app_test
async def test_children_cut_by_their_clip_or_scrolled_out_are_drawn_as_textual_draws_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = _ScrolledApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        column = app.screen.query_one("#column", VerticalScroll)
        column.scroll_to(y=16, animate=False, immediate=True)  # a child cut in half at the top
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, CroppedCompositor)
        cut = [widget for widget, (region, clip) in compositor.visible_widgets.items()
               if isinstance(widget, Static) and region.intersection(clip) != region
               and region.intersection(clip).area]
        assert cut  # (the case under test is there)
        for regions in ([Region(0, 0, 40, 12)], [Region(0, 1, 40, 2)], [Region(3, 2, 10, 5)],
                        [Region(0, 11, 40, 1)], [column.region]):
            ours = _partial_frame(app, compositor, regions, textuals=False)
            assert ours == _partial_frame(app, compositor, regions, textuals=True), regions
        calls = calls_to(monkeypatch, Widget, "render_lines")
        header = app.screen.query_one("#top")
        _partial_frame(app, compositor, [header.region], textuals=False)
        asked = [widget for widget, _crop in calls]
        assert header in asked and column not in asked
        assert not [widget for widget in asked if isinstance(widget, Static)
                    and widget is not header]  # (nor a line scrolled out under the header)
