"""Pilot tests of what a user sees while typing a search: a key that narrows the search shows
its rows from the rows on screen at once, before its query returns (``ListLoading.ahead``);
the query still runs, once, and its rows take over without a jump; a key that widens the
search, or rows only the index can judge, wait for the query with the old rows on screen;
the list is never empty meanwhile, and the selection is kept."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import (
    HeldReads,
    NoEngine,
    app_test,
    demo_app,
    demo_app_with_matches,
    listed_ids,
    loader_reads_fail,
    open_user_search,
    opened,
    press,
    press_until_read_fails,
    ruff_memories,
    settle,
)
from pilot_harness import until as _until
from textual.screen import Screen
from textual.widgets import Static

from memtui.app.app import MemtuiApp
from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.list_loading import LoadState
from memtui.app.widgets.memory_list import MemoryList
from memtui.app.widgets.paged_source import PAGE_SIZE


def hold_key_queries(monkeypatch: pytest.MonkeyPatch, *, every_read: bool = False) -> HeldReads:
    """Holds every searched first-page read of a list's loader (a key's query);
    ``every_read``: unsearched ones too."""
    return HeldReads(monkeypatch, lambda source, plan: plan.page == 0
                     and bool(source.filter.search or every_read))


class Painted:
    """Each frame's search box text, list search and row count."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, pane: MemoriesPane) -> None:
        self.frames: list[tuple[str, str | None, int]] = []
        refresh = Screen._compositor_refresh

        def recorded(screen: Screen) -> None:
            refresh(screen)
            box, source = pane.search_box, pane.memory_list.source
            self.frames.append((box.value if box is not None else "",
                                source.filter.search if source is not None else None,
                                pane.memory_list.row_count()))

        monkeypatch.setattr(Screen, "_compositor_refresh", recorded)


@contextlib.asynccontextmanager
async def _typing(folder: Path, monkeypatch: pytest.MonkeyPatch,
                  ) -> AsyncIterator[tuple[MemtuiApp, Any, MemoryList, Painted, HeldReads]]:
    """The app with many matches, its search box open, every frame recorded, each key's
    query held (``hold_key_queries``)."""
    gate = hold_key_queries(monkeypatch)
    app = demo_app_with_matches(folder)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        yield app, pilot, pane.memory_list, Painted(monkeypatch, pane), gate


async def _waits_for_its_query(pilot: Any, gate: HeldReads, memory_list: MemoryList,
                               shown: str | None, typed: str) -> None:
    """While the key's query is held, the list still shows the search ``shown``; once it is
    let go, ``typed``."""
    assert await _until(pilot, gate.waiting.is_set)
    for _ in range(5):
        await pilot.pause(0.01)
    assert memory_list.source is not None and memory_list.source.filter.search == shown
    gate.open()
    assert await _until(pilot, lambda: memory_list.source is not None
                        and memory_list.source.filter.search == typed)


@app_test
async def test_a_narrowing_key_shows_its_rows_before_its_query_returns(tmp_path: Path,
                                                                      monkeypatch) -> None:
    async with _typing(tmp_path, monkeypatch) as (app, pilot, memory_list, painted, gate):
        for key, search in (("r", "r"), ("u", "ru"), ("f", "ruf")):
            gate.close()
            await pilot.press(key)
            assert await _until(pilot, gate.waiting.is_set)  # its query is held...
            # ...yet the frame that echoed the key already showed its rows
            echo = next(frame for frame in painted.frames if frame[0] == search)
            assert echo[1] == search and echo[2] >= memory_list.size.height
            assert memory_list.count is None  # the count comes after the query
            height = memory_list.size.height
            shown, worked_out_source = listed_ids(memory_list, height), memory_list.source
            gate.open()
            assert await _until(pilot, lambda ahead=worked_out_source:
                                memory_list.source is not ahead)
            assert listed_ids(memory_list, height) == shown  # the query's rows: the same on screen
            assert memory_list.cursor == 0
            await settle(pilot)
        # one query per key, and nothing else read for them
        assert Counter(search for search, *_ in gate.reads) == {"r": 1, "ru": 1, "ruf": 1}
        assert gate.on_ui_thread == []
        assert all(rows for _box, _listed, rows in painted.frames)  # never an empty list
        expected = app.engine.identity.count_memories(
            app.engine.identity.memory_filter(search="ruf"))
        assert expected > PAGE_SIZE and memory_list.count == expected
        title = app.pane("user").query_one(".pane-title", Static)
        assert f" · {expected:,} · " in str(title.content)


@app_test
async def test_a_cursor_moved_before_the_query_returns_stays_on_its_memory(
        tmp_path: Path, monkeypatch) -> None:
    gate = hold_key_queries(monkeypatch)
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await pilot.press("r")
        assert await _until(pilot, gate.waiting.is_set)
        await pilot.press("enter", "down", "down", "down")  # to the list, three rows down
        assert await _until(pilot, lambda: memory_list.cursor == 3)
        chosen = memory_list.current()
        assert chosen is not None
        worked_out_source = memory_list.source
        gate.open()
        assert await _until(pilot, lambda: memory_list.source is not worked_out_source)
        await settle(pilot)
        assert memory_list.cursor == 3 and memory_list.current() == chosen


