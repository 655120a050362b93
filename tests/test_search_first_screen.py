"""Pilot tests: a key whose rows cannot be worked out from the rows on screen has its loader
read a screenful first and show it, then the rest of the first page
(``MemoryList._read_first_page``); after a search's first page is painted its second page is
read too, so the next key narrows from both (``_read_next_page``)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable
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
    press_until_read_fails,
    ruff_memories,
    settle,
)
from pilot_harness import until as _until
from textual.screen import Screen

from memtui.app.widgets import memory_list as memory_list_module
from memtui.app.widgets.memory_list import MemoryList
from memtui.app.widgets.paged_source import PAGE_SIZE, FirstRowsSource, PagedSource, PagePlan
from memtui.store.models import MemoryFilter

GATE_TIMEOUT_S = 30
"""A held read gives up waiting for its test after this long (only if the test broke)."""
NOT_ASCII = "ruff règle numéro {}"
"""Memories the rows on screen cannot judge (not ASCII): every key waits for its reads."""


def hold_page_rests(monkeypatch: pytest.MonkeyPatch) -> HeldReads:
    """Holds the loader's read of the rest of a first page (page 0 after its first screen)
    until ``open()``. That read starts only once the first screen is painted (no time limit
    on the wait)."""
    monkeypatch.setattr(memory_list_module, "COUNT_AFTER_PAINT_WAIT_SECONDS", GATE_TIMEOUT_S)
    return HeldReads(monkeypatch, lambda source, plan: plan.page == 0
                     and plan.method == "after")


async def _typed(pilot: Any, memory_list: MemoryList, keys: str,
                 search: str | None = None) -> None:
    """Type ``keys`` into the open search box and wait until the list shows ``search``
    (else the keys') with its count, every worker done."""
    for key in keys:
        await pilot.press("space" if key == " " else key)
    search = search or keys.strip()
    assert await _until(pilot, lambda: memory_list.filter is not None
                        and memory_list.filter.search == search
                        and memory_list.count is not None)
    await settle(pilot)


async def _word_read_two_pages(pilot: Any, memory_list: MemoryList, keys: str,
                               search: str) -> None:
    """Type ``keys`` (a space as " ") and wait until the list shows ``search``'s own first
    page (not rows held ahead) with its second page read too."""
    for key in keys:
        await pilot.press("space" if key == " " else key)
    assert await _until(pilot, lambda: memory_list.filter is not None
                        and memory_list.filter.search == search
                        and memory_list.source is not None
                        and not isinstance(memory_list.source, FirstRowsSource)
                        and 1 in memory_list.source.cached_pages())


def _alpha_and_ruff_app(tmp_path: Path, pairs: int,
                        extra: Callable[[int], str] = lambda number: "") -> Any:
    """The demo app with ``pairs`` pairs of memories, an "alpha" row, then a "ruff" row
    with ``extra(number)`` at its end (the newest added last)."""
    app = demo_app(tmp_path)
    for number in range(pairs):
        app.engine.identity.add_memory(f"alpha note number {number}")
        app.engine.identity.add_memory(f"ruff note number {number}{extra(number)}")
    return app


def _frames(monkeypatch: pytest.MonkeyPatch, memory_list: MemoryList) -> list[tuple[str | None,
                                                                                     int]]:
    """Each frame's list search and row count, recorded from now on."""
    frames: list[tuple[str | None, int]] = []
    refresh = Screen._compositor_refresh

    def recorded(screen: Screen[Any]) -> None:
        refresh(screen)
        source = memory_list.source
        frames.append((source.filter.search if source is not None else None,
                       memory_list.row_count()))

    monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
    return frames


@app_test
async def test_a_waiting_key_shows_its_first_screen_before_the_rest_of_its_page(
        tmp_path: Path, monkeypatch) -> None:
    gate = hold_page_rests(monkeypatch)
    app = demo_app_with_matches(tmp_path, NOT_ASCII)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        frames = _frames(monkeypatch, memory_list)
        height = memory_list.size.height
        bar_rows = memory_list.virtual_size.height
        assert bar_rows > height + 1
        await pilot.press("r")
        assert await _until(pilot, gate.waiting.is_set)  # the rest of the page is held...
        # ...after the first screen was read and painted: one row more than fit
        assert gate.reads == [("r", 0, "top", height + 1), ("r", 0, "after", PAGE_SIZE - height - 1)]
        assert isinstance(memory_list.source, FirstRowsSource)
        assert memory_list.source.filter.search == "r" and memory_list.count is None
        assert ("r", height + 1) in frames
        assert memory_list.virtual_size.height == bar_rows  # the scroll bar waits for the page
        first_screen = listed_ids(memory_list, height)
        assert len(first_screen) == height
        gate.open()
        assert await _until(pilot, lambda: not isinstance(memory_list.source, FirstRowsSource))
        await settle(pilot)
        assert listed_ids(memory_list, height) == first_screen  # the page takes over, nothing moves
        expected = app.engine.identity.memory_page(memory_list.filter, PAGE_SIZE)
        assert listed_ids(memory_list, PAGE_SIZE) == [memory.id for memory in expected]
        assert memory_list.cursor == 0 and memory_list.error is None
        assert all(rows for _search, rows in frames)  # never an empty list
        assert memory_list.count == app.engine.identity.count_memories(memory_list.filter)


@contextlib.asynccontextmanager
async def _rest_of_r_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          ) -> AsyncIterator[tuple[Any, Any, MemoryList, HeldReads]]:
    """The app with memories the rows on screen cannot judge, "r" typed, its first screen
    shown and the rest of its page held."""
    gate = hold_page_rests(monkeypatch)
    app = demo_app_with_matches(tmp_path, NOT_ASCII)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        await pilot.press("r")
        assert await _until(pilot, gate.waiting.is_set)
        yield app, pilot, pane.memory_list, gate


