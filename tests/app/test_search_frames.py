"""Pilot tests: what each frame shows while typing a search — the key's echo and its rows in
one frame (``PaintHold``), the echo never waiting for a slow read past the hold, the count
read only after the rows are painted."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import (
    app_test,
    demo_app,
    demo_app_with_matches,
    keys_wait_for_their_queries,
    open_user_search,
    opened,
    press,
    settle,
)
from pilot_harness import until as _until
from rich.text import Text
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from memtui.app.app import MemtuiApp
from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets import paint_hold as paint_hold_module
from memtui.app.widgets.memory_list import MemoryList
from memtui.app.widgets.paged_source import PagedSource
from memtui.app.widgets.paint_hold import PaintHold, paint_hold
from memtui.app.widgets.text_view import TextView
from memtui.engine.identity import IdentityApi

GATE_TIMEOUT_S = 30
"""A held read gives up waiting for its test after this long (only if the test broke)."""


@dataclass
class Painted:
    """What one frame showed: the search box's text, the list's search, the pane's title and
    preview, and whether the paint hold painted it (``PaintHold._paint``, not the screen's
    timer)."""

    box: str
    listed: str | None
    rows: int
    title: str
    preview: str
    by_hold: bool


class Frames:
    """Records every frame the screen paints (the search box and the list's search)."""

    def __init__(self, pane: MemoriesPane) -> None:
        self.pane = pane
        self.painted: list[Painted] = []
        self.in_hold_paint = False

    def record(self) -> None:
        box = self.pane.search_box
        source = self.pane.memory_list.source
        title = self.pane.query_one(".pane-title", Static).content
        preview = self.pane.query_one(".preview", Static).content
        self.painted.append(Painted(box.value if box is not None else "",
                                    source.filter.search if source is not None else None,
                                    self.pane.memory_list.row_count(), str(title),
                                    str(preview), self.in_hold_paint))


def _install(monkeypatch: pytest.MonkeyPatch, frames: Frames) -> None:
    refresh = Screen._compositor_refresh
    hold_paint = PaintHold._paint

    def recorded(screen: Screen) -> None:
        refresh(screen)
        frames.record()

    def painted_by_hold(hold: PaintHold, screen: Screen, waited: int = 0) -> None:
        frames.in_hold_paint = True
        try:
            hold_paint(hold, screen, waited)
        finally:
            frames.in_hold_paint = False

    monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
    monkeypatch.setattr(PaintHold, "_paint", painted_by_hold)


def _gate_searches(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Hold every searched first-page read in its worker until ``gate`` is set; ``waiting``
    is set while one is held. Each key's rows come from its read."""
    keys_wait_for_their_queries(monkeypatch)
    gate, waiting = threading.Event(), threading.Event()
    fetch = PagedSource.fetch

    def held(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if self.filter.search and threading.current_thread() is not threading.main_thread():
            waiting.set()
            gate.wait(timeout=GATE_TIMEOUT_S)
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", held)
    return gate, waiting


@contextlib.asynccontextmanager
async def _r_held(folder: Path, monkeypatch: pytest.MonkeyPatch, waiting: threading.Event,
                  ) -> AsyncIterator[tuple[MemtuiApp, Pilot[Any], Frames]]:
    """The demo app with its search box open and every frame recorded, "r" typed and its
    read held (``_gate_searches``)."""
    app = demo_app(folder)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        frames = Frames(pane)
        _install(monkeypatch, frames)
        await pilot.press("r")
        assert await _until(pilot, waiting.is_set)
        yield app, pilot, frames


@app_test
async def test_the_keys_echo_and_its_rows_share_one_frame(tmp_path: Path,
                                                          monkeypatch) -> None:
    monkeypatch.setattr(paint_hold_module, "ECHO_HOLD_SECONDS", GATE_TIMEOUT_S)
    gate, waiting = _gate_searches(monkeypatch)
    async with _r_held(tmp_path, monkeypatch, waiting) as (app, pilot, frames):
        # the worker's read is held: nothing may be painted yet
        for _ in range(10):
            await pilot.pause(0.01)  # frames would be painted here without the hold
        assert paint_hold(app).active
        assert not [f for f in frames.painted if f.box == "r"]  # the echo waits for its rows
        gate.set()
        assert await _until(pilot, lambda: any(f.listed == "r" for f in frames.painted))
        first_echo = next(f for f in frames.painted if f.box == "r")
        assert first_echo.listed == "r" and first_echo.rows > 0  # one frame: echo and rows
        assert not paint_hold(app).active
        # the title's new count follows in the very next frame, painted at once
        after = frames.painted.index(first_echo) + 1
        assert await _until(pilot, lambda: len(frames.painted) > after)
        assert f" · {first_echo.rows:,} · " in frames.painted[after].title
        assert frames.painted[after].by_hold


@app_test
async def test_a_slow_read_never_holds_the_echo_past_the_hold(tmp_path: Path,
                                                             monkeypatch) -> None:
    gate, waiting = _gate_searches(monkeypatch)
    async with _r_held(tmp_path, monkeypatch, waiting) as (_app, pilot, frames):
        # the read is still held, yet the typed key is painted once the hold runs out,
        # over the rows of the search before it (never an empty list)
        assert await _until(pilot, lambda: any(f.box == "r" for f in frames.painted))
        echo = next(f for f in frames.painted if f.box == "r")
        assert echo.listed is None and echo.rows > 0
        assert not waiting.is_set() or not gate.is_set()  # the read had not come back
        gate.set()
        assert await _until(pilot, lambda: any(f.listed == "r" for f in frames.painted))


@app_test
async def test_the_count_is_read_after_the_rows_are_painted(tmp_path: Path,
                                                            monkeypatch) -> None:
    events: list[tuple[str, str | None]] = []
    count_at_most = IdentityApi.count_memories_at_most

    def counted(self: IdentityApi, flt, cap: int) -> int:  # noqa: ANN001
        events.append(("count", flt.search))
        return count_at_most(self, flt, cap)

    monkeypatch.setattr(IdentityApi, "count_memories_at_most", counted)
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        refresh = Screen._compositor_refresh

        def recorded(screen: Screen) -> None:
            refresh(screen)
            source = pane.memory_list.source
            if source is not None and source.filter.search and pane.memory_list.row_count():
                events.append(("frame", source.filter.search))

        monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
        await press(pilot, "r", "u")
        assert await _until(pilot, lambda: ("count", "ru") in events)
        for search in ("r", "ru"):
            if ("count", search) in events:  # "r" may have been made obsolete first
                assert events.index(("frame", search)) < events.index(("count", search))


@app_test
async def test_paint_hold_does_not_nest_and_runs_out(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        hold = PaintHold(app, seconds=GATE_TIMEOUT_S)
        batches = app._batch_count
        hold.hold()
        hold.hold()  # a second key within the hold keeps the first deadline
        assert hold.active and hold.holds == 1 and app._batch_count == batches + 1
        hold.release()
        hold.release()  # releasing twice is harmless
        assert not hold.active and app._batch_count == batches
        short = PaintHold(app, seconds=0.01)
        short.hold()
        assert await _until(pilot, lambda: not short.active)  # the deadline releases it
        assert app._batch_count == batches and short.holds == 1
        assert paint_hold(app) is paint_hold(app)  # one per app


@app_test
async def test_paint_soon_leaves_a_held_frame_to_the_hold(tmp_path: Path, monkeypatch) -> None:
    """``paint_soon`` paints nothing while a hold runs: the hold's own paint carries the
    change. (That it paints before the screen's timer would, right after a list's frame:
    ``test_the_preview_of_the_rows_selection_follows_in_the_next_frame``.)"""
    async with opened(tmp_path) as (app, pilot):
        pane = app.pane("user")
        assert isinstance(pane, MemoriesPane)
        frames = Frames(pane)
        _install(monkeypatch, frames)
        title = pane.query_one(".pane-title", TextView)
        hold = PaintHold(app, seconds=GATE_TIMEOUT_S)
        scheduled: list[object] = []
        call_later = app.screen.call_later

        def spied(callback, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            if getattr(callback, "__self__", None) is hold:  # (Pilot schedules its own too)
                scheduled.append(callback)
            return call_later(callback, *args, **kwargs)

        monkeypatch.setattr(app.screen, "call_later", spied)
        hold.hold()
        title.show(Text("changed while held"))
        hold.paint_soon(app.screen)
        for _ in range(5):
            await pilot.pause(0.01)
        assert scheduled == []  # nothing asked of the screen while the hold runs
        assert not [frame for frame in frames.painted if "changed while held" in frame.title]
        hold.paint_now(app.screen)
        assert frames.painted[-1].title == "changed while held"
        title.show(Text("changed, nothing held"))
        hold.paint_soon(app.screen)
        assert scheduled == [hold._paint]
        assert await _until(pilot, lambda: frames.painted[-1].title == "changed, nothing held")


@app_test
async def test_an_error_when_a_hold_runs_out_reaches_the_app(tmp_path: Path,
                                                            monkeypatch) -> None:
    """The deadline is the event loop's timer: an error in it is the app's, as from
    Textual's own timers (shown, and the app exits), not a line in asyncio's log."""
    def broken(self: PaintHold) -> None:
        raise RuntimeError("paint hold broke")

    app = demo_app(tmp_path)
    hold = PaintHold(app, seconds=0.01)
    try:
        with pytest.raises(RuntimeError, match="paint hold broke"):
            async with opened(app) as (app, pilot):
                monkeypatch.setattr(PaintHold, "release", broken)
                hold.hold()
                assert await _until(pilot, lambda: app._exception is not None)
    finally:
        hold.resume_collector()  # (this hold is not the app's: its unmount leaves it)


@app_test
async def test_a_failed_search_read_releases_the_hold(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paint_hold_module, "ECHO_HOLD_SECONDS", GATE_TIMEOUT_S)
    fetch = PagedSource.fetch

    def failing(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if self.filter.search == "r":
            raise RuntimeError("disk on fire")
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", failing)
    async with opened(tmp_path, "slash", "r") as (app, pilot):
        memory_list = app.pane("user").memory_list
        assert isinstance(memory_list, MemoryList)
        assert await _until(pilot, lambda: memory_list.error is not None)
        assert not paint_hold(app).active  # the error is painted, not held for the deadline


@app_test
async def test_what_the_app_built_while_starting_is_frozen_out_of_the_collector(
        tmp_path: Path, monkeypatch) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(len(frozen)))
    async with opened(tmp_path) as (app, pilot):
        assert await _until(pilot, lambda: bool(frozen))  # after the first frame, once
        await settle(pilot)
        assert len(frozen) == 1


@app_test
async def test_a_search_is_counted_only_once_typing_pauses(tmp_path: Path, monkeypatch) -> None:
    from memtui.app.widgets import list_loading

    monkeypatch.setattr(list_loading, "SEARCH_COUNT_PAUSE_SECONDS", GATE_TIMEOUT_S)
    counted: list[str | None] = []
    count_at_most = IdentityApi.count_memories_at_most

    def counting(self: IdentityApi, flt, cap: int) -> int:  # noqa: ANN001
        counted.append(flt.search)
        return count_at_most(self, flt, cap)

    monkeypatch.setattr(IdentityApi, "count_memories_at_most", counting)
    app = demo_app_with_matches(tmp_path)  # a full first page: the count is not known yet
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        await pilot.press("r", "u")  # no settling: that waits for the workers' pauses
        ml = pane.memory_list
        assert await _until(pilot, lambda: ml.source is not None
                            and ml.source.filter.search == "ru" and ml.row_count() > 0)
        for _ in range(20):
            await pilot.pause(0.01)
        assert counted == [] and ml.count is None  # typing has not paused long enough
        assert "counting…" in str(pane.query_one(".pane-title", Static).content)
        monkeypatch.setattr(list_loading, "SEARCH_COUNT_PAUSE_SECONDS", 0.0)
        await pilot.press("f")  # the pause is over for the newest search only
        assert await _until(pilot, lambda: ml.count is not None)
        assert counted == ["ruf"]


@app_test
async def test_typing_a_search_never_lays_the_screen_out(tmp_path: Path, monkeypatch) -> None:
    from memtui.app.widgets.search_box import SearchBox

    async with opened(tmp_path, size=(120, 30)) as (app, pilot):
        pane = app.pane("user")
        assert isinstance(pane, MemoriesPane)
        await press(pilot, "slash", "z", "q")  # nothing matches: the list stays empty
        layouts: list[str] = []
        reflow = Screen._refresh_layout

        def recorded(screen: Screen, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            layouts.append("layout")
            reflow(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", recorded)
        typed = "abcdefghij" * 15  # wider than the box: it scrolls sideways
        for key in typed:
            await pilot.press(key)
        await settle(pilot)
        box = pane.search_box
        assert isinstance(box, SearchBox) and box.value == "zq" + typed
        assert layouts == []  # no key asked for a layout
        # and the box still follows its cursor, as Textual's Input does (the cursor's cell
        # just after the text, at the right edge)
        assert box.scroll_x == len(box.value) + 1 - box.content_region.width > 0


@app_test
async def test_moving_the_cursor_does_not_repaint_the_whole_screen(tmp_path: Path,
                                                                   monkeypatch) -> None:
    async with opened(tmp_path) as (app, pilot):
        screen = app.screen
        repaints: list[bool] = []
        refresh = Screen.refresh

        def recorded(self: Screen, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if self is screen:
                repaints.append(True)
            return refresh(self, *args, **kwargs)

        monkeypatch.setattr(Screen, "refresh", recorded)
        selected = app.selected_memory_id
        await press(pilot, "j", "j")
        await settle(pilot)
        assert app.selected_memory_id != selected  # the app followed the cursor ...
        assert repaints == []  # ... without redrawing every widget on screen


@app_test
async def test_the_preview_of_the_rows_selection_follows_in_the_next_frame(
        tmp_path: Path, monkeypatch) -> None:
    """The frame of a key's rows paints the list (and the echo) first; the pane's title and
    the preview of the selected memory follow in the frame right after, painted at once
    (not on the screen's next timer tick), for keys shown from the rows on screen and for
    keys that wait for their reads alike."""
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        frames = Frames(pane)
        _install(monkeypatch, frames)
        followed: list[bool] = []
        for key in "pyt":
            await pilot.press(key)
            search = pane.search_box.value if pane.search_box else None
            assert await _until(pilot, lambda search=search: pane.memory_list.source is not None
                                and pane.memory_list.source.filter.search == search)
            await settle(pilot)
            followed.append(_preview_follows(frames, pane, search))
        keys_wait_for_their_queries(monkeypatch)
        await pilot.press("h")
        assert await _until(pilot, lambda: pane.memory_list.source is not None
                            and pane.memory_list.source.filter.search == "pyth")
        await settle(pilot)
        followed.append(_preview_follows(frames, pane, "pyth"))
        assert any(followed)  # (some key changed the selection)


def _preview_follows(frames: Frames, pane: MemoriesPane, search: str | None) -> bool:
    """Whether the preview of the selected memory (its meta line starts with the id) was
    left out of the frame of ``search``'s rows and painted in the next, by the hold. False
    when it was already in the rows' frame: the same memory stayed selected, or that paint
    waited a few loop turns for a layout (the search box's first key)."""
    selected = pane.selected_memory()
    assert selected is not None
    first = next(i for i, frame in enumerate(frames.painted) if frame.listed == search)
    rows_frame, *following = frames.painted[first:first + 2]
    if selected.id in rows_frame.preview:
        return False
    # the rows came first; the preview in the very next frame, painted at once
    assert following and selected.id in following[0].preview and following[0].by_hold
    return True


@app_test
async def test_no_collection_runs_between_a_keys_load_and_the_frame_of_its_rows(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paint_hold_module, "ECHO_HOLD_SECONDS", GATE_TIMEOUT_S)
    monkeypatch.setattr(paint_hold_module, "GC_PAUSE_MAX_SECONDS", GATE_TIMEOUT_S)
    keys_wait_for_their_queries(monkeypatch)
    app = demo_app_with_matches(tmp_path)
    collections: list[str] = []
    mark = ["idle"]

    def seen(phase: str, info: dict) -> None:  # noqa: ARG001
        if phase == "start":
            collections.append(mark[0])

    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        frames = Frames(pane)
        refresh = Screen._compositor_refresh

        def recorded(screen: Screen) -> None:
            refresh(screen)
            frames.record()
            if frames.painted[-1].listed in ("r", "ru", "ruf"):
                mark[0] = "after"  # the frame showing the key's rows is painted

        monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
        show = MemoryList.show

        def shown(memory_list: MemoryList, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            show(memory_list, *args, **kwargs)
            mark[0] = "loading"  # the key's load started: from here to its rows' frame

        monkeypatch.setattr(MemoryList, "show", shown)
        threshold = gc.get_threshold()
        gc.set_threshold(50, *threshold[1:])  # a young collection every 50 allocations
        gc.callbacks.append(seen)
        try:
            for key, search in (("r", "r"), ("u", "ru"), ("f", "ruf")):
                mark[0] = "key"
                await pilot.press(key)
                assert await _until(pilot, lambda s=search: any(
                    f.listed == s and f.rows for f in frames.painted))
                assert gc.isenabled()  # back on once the rows are painted
                await settle(pilot)
        finally:
            gc.callbacks.remove(seen)
            gc.set_threshold(*threshold)
        assert collections.count("loading") == 0  # none while a key's rows were coming...
        assert "after" in collections  # ...they ran once the rows were painted


@app_test
async def test_the_collector_pause_is_bounded_and_leaves_an_off_collector_off(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paint_hold_module, "GC_PAUSE_MAX_SECONDS", 0.05)
    async with opened(tmp_path) as (app, pilot):
        hold = PaintHold(app, seconds=GATE_TIMEOUT_S)  # no paint will end this hold
        hold.hold()
        assert hold.collector_paused and not gc.isenabled()
        assert await _until(pilot, gc.isenabled)  # the pause's own deadline
        assert not hold.collector_paused and hold.active  # the paints stay held
        hold.release()
        gc.disable()  # someone else turned the collector off: a hold leaves it so
        try:
            other = PaintHold(app, seconds=0.01)
            other.hold()
            assert not other.collector_paused
            assert await _until(pilot, lambda: not other.active)
            assert not gc.isenabled()
        finally:
            gc.enable()
        # the app's own hold, still on when the app closes (no deadline before that)
        monkeypatch.setattr(paint_hold_module, "GC_PAUSE_MAX_SECONDS", GATE_TIMEOUT_S)
        monkeypatch.setattr(paint_hold_module, "ECHO_HOLD_SECONDS", GATE_TIMEOUT_S)
        try:
            paint_hold(app).hold()
            assert not gc.isenabled()
        except BaseException:
            gc.enable()
            raise
    try:
        assert gc.isenabled()  # the app's unmount resumed it
        assert not paint_hold(app).active  # and ended the hold: its deadline will not fire
    finally:
        gc.enable()
