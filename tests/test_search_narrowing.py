"""Pilot tests: a key that narrows the search shows its rows from the rows on screen at once,
before its query returns (``MemoryList._narrowed``); the query still runs once and its rows
take over without a jump; a key that widens the search, or rows only the index can judge,
wait for the query with the old rows on screen."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pilot_harness import app_test, demo_app, press, settle
from pilot_harness import until as _until
from textual.screen import Screen
from textual.widgets import Static

from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.memory_list import MemoryList
from memtui.app.widgets.paged_source import PAGE_SIZE, PagedSource

GATE_TIMEOUT_S = 30
"""A held read gives up waiting for its test after this long (only if the test broke)."""


class Gate:
    """Holds every searched read of a list's loader until ``open()``; records the searches
    read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._open = threading.Event()
        self.waiting = threading.Event()
        self.searches: list[str | None] = []
        fetch = PagedSource.fetch
        gate = self

        def held(source: PagedSource, plan):  # noqa: ANN001, ANN202
            if source.filter.search and threading.current_thread() is not threading.main_thread():
                gate.searches.append(source.filter.search)
                gate.waiting.set()
                gate._open.wait(timeout=GATE_TIMEOUT_S)
            return fetch(source, plan)

        monkeypatch.setattr(PagedSource, "fetch", held)

    def open(self) -> None:
        """Let the held read (and every later one) go on."""
        self._open.set()

    def close(self) -> None:
        """Hold the next read again."""
        self.waiting.clear()
        self._open.clear()


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


def _with_matches(folder: Path, text: str = "ruff rule number {} is enabled"):  # noqa: ANN202
    """The demo app with more memories matching "r", "ru"... than a page holds, newest."""
    app = demo_app(folder)
    for number in range(PAGE_SIZE + 20):
        app.engine.identity.add_memory(text.format(number))
    return app


async def _searching(app, pilot) -> MemoriesPane:  # noqa: ANN001
    await settle(pilot)
    pane = app.pane("user")
    assert isinstance(pane, MemoriesPane)
    await press(pilot, "slash")
    return pane


def _ids(memory_list: MemoryList, rows: int) -> list[str]:
    source = memory_list.source
    assert source is not None
    found = [source.get(index) for index in range(rows)]
    return [memory.id for memory in found if memory is not None]


@app_test
async def test_a_narrowing_key_shows_its_rows_before_its_query_returns(tmp_path: Path,
                                                                      monkeypatch) -> None:
    gate = Gate(monkeypatch)
    app = _with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _searching(app, pilot)
        memory_list = pane.memory_list
        painted = Painted(monkeypatch, pane)
        for key, search in (("r", "r"), ("u", "ru"), ("f", "ruf")):
            gate.close()
            await pilot.press(key)
            assert await _until(pilot, gate.waiting.is_set)  # its query is held...
            # ...yet the frame that echoed the key already showed its rows
            echo = next(frame for frame in painted.frames if frame[0] == search)
            assert echo[1] == search and echo[2] >= memory_list.size.height
            assert memory_list.count is None  # the count comes after the query
            height = memory_list.size.height
            shown, worked_out_source = _ids(memory_list, height), memory_list.source
            gate.open()
            assert await _until(pilot, lambda ahead=worked_out_source:
                                memory_list.source is not ahead)
            assert _ids(memory_list, height) == shown  # the query's rows: the same on screen
            assert memory_list.cursor == 0
            await settle(pilot)
        assert gate.searches == ["r", "ru", "ruf"]  # each key's query ran, once
        assert all(rows for _box, _listed, rows in painted.frames)  # never an empty list
        expected = app.engine.identity.count_memories(
            app.engine.identity.memory_filter(search="ruf"))
        assert expected > PAGE_SIZE and memory_list.count == expected
        assert f" · {expected:,} · " in str(pane.query_one(".pane-title", Static).content)


@app_test
async def test_a_cursor_moved_before_the_query_returns_stays_on_its_memory(
        tmp_path: Path, monkeypatch) -> None:
    gate = Gate(monkeypatch)
    app = _with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _searching(app, pilot)
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
    app = _with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _searching(app, pilot)
        memory_list = pane.memory_list
        await press(pilot, "r", "u")
        gate = Gate(monkeypatch)
        await pilot.press("backspace")  # "ru" -> "r": rows the screen does not hold
        assert await _until(pilot, gate.waiting.is_set)
        for _ in range(5):
            await pilot.pause(0.01)
        assert memory_list.source is not None and memory_list.source.filter.search == "ru"
        gate.open()
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "r")


@app_test
async def test_rows_only_the_index_can_judge_wait_for_the_query(tmp_path: Path,
                                                              monkeypatch) -> None:
    gate = Gate(monkeypatch)
    app = _with_matches(tmp_path, "ruff règle numéro {}")  # not ASCII: SQLite decides
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _searching(app, pilot)
        memory_list = pane.memory_list
        await pilot.press("r")
        assert await _until(pilot, gate.waiting.is_set)
        for _ in range(5):
            await pilot.pause(0.01)
        assert memory_list.source is not None and memory_list.source.filter.search is None
        gate.open()
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "r")


@app_test
async def test_a_narrowing_of_a_whole_list_knows_its_count_at_once(tmp_path: Path,
                                                                 monkeypatch) -> None:
    gate = Gate(monkeypatch)
    app = demo_app(tmp_path)  # a few memories: the rows on screen are the whole list
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await _searching(app, pilot)
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
        assert memory_list.count == expected and gate.searches == ["p"]
