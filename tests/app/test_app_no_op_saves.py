"""Saving without a change records nothing and says so (issue 19, defect 6): the engine's
"is this a change" rule, and the app's answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_harness import app_test, opened, press, status_text

from memtui.app.modals.editor import MemoryEditor
from memtui.app.panes.memories import MemoriesPane
from memtui.app.widgets.error_line import ErrorLine
from memtui.engine.api import Engine
from memtui.errors import InvalidInput, Unchanged


def test_supersede_with_the_same_text_and_kind_is_refused(engine_for) -> None:
    alice = engine_for("alice")
    memory = alice.identity.add_memory("Uses uv for Python projects.", "preference")
    with pytest.raises(Unchanged) as raised:
        alice.identity.supersede(memory.id, "Uses uv for Python projects.", "preference")
    assert isinstance(raised.value, InvalidInput)  # same code and exit status
    assert "nothing changed" in raised.value.message
    with pytest.raises(Unchanged):
        alice.identity.supersede(memory.id, "  Uses uv for Python projects.  ")
    assert [m.id for m in alice.identity.history(memory.id)] == [memory.id]
    changed = alice.identity.supersede(memory.id, "Uses uv for Python projects.", "fact")
    assert changed.kind == "fact"  # a kind change alone is a change


def test_an_unchanged_profile_save_writes_nothing(engine_for, clock) -> None:
    alice = engine_for("alice")
    saved = alice.identity.update_profile(display_name="Alice", timezone="Europe/Berlin",
                                          preferences={"editor": "helix"})
    audit_before = alice.identity.audit()
    clock.advance(60)
    again = alice.identity.update_profile(display_name="Alice", timezone="Europe/Berlin",
                                          preferences={"editor": "helix"})
    assert again.updated_at == saved.updated_at
    assert alice.identity.audit() == audit_before
    with pytest.raises(Unchanged):
        alice.identity.update_profile(display_name="Alice", timezone="Europe/Berlin",
                                      preferences={"editor": "helix"}, require_change=True)


@app_test
async def test_an_unedited_correction_adds_no_version(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        identity = Engine(app.store, "alice").identity
        pane = app.current_pane()
        assert isinstance(pane, MemoriesPane)
        memory = pane.memory_list.current()
        await press(pilot, "e", "ctrl+s")
        assert isinstance(app.screen, MemoryEditor)  # still open, says why
        assert "nothing changed" in app.screen.query_one("#editor-error", ErrorLine).message
        await press(pilot, "escape")
        assert [m.id for m in identity.history(memory.id)] == [memory.id]
        assert identity.get_memory(memory.id).status == "active"
        await press(pilot, "ctrl+z")
        assert "Nothing to undo" in status_text(app)


@app_test
async def test_an_unchanged_profile_save_adds_no_undo_step(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        identity = Engine(app.store, "alice").identity
        before = identity.profile()
        await press(pilot, "1", "ctrl+s")
        assert "nothing changed" in status_text(app)
        assert identity.profile().updated_at == before.updated_at
        await press(pilot, "escape", "ctrl+z")
        assert "Nothing to undo" in status_text(app)


@app_test
async def test_a_setting_entered_again_says_nothing_changed(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        field = app.screen.query_one("#set-idle_seconds")
        field.focus()
        await press(pilot, "enter")
        assert "nothing changed" in status_text(app)
        await press(pilot, "escape", "ctrl+z")
        assert "Nothing to undo" in status_text(app)
