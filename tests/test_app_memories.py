"""Pilot tests: the memory panes — browse, add, note, correct, forget, copy, filter, search."""

from __future__ import annotations

from pathlib import Path

from snapshots.harness import (
    CopySpy,
    app_test,
    demo_app,
    press,
    screen_text,
    settle,
    status_text,
)
from textual.widgets import Input, TextArea

from memtui.app.modals.confirm import ConfirmModal
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


@app_test
async def test_opens_on_the_user_pane_with_counts(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
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
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
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
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
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
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "a", "ctrl+s")
        assert isinstance(app.screen, MemoryEditor)
        assert "empty" in str(app.screen.query_one("#editor-error").render())
        await press(pilot, "escape")
        assert _list(app).count == 8


@app_test
async def test_failed_write_keeps_what_was_typed(tmp_path: Path) -> None:
    app = demo_app(tmp_path, user="carol")  # carol only reads webshop
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "a")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        editor.query_one(TextArea).insert("Readers cannot write this.")
        await press(pilot, "ctrl+s")
        assert app.screen is editor  # still open
        assert editor.query_one(TextArea).text == "Readers cannot write this."
        assert "not write" in str(editor.query_one("#editor-error").render())


@app_test
async def test_note_key_adds_a_note(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "n")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        editor.query_one(TextArea).insert("Ask Bob before touching the CDN config.")
        await press(pilot, "ctrl+s")
        memory = _list(app, "project").current()
        assert memory.source == "note"
        assert memory.project == "webshop"


@app_test
async def test_correct_is_a_supersede_with_history_and_undo(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        memory_list = _list(app)
        old = memory_list.current()
        await press(pilot, "e")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
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
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        memory_list = _list(app)
        await press(pilot, "j")  # the 3-version indentation memory
        target = memory_list.current()
        await press(pilot, "d")
        assert isinstance(app.screen, ConfirmModal)
        body = str(app.screen.query_one(".dialog-body").render())
        assert "3 versions in all" in body and "cannot be undone" in body
        await press(pilot, "n")
        assert memory_list.count == 8
        assert memory_list.current().id == target.id
        assert "Nothing was forgotten" in status_text(app)


@app_test
async def test_forget_confirmed_removes_the_chain(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
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
async def test_bulk_forget_of_marked_memories(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        memory_list = _list(app)
        await press(pilot, "space", "space")
        assert len(memory_list.marked) == 2
        await press(pilot, "d")
        assert "2 marked memories" in str(app.screen.query_one(".dialog-body").render())
        await press(pilot, "y")
        assert memory_list.count == 6
        assert memory_list.marked == set()


@app_test
async def test_escape_clears_marks(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "space", "escape")
        assert _list(app).marked == set()


@app_test
async def test_copy_uses_both_clipboards_and_says_so(tmp_path: Path) -> None:
    spy = CopySpy()
    app = demo_app(tmp_path, system_clipboard=spy)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "c")
        text = _list(app).current().content
        assert spy.copied == [text]
        assert app.clipboard == text  # OSC 52 through Textual
        status = status_text(app)
        assert "system clipboard" in status and "OSC 52" in status


@app_test
async def test_copy_without_system_clipboard_is_no_crash(tmp_path: Path) -> None:
    app = demo_app(tmp_path, system_clipboard=CopySpy(fail=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "c")
        status = status_text(app)
        assert "terminal clipboard" in status and "system clipboard" not in status


@app_test
async def test_filter_by_kind_status_and_source(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "f")
        modal = app.screen
        assert isinstance(modal, FilterModal)
        modal.query_one("#kind-preference").value = True
        await press(pilot, "ctrl+s")
        memory_list = _list(app)
        assert memory_list.count == 3
        await press(pilot, "f")
        app.screen.query_one("#kind-all").value = True
        app.screen.query_one("#status-all").value = True
        await press(pilot, "ctrl+s")
        assert memory_list.count == 10  # 8 active + 2 superseded
        await press(pilot, "f")
        app.screen.query_one("#status-active").value = True
        app.screen.query_one("#source-note").value = True
        await press(pilot, "ctrl+s")
        assert memory_list.count == 1
        await press(pilot, "f", "escape")
        assert memory_list.count == 1


@app_test
async def test_search_as_you_type_highlights_and_escape_clears(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
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
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash", "z", "q", "x", "enter")
        memory_list = _list(app)
        assert memory_list.count == 0
        assert "Nothing matches" in memory_list.empty_text


@app_test
async def test_enter_opens_detail_with_provenance(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "enter")
        from memtui.app.modals.detail import MemoryDetailModal

        assert isinstance(app.screen, MemoryDetailModal)
        shown = screen_text(app)
        assert "Provenance" in shown and "task_0019" in shown and "finished" in shown
        await press(pilot, "h")
        assert app.current_pane().PANE_ID == "history"


@app_test
async def test_project_switcher(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "p")
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
    app = demo_app(tmp_path, user="dana", project=None, store=store)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "No memories yet — press n" in _list(app).empty_text
        await press(pilot, "3")
        assert _list(app, "project").empty_text == (
            "No memories yet — press n to add one, or turn on generate with g")


@app_test
async def test_a_search_page_is_read_with_the_keystroke_when_it_is_quick(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.pane("user")
        box = await pane.open_search_box()
        box.value = "ruff"
        pane.on_input_changed(Input.Changed(box, "ruff"))  # the handler, with no await after
        memory_list = _list(app)
        assert memory_list.source is not None and memory_list.source.filter.search == "ruff"
        assert memory_list.row_count() == 1  # already there for the next frame


@app_test
async def test_a_slow_search_page_is_left_to_the_worker(tmp_path: Path, monkeypatch) -> None:
    import contextlib

    import memtui.app.panes.memories as memories
    import memtui.store.database as database
    from memtui.errors import QueryTimedOut

    monkeypatch.setattr(memories, "SEARCH_FIRST_PAGE_BUDGET_S", 0.0)  # every read too slow
    monkeypatch.setattr(database, "PROGRESS_HANDLER_STEPS", 1)  # judged at the first step
    timed_out: list[bool] = []
    limit = database.Store.time_limit

    @contextlib.contextmanager
    def watched(self: database.Store, seconds: float):  # noqa: ANN202
        try:
            with limit(self, seconds):
                yield
        except QueryTimedOut:
            timed_out.append(True)
            raise

    monkeypatch.setattr(database.Store, "time_limit", watched)
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "slash", "r", "u", "f", "f")
        assert len(timed_out) == 4  # one per key: each page was read by the worker
        memory_list = _list(app)
        assert memory_list.source is not None and memory_list.source.filter.search == "ruff"
        assert memory_list.row_count() == 1 and memory_list.error is None
        assert "Could not" not in status_text(app)