@app_test
async def test_a_cursor_moved_on_the_first_screen_stays_on_its_memory(tmp_path: Path,
                                                                     monkeypatch) -> None:
    async with _rest_of_r_held(tmp_path, monkeypatch) as (_app, pilot, memory_list, gate):
        await pilot.press("enter", "down", "down", "down")
        assert await _until(pilot, lambda: memory_list.cursor == 3)
        chosen = memory_list.current()
        assert chosen is not None
        gate.open()
        assert await _until(pilot, lambda: not isinstance(memory_list.source, FirstRowsSource))
        await settle(pilot)
        assert memory_list.cursor == 3 and memory_list.current() == chosen


@app_test
async def test_a_newer_key_drops_the_rest_of_an_older_page(tmp_path: Path, monkeypatch) -> None:
    async with _rest_of_r_held(tmp_path, monkeypatch) as (app, pilot, memory_list, gate):
        await pilot.press("u")
        gate.open()  # "r"'s rest is read (or interrupted) after "u" took over
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "ru"
                            and not isinstance(memory_list.source, FirstRowsSource))
        await settle(pilot)
        assert memory_list.filter is not None and memory_list.filter.search == "ru"
        expected = app.engine.identity.memory_page(memory_list.filter, PAGE_SIZE)
        assert listed_ids(memory_list, PAGE_SIZE) == [memory.id for memory in expected]
        assert memory_list.error is None


@app_test
async def test_a_first_screen_that_holds_the_whole_list_is_its_only_read(tmp_path: Path,
                                                                        monkeypatch) -> None:
    gate = hold_page_rests(monkeypatch)
    app = demo_app_with_matches(tmp_path, NOT_ASCII)
    for number in range(3):
        app.engine.identity.add_memory(f"zèbre rare {number}")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        expected = app.engine.identity.count_memories(
            app.engine.identity.memory_filter(search="z"))
        assert 3 <= expected <= memory_list.size.height
        await pilot.press("z")
        assert await _until(pilot, lambda: memory_list.filter is not None
                            and memory_list.filter.search == "z"
                            and memory_list.count == expected)
        await settle(pilot)
        assert [read for read in gate.reads if read[0] == "z"] == [
            ("z", 0, "top", memory_list.size.height + 1)]  # no rest, no count, no next page
        assert not gate.waiting.is_set()


