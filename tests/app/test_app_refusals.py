"""Pilot tests: every refused input is answered next to its field, visibly at 80x24
(issue 19, defects 1 and 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_harness import app_test, demo_app, fill, opened, press, screen_text, settle, status_text
from textual.widgets import TextArea

from memtui.app.modals.editor import MemoryEditor
from memtui.app.widgets.error_line import ErrorLine
from memtui.engine.api import Engine
from memtui.errors import StoreError


def _shown(app, selector: str) -> str:
    """The error line's text, and that it is really on screen (not hidden, not cut off)."""
    line = app.screen.query_one(selector, ErrorLine)
    assert line.display, f"{selector} is hidden"
    text = line.message
    assert text
    assert text.split()[0] in screen_text(app), f"{selector} is not on screen"
    return text


@app_test
async def test_profile_junk_preferences_are_refused_in_view(tmp_path: Path) -> None:
    async with opened(tmp_path, "1") as (app, pilot):
        identity = Engine(app.store, "alice").identity
        before = identity.profile()
        prefs = app.screen.query_one("#profile-prefs", TextArea)
        prefs.focus()
        prefs.text = "junk {"
        await press(pilot, "ctrl+s")
        assert "not valid JSON" in _shown(app, "#profile-error")
        assert identity.profile() == before
        assert prefs.text == "junk {"
        prefs.text = "[1, 2]"
        await press(pilot, "ctrl+s")
        assert "JSON object" in _shown(app, "#profile-error")


@app_test
async def test_empty_new_memory_says_why_in_the_editor(tmp_path: Path) -> None:
    async with opened(tmp_path, "a", "ctrl+s") as (app, pilot):
        assert isinstance(app.screen, MemoryEditor)
        assert "empty" in _shown(app, "#editor-error")


@app_test
async def test_settings_letters_in_a_number_field_are_refused_with_the_reason(
        tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        settings = Engine(app.store, "alice").settings
        field = await fill(pilot, "#set-idle_seconds", "", "a", "b", "c")
        assert field.value == "abc"  # what was typed is kept, never filtered
        await press(pilot, "enter")
        assert "whole number" in _shown(app, "#err-idle_seconds")
        assert settings.get()["idle_seconds"] == 900


@app_test
async def test_settings_a_fraction_is_refused_never_rewritten(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        settings = Engine(app.store, "alice").settings
        field = await fill(pilot, "#set-min_duration_seconds", "", "1", "full_stop", "5")
        assert field.value == "1.5"
        await press(pilot, "enter")
        assert "whole number" in _shown(app, "#err-min_duration_seconds")
        assert settings.get()["min_duration_seconds"] == 30
        field.value = "45"
        await press(pilot, "enter")
        assert settings.get()["min_duration_seconds"] == 45
        assert not app.screen.query_one("#err-min_duration_seconds", ErrorLine).display


def test_parse_typed_is_the_one_rule() -> None:
    from memtui.engine.settings import SettingsApi
    from memtui.errors import InvalidInput

    assert SettingsApi.parse_typed("idle_seconds", " 120 ") == 120
    assert SettingsApi.parse_typed("generate_memories", "on") == 1
    assert SettingsApi.parse_typed("extract_model", "") is None
    for name, raw in (("idle_seconds", "1.5"), ("idle_seconds", "abc"),
                      ("min_rate_limit_remaining_percent", "150"), ("nope", "1")):
        try:
            SettingsApi.parse_typed(name, raw)
        except InvalidInput:
            continue
        raise AssertionError(f"{name}={raw!r} was accepted")


@pytest.mark.parametrize("pane_id, api, method, what", [
    ("profile", "identity", "profile", "the profile"),
    ("settings", "settings", "get", "the settings"),
])
@app_test
async def test_a_form_that_cannot_read_the_store_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pane_id: str, api: str, method: str,
        what: str) -> None:
    app = demo_app(tmp_path)

    def fail(*_args: object, **_kwargs: object) -> None:
        raise StoreError("the disk went away")

    async with opened(app) as (app, pilot):
        monkeypatch.setattr(getattr(app.engine, api), method, fail)
        app.show_pane(pane_id)
        await settle(pilot)
        assert f"Could not read {what}: the disk went away" in status_text(app)
