"""Claude Code's memory writes held by the write gate (Pilot, issue 38): rows in the Inbox
beside memtui's pending memories with the count, the diff and the index meter; approve writes
the file and its MEMORY.md line after a confirm; edit-and-approve writes the edited text
(redacted); reject deletes it after a confirm; a file changed since the proposal is never
written over: approve redoes the diff, then approves. The gate's mode is a checked field of
the Settings pane."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pilot_harness
from pilot_harness import app_test, opened, press, screen_text, settle, status_text, top_screen
from textual.widgets import Input, TextArea

from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.editor import MemoryEditor
from memtui.app.panes.inbox import InboxPane

PENDING = 3
"""The demo store's pending memories (the rows above the held writes)."""
TOPIC = ("---\nname: deploy-days\ndescription: we deploy on Fridays only\nmetadata:\n"
         "  type: project\n---\n\nWe deploy on Fridays only.\n")
INDEX = "- [Conventions](conventions.md) — naming and layout\n"


def _app(tmp_path: Path) -> tuple[Any, Path]:
    """The demo app with one held write of ``deploy-days.md`` in a memory folder whose
    index lists one other topic."""
    folder = tmp_path / "claude" / "projects" / "-home-alice-src-webshop" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(INDEX)
    app = pilot_harness.demo_app(tmp_path, start_pane="inbox")
    path = folder / "deploy-days.md"
    app.engine.gate.answer({"tool_name": "Write", "session_id": "s-1",
                            "cwd": "/home/alice/src/webshop",
                            "tool_input": {"file_path": str(path), "content": TOPIC}},
                           str(folder), str(path))
    return app, folder


def _pane(app: Any) -> InboxPane:
    pane = app.pane("inbox")
    assert isinstance(pane, InboxPane)
    return pane


async def _to_write(pilot: Any, key: str | None = None) -> str:
    """Put the cursor on the held write (after memtui's own rows); with ``key``, press it
    and return the confirm it asks."""
    await press(pilot, *(["j"] * PENDING))
    current = _pane(pilot.app).current()
    assert current is not None and current.origin == "claude-code"
    if key is None:
        return screen_text(pilot.app)
    await press(pilot, key)
    assert isinstance(pilot.app.screen, ConfirmModal)
    return screen_text(pilot.app)


@app_test
async def test_held_writes_are_rows_with_the_diff_and_the_index_meter(tmp_path: Path) -> None:
    app, folder = _app(tmp_path)
    async with opened(app, size=(120, 60)) as (app, pilot):
        shown = screen_text(app)
        assert "4 waiting (incl. 1 Claude Code write)" in shown and "inbox 4" in shown
        assert "deploy-days.md: we deploy on Fridays only" in shown
        await _to_write(pilot)
        assert "Claude Code Write · session s-1" in screen_text(app)
        await press(pilot, "enter")  # the whole detail in a window
        shown = screen_text(app)
        assert "+We deploy on Fridays only." in shown and "+  node_type: memory" in shown
        assert "MEMORY.md 1 → 2 of 200 lines" in shown and "all of it loads" in shown
        assert "and gains the line - [deploy-days](deploy-days.md)" in shown


@app_test
async def test_approve_writes_the_file_after_a_confirm(tmp_path: Path) -> None:
    app, folder = _app(tmp_path)
    async with opened(app, size=(120, 40)) as (app, pilot):
        question = await _to_write(pilot, "a")
        assert "Write deploy-days.md?" in question and "+We deploy on Fridays only." in question
        assert "MEMORY.md 1 → 2 of 200 lines" in question
        assert not (folder / "deploy-days.md").exists()
        await press(pilot, "y")
        assert "originSessionId: s-1" in (folder / "deploy-days.md").read_text()
        assert (folder / "MEMORY.md").read_text() == \
            INDEX + "- [deploy-days](deploy-days.md) — we deploy on Fridays only\n"
        assert "Wrote write_" in status_text(app)
        assert "3 waiting" in screen_text(app) and app.engine.gate.count() == 0


@app_test
async def test_edit_and_approve_writes_the_edited_text_redacted(tmp_path: Path) -> None:
    app, folder = _app(tmp_path)
    async with opened(app, size=(120, 40)) as (app, pilot):
        await _to_write(pilot)
        await press(pilot, "e")
        editor = top_screen(app, MemoryEditor)
        area = editor.query_one(TextArea)
        assert "We deploy on Fridays only." in area.text
        area.text = area.text.replace("Fridays only.", "Fridays; password=hunter2secret")
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryEditor)
        written = (folder / "deploy-days.md").read_text()
        assert "We deploy on Fridays; password=[REDACTED]" in written
        assert "hunter2secret" not in written


@app_test
async def test_reject_deletes_it_after_a_confirm(tmp_path: Path) -> None:
    app, folder = _app(tmp_path)
    async with opened(app, size=(120, 40)) as (app, pilot):
        assert "Reject deploy-days.md?" in await _to_write(pilot, "x")
        await press(pilot, "n")
        assert app.engine.gate.count() == 1
        await press(pilot, "x", "y")
        assert app.engine.gate.count() == 0 and "Rejected write_" in status_text(app)
        assert sorted(path.name for path in folder.iterdir()) == ["MEMORY.md"]


@app_test
async def test_a_file_changed_since_the_proposal_gets_its_diff_redone_first(
        tmp_path: Path) -> None:
    app, folder = _app(tmp_path)
    async with opened(app, size=(120, 40)) as (app, pilot):
        (folder / "deploy-days.md").write_text("Claude Code wrote this meanwhile.\n")
        await press(pilot, "2", "8")  # shown again: read again
        assert "Redo the diff of deploy-days.md?" in await _to_write(pilot, "a")
        await press(pilot, "y")
        assert "its diff was redone" in status_text(app)
        assert (folder / "deploy-days.md").read_text() == "Claude Code wrote this meanwhile.\n"
        await settle(pilot)
        assert "-Claude Code wrote this meanwhile." in screen_text(app)
        await press(pilot, "a")
        assert "Write deploy-days.md?" in screen_text(app)
        await press(pilot, "y")
        assert "We deploy on Fridays only." in (folder / "deploy-days.md").read_text()


@app_test
async def test_the_gate_mode_is_set_in_the_settings_pane(tmp_path: Path) -> None:
    async with opened(tmp_path, "6", size=(120, 40)) as (app, pilot):
        field = app.screen.query_one("#set-claude_memory_gate", Input)
        assert field.value == "review"
        field.focus()
        field.value = "sometimes"
        await press(pilot, "enter")
        assert "review, redact, ask, off" in str(
            app.screen.query_one("#err-claude_memory_gate").render())
        field.value = "Redact"
        await press(pilot, "enter")
        assert app.engine.settings.get()["claude_memory_gate"] == "redact"
        assert field.value == "redact"
