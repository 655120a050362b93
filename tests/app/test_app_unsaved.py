"""Unsaved form edits are marked and never lost without a word (issue 19, defect 11): the
pane title says "modified"; quitting or leaving asks save / discard / cancel."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_harness import app_test, fill, opened, press, screen_text, settle
from textual.widgets import Input

from memtui.app.modals.unsaved import UnsavedModal
from memtui.engine.api import Engine


async def _type_name(pilot, app, name: str) -> Input:
    await press(pilot, "1")
    # escape leaves the form: q and 1-9 are keys again
    return await fill(pilot, "#profile-name", name, "escape")


@app_test
async def test_profile_edit_is_marked_and_q_asks_then_cancel_keeps_it(tmp_path: Path) -> None:
    async with opened(tmp_path, "1") as (app, pilot):
        assert "modified" not in str(app.screen.query_one("#profile-title").render())
        field = await _type_name(pilot, app, "Alice C.")
        assert "modified" in str(app.screen.query_one("#profile-title").render())
        await press(pilot, "q")
        assert isinstance(app.screen, UnsavedModal)
        assert "Profile has changes that are not saved" in screen_text(app)
        await press(pilot, "escape")
        assert app.is_running
        assert field.value == "Alice C."


@pytest.mark.parametrize("key, name", [("s", "Alice C."), ("d", "Alice Chen")],
                         ids=["save", "discard"])
@app_test
async def test_q_then_save_or_discard_quits(tmp_path: Path, key: str, name: str) -> None:
    """q on a modified form asks: s saves before quitting, d quits without saving."""
    async with opened(tmp_path) as (app, pilot):
        await _type_name(pilot, app, "Alice C.")
        await press(pilot, "q", key)
    assert Engine(app.store, "alice").identity.profile().display_name == name


@app_test
async def test_leaving_a_modified_form_asks(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await _type_name(pilot, app, "Alice C.")
        await press(pilot, "2")
        assert isinstance(app.screen, UnsavedModal)
        await press(pilot, "c")
        assert app.current_pane().PANE_ID == "profile"
        await press(pilot, "2", "d")
        assert app.current_pane().PANE_ID == "user"
        await press(pilot, "1")
        assert app.screen.query_one("#profile-name", Input).value == "Alice Chen"
        assert "modified" not in str(app.screen.query_one("#profile-title").render())


@app_test
async def test_a_typed_setting_is_marked_kept_and_saved_on_leaving(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        settings = Engine(app.store, "alice").settings
        field = await fill(pilot, "#set-idle_seconds", "600", "escape")
        assert "modified: idle_seconds" in str(app.screen.query_one("#settings-title").render())
        app.store_changed()  # a refresh (another process wrote) keeps what was typed
        await settle(pilot)
        assert field.value == "600"
        await press(pilot, "2")
        assert isinstance(app.screen, UnsavedModal)
        await press(pilot, "s")
        assert settings.get()["idle_seconds"] == 600
        assert app.current_pane().PANE_ID == "user"


@app_test
async def test_a_refused_setting_on_leaving_stays_with_the_reason(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        await fill(pilot, "#set-idle_seconds", "1.5", "escape", "q", "s")
        assert app.is_running
        assert app.current_pane().PANE_ID == "settings"
        assert "whole number" in str(app.screen.query_one("#err-idle_seconds").render())