@app_test
async def test_a_key_that_widens_the_search_waits_for_its_query(tmp_path: Path,
                                                               monkeypatch) -> None:
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await press(pilot, "r", "u")
        gate = hold_key_queries(monkeypatch)
        await pilot.press("backspace")  # "ru" -> "r": rows the screen does not hold
        await _waits_for_its_query(pilot, gate, memory_list, "ru", "r")


@app_test
async def test_rows_only_the_index_can_judge_wait_for_the_query(tmp_path: Path,
                                                              monkeypatch) -> None:
    gate = hold_key_queries(monkeypatch)
    app = demo_app_with_matches(tmp_path, "ruff règle numéro {}")  # not ASCII: SQLite decides
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await pilot.press("r")
        await _waits_for_its_query(pilot, gate, memory_list, None, "r")


@app_test
async def test_a_narrowing_of_a_whole_list_knows_its_count_at_once(tmp_path: Path,
                                                                 monkeypatch) -> None:
    gate = hold_key_queries(monkeypatch)
    app = demo_app(tmp_path)  # a few memories: the rows on screen are the whole list
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        expected = app.engine.identity.count_memories(
            app.engine.identity.memory_filter(search="p"))
        assert 0 < expected < (memory_list.count or 0)
        await pilot.press("p")
        assert await _until(pilot, gate.waiting.is_set)
        assert memory_list.source is not None and memory_list.source.filter.search == "p"
        assert memory_list.count == expected  # known before the query returns
        await pilot.pause(0.05)
        assert f" · {expected:,} · " in str(pane.query_one(".pane-title", Static).content)
        gate.open()
        await settle(pilot)
        assert memory_list.count == expected
        assert Counter(search for search, *_ in gate.reads) == {"p": 1}


@app_test
async def test_keys_typed_before_the_first_query_returns_narrow_on(tmp_path: Path,
                                                                 monkeypatch) -> None:
    async with _typing(tmp_path, monkeypatch) as (_app, pilot, memory_list, painted, gate):
        await pilot.press("r")
        assert await _until(pilot, gate.waiting.is_set)  # "r" is still being read...
        await pilot.press("u", "f")  # ...and "ru", "ruf" narrow the rows worked out for it
        assert await _until(pilot, lambda: any(frame[:2] == ("ruf", "ruf")
                                               for frame in painted.frames))
        height = memory_list.size.height
        shown = listed_ids(memory_list, height)
        assert len(shown) == height and memory_list.source is not None \
            and memory_list.source.filter.search == "ruf"
        gate.open()
        await settle(pilot)
        assert listed_ids(memory_list, height) == shown
        queries = Counter(search for search, *_ in gate.reads)  # "ru" may be skipped
        assert queries["r"] == queries["ruf"] == 1 and queries["ru"] <= 1
        assert gate.on_ui_thread == []
        assert all(rows for _box, _listed, rows in painted.frames)


@app_test
async def test_a_failed_query_leaves_the_rows_worked_out_and_says_why(tmp_path: Path,
                                                                     monkeypatch) -> None:
    loader_reads_fail(monkeypatch, lambda source, plan: bool(source.filter.search))
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await press_until_read_fails(pilot, memory_list, "r")
        assert memory_list.source is not None and memory_list.source.filter.search == "r"
        assert memory_list.row_count() >= memory_list.size.height  # the right rows, kept
        assert memory_list.state is LoadState.FAILED


@app_test
async def test_no_key_narrows_rows_a_reload_is_replacing(tmp_path: Path, monkeypatch) -> None:
    app = demo_app_with_matches(tmp_path)
    async with opened(app) as (app, pilot):
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        gate = hold_key_queries(monkeypatch, every_read=True)
        app.engine.identity.add_memory("ruff rule added by an agent")  # the store changed:
        flt = memory_list.filter
        assert flt is not None
        memory_list.show(app.engine, flt, keep_position=True)  # ...as the live refresh does
        assert await _until(pilot, gate.waiting.is_set)
        await pilot.press("r")  # the rows on screen are out of date: "r" waits for its query
        for _ in range(5):
            await pilot.pause(0.01)
        assert memory_list.source is not None and memory_list.source.filter.search is None
        gate.open()
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "r")
        await settle(pilot)
        first = memory_list.current()
        assert first is not None and first.content == "ruff rule added by an agent"


def test_rows_worked_out_ahead_are_never_read_further() -> None:
    from memtui.app.widgets.paged_source import FirstRowsSource
    from memtui.store.models import MemoryFilter

    rows = ruff_memories(30)
    no_store: Any = NoEngine()
    source = FirstRowsSource(no_store, MemoryFilter(scope="user", owner="ann", search="r"))
    source.put(0, rows)
    assert source.ensure(0, 300) == [] and source.ensure(0, 300, cheap_only=False) == []
    assert source.fetch(source.plan(1)) == []  # a short first page: page 1 is never read
    assert source.get(29) == rows[29] and source.get(30) is None and source.count is None
