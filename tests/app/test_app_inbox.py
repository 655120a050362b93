"""The Inbox pane (Pilot): rows and counts, approve, edit and approve, reject, marks and bulk,
the diff, the empty state, a reader, a race with another process, /memory and the palette
actions. The demo store has three pending rows for alice: mem_0031 (an MCP correction of
mem_0011), mem_0032 (a new MCP project memory) and mem_0033 (an imported user memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pilot_harness
from pilot_harness import (
    app_test,
    demo_app,
    demo_store,
    opened,
    press,
    screen_text,
    settle,
    status_text,
    top_screen,
    type_text,
)
from textual.widgets import TextArea

from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.editor import MemoryEditor
from memtui.app.modals.text import TextModal
from memtui.app.panes.inbox import InboxPane
from memtui.app.widgets.command_line import CommandLine
from memtui.engine.api import Engine
from memtui.store.database import open_store

CORRECTION, NEW_PROJECT, NEW_USER = "mem_0031", "mem_0032", "mem_0033"
TARGET = "mem_0011"


def _pane(app: Any) -> InboxPane:
    pane = app.pane("inbox")
    assert isinstance(pane, InboxPane)
    return pane


def _status(app: Any, memory_id: str) -> str | None:
    found = Engine(app.store, "alice").identity.list_memories(status="all", limit=100) + \
        Engine(app.store, "alice").identity.list_memories("webshop", status="all", limit=100)
    return next((m.status for m in found if m.id == memory_id), None)


async def _run(pilot: Any, text: str) -> None:
    await press(pilot, "colon")
    pilot.app.screen.query_one(CommandLine).value = text
    await press(pilot, "enter")


@app_test
async def test_rows_counts_and_the_diff(tmp_path: Path) -> None:
    async with opened(tmp_path, start_pane="inbox", size=(100, 30)) as (app, pilot):
        shown = screen_text(app)
        assert "8 Inbox (3)" in shown and "inbox 3" in shown
        assert "3 waiting" in shown and "1 correction" in shown
        assert [entry.key for entry in _pane(app).item_list.items] == [
            f"memtui:{CORRECTION}", f"memtui:{NEW_PROJECT}", f"memtui:{NEW_USER}"]
        assert f"Corrects {TARGET}" in shown and "Postgres 1617" in shown
        await press(pilot, "enter")  # the row in full
        assert isinstance(app.screen, TextModal) and "Corrects" in screen_text(app)
        await press(pilot, "escape")


@app_test
async def test_approve_a_correction_supersedes_its_target(tmp_path: Path) -> None:
    async with opened(tmp_path, "a", start_pane="inbox", size=(100, 30)) as (app, pilot):
        assert f"Approved {CORRECTION}" in status_text(app)
        assert _status(app, CORRECTION) == "active" and _status(app, TARGET) == "superseded"
        assert "8 Inbox (2)" in screen_text(app) and "inbox 2" in screen_text(app)


@app_test
async def test_mark_then_reject_asks_and_deletes(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "space", "space", start_pane="inbox",
                      size=(100, 30)) as (app, pilot):
        assert "2 marked" in screen_text(app)
        await pilot_harness.asks(pilot, "x")
        await press(pilot, "n")
        assert _status(app, NEW_PROJECT) == "pending"
        await press(pilot, "x", "y")
        assert _status(app, NEW_PROJECT) is None and _status(app, NEW_USER) is None
        assert "Rejected 2" in status_text(app)
        assert [e.key for e in _pane(app).item_list.items] == [f"memtui:{CORRECTION}"]
        assert not _pane(app).marked


@app_test
async def test_mark_all_then_approve_asks_once(tmp_path: Path) -> None:
    async with opened(tmp_path, "asterisk", "a", start_pane="inbox",
                      size=(100, 30)) as (app, pilot):
        assert isinstance(app.screen, ConfirmModal)
        await press(pilot, "y")
        assert {_status(app, m) for m in (CORRECTION, NEW_PROJECT, NEW_USER)} == {"active"}
        assert "8 Inbox (" not in screen_text(app) and "Nothing waits" in screen_text(app)


@app_test
async def test_edit_and_approve(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "e", start_pane="inbox", size=(100, 30)) as (app, pilot):
        editor = top_screen(app, MemoryEditor)
        area = editor.query_one(TextArea)
        area.clear()
        area.insert("   ")
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, MemoryEditor)  # refused; the editor keeps what was typed
        area.clear()
        area.insert("Stripe test clocks drive renewals; password=hunter2secret")
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryEditor)
        approved = Engine(app.store, "alice").identity.get_memory(NEW_PROJECT)
        assert approved.status == "active" and "hunter2secret" not in approved.content
        assert approved.content.startswith("Stripe test clocks drive renewals")


@app_test
async def test_a_reader_sees_rows_but_may_not_decide(tmp_path: Path) -> None:
    async with opened(tmp_path, user="carol", start_pane="inbox", size=(100, 30)) as (app, pilot):
        assert not any(entry.can_act for entry in _pane(app).item_list.items)
        assert "You may read this project but not approve" in screen_text(app)
        await press(pilot, "a")
        assert "not approve or reject" in status_text(app)
        await press(pilot, "x")
        assert not isinstance(app.screen, ConfirmModal)
        assert _status(app, CORRECTION) == "pending"


@app_test
async def test_approving_a_row_another_process_rejected(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", start_pane="inbox", size=(100, 30)) as (app, pilot):
        other = open_store(app.store.path)
        try:
            Engine(other, "bob").review.reject(NEW_PROJECT)
        finally:
            other.close()
        await press(pilot, "a")  # the pane still shows the row (no poll in tests)
        said = status_text(app)
        assert "refused" in said and "rejected or forgotten" in said
        assert [e.key for e in _pane(app).item_list.items] == [
            f"memtui:{CORRECTION}", f"memtui:{NEW_USER}"]


@app_test
async def test_a_change_since_shown_is_refused_in_the_pane(tmp_path: Path) -> None:
    async with opened(tmp_path, start_pane="inbox", size=(100, 30)) as (app, pilot):
        Engine(app.store, "bob").identity.supersede(TARGET, "Postgres 16, with a replica.")
        await press(pilot, "a")
        assert "changed since it was shown" in status_text(app)
        assert _status(app, CORRECTION) == "pending"
        await press(pilot, "a")  # the pane re-read the row: now it applies
        assert _status(app, CORRECTION) == "active"


@app_test
async def test_empty_state_says_how_to_turn_review_on(tmp_path: Path) -> None:
    app = pilot_harness.demo_app(tmp_path, start_pane="inbox")
    alice = Engine(app.store, "alice")
    alice.review.reject_many(alice.review.actionable_ids())
    alice.settings.update(review_new_memories=0)
    async with opened(app, size=(100, 30)) as (app, pilot):
        shown = screen_text(app)
        assert "review is off" in shown and "/memory" in shown
        assert "0 waiting" in shown and "8 Inbox (" not in shown
        assert "inbox" not in shown.split("\n")[0]  # the header names no count
        await _run(pilot, "/memory review on")
        assert alice.settings.get()["review_new_memories"] == 1
        assert "Nothing waits for review. What agents write" in screen_text(app)


@app_test
async def test_memory_commands_approve_and_reject(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(100, 30)) as (app, pilot):
        await _run(pilot, f"/memory approve {NEW_USER}")
        assert _status(app, NEW_USER) == "active"
        await _run(pilot, f"/memory reject {NEW_PROJECT}")
        assert isinstance(app.screen, ConfirmModal)
        await press(pilot, "y")
        assert _status(app, NEW_PROJECT) is None
        await _run(pilot, "/memory approve mem_9999")
        assert "not found" in status_text(app)
        await _run(pilot, "/memory inbox")
        assert app.active_pane_id == "inbox"
        await _run(pilot, "/memory approve all")
        assert _status(app, CORRECTION) == "active"  # one row: no question


@app_test
async def test_palette_actions_reach_the_pane(tmp_path: Path) -> None:
    async with opened(tmp_path, "ctrl+p", size=(100, 30)) as (app, pilot):
        await type_text(pilot, "inbox: approve selected")
        assert "inbox: approve selected" in screen_text(app)
        await press(pilot, "enter")  # not on the Inbox: it is shown first, nothing decided
        assert app.active_pane_id == "inbox" and _status(app, CORRECTION) == "pending"
        assert "choose a row, then press the key again" in status_text(app)
        await pilot_harness.run_palette(pilot, "inbox: approve selected")
        assert _status(app, CORRECTION) == "active"


@app_test
async def test_the_selection_completes_and_shows(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", start_pane="inbox", size=(100, 30)) as (app, pilot):
        assert app.current_memory_id() == NEW_PROJECT
        await press(pilot, "colon")
        line = app.screen.query_one(CommandLine)
        line.value = "/memory approve "
        await press(pilot, "tab")
        assert line.value == f"/memory approve {NEW_PROJECT}"
        await press(pilot, "escape")


@app_test
async def test_stale_memories_are_corrected_or_forgotten_in_the_inbox(tmp_path: Path) -> None:
    root = tmp_path / "tool"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    app = demo_app(tmp_path, start_pane="inbox")
    app.engine.identity.create_project("tool", root=str(root))
    moved = app.engine.identity.add_memory("The loader lives in src/loader.py", "fact", "tool")
    gone = app.engine.identity.add_memory("Run make deploy to ship", "fact", "tool")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        keys = [entry.key for entry in _pane(app).item_list.items]
        assert keys[3:] == [f"stale:{gone.id}", f"stale:{moved.id}"]
        assert "2 stale memories" in screen_text(app)
        await press(pilot, "j", "j", "j", "j")
        assert "src/loader.py not found" in screen_text(app)
        await press(pilot, "e")
        area = app.screen.query_one(TextArea)
        area.clear()
        area.insert("The loader lives in src/app.py")
        await press(pilot, "ctrl+s")
        found = Engine(app.store, "alice").identity.list_memories("tool", limit=10)
        assert "The loader lives in src/app.py" in [m.content for m in found]
        assert [e.key for e in _pane(app).item_list.items][3:] == [f"stale:{gone.id}"]
        await press(pilot, "j", "j", "j", "x", "y")
        assert [m.content for m in Engine(app.store, "alice").identity.list_memories(
            "tool", limit=10)] == ["The loader lives in src/app.py"]
        assert "Forgot" in status_text(app)


@app_test
async def test_the_project_list_marks_memories_whose_cited_files_are_gone(
        tmp_path: Path) -> None:
    root = tmp_path / "tool"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    store = demo_store(tmp_path)
    alice = Engine(store, "alice")
    alice.identity.create_project("tool", root=str(root))
    alice.identity.add_memory("Entry point is src/app.py", "fact", "tool")
    alice.identity.add_memory("The loader lives in src/loader.py", "fact", "tool")
    app = demo_app(tmp_path, store=store, project="tool", start_pane="project")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await settle(pilot)  # the rows, then the check of them in a worker
        lines = screen_text(app).splitlines()
        assert any("! fact" in line and "src/loader.py" in line for line in lines), \
            "\n".join(lines)
        assert not any("! fact" in line and "src/app.py" in line for line in lines)
        (root / "src" / "loader.py").write_text("y = 2\n")
        await press(pilot, "j")
        await settle(pilot)
        assert not any("! fact" in line for line in screen_text(app).splitlines())
