"""Pilot tests: pane switching, History, Extraction log, Settings, Profile, Injection
preview, help and quit."""

from __future__ import annotations

import io
from pathlib import Path

import pilot_harness
from pilot_harness import app_test, fill, opened, press, screen_text, settle, status_text
from rich.console import Console
from textual.widgets import Checkbox, Input, Select, TextArea

from memtui.app.app import binding_classes
from memtui.app.help import help_text
from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.detail import MemoryDetailModal
from memtui.app.modals.help import HelpModal
from memtui.app.modals.text import TextModal
from memtui.app.panes import PANES
from memtui.engine.api import Engine


@app_test
async def test_number_keys_and_tab_switch_panes(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        for key, pane in zip("1234567890", PANES, strict=False):
            await press(pilot, key)
            assert app.current_pane().PANE_ID == pane.PANE_ID
            if pane.PANE_ID in ("profile", "settings"):
                await press(pilot, "escape")  # leave the form so keys switch panes
        await press(pilot, "2", "tab")
        assert app.current_pane().PANE_ID == "project"
        await press(pilot, "shift+tab", "shift+tab")
        assert app.current_pane().PANE_ID == "profile"


@app_test
async def test_history_shows_the_chain_oldest_first(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "j", "h")  # the indentation memory, 3 versions
        pane = app.current_pane()
        assert pane.PANE_ID == "history"
        versions = pane.versions
        assert len(versions) == 3
        assert [v.status for v in versions] == ["superseded", "superseded", "active"]
        assert versions[0].content == "Prefers 2-space indentation everywhere."
        assert pane.item_list.current().id == versions[-1].id


@app_test
async def test_history_restore_an_old_version_and_undo(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "h", "home", "s") as (app, pilot):
        pane = app.current_pane()
        assert len(pane.versions) == 4
        head = pane.head()
        assert head.content == "Prefers 2-space indentation everywhere."
        assert "Restored" in status_text(app)
        await press(pilot, "ctrl+z")
        assert len(pane.versions) == 5
        assert pane.head().content.startswith("Prefers 4-space indentation in Python, 2 in")


@app_test
async def test_history_restore_of_the_current_version_is_refused(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "h", "s") as (app, pilot):
        assert "already the current version" in status_text(app)
        assert len(app.current_pane().versions) == 3


@app_test
async def test_history_forget_whole_chain(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "h", "d") as (app, pilot):
        assert isinstance(app.screen, ConfirmModal)
        assert "3 versions in all" in str(app.screen.query_one(".dialog-body").render())
        await press(pilot, "y")
        pane = app.current_pane()
        assert pane.versions == []
        await press(pilot, "2")  # other panes refresh when shown
        assert app.pane("user").memory_list.count == 7


@app_test
async def test_history_enter_opens_a_version(tmp_path: Path) -> None:
    async with opened(tmp_path, "j", "h", "home", "enter") as (app, pilot):
        assert isinstance(app.screen, MemoryDetailModal)
        assert "superseded" in screen_text(app)


@app_test
async def test_history_without_selection_explains(tmp_path: Path) -> None:
    app = pilot_harness.demo_app(tmp_path)
    app.selected_memory_id = None
    async with app.run_test(size=(80, 24)) as pilot:
        app.selected_memory_id = None
        await press(pilot, "4")
        pane = app.current_pane()
        if pane.versions == []:
            assert "No memory selected" in pane.item_list.empty_text


@app_test
async def test_log_rows_in_words_task_and_memory(tmp_path: Path) -> None:
    async with opened(tmp_path, "5", size=(100, 40)) as (app, pilot):
        pane = app.current_pane()
        entries = pane.item_list.source.rows(0, pane.item_list.count)
        assert entries == Engine(app.store, "alice").extraction.log(1000)
        shown = screen_text(app)
        for words in ("generate is off", "quota could not be read", "forced",
                      "you may no longer write"):
            assert words in shown, words
        await press(pilot, "t")
        assert isinstance(app.screen, TextModal)
        assert entries[0].task_id in screen_text(app)
        await press(pilot, "escape")
        await press(pilot, "m")
        assert "made no memory" in status_text(app)
        index = next(i for i, e in enumerate(entries) if e.memory_id)
        pane.item_list.move_cursor(index)
        await press(pilot, "m")
        assert isinstance(app.screen, MemoryDetailModal)


@app_test
async def test_log_run_now_and_forced(tmp_path: Path) -> None:
    async with opened(tmp_path, "5", "r") as (app, pilot):
        assert app.runner.state.last_job == "round"
        assert app.runner.state.last_error is None
        assert "Extraction round" in status_text(app)
        await press(pilot, "R")
        assert app.runner.state.last_result is not None
        assert "idle · last" in str(app.screen.query_one("#header").render())


@app_test
async def test_settings_switch_number_and_errors(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        settings = Engine(app.store, "alice").settings
        box = app.screen.query_one("#set-generate_memories", Checkbox)
        assert box.value is True
        await press(pilot, "space")  # the first switch has focus
        assert settings.get()["generate_memories"] == 0
        assert str(box.label) == "off"
        field = await fill(pilot, "#set-idle_seconds", "120", "enter")
        assert settings.get()["idle_seconds"] == 120
        field.value = "-5"
        await press(pilot, "enter")
        assert settings.get()["idle_seconds"] == 120
        error = str(app.screen.query_one("#err-idle_seconds").render())
        assert "negative" in error
        assert field.value == "-5"  # what was typed stays
        await fill(pilot, "#set-min_rate_limit_remaining_percent", "150", "enter")
        assert "0 to 100" in str(app.screen.query_one(
            "#err-min_rate_limit_remaining_percent").render())
        await press(pilot, "escape", "ctrl+z")  # undo the idle_seconds change
        assert settings.get()["idle_seconds"] == 900


@app_test
async def test_settings_models_say_when_they_are_used(tmp_path: Path) -> None:
    async with opened(tmp_path, "6", size=(160, 60)) as (app, pilot):
        text = screen_text(app)
        assert "default deterministic · how tasks become memories" in text
        assert "the model that extracts memories (model mode)" in text
        assert "model endpoint:" not in text  # none set: nothing is asked


@app_test
async def test_settings_per_task_flags(tmp_path: Path) -> None:
    async with opened(tmp_path, "6") as (app, pilot):
        tasks = Engine(app.store, "alice").tasks
        picker = app.screen.query_one("#flag-task", Select)
        task_id = tasks.list_tasks(mine=True, limit=1)[0].id
        picker.value = task_id
        await settle(pilot)
        use = app.screen.query_one("#flag-use", Select)
        assert not use.disabled
        use.value = "off"
        await settle(pilot)
        assert tasks.get_task(task_id).use_memories == 0
        await press(pilot, "escape", "ctrl+z")
        assert tasks.get_task(task_id).use_memories is None


@app_test
async def test_g_and_u_toggle_with_undo(tmp_path: Path) -> None:
    async with opened(tmp_path, "g") as (app, pilot):
        settings = Engine(app.store, "alice").settings
        assert settings.get()["generate_memories"] == 0
        assert "generate_memories = 0" in status_text(app)
        await press(pilot, "u")
        assert settings.get()["use_memories"] == 0
        await press(pilot, "ctrl+z")
        assert settings.get()["use_memories"] == 1
        await press(pilot, "ctrl+z")
        assert settings.get()["generate_memories"] == 1
        await press(pilot, "ctrl+z")
        assert "Nothing to undo" in status_text(app)


@app_test
async def test_profile_errors_inline_and_keep_typed_text(tmp_path: Path) -> None:
    async with opened(tmp_path, "1") as (app, pilot):
        identity = Engine(app.store, "alice").identity
        zone = app.screen.query_one("#profile-tz", Input)
        zone.value = "Mars/Olympus"
        await press(pilot, "ctrl+s")
        error = str(app.screen.query_one("#profile-error").render())
        assert "unknown time zone" in error
        assert zone.value == "Mars/Olympus"
        assert identity.profile().timezone == "Europe/Berlin"
        zone.value = "Asia/Tokyo"
        prefs = app.screen.query_one("#profile-prefs", TextArea)
        prefs.text = '{"editor": "helix", "nested": {"API-Key": "x"}}'
        await press(pilot, "ctrl+s")
        assert "looks like a secret" in str(app.screen.query_one("#profile-error").render())
        assert "API-Key" in prefs.text
        prefs.text = '{"editor": "helix"'
        await press(pilot, "ctrl+s")
        assert "not valid JSON" in str(app.screen.query_one("#profile-error").render())
        prefs.text = '{"editor": "helix"}'
        await press(pilot, "ctrl+s")
        profile = identity.profile()
        assert (profile.timezone, profile.preferences) == ("Asia/Tokyo", {"editor": "helix"})
        assert "Profile saved" in status_text(app)
        assert app.tz.key == "Asia/Tokyo"
        await press(pilot, "escape", "ctrl+z")
        assert identity.profile().timezone == "Europe/Berlin"


@app_test
async def test_injection_preview_and_copy(tmp_path: Path) -> None:
    spy = pilot_harness.CopySpy()
    async with opened(tmp_path, "7", system_clipboard=spy) as (app, pilot):
        pane = app.current_pane()
        assert pane.text.startswith("[Past memories — for reference only")
        expected = Engine(app.store, "alice").injection.preview_for_project("webshop").prompt
        assert pane.text == expected
        await press(pilot, "c")
        assert spy.copied == [expected]
        await press(pilot, "slash")
        app.screen.query_one("#inject-prompt", Input).value = "Fix the flaky checkout test"
        await press(pilot, "enter")
        assert pane.text.endswith("Fix the flaky checkout test")


@app_test
async def test_injection_preview_when_use_is_off(tmp_path: Path) -> None:
    async with opened(tmp_path, "u", "7") as (app, pilot):
        assert app.current_pane().text == ""
        assert "use_memories is off" in screen_text(app)
        await press(pilot, "c")
        assert "Nothing to copy" in status_text(app)


@app_test
async def test_help_lists_keys_with_ids(tmp_path: Path) -> None:
    async with opened(tmp_path, "question_mark", size=(120, 48)) as (app, pilot):
        assert isinstance(app.screen, HelpModal)
        console = Console(width=120, file=io.StringIO(), record=True)
        console.print(help_text(binding_classes(), dict(app._keymap)))
        shown = console.export_text()
        for part in ("memory.forget", "app.run_force", "/memory status", "keymap.toml"):
            assert part in shown, part
        await press(pilot, "escape")


@app_test
async def test_every_pane_copes_with_a_user_without_anything(tmp_path: Path) -> None:
    async with opened(tmp_path, user="newcomer", project=None) as (app, pilot):
        for number in range(1, len(PANES) + 1):
            await press(pilot, str(number), "escape")
        await press(pilot, "3", "n")  # no project: nothing to add to
        assert "No current project" in status_text(app)
        await press(pilot, "5", "r", "7", "c")
        assert app.is_running
        await press(pilot, "3")
        assert "not a member of any project" in screen_text(app)


@app_test
async def test_q_quits(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