@app_test
async def test_a_keys_second_page_lets_the_next_key_narrow(tmp_path: Path,
                                                          monkeypatch) -> None:
    """One row in ten of the search's rows holds the next word: the first page alone holds
    fewer rows of it than fit, the first two pages more."""
    app = demo_app(tmp_path)
    for number in range(2 * PAGE_SIZE + 20):
        extra = " zeta" if number % 10 == 0 else ""
        app.engine.identity.add_memory(f"ruff rule number {number}{extra}")
    read_next: list[str | None] = []
    fetch = PagedSource.fetch

    def recorded(source: PagedSource, plan: PagePlan) -> list[Any]:
        if plan.page == 1 and threading.current_thread() is not threading.main_thread():
            read_next.append(source.filter.search)
        return fetch(source, plan)

    monkeypatch.setattr(PagedSource, "fetch", recorded)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        height = memory_list.size.height
        assert 2 * PAGE_SIZE // 10 >= height + 1 > PAGE_SIZE // 10  # (the premise)
        for key in "ruff":
            await pilot.press(key)
        await pilot.press("space")
        assert await _until(pilot, lambda: memory_list.source is not None
                            and 1 in memory_list.source.cached_pages())
        assert "ruff" in read_next
        source = memory_list.source
        assert source is not None and len(source.first_rows()) == 2 * PAGE_SIZE
        shown_ahead: list[bool] = []
        narrowed = MemoryList._narrowed

        def watched(ml: MemoryList, *args: Any) -> Any:
            found = narrowed(ml, *args)
            shown_ahead.append(found.source is not None)
            return found

        monkeypatch.setattr(MemoryList, "_narrowed", watched)
        await pilot.press("z")
        assert await _until(pilot, lambda: memory_list.filter is not None
                            and memory_list.filter.search == "ruff z")
        assert shown_ahead == [True]  # from the two pages on hand, before its query
        await settle(pilot)
        expected = app.engine.identity.memory_page(memory_list.filter, height)
        assert listed_ids(memory_list, height) == [memory.id for memory in expected]


@app_test
async def test_a_key_the_rows_on_screen_hold_too_few_of_tells_the_store(
        tmp_path: Path, monkeypatch) -> None:
    """Two pages of "ruff" rows on hand hold 4 "zeta" rows: "ruff z" waits for its reads and
    tells the store what the rows on screen showed (4 matches in 200); its older matches
    come with the rest of the page."""
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = demo_app(tmp_path)
    for number in range(40):
        app.engine.identity.add_memory(f"ruff rule number {number} zeta")
    for number in range(40, 260):
        extra = " zeta" if number % 50 == 0 else ""
        app.engine.identity.add_memory(f"ruff rule number {number}{extra}")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _word_read_two_pages(pilot, memory_list, "ruff ", "ruff")
        await _typed(pilot, memory_list, "z", "ruff z")
        assert gate.near_top == [("ruff z", (4, 2 * PAGE_SIZE))]
        height = memory_list.size.height
        assert [read for read in gate.reads if read[0] == "ruff z"][:2] == [
            ("ruff z", 0, "top", height + 1), ("ruff z", 0, "after", PAGE_SIZE - height - 1)]
        expected = app.engine.identity.memory_page(memory_list.filter, PAGE_SIZE)
        assert len(expected) == memory_list.count == 40 + len(range(50, 260, 50))
        assert listed_ids(memory_list, PAGE_SIZE) == [memory.id for memory in expected]


@app_test
async def test_the_store_hears_how_thinly_the_narrowed_searches_hold_the_list(
        tmp_path: Path, monkeypatch) -> None:
    """Half of the list's newest rows are "ruff" rows, and four of the first 200 "ruff" rows
    hold "zeta": "ruff z" matched 4 of 200 rows on hand, which are about 400 of the list's
    first rows. Each search keeps its share of the list's first rows (``top_share``),
    through its own loads, and the store is told the estimate: about (4, 400), not
    (4, 200)."""
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = _alpha_and_ruff_app(tmp_path, 300, lambda number: " zeta" * (number % 50 == 49))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "r")
        r_share = memory_list.source.top_share
        # "r" was worked out from the newest rows: about every other one matched (the rows
        # are judged until enough matched to fill the screens)
        assert 0.5 <= r_share <= 0.52
        await _word_read_two_pages(pilot, memory_list, "uff ", "ruff")
        assert memory_list.source.top_share == pytest.approx(r_share)  # every "r" row matched
        await _typed(pilot, memory_list, "z", "ruff z")
        assert gate.near_top == [("ruff z", (4, round(2 * PAGE_SIZE / r_share)))]
        assert memory_list.source.top_share == pytest.approx(r_share * 4 / (2 * PAGE_SIZE))
        expected = app.engine.identity.memory_page(memory_list.filter, PAGE_SIZE)
        assert listed_ids(memory_list, PAGE_SIZE) == [memory.id for memory in expected]
        assert memory_list.count == len(expected) == 6  # (two more past the rows on hand)


