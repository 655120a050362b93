"""Pilot tests: the memory panes — browse, add, note, correct, forget, copy, filter, search."""

from __future__ import annotations

from pathlib import Path

import pilot_harness
import pytest
from pilot_harness import CopySpy, app_test, opened, press, settle, status_text, top_screen
from textual.widgets import Input, TextArea

from memtui.app.modals.editor import MemoryEditor
from memtui.app.modals.filter import FilterModal
from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.memory_list import MemoryList
from memtui.engine.api import Engine


def _pane(app, pane_id: str) -> MemoriesPane:
    pane = app.pane(pane_id)
    assert isinstance(pane, MemoriesPane)
    return pane


def _list(app, pane_id: str = "user") -> MemoryList:
    return _pane(app, pane_id).memory_list


WAIT_ROUNDS = 400
"""Pauses a test waits for a worker's message (each 50 ms; generous for a busy machine)."""


@app_test
async def test_opens_on_the_user_pane_with_counts(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        assert app.current_pane().PANE_ID == "user"
        memory_list = _list(app)
        assert memory_list.count == 8
        assert memory_list.current().content.startswith("Remember to rotate")
        assert app.focused is memory_list
        await press(pilot, "3")
        assert _list(app, "project").count == 11
        assert app.project == "webshop"


@app_test
async def test_vim_movement_and_ends(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        await press(pilot, "j", "j")
        assert memory_list.cursor == 2
        await press(pilot, "k")
        assert memory_list.cursor == 1
        await press(pilot, "end")
        assert memory_list.cursor == 7
        await press(pilot, "home")
        assert memory_list.cursor == 0
        await press(pilot, "ctrl+d")
        assert memory_list.cursor > 0
        await press(pilot, "ctrl+u")
        assert memory_list.cursor == 0
        await press(pilot, "G")
        assert memory_list.cursor == 7


@app_test
async def test_add_with_kind_picker_then_undo(tmp_path: Path) -> None:
    async with opened(tmp_path, "a") as (app, pilot):
        editor = top_screen(app, MemoryEditor)
        editor.query_one("#kind-decision").value = True
        editor.query_one(TextArea).insert("Deploys happen on Tuesdays only.")
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryEditor)
        memory_list = _list(app)
        assert memory_list.count == 9
        newest = Engine(app.store, "alice").identity.list_memories(limit=1)[0]
        assert (newest.content, newest.kind, newest.source) == (
            "Deploys happen on Tuesdays only.", "decision", "manual")
        await press(pilot, "ctrl+z")
        assert memory_list.count == 8
        assert "Undone" in status_text(app)


@app_test
async def test_add_empty_text_is_refused_in_the_form(tmp_path: Path) -> None:
    async with opened(tmp_path, "a", "ctrl+s") as (app, pilot):
        assert isinstance(app.screen, MemoryEditor)
        assert "empty" in str(app.screen.query_one("#editor-error").render())
        await press(pilot, "escape")
        assert _list(app).count == 8


@app_test
async def test_failed_write_keeps_what_was_typed(tmp_path: Path) -> None:
    app = pilot_harness.demo_app(tmp_path, user="bob")  # bob writes to webshop...
    async with opened(app, "3", "a") as (app, pilot):
        editor = top_screen(app, MemoryEditor)
        editor.query_one(TextArea).insert("Readers cannot write this.")
        # ...until the owner makes him a reader while he types (another process)
        Engine(app.store, "alice").identity.set_member("webshop", "bob", "reader")
        await press(pilot, "ctrl+s")
        assert app.screen is editor  # still open
        assert editor.query_one(TextArea).text == "Readers cannot write this."
        assert "not write" in str(editor.query_one("#editor-error").render())


@app_test
async def test_note_key_adds_a_note(tmp_path: Path) -> None:
    async with opened(tmp_path, "3", "n") as (app, pilot):
        editor = top_screen(app, MemoryEditor)
        editor.query_one(TextArea).insert("Ask Bob before touching the CDN config.")
        await press(pilot, "ctrl+s")
        memory = _list(app, "project").current()
        assert memory.source == "note"
        assert memory.project == "webshop"


@app_test
async def test_correct_is_a_supersede_with_history_and_undo(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        old = memory_list.current()
        await press(pilot, "e")
        editor = top_screen(app, MemoryEditor)
        area = editor.query_one(TextArea)
        assert area.text == old.content
        area.text = "Rotate the staging database password on the 1st and the 15th."
        await press(pilot, "ctrl+s")
        new = memory_list.current()
        assert new.content.endswith("the 15th.")
        assert memory_list.count == 8
        history = Engine(app.store, "alice").identity.history(new.id)
        assert [m.id for m in history] == [old.id, new.id]
        await press(pilot, "ctrl+z")
        assert memory_list.current().content == old.content


@app_test
async def test_forget_asks_and_cancel_keeps_the_memory(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        await press(pilot, "j")  # the 3-version indentation memory
        target = memory_list.current()
        await pilot_harness.asks(pilot, "d")
        body = str(app.screen.query_one(".dialog-body").render())
        assert "3 versions in all" in body and "cannot be undone" in body
        await press(pilot, "n")
        assert memory_list.count == 8
        assert memory_list.current().id == target.id
        assert "Nothing was forgotten" in status_text(app)


@app_test
async def test_forget_confirmed_removes_the_chain(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        await press(pilot, "j")
        target = memory_list.current()
        await press(pilot, "d", "y")
        assert memory_list.count == 7
        assert target.id not in {memory_list.source.get(i).id for i in range(7)}
        assert "no undo" in status_text(app)
        await press(pilot, "ctrl+z")  # forget is final: nothing to undo
        assert memory_list.count == 7


@app_test
async def test_forget_behind_a_reader_warns_then_erases_when_it_lets_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader (another process) keeps the forgotten text in the WAL: the status line
    says it is not yet erased, and the app's purge worker erases it once the reader lets
    go."""
    import sqlite3

    from memtui.engine import purge
    from memtui.engine import worker as worker_mod

    monkeypatch.setattr(purge, "FORGET_PURGE_WAIT_S", 0.2)
    monkeypatch.setattr(purge, "PURGE_RETRY_WAIT_S", 0.05)
    monkeypatch.setattr(worker_mod, "PURGE_POLL_S", 0.05)
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        target = memory_list.current()
        files = [Path(str(app.store.path) + suffix) for suffix in ("", "-wal")]
        reader = sqlite3.connect(str(app.store.path), isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM memories").fetchone()
            await press(pilot, "d")
            await pilot.press("y")  # no settle: the purge worker waits for the reader
            for _ in range(WAIT_ROUNDS):
                if "not yet erased" in status_text(app):
                    break
                await pilot.pause(0.05)
            assert "not yet erased" in " ".join(status_text(app).split())
            reader.execute("COMMIT")
            for _ in range(WAIT_ROUNDS):
                if "erased from the database files too" in status_text(app):
                    break
                await pilot.pause(0.05)
            assert "erased from the database files too" in " ".join(status_text(app).split())
        finally:
            reader.close()
        await settle(pilot)
        assert memory_list.count == 7
        data = b"".join(f.read_bytes() for f in files if f.exists())
        assert target.content.encode() not in data


@app_test
async def test_bulk_forget_of_marked_memories(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        await press(pilot, "space")
        assert memory_list.cursor == 0  # space marks without moving (the key table in docs/app.md)
        await press(pilot, "space")
        assert memory_list.marked == set()  # the same row again: unmarked
        await press(pilot, "space", "j", "space")
        assert len(memory_list.marked) == 2 and memory_list.cursor == 1
        await press(pilot, "d")
        assert "2 marked memories" in str(app.screen.query_one(".dialog-body").render())
        await press(pilot, "y")
        assert memory_list.count == 6
        assert memory_list.marked == set()


@app_test
async def test_escape_clears_marks(tmp_path: Path) -> None:
    async with opened(tmp_path, "space", "escape") as (app, pilot):
        assert _list(app).marked == set()


@app_test
async def test_copy_uses_both_clipboards_and_says_so(tmp_path: Path) -> None:
    spy = CopySpy()
    async with opened(tmp_path, "c", system_clipboard=spy) as (app, pilot):
        text = _list(app).current().content
        assert spy.copied == [text]
        assert app.clipboard == text  # OSC 52 through Textual
        status = status_text(app)
        assert "system clipboard" in status and "OSC 52" in status


@app_test
async def test_copy_without_system_clipboard_is_no_crash(tmp_path: Path) -> None:
    async with opened(tmp_path, "c", system_clipboard=CopySpy(fail=True)) as (app, pilot):
        status = status_text(app)
        assert "terminal clipboard" in status and "system clipboard" not in status


@app_test
async def test_the_filter_buttons_take_focus_and_apply_applies(tmp_path: Path) -> None:
    from textual.widgets import Button

    async with opened(tmp_path, "f") as (app, pilot):
        modal = top_screen(app, FilterModal)
        assert all(button.focusable for button in modal.query(Button))
        modal.query_one("#kind-preference").value = True
        await pilot.click("#save")
        await settle(pilot)
        assert _list(app).count == 3


@app_test
async def test_filter_by_kind_status_and_source(tmp_path: Path) -> None:
    async with opened(tmp_path, "f") as (app, pilot):
        modal = top_screen(app, FilterModal)
        modal.query_one("#kind-preference").value = True
        await press(pilot, "ctrl+s")
        memory_list = _list(app)
        assert memory_list.count == 3
        await press(pilot, "f")
        app.screen.query_one("#kind-all").value = True
        app.screen.query_one("#status-all").value = True
        await press(pilot, "ctrl+s")
        assert memory_list.count == 11  # 8 active + 2 superseded + 1 pending (an import)
        await press(pilot, "f")
        app.screen.query_one("#status-active").value = True
        app.screen.query_one("#source-note").value = True
        await press(pilot, "ctrl+s")
        assert memory_list.count == 1
        await press(pilot, "f", "escape")
        assert memory_list.count == 1


@app_test
async def test_search_as_you_type_highlights_and_escape_clears(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        await press(pilot, "slash")
        assert isinstance(app.focused, Input)
        await press(pilot, "p", "y", "t")
        assert memory_list.count == 2  # pytest, Python
        await press(pilot, "e")
        assert memory_list.count == 1
        assert "pytest" in memory_list.current().content
        row = memory_list.row_text(0, 70)
        assert any(span.style for span in row.spans if row.plain[span.start:span.end]
                   .lower().startswith("pyt"))
        await press(pilot, "escape")
        assert app.focused is memory_list
        assert memory_list.count == 8


@app_test
async def test_search_without_match_explains(tmp_path: Path) -> None:
    async with opened(tmp_path, "slash", "z", "q", "x", "enter") as (app, pilot):
        memory_list = _list(app)
        assert memory_list.count == 0
        assert "Nothing matches" in memory_list.empty_text


@app_test
async def test_enter_opens_detail_with_provenance(tmp_path: Path) -> None:
    async with opened(tmp_path, "3", "enter", size=(100, 40)) as (app, pilot):
        from memtui.app.modals.detail import MemoryDetailModal

        assert isinstance(app.screen, MemoryDetailModal)
        shown = pilot_harness.screen_text(app)
        assert "Provenance" in shown and "task_0019" in shown and "finished" in shown
        await press(pilot, "h")
        assert app.current_pane().PANE_ID == "history"


@app_test
async def test_copy_names_a_memory_on_its_list_and_a_version_in_history(tmp_path: Path) -> None:
    spy = CopySpy()
    async with opened(tmp_path, "3", "c", system_clipboard=spy, size=(100, 40)) as (app, pilot):
        memory = _list(app, "project").current()
        assert spy.copied == [memory.content]
        assert f"(memory {memory.id})" in status_text(app)
        await press(pilot, "enter", "h")
        await settle(pilot)
        pane = app.current_pane()
        assert pane.PANE_ID == "history"
        version = pane.selected_memory()
        assert version is not None
        await press(pilot, "c")
        assert spy.copied[-1] == version.content
        assert f"(version {version.id})" in status_text(app)


@app_test
async def test_project_switcher(tmp_path: Path) -> None:
    async with opened(tmp_path, "3", "p") as (app, pilot):
        from memtui.app.modals.picker import PickerModal

        assert isinstance(app.screen, PickerModal)
        await press(pilot, "home", "enter")  # infra is first
        assert app.project == "infra"
        assert _list(app, "project").count == 2
        assert "infra" in str(app.screen.query_one("#header").render())


@app_test
async def test_empty_state_explains_what_to_do(tmp_path: Path) -> None:
    from memtui.store.database import open_store

    store = open_store(tmp_path / "empty.db")
    Engine(store, "dana").identity.create_project("solo", "Solo")
    async with opened(tmp_path, user="dana", project=None, store=store) as (app, pilot):
        assert "No memories yet — press n" in _list(app).empty_text
        await press(pilot, "3")
        assert _list(app, "project").empty_text == (
            "No memories yet — press n to add one, or turn on generate with g")


SLOW_QUERY = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
              "WHERE x < 2000000000) SELECT count(*) FROM c")
"""A read that runs for minutes unless SQLite interrupts it."""


async def _until(pilot, condition, limit: int = 3000) -> bool:
    """Let the app run until ``condition()`` holds (bounded by a number of short pauses)."""
    for _ in range(limit):
        if condition():
            return True
        await pilot.pause(0.01)
    return condition()


@app_test
async def test_each_keystroke_reads_its_search_once_off_the_ui_thread(tmp_path: Path,
                                                                      monkeypatch) -> None:
    import threading

    from memtui.app.widgets.paged_source import PagedSource

    reads: list[tuple[str | None, bool]] = []
    fetch = PagedSource.fetch

    def recorded(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if plan.page == 0:
            reads.append((self.filter.search,
                          threading.current_thread() is threading.main_thread()))
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", recorded)
    async with opened(tmp_path) as (app, pilot):
        reads.clear()
        await press(pilot, "slash", "r", "u", "f", "f")
        memory_list = _list(app)
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "ruff"
                            and memory_list.count is not None)
        searched = [search for search, _ in reads]
        assert searched == ["r", "ru", "ruf", "ruff"]  # once per key, never twice
        assert not any(on_ui for _, on_ui in reads)  # never on the UI thread
        assert memory_list.row_count() == 1 and memory_list.error is None


@app_test
async def test_an_obsolete_search_is_interrupted_and_its_result_dropped(tmp_path: Path,
                                                                        monkeypatch) -> None:
    from memtui.app.widgets.paged_source import PagedSource

    fetch = PagedSource.fetch
    slow_started: list[str] = []

    def slow_for_r(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if self.filter.search == "r":
            slow_started.append("r")
            self.engine.store.execute(SLOW_QUERY).fetchone()  # runs until interrupted
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", slow_for_r)
    pilot_harness.keys_wait_for_their_queries(monkeypatch)  # "r" and "ru" come from their queries
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        shown_before = memory_list.source
        await press(pilot, "slash")
        await pilot.press("r")  # no settling: its worker runs until something stops it
        assert await _until(pilot, lambda: bool(slow_started))
        assert memory_list.source is shown_before  # the old rows stay while "r" runs
        await pilot.press("u")
        assert await _until(pilot, lambda: memory_list.source is not None
                            and memory_list.source.filter.search == "ru"
                            and memory_list.count is not None)
        lane = memory_list._loading._lane
        assert lane is not None and lane.interrupted == 1  # SQLite stopped the "r" query
        assert memory_list.error is None and "Could not" not in status_text(app)
        await pilot.pause(0.05)
        assert memory_list.source.filter.search == "ru"  # "r" never came back over it


@app_test
async def test_the_list_never_flashes_empty_between_keys(tmp_path: Path, monkeypatch) -> None:
    import threading

    from memtui.app.widgets.paged_source import PagedSource

    fetch = PagedSource.fetch
    gate = threading.Event()

    def held(self: PagedSource, plan):  # noqa: ANN001, ANN202
        if self.filter.search and threading.current_thread() is not threading.main_thread():
            gate.wait(timeout=5)  # the worker's read is slow: frames are drawn meanwhile
        return fetch(self, plan)

    monkeypatch.setattr(PagedSource, "fetch", held)
    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        drawn: list[int] = []
        render_line = MemoryList.render_line

        def watched(self: MemoryList, y: int):  # noqa: ANN202
            if self is memory_list and y == 0:
                drawn.append(self.row_count())
            return render_line(self, y)

        monkeypatch.setattr(MemoryList, "render_line", watched)
        await press(pilot, "slash")
        for key in ("r", "u", "f", "f"):
            await pilot.press(key)  # no settling: the worker's read is held
            memory_list.refresh()
            await pilot.pause(0.05)  # frames while the read is held
            gate.set()
            search = app.pane("user").search_text or None
            assert await _until(pilot, lambda search=search: memory_list.source is not None
                                and memory_list.source.filter.search == search)
            gate.clear()
        assert drawn and 0 not in drawn  # every frame showed rows, never an empty list
        assert memory_list.source is not None and memory_list.row_count() >= 1


@app_test
async def test_a_stale_load_result_is_dropped(tmp_path: Path) -> None:
    from memtui.app.widgets.paged_source import PagedSource

    async with opened(tmp_path) as (app, pilot):
        memory_list = _list(app)
        shown = memory_list.source
        count = memory_list.count
        assert shown is not None and count == 8
        engine = app.engine
        other = PagedSource(engine, engine.identity.memory_filter(search="ruff"))
        other.load_page(0)
        stale = memory_list._generation - 1
        memory_list.post_message(MemoryList.Loaded(stale, other, None))
        memory_list.post_message(MemoryList.Counted(stale, 1))
        memory_list.post_message(MemoryList.PagesFetched(stale, {0: other.load_page(0)}))
        memory_list.post_message(MemoryList.LoadFailed(stale, "old error"))
        await pilot.pause(0.05)
        assert memory_list.source is shown and memory_list.count == count
        assert memory_list.current().content.startswith("Remember to rotate")
        assert memory_list.error is None


@app_test
async def test_chain_sizes_before_a_forget_are_read_off_the_ui_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine.identity import IdentityApi

    threads = pilot_harness.on_ui_thread(monkeypatch, IdentityApi, "chain_size")
    async with opened(tmp_path, "space", "j", "space", "d") as (app, pilot):
        assert "2 marked memories" in str(app.screen.query_one(".dialog-body").render())
        assert threads == [False, False]
