"""Pilot tests: the memory panes' ``stale`` filter -- the list's stale memories with why,
keep (``K``, the stale view's only), correct and forget over marks; nothing deleted on its
own; the choice stays over a refresh; an empty stale view says so."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pilot_harness import (
    DEMO_USER,
    app_test,
    asks,
    demo_app,
    demo_store,
    inbox_count,
    opened,
    press,
    settle,
)
from pilot_harness import screen_text as shown
from pilot_harness import status_text as said
from pilot_harness import top_screen as dialog
from textual.widgets import TextArea

from memtui.app.app import MainScreen
from memtui.app.modals.editor import MemoryEditor
from memtui.app.modals.filter import FilterModal
from memtui.app.panes.memories import STALE_EMPTY, MemoriesPane
from memtui.app.widgets.key_bar import KeyBar
from memtui.engine.api import Engine
from memtui.store.models import Memory


def stale_app(folder: Path) -> tuple[Any, list[Memory]]:
    """The demo app on project ``tool`` (its folder holds src/app.py): two memories whose
    citations are gone (newest first) and one that still holds."""
    root = folder / "tool"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    store = demo_store(folder)
    identity = Engine(store, DEMO_USER).identity
    identity.create_project("tool", root=str(root))
    moved = identity.add_memory("The loader lives in src/loader.py", "fact", "tool")
    identity.add_memory("Entry point is src/app.py", "fact", "tool")
    gone = identity.add_memory("Run make deploy to ship", "fact", "tool")
    return demo_app(folder, project="tool", start_pane="project", store=store), [gone, moved]


async def choose_stale(pilot: Any) -> None:
    """Open the filter, choose ``stale``, apply."""
    await press(pilot, "f")
    dialog(pilot.app, FilterModal).query_one("#status-stale").value = True
    await press(pilot, "ctrl+s")


@contextlib.asynccontextmanager
async def stale_view(app: Any) -> AsyncIterator[tuple[Any, Any, MemoriesPane]]:
    """``app`` opened (120x30) with the stale filter chosen on its start pane: the app, the
    pilot and the pane."""
    async with opened(app, size=(120, 30)) as (app, pilot):
        await choose_stale(pilot)
        yield app, pilot, _pane(app, app.current_pane().PANE_ID)


def _pane(app: Any, pane_id: str = "project") -> MemoriesPane:
    pane = app.pane(pane_id)
    assert isinstance(pane, MemoriesPane)
    return pane


def _ids(pane: MemoriesPane) -> list[str]:
    memory_list = pane.memory_list
    return [memory.id for index in range(memory_list.row_count())
            if (memory := memory_list.row_at(index)) is not None]


def _keys(app: Any) -> list[str]:
    return [item.description for item in app.screen.query_one(KeyBar).items()]


@app_test
async def test_the_stale_filter_lists_only_stale_memories_with_why(tmp_path: Path) -> None:
    app, stale = stale_app(tmp_path)
    async with opened(app, size=(120, 30)) as (app, pilot):
        pane = _pane(app)
        assert pane.memory_list.count == 3 and "keep" not in _keys(app)
        await press(pilot, "K")  # not the stale view: nothing kept
        assert _ids(pane) != [memory.id for memory in stale]
        await choose_stale(pilot)
        assert _ids(pane) == [memory.id for memory in stale]
        assert pane.memory_list.stale == {memory.id for memory in stale}
        text = shown(app)
        assert "Project tool (owner) · 2 · stale" in text
        assert "Stale: Makefile not found (cited for 'deploy')" in text
        assert "keep" in _keys(app)
        await press(pilot, "j")
        assert "Stale: src/loader.py not found" in shown(app)
        await press(pilot, "f")
        assert dialog(app, FilterModal).query_one("#status-stale").value
        await press(pilot, "escape")
        assert _ids(pane) == [memory.id for memory in stale]


def unused_app(folder: Path) -> Any:
    """The demo app whose memories count as stale when unused for a day (all of them)."""
    store = demo_store(folder)
    Engine(store, DEMO_USER).settings.update(max_unused_days=1)
    return demo_app(folder, store=store)


def _used(app: Any, memory_ids: list[str]) -> list[str | None]:
    engine = Engine(app.store, DEMO_USER)
    return [engine.identity.get_memory(key).last_used_at for key in memory_ids]


@app_test
async def test_keep_over_marks_asks_first_as_the_inbox_does(tmp_path: Path) -> None:
    async with stale_view(unused_app(tmp_path)) as (app, pilot, pane):
        listed = _ids(pane)
        assert len(listed) == 8  # the demo's user memories are older than a day
        assert "unused for over 1 day" in shown(app) and "1 days" not in shown(app)
        used = _used(app, listed[:2])
        question = await asks(pilot, "space", "j", "space", "K")
        assert "Keep 2 memories?" in question and "count as used now" in question
        await press(pilot, "n")
        assert said(app).strip() == "Nothing was changed."
        assert _ids(pane) == listed and _used(app, listed[:2]) == used
        await asks(pilot, "K")
        await press(pilot, "y")
        assert said(app).strip() == "Kept 2"
        assert _ids(pane) == listed[2:] and pane.memory_list.marked == set()
        engine = Engine(app.store, DEMO_USER)
        assert [engine.identity.get_memory(key).status for key in listed[:2]] == ["active"] * 2
        assert None not in _used(app, listed[:2]) and _used(app, listed[:2]) != used
        await press(pilot, "f")
        dialog(app, FilterModal).query_one("#status-active").value = True
        await press(pilot, "ctrl+s")
        assert pane.memory_list.count == 8 and pane.memory_list.stale == frozenset()
        assert "keep" not in _keys(app)


@app_test
async def test_keep_of_one_asks_nothing_and_the_header_counts_at_once(tmp_path: Path) -> None:
    async with stale_view(unused_app(tmp_path)) as (app, pilot, pane):
        listed, before = _ids(pane), inbox_count(app)
        assert before >= len(listed)  # the header's inbox count holds the stale memories
        await press(pilot, "K")  # one memory: kept without a question, as in the Inbox
        assert _ids(pane) == listed[1:]
        assert inbox_count(app) == before - 1  # not the count of a minute ago
        assert dialog(app, MainScreen) and said(app).strip() == f"Kept {listed[0]}"


@app_test
async def test_a_forget_in_the_view_is_counted_at_once(tmp_path: Path) -> None:
    async with stale_view(unused_app(tmp_path)) as (app, pilot, pane):
        listed, before = _ids(pane), inbox_count(app)
        await press(pilot, "d", "y")  # not an Inbox decision: any write counts again
        assert _ids(pane) == listed[1:]
        assert inbox_count(app) == before - 1


@app_test
async def test_a_reader_keeps_nothing(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    Engine(store, "carol").settings.update(max_unused_days=1)  # carol reads webshop
    app = demo_app(tmp_path, user="carol", project="webshop", start_pane="project", store=store)
    async with stale_view(app) as (app, pilot, pane):
        listed = _ids(pane)
        used = _used(app, listed)
        await press(pilot, "K")
        assert listed and said(app).strip().startswith("Read only:")
        assert _ids(pane) == listed and _used(app, listed) == used


@app_test
async def test_a_keep_in_the_inbox_is_counted_at_once(tmp_path: Path) -> None:
    async with opened(unused_app(tmp_path), "8", size=(120, 30)) as (app, pilot):
        before = inbox_count(app)
        inbox = app.pane("inbox")
        stale = [entry.key for entry in inbox.item_list.items if entry.origin == "stale"]
        assert stale
        await press(pilot, *["j"] * (before - len(stale)), "a")
        assert said(app).strip() == f"Kept {stale[0].split(':', 1)[1]}"
        assert inbox_count(app) == before - 1


@app_test
async def test_a_kept_memory_whose_citations_are_gone_stays_listed(tmp_path: Path) -> None:
    app, (gone, moved) = stale_app(tmp_path)
    async with stale_view(app) as (app, pilot, pane):
        await press(pilot, "K")
        assert said(app).strip() == f"Kept {gone.id}"
        assert _ids(pane) == [gone.id, moved.id]  # still cites what is gone: correct or forget


@app_test
async def test_forget_works_over_the_marks_after_asking(tmp_path: Path) -> None:
    app, (gone, moved) = stale_app(tmp_path)
    extra = Engine(app.store, DEMO_USER).identity.add_memory("Call load_yaml() first", "fact",
                                                            "tool")
    async with stale_view(app) as (app, pilot, pane):
        assert _ids(pane) == [extra.id, gone.id, moved.id]
        await press(pilot, "space", "j", "space")
        assert "2 marked" in shown(app)
        await press(pilot, "d")
        assert "2 marked memories" in str(app.screen.query_one(".dialog-body").render())
        await press(pilot, "y")
        assert _ids(pane) == [moved.id] and pane.memory_list.marked == set()
        found = Engine(app.store, DEMO_USER).identity.list_memories("tool", limit=10)
        assert {memory.id for memory in found}.isdisjoint({extra.id, gone.id})
        assert moved.id in {memory.id for memory in found}


@app_test
async def test_correct_supersedes_and_the_new_text_leaves_the_view(tmp_path: Path) -> None:
    app, (gone, moved) = stale_app(tmp_path)
    async with stale_view(app) as (app, pilot, pane):
        await press(pilot, "j", "e")
        area = dialog(app, MemoryEditor).query_one(TextArea)
        area.text = "The loader lives in src/app.py"
        await press(pilot, "ctrl+s")
        assert _ids(pane) == [gone.id]
        engine = Engine(app.store, "alice")
        assert engine.identity.get_memory(moved.id).status == "superseded"
        assert "The loader lives in src/app.py" in [
            memory.content for memory in engine.identity.list_memories("tool", limit=10)]


@app_test
async def test_the_choice_survives_a_refresh(tmp_path: Path) -> None:
    app, stale = stale_app(tmp_path)
    async with stale_view(app) as (app, pilot, pane):
        newer = Engine(app.store, "alice").identity.add_memory(
            "Docs live in docs/gone.md", "fact", "tool")  # another process writes
        app.store_changed()
        await settle(pilot)
        assert pane.choice.stale
        assert _ids(pane) == [newer.id, *(memory.id for memory in stale)]
        await press(pilot, "2", "3")
        assert _ids(pane) == [newer.id, *(memory.id for memory in stale)]
        assert "· stale" in shown(app)


@app_test
async def test_an_empty_stale_view_says_so(tmp_path: Path) -> None:
    async with stale_view(demo_app(tmp_path)) as (app, pilot, pane):
        assert pane.memory_list.count == 0
        assert STALE_EMPTY in shown(app)
        await press(pilot, "K")  # nothing to keep: nothing happens
        assert pane.memory_list.count == 0