@app_test
async def test_a_list_read_again_keeps_its_share(tmp_path: Path, monkeypatch) -> None:
    """A search's list read again where it stands (the store changed: ``keep_position``)
    holds the list as thinly as before: its share stays."""
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = _alpha_and_ruff_app(tmp_path, 150)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "r")
        share = memory_list.source.top_share
        assert share < 0.6
        generation = memory_list._generation
        memory_list.show(app.engine, memory_list.filter, keep_position=True)
        assert await _until(pilot, lambda: memory_list.count is not None
                            and not memory_list._reload_pending)
        await settle(pilot)
        assert memory_list._generation == generation + 1
        assert memory_list.source.top_share == pytest.approx(share)


@app_test
async def test_a_search_none_of_the_rows_on_hand_match_still_tells_the_store_its_share(
        tmp_path: Path, monkeypatch) -> None:
    """None of the newest rows on screen match "k" (its rows are all older): that says
    fewer than one in that many, never none, so a key after it that keeps a few of the
    "kappa" rows on hand ("kappa z") still has a share to scale by (a share of 0 divided by
    zero there and took the app down)."""
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = demo_app(tmp_path)
    add = app.engine.identity.add_memory
    for number in range(300):
        add(f"kappa note number {number}" + (" zeta" if number % 60 == 0 else ""))
    for number in range(2 * PAGE_SIZE):
        add(f"alpha note number {number}")
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "k")
        assert gate.near_top[0] == ("k", (0, PAGE_SIZE))  # none in the first page
        k_share = memory_list.source.top_share
        assert k_share == pytest.approx(1 / PAGE_SIZE)  # fewer than one in a page
        await _word_read_two_pages(pilot, memory_list, "appa ", "kappa")
        await _typed(pilot, memory_list, "z", "kappa z")
        assert app.is_running
        assert gate.near_top[-1] == ("kappa z", (3, round(2 * PAGE_SIZE / k_share)))
        expected = app.engine.identity.memory_page(memory_list.filter, PAGE_SIZE)
        assert listed_ids(memory_list, PAGE_SIZE) == [memory.id for memory in expected]
        assert memory_list.count == 5  # (two more past the rows on hand)


@app_test
async def test_rows_the_screen_cannot_judge_tell_the_store_nothing(tmp_path: Path,
                                                                  monkeypatch) -> None:
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = demo_app_with_matches(tmp_path, NOT_ASCII)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "ru")
        assert gate.near_top == [] and ("ru", 0, "top", memory_list.size.height + 1) in gate.reads


@app_test
async def test_a_store_that_cannot_narrow_reads_each_key_in_one_page(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """As on PostgreSQL: no first screen apart, no second page (nothing would narrow from
    it)."""
    from memtui.engine.identity import IdentityApi

    monkeypatch.setattr(IdentityApi, "narrows_in_hand", property(lambda self: False))
    monkeypatch.setattr(IdentityApi, "narrowed_rows", lambda *args, **kwargs: None)
    gate = hold_page_rests(monkeypatch)
    gate.open()
    app = demo_app_with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "ru")
        searched = [read for read in gate.reads if read[0]]
        assert searched and all(read[1:3] == (0, "top") and read[3] == PAGE_SIZE
                                for read in searched)


@app_test
async def test_a_failed_second_page_read_leaves_the_list_as_it_was(tmp_path: Path,
                                                                  monkeypatch) -> None:
    loader_reads_fail(monkeypatch, lambda source, plan: plan.page == 1)
    app = demo_app_with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await _typed(pilot, memory_list, "r")  # its count still comes
        assert memory_list.error is None
        assert memory_list.count == app.engine.identity.count_memories(memory_list.filter)


