"""Pilot tests: a memory list's one long-lived loader (no worker started per keystroke), the
search box handing its text straight to the pane, and new rows painted in the turn they
arrive."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_harness import app_test, demo_app, opened, press, settle
from pilot_harness import until as _until
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets import list_loading
from memtui.app.widgets import memory_list as memory_list_module
from memtui.app.widgets import paint_hold as paint_hold_module
from memtui.app.widgets.load_mailbox import LoadMailbox
from memtui.app.widgets.memory_list import LOADER_GROUP, MemoryList
from memtui.app.widgets.paged_source import PAGE_SIZE, PagedSource
from memtui.app.widgets.search_box import SearchBox

SAFETY_TIMEOUT_S = 30
"""A held read or a wait that should end at once gives up after this long (only if the
code is broken)."""
CLOSE_WAIT_S = 10
"""How long a test waits for a closed list's loader to end (at once, unless broken)..."""
FALLBACK_WAKE_S = 20
"""...which is less than the loader's fallback look at its cancelled worker there."""


def _user_pane(app) -> MemoriesPane:  # noqa: ANN001
    pane = app.pane("user")
    assert isinstance(pane, MemoriesPane)
    return pane


def _hold_reads(monkeypatch: pytest.MonkeyPatch, held_if: Callable[[PagedSource], bool],
                ) -> tuple[threading.Event, threading.Event]:
    """Hold each page read for which ``held_if`` holds, in a worker thread, until ``gate``
    is set; ``held`` is set once one is held."""
    gate, held = threading.Event(), threading.Event()
    fetch = PagedSource.fetch

    def holding(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if held_if(self) and threading.current_thread() is not threading.main_thread():
            held.set()
            gate.wait(SAFETY_TIMEOUT_S)
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", holding)
    return gate, held


def _app_with_many_ruff_rows(folder: Path):  # noqa: ANN202
    """The demo app with more rows matching "r" up to "ruff r" than a page holds."""
    app = demo_app(folder)
    for number in range(PAGE_SIZE + 20):
        app.engine.identity.add_memory(f"ruff rule number {number} is enabled")
    return app


def _record_searched_reads(monkeypatch: pytest.MonkeyPatch,
                           ) -> list[tuple[str, threading.Thread]]:
    """Every searched page read: (the search, the thread that ran it)."""
    reads: list[tuple[str, threading.Thread]] = []
    fetch = PagedSource.fetch

    def recorded(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if self.filter.search:
            reads.append((self.filter.search, threading.current_thread()))
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", recorded)
    return reads


@app_test
async def test_every_key_is_read_by_the_lists_one_loader(tmp_path: Path, monkeypatch) -> None:
    reads = _record_searched_reads(monkeypatch)
    async with opened(tmp_path) as (app, pilot):
        pane = _user_pane(app)
        await press(pilot, "slash", "r")  # the list's first load off the UI thread
        workers_after_the_first = len(app.workers)
        for key in "uf":
            await press(pilot, key)
        assert len(app.workers) == workers_after_the_first  # no worker started for a key
        loaders = [worker for worker in app.workers if worker.group == LOADER_GROUP
                   and worker.node is pane.memory_list]
        assert len(loaders) == 1 and loaders[0].is_running
        assert [search for search, _ in reads] == ["r", "ru", "ruf"]
        threads = {thread for _, thread in reads}
        assert len(threads) == 1 and threading.main_thread() not in threads
        assert pane.memory_list.source is not None
        assert pane.memory_list.source.filter.search == "ruf"


@app_test
async def test_a_load_not_started_yet_is_replaced_by_a_newer_key(tmp_path: Path,
                                                                monkeypatch) -> None:
    """While the loader reads "r" (held here, where no interrupt reaches), "u" and "f" come:
    "ru" waits, then "ruf" takes its place. "ru" is never read."""
    reads = _record_searched_reads(monkeypatch)
    gate, held = _hold_reads(monkeypatch, lambda source: source.filter.search == "r")
    app = demo_app(tmp_path)
    try:
        async with opened(app) as (app, pilot):
            pane = _user_pane(app)
            await press(pilot, "slash")
            await pilot.press("r")  # no settling: its read is held
            assert await _until(pilot, held.is_set)
            await pilot.press("u", "f")
            assert await _until(pilot, lambda: pane.search_text == "ruf")
            assert not pane.memory_list.loader_idle  # "ruf" waits behind the held read
            gate.set()
            await settle(pilot)
            source = pane.memory_list.source
            assert source is not None and source.filter.search == "ruf"
            assert [search for search, _ in reads] == ["r", "ruf"]
    finally:
        gate.set()


@app_test
async def test_the_loader_ends_with_its_list(tmp_path: Path, monkeypatch) -> None:
    """Closing the app ends each list's loader at once (the list closes its mailbox): not
    through the loader's fallback look at its cancelled worker, made rarer here than the
    wait for the end (so a broken close fails the test, about 20 s later, never hangs)."""
    monkeypatch.setattr(memory_list_module, "LOADER_WAKE_SECONDS", FALLBACK_WAKE_S)
    ended = threading.Event()
    take = LoadMailbox.take

    def watched(self: LoadMailbox, timeout: float):  # noqa: ANN202
        request = take(self, timeout)
        if request is None and self.closed:
            ended.set()
        return request

    monkeypatch.setattr(LoadMailbox, "take", watched)
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press(pilot, "slash", "r")
        memory_list = _user_pane(app).memory_list
        assert memory_list.loads_requested >= 1 and not ended.is_set()
        await pilot.press("q")
    assert ended.wait(CLOSE_WAIT_S)
    assert memory_list._mailbox.closed


@app_test
async def test_the_search_box_hands_each_new_text_to_its_pane(tmp_path: Path,
                                                              monkeypatch) -> None:
    posted: list[type[Message]] = []
    post_message = SearchBox.post_message

    def recorded(self: SearchBox, message: Message) -> bool:
        queued = post_message(self, message)
        if queued:
            posted.append(type(message))
        return queued

    monkeypatch.setattr(SearchBox, "post_message", recorded)
    handed: list[str] = []
    search_typed = MemoriesPane._search_typed

    def typed(self: MemoriesPane, text: str) -> None:
        handed.append(text)
        search_typed(self, text)

    monkeypatch.setattr(MemoriesPane, "_search_typed", typed)
    async with opened(tmp_path) as (app, pilot):
        pane = _user_pane(app)
        await press(pilot, "slash", "r", "u", "backspace")
        box = pane.search_box
        assert isinstance(box, SearchBox)
        box._watch_value(box.value)  # Input runs its own watcher again for other reasons
        box.value = box.value  # and setting the same text changes nothing
        await settle(pilot)
        assert handed == ["r", "ru", "r"]  # once per new text, at once
        assert Input.Changed not in posted
        await press(pilot, "escape")  # leaving the search clears it: the whole list again
        assert handed == ["r", "ru", "r", ""]
        source = pane.memory_list.source
        assert source is not None and source.filter.search is None


async def _type_on(pilot, memory_list: MemoryList, search: str, paused: bool) -> None:  # noqa: ANN001
    """Type the last key of ``search`` and wait for its rows; ``paused``: and let the list
    count them (a typist slower than the count's pause), else the next key comes first."""
    key = search[-1]
    await pilot.press("space" if key == " " else key)
    assert await _until(pilot, lambda: memory_list.filter is not None
                        and memory_list.filter.search == search.strip())
    if paused:
        await settle(pilot)
        assert memory_list.count is not None or memory_list.at_least is not None


@app_test
@pytest.mark.parametrize("paused", [False, True], ids=["typing-on", "counted-between-keys"])
async def test_new_rows_are_painted_in_the_turn_they_arrive(tmp_path: Path, monkeypatch,
                                                            paused: bool) -> None:
    """The rows' handler paints before it returns ("ru" holds more than a page, as "r"
    did), whether the next key comes before the list has counted "r" or after (then the
    list's size changes from the count back to a page: the scroll bar follows without a
    layout); the pane's title for those rows follows in the frame after (by then it says
    "counting…")."""
    app = _app_with_many_ruff_rows(tmp_path)
    async with opened(app) as (app, pilot):
        pane = _user_pane(app)
        frames: list[tuple[str | None, str]] = []
        refresh = Screen._compositor_refresh

        def recorded(screen: Screen) -> None:
            refresh(screen)
            source = pane.memory_list.source
            frames.append((source.filter.search if source is not None else None,
                           str(pane._title.content)))

        monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
        in_handler: list[list[tuple[str | None, str]]] = []
        loaded = MemoryList.on_memory_list_loaded

        def handled(self: MemoryList, message: MemoryList.Loaded) -> None:
            before = len(frames)
            loaded(self, message)
            in_handler.append(frames[before:])

        monkeypatch.setattr(MemoryList, "on_memory_list_loaded", handled)
        await press(pilot, "slash")
        for search in ("r", "ru"):
            await _type_on(pilot, pane.memory_list, search, paused)
        # (rows worked out ahead from "r"'s can show "ru" before its rows arrive)
        assert await _until(pilot, lambda: len(in_handler) == 2)
        painted = in_handler[1]
        assert len(painted) == 1  # one frame, painted by the handler itself
        assert painted[0][0] == "ru"
        await settle(pilot)
        title = frames[-1][1]  # (the title follows the rows: test_search_frames)
        assert "counting" in title or f" · {pane.memory_list.count:,} · " in title
        assert "search" not in title  # the search box under the title shows it


@app_test
async def test_typing_on_leaves_the_title_as_it_was(tmp_path: Path, monkeypatch) -> None:
    """Keys typed before the count's pause change only the search: the title (the pane, the
    count still being worked out, the filter) is not drawn again, so the key's frame does not
    reach up to it. The first key changes it once, from the count to counting."""
    app = _app_with_many_ruff_rows(tmp_path)
    async with opened(app) as (app, pilot):
        pane = _user_pane(app)
        title = pane._title
        assert "counting" not in str(title.content)
        drawn: list[str] = []
        update = type(title).update

        def recorded(self, content="", *, layout: bool = True) -> None:  # noqa: ANN001
            if self is title:
                drawn.append(str(content))
            update(self, content, layout=layout)

        monkeypatch.setattr(type(title), "update", recorded)
        # however slow the machine, typing does not pause long enough to count...
        monkeypatch.setattr(list_loading, "SEARCH_COUNT_PAUSE_SECONDS", SAFETY_TIMEOUT_S)
        await press(pilot, "slash")
        for search in ("r", "ru", "ruf"):
            await _type_on(pilot, pane.memory_list, search, paused=False)
        assert len(drawn) == 1 and "counting" in drawn[0]  # the first key's rows only
        # ...until the last key, after which it does: its rows, then its count
        monkeypatch.setattr(list_loading, "SEARCH_COUNT_PAUSE_SECONDS", 0.0)
        await _type_on(pilot, pane.memory_list, "ruff", paused=True)
        assert await _until(pilot, lambda: len(drawn) == 2)
        assert "counting" not in drawn[1] and pane.memory_list.count is not None
        assert "ruff" not in drawn[1] and pane.search_box is not None \
            and pane.search_box.value == "ruff"


@app_test
async def test_rows_that_need_a_layout_first_are_painted_a_few_turns_later(
        tmp_path: Path, monkeypatch) -> None:
    """A change that needs a layout goes the long way (the widget's idle step asks the
    screen for it): the handler paints nothing, and the frame still comes, with the rows."""
    async with opened(tmp_path) as (app, pilot):
        pane = _user_pane(app)
        frames: list[str | None] = []
        refresh = Screen._compositor_refresh

        def recorded(screen: Screen) -> None:
            refresh(screen)
            source = pane.memory_list.source
            frames.append(source.filter.search if source is not None else None)

        monkeypatch.setattr(Screen, "_compositor_refresh", recorded)
        in_handler: list[int] = []
        loaded = MemoryList.on_memory_list_loaded

        def handled(self: MemoryList, message: MemoryList.Loaded) -> None:
            pane._preview.refresh(layout=True)  # as a preview that grows would
            before = len(frames)
            loaded(self, message)
            in_handler.append(len(frames) - before)

        monkeypatch.setattr(MemoryList, "on_memory_list_loaded", handled)
        monkeypatch.setattr(paint_hold_module, "ECHO_HOLD_SECONDS", SAFETY_TIMEOUT_S)
        await press(pilot, "slash", "r")
        assert in_handler == [0]
        assert "r" in frames


@app_test
async def test_the_search_box_draws_what_textuals_input_draws(tmp_path: Path) -> None:
    """The box's own drawing of its line gives the very segments ``Input`` gives: short and
    long (scrolled) text, wide and combining characters, the cursor anywhere, a selection,
    the cursor blinked off, the box without focus."""
    async with opened(tmp_path, "slash", size=(40, 24)) as (app, pilot):
        box = _user_pane(app).search_box
        assert isinstance(box, SearchBox)
        checked = 0

        def same() -> None:
            nonlocal checked
            assert list(box.render_line(0)) == list(Input.render_line(box, 0)), box.value
            assert list(box.render_line(1)) == list(Input.render_line(box, 1))
            checked += 1

        for value in ("r", "ruff rules", "x" * 90, "日本語の検索", "cafe\u0301 naïve", "a😀b"):
            box.value = value
            await settle(pilot)
            for position in (len(value), 0, len(value) // 2):
                box.cursor_position = position
                await pilot.pause()
                same()
            await pilot.press("shift+left", "shift+left")  # a selection
            same()
            box._cursor_visible = False  # blinked off
            same()
            box._cursor_visible = True
        box.value = ""
        await settle(pilot)
        same()  # the placeholder: Input's own drawing
        box.value = "ruff"
        _user_pane(app).memory_list.focus()
        await settle(pilot)
        same()  # no focus: no cursor
        assert checked == 6 * 5 + 2


@app_test
@pytest.mark.parametrize("paused", [False, True], ids=["typing-on", "counted-between-keys"])
async def test_typing_on_repaints_only_the_rows_that_look_different(tmp_path: Path,
                                                                    monkeypatch,
                                                                    paused: bool) -> None:
    """"ruf" and then "ruff" find the same newest rows, highlighted in the same places: the
    frame of "ruff" draws only the cursor's row again. "ruff r" highlights "rule" too:
    every row is drawn again."""
    app = _app_with_many_ruff_rows(tmp_path)
    async with opened(app) as (app, pilot):
        pane = _user_pane(app)
        memory_list = pane.memory_list
        drawn: list[int] = []
        render_line = MemoryList.render_line

        def watched(self: MemoryList, y: int):  # noqa: ANN202
            if self is memory_list:
                drawn.append(y)
            return render_line(self, y)

        monkeypatch.setattr(MemoryList, "render_line", watched)
        await press(pilot, "slash")
        drawn_for: dict[str, list[int]] = {}
        for search in ("r", "ru", "ruf", "ruff", "ruff ", "ruff r"):
            drawn.clear()
            await _type_on(pilot, memory_list, search, paused=False)
            assert await _until(pilot, lambda: bool(drawn))
            drawn_for[search] = sorted(set(drawn))
            if paused:
                await settle(pilot)  # the count lands (and is drawn) before the next key
        visible = list(range(memory_list.size.height))
        assert drawn_for["ruff"] == [0]  # the same rows, the same highlights
        assert drawn_for["ruff r"] == visible  # "rule" is highlighted now: every row
        assert memory_list.cursor == 0 and memory_list.scroll_y == 0


def test_a_rows_look_changes_with_its_memory_mark_or_highlights() -> None:
    from zoneinfo import ZoneInfo

    from memtui.app.widgets.memory_list import RowLook, search_pattern
    from memtui.store.models import Memory

    def memory(content: str, memory_id: str = "m1") -> Memory:
        return Memory(id=memory_id, scope="user", owner="alice", project=None, kind="fact",
                      content=content, status="active", superseded_by=None, source="manual",
                      source_thread_id=None, created_at="2026-01-01T00:00:00Z",
                      updated_at="2026-01-01T00:00:00Z", usage_count=0, last_used_at=None)

    utc, width = ZoneInfo("UTC"), 78

    def alike(old: RowLook, new: RowLook, at: int = width) -> bool:
        return new.looks_like(old, at, utc)

    ruff = memory("ruff rule one")
    assert alike(RowLook(ruff, False, search_pattern("ruf")),
                 RowLook(memory("ruff rule one"), False, search_pattern("ruff")))
    assert not alike(RowLook(ruff, False, search_pattern("ruff")),
                     RowLook(ruff, False, search_pattern("ruff r")))  # "rule" too now
    assert not alike(RowLook(ruff, False, None), RowLook(ruff, True, None))  # marked
    assert not alike(RowLook(ruff), RowLook(memory("ruff rule two")))  # edited text
    assert not alike(RowLook(ruff), RowLook(memory("ruff rule one", "m2")))
    assert not alike(RowLook(None), RowLook(ruff))  # a loading row gets its memory
    assert alike(RowLook(None, blank=True), RowLook(None, blank=True))
    assert not alike(RowLook(None, blank=True), RowLook(None))
    # a match far to the right: the row shows the text from just before it ("…" first),
    # which makes a new word start ("x_wertyuiopq" is one word, "wertyuiopq" is not)
    far = memory("z" * 60 + " x_wertyuiopq abcdef tail")
    assert not alike(RowLook(far, False, search_pattern("abc")),
                     RowLook(far, False, search_pattern("abc w")), 60)
    assert alike(RowLook(far, False, search_pattern("abc")),
                 RowLook(far, False, search_pattern("abcd")), 60)


@app_test
async def test_a_panes_title_is_drawn_while_its_first_load_runs(tmp_path: Path,
                                                               monkeypatch) -> None:
    """The Project pane's first read (held here): its title already names the project and
    says it is counting, before the rows come."""
    gate, held = _hold_reads(monkeypatch, lambda source: source.filter.scope == "project")
    app = demo_app(tmp_path)
    try:
        async with opened(app) as (app, pilot):
            app.show_pane("project")
            assert await _until(pilot, held.is_set)
            pane = app.pane("project")
            assert isinstance(pane, MemoriesPane)
            await pilot.pause()
            title = str(pane._title.content)
            assert title.startswith("Project ") and "counting…" in title
            gate.set()
            await settle(pilot)
            assert "counting…" not in str(pane._title.content)
    finally:
        gate.set()


def test_runs_of_changed_rows() -> None:
    from memtui.app.widgets.memory_list import _runs

    assert _runs([]) == [] and _runs([False, False]) == []
    assert _runs([True]) == [(0, 1)]
    assert _runs([True, True, False, True, False, False, True, True]) == [(0, 2), (3, 1),
                                                                            (6, 2)]
