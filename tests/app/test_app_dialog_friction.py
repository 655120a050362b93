"""Dialog friction from issue 19: the forget question shows the memories' text; the add
dialog starts on the kind; tab in a form never lands on a button."""

from __future__ import annotations

from pathlib import Path

import pilot_harness
from pilot_harness import app_test, opened, press, screen_text, status_text, top_screen, type_text
from textual.widgets import Button, RadioSet, TextArea

from memtui.app.modals.editor import MemoryEditor
from memtui.app.panes.memories import MemoriesPane


@app_test
async def test_the_forget_question_shows_the_memory_text(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        pane = app.current_pane()
        assert isinstance(pane, MemoriesPane)
        memory = pane.memory_list.current()
        await pilot_harness.asks(pilot, "d")
        assert memory.content[:40] in screen_text(app)
        await press(pilot, "n", "space", "j", "space", "j", "space", "j", "space", "d")
        shown = screen_text(app)
        assert "… and 1 more" in shown
        assert "4 marked memories" in shown


@app_test
async def test_the_add_dialog_starts_on_the_kind_and_takes_it_by_a_key(tmp_path: Path) -> None:
    async with opened(tmp_path, "a") as (app, pilot):
        editor = top_screen(app, MemoryEditor)
        assert isinstance(editor.focused, RadioSet)
        await press(pilot, "d")  # decision, then on to the text
        assert isinstance(editor.focused, TextArea)
        await type_text(pilot, "Ship on Tuesdays.")
        assert editor.draft().kind == "decision"
        assert editor.draft().content == "Ship on Tuesdays."
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryEditor)
        pane = app.current_pane()
        assert (pane.memory_list.current().kind, pane.memory_list.current().content) == (
            "decision", "Ship on Tuesdays.")


@app_test
async def test_tab_in_the_editor_never_lands_on_a_button(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "a", "f")  # fact; in the text now
        editor = app.screen
        for _ in range(4):
            await press(pilot, "tab")
            assert not isinstance(editor.focused, Button)
        await press(pilot, "escape")


@app_test
async def test_tab_in_a_form_moves_between_fields_only(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "1")  # Profile rests on Save; tab goes into the fields
        seen = []
        for _ in range(4):
            await press(pilot, "tab")
            assert not isinstance(app.focused, Button)
            seen.append(app.focused.id)
        assert seen == ["profile-name", "profile-tz", "profile-prefs", "profile-name"]
        await press(pilot, "shift+tab", "shift+tab")
        assert app.focused.id == "profile-tz"
        await press(pilot, "end", "q")  # typing after a tab stays in the field
        assert app.is_running
        assert app.focused.value.endswith("q")


@app_test
async def test_a_project_can_be_created_in_the_app(tmp_path: Path) -> None:
    from textual.widgets import Input

    from memtui.app.modals.project import ProjectDialog
    from memtui.engine.api import Engine

    async with opened(tmp_path, "3", "P", user="carol") as (app, pilot):
        identity = Engine(app.store, "carol").identity
        dialog = top_screen(app, ProjectDialog)
        assert "New project" in screen_text(app)
        await press(pilot, "enter")  # no id yet: said under the fields
        assert "id first" in dialog.query_one("#project-error").message
        dialog.query_one("#project-id", Input).value = "webshop"  # taken
        await press(pilot, "enter")
        assert "already exists" in dialog.query_one("#project-error").message
        assert dialog.query_one("#project-id", Input).value == "webshop"
        dialog.query_one("#project-id", Input).value = "garden"
        dialog.query_one("#project-name", Input).value = "Garden planner"
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, ProjectDialog)
        assert app.project == "garden"
        assert identity.role("garden") == "owner"
        assert identity.get_project("garden").name == "Garden planner"
        assert "Created project garden" in status_text(app)
        assert {"note", "edit", "forget"} <= {
            item.description for item in app.screen.query_one("#keys").items()}