@app_test
async def test_a_failed_rest_of_page_sizes_the_scroll_bar_to_the_rows_shown(
        tmp_path: Path, monkeypatch) -> None:
    loader_reads_fail(monkeypatch, lambda source, plan: plan.page == 0
                      and plan.method == "after")
    app = demo_app_with_matches(tmp_path, NOT_ASCII)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await press_until_read_fails(pilot, memory_list, "r")
        height = memory_list.size.height
        assert memory_list.row_count() == height + 1  # the first screen, kept
        assert memory_list.virtual_size.height == height + 1


@app_test
async def test_a_tall_list_narrows_rows_past_the_first_page(tmp_path: Path,
                                                           monkeypatch) -> None:
    """More than a page of rows worked out from the rows on screen (the whole list, two
    pages on hand): every one is shown, before the key's query returns."""
    held, going = threading.Event(), threading.Event()
    fetch = PagedSource.fetch

    def hold_ruff(source: PagedSource, plan: PagePlan) -> list[Any]:
        if source.filter.search == "ruff" and plan.page == 0 \
                and threading.current_thread() is not threading.main_thread():
            held.set()
            going.wait(timeout=GATE_TIMEOUT_S)
        return fetch(source, plan)

    monkeypatch.setattr(PagedSource, "fetch", hold_ruff)
    app = demo_app(tmp_path)
    for number in range(PAGE_SIZE + 40):
        app.engine.identity.add_memory(f"ruff rule number {number}")
    async with app.run_test(size=(100, 140)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        for key in "ruf":
            await pilot.press(key)
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "ruf"
                            and memory_list.count is not None
                            and 1 in memory_list.source.cached_pages())
        await settle(pilot)
        expected = app.engine.identity.count_memories(
            app.engine.identity.memory_filter(search="ruff"))
        height = memory_list.size.height
        assert PAGE_SIZE < expected == memory_list.count and height > PAGE_SIZE
        await pilot.press("f")
        assert await _until(pilot, held.is_set)  # "ruff"'s query is held...
        source = memory_list.source
        assert isinstance(source, FirstRowsSource) and source.filter.search == "ruff"
        assert memory_list.count == expected  # ...and its whole list is on screen
        shown = [source.get(index) for index in range(min(expected, height))]
        assert all(memory is not None for memory in shown)
        going.set()
        await settle(pilot)
        assert memory_list.count == expected


@app_test
async def test_a_second_page_read_for_an_older_search_is_dropped(tmp_path: Path) -> None:
    app = demo_app_with_matches(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await open_user_search(app, pilot)
        memory_list = pane.memory_list
        await pilot.press("r")
        await settle(pilot)
        source = memory_list.source
        assert source is not None and 1 in source.cached_pages()  # its own, read after it
        second = [source.get(PAGE_SIZE + n) for n in range(10)]
        strangers = ruff_memories(10)
        other = PagedSource(app.engine, source.filter)
        memory_list.post_message(MemoryList.NextPageRead(memory_list._generation, other,
                                                         strangers))  # another source
        memory_list.post_message(MemoryList.NextPageRead(memory_list._generation - 1, source,
                                                         strangers))  # an older load
        await settle(pilot)
        assert other.cached_pages() == []
        assert [source.get(PAGE_SIZE + n) for n in range(10)] == second


def test_first_rows_are_the_first_two_pages_only_when_the_first_is_full() -> None:
    flt = MemoryFilter(scope="user", owner="ann")
    no_store: Any = NoEngine()
    source = FirstRowsSource(no_store, flt, page_size=4)
    assert source.first_rows() == []
    source.put(1, ruff_memories(4, 4))
    assert source.first_rows() == []  # no first page: nothing known from the top
    source.put(0, ruff_memories(3))
    assert [m.id for m in source.first_rows()] == ["mem_0", "mem_1", "mem_2"]  # the list ends
    source.put(0, ruff_memories(4))
    assert [m.id for m in source.first_rows()] == [f"mem_{n}" for n in range(8)]
