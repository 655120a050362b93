"""Undo after a forget (issue 19, defect 2): steps a forget made impossible are dropped (or
skipped with one message), never replayed into "memory … not found" errors."""

from __future__ import annotations

from pathlib import Path

from pilot_harness import app_test, opened, press, status_text
from textual.widgets import TextArea

from memtui.app.modals.editor import MemoryEditor
from memtui.engine.api import Engine


async def _add(pilot, app, text: str) -> None:
    await press(pilot, "a")
    assert isinstance(app.screen, MemoryEditor)
    app.screen.query_one(TextArea).insert(text)
    await press(pilot, "ctrl+s")
    assert not isinstance(app.screen, MemoryEditor)


@app_test
async def test_add_correct_restore_then_bulk_forget_leaves_no_dead_undo(
        tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        engine = Engine(app.store, "alice")
        generate = engine.settings.get()["generate_memories"]
        await press(pilot, "g")  # an undo step that a forget does not touch
        await _add(pilot, app, "Deploys happen on Tuesdays.")
        await press(pilot, "e")
        area = app.screen.query_one(TextArea)
        area.text = "Deploys happen on Tuesdays and Thursdays."
        await press(pilot, "ctrl+s")
        await press(pilot, "h", "home", "s")  # restore the first version
        assert "Restored" in status_text(app)
        assert len(app.undo_steps) == 4
        await press(pilot, "2", "space", "j", "space", "d", "y")  # bulk forget, the chain among
        assert "Forgot 2 memories" in status_text(app)
        assert "3 undo steps on them dropped" in status_text(app)
        messages: list[str] = []
        await press(pilot, "ctrl+z")
        messages.append(status_text(app))
        assert "not found" not in messages[0]
        assert "Undone: generate_memories" in messages[0]
        assert engine.settings.get()["generate_memories"] == generate
        await press(pilot, "ctrl+z")
        assert "Nothing to undo" in status_text(app)


@app_test
async def test_a_step_forgotten_by_another_process_is_skipped_with_one_message(
        tmp_path: Path) -> None:
    async with opened(tmp_path, "u") as (app, pilot):
        engine = Engine(app.store, "alice")
        await _add(pilot, app, "Uses uv for every Python project.")
        added = engine.identity.list_memories(limit=1)[0]
        engine.identity.forget(added.id)  # another process
        await press(pilot, "ctrl+z")
        status = status_text(app)
        assert "not found" not in status
        assert "Undone: use_memories" in status
        assert "skipped 1 step whose memory was forgotten" in status
