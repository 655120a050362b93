"""The ``/memory`` command line: the parser and completion (unit tests), and running commands
in the app (Pilot): status, show, extract, backfill, consolidate, forget, on/off, note, bad
input, completion, the palette."""

from __future__ import annotations

from pathlib import Path

import pilot_harness
import pytest
from pilot_harness import app_test, asks, opened, press, screen_text, settle, status_text, type_text

from memtui.app.commands import CommandError, MemoryCommand, complete, parse_command
from memtui.app.modals.confirm import ConfirmModal
from memtui.app.modals.detail import MemoryDetailModal
from memtui.app.modals.text import TextModal
from memtui.app.widgets.command_line import CommandLine
from memtui.engine.api import Engine

# ---- parser -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("/memory status", MemoryCommand("status")),
    ("/memory", MemoryCommand("status")),
    ("  memory   status  ", MemoryCommand("status")),
    ("/MEMORY Status", MemoryCommand("status")),
    ("/memory show", MemoryCommand("show")),
    ("/memory show mem_0012", MemoryCommand("show", "mem_0012")),
    ("/memory extract", MemoryCommand("extract")),
    ("/memory extract --force", MemoryCommand("extract", force=True)),
    ("/memory extract force", MemoryCommand("extract", force=True)),
    ("/memory backfill", MemoryCommand("backfill")),
    ("/memory consolidate", MemoryCommand("consolidate")),
    ("/memory forget mem_0001", MemoryCommand("forget", "mem_0001")),
    ("/memory on", MemoryCommand("on")),
    ("/memory off", MemoryCommand("off")),
    ("/memory note  keep   the spaces ", MemoryCommand("note", "keep   the spaces")),
    ("/memory note [@click=app.quit]", MemoryCommand("note", "[@click=app.quit]")),
])
def test_parse_valid_commands(text: str, expected: MemoryCommand) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(("text", "fragment"), [
    ("", "empty command"),
    ("   ", "empty command"),
    ("/memroy status", "unknown command '/memroy'"),
    ("status", "commands start with /memory"),
    ("/memory stats", "did you mean status"),
    ("/memory frobnicate", "unknown /memory command 'frobnicate'"),
    ("/memory status now", "takes no argument"),
    ("/memory on please", "takes no argument"),
    ("/memory extract now", "takes only --force"),
    ("/memory forget", "needs a memory id"),
    ("/memory forget a b", "takes one memory id"),
    ("/memory forget ../etc", "not a valid id"),
    ("/memory show a b", "takes one memory id"),
    ("/memory note", "needs the text"),
    ("/memory " + "x" * 500, "unknown /memory command"),
])
def test_parse_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(text)
    assert fragment in caught.value.message
    assert len(caught.value.message) < 400


def test_command_text_round_trips() -> None:
    for text in ("/memory extract --force", "/memory forget mem_0001", "/memory note hi"):
        assert parse_command(parse_command(text).text()) == parse_command(text)


@pytest.mark.parametrize(("typed", "expected"), [
    ("/", "/memory "),
    ("/me", "/memory "),
    ("/memory", None),
    ("/memory st", "/memory status"),
    ("/memory s", None),  # status or show: ambiguous
    ("/memory ba", "/memory backfill"),
    ("/memory con", "/memory consolidate"),
    ("/memory extract --", "/memory extract --force"),
    ("/memory forget ", "/memory forget mem_0042"),
    ("/memory show ", "/memory show mem_0042"),
    ("/memory note ", None),
    ("hello", None),
    ("", None),
])
def test_completion(typed: str, expected: str | None) -> None:
    assert complete(typed, lambda: "mem_0042") == expected


def test_completion_without_a_selection() -> None:
    assert complete("/memory forget ", lambda: None) is None


# ---- in the app ---------------------------------------------------------------------------


async def _run(pilot, text: str) -> object:
    """Run ``text`` on the command line (``:``); the screen on top after it."""
    await press(pilot, "colon")
    line = pilot.app.screen.query_one(CommandLine)
    assert line.display and line.has_focus and line.value == "/memory "
    line.value = text
    await press(pilot, "enter")
    return pilot.app.screen


@app_test
async def test_status_command_shows_settings_worker_counts(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(100, 40)) as (app, pilot):
        assert isinstance(await _run(pilot, "/memory status"), TextModal)
        shown = screen_text(app)
        for part in ("generate_memories", "claude_memory_gate", "Worker", "idle"):
            assert part in shown, part
        await press(pilot, "end")  # the rest of the dialog, scrolled into view
        shown = screen_text(app)
        for part in ("project webshop", "active 11", "Extraction log", "extracted 5"):
            assert part in shown, part
        await press(pilot, "escape")
        assert not isinstance(app.screen, TextModal)


@app_test
async def test_bad_command_keeps_the_line_open_with_an_error(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await _run(pilot, "/memory frobnicate")
        line = app.screen.query_one(CommandLine)
        assert line.display and line.value == "/memory frobnicate"
        assert "unknown /memory command" in status_text(app)
        await press(pilot, "escape")
        assert not line.display
        assert app.focused is app.pane("user").focus_target()


@app_test
async def test_completion_in_the_command_line(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        selected = app.pane("user").selected_memory().id
        await press(pilot, "colon", "f", "o")
        line = app.screen.query_one(CommandLine)
        assert line.value == "/memory fo"
        await press(pilot, "tab")
        assert line.value == "/memory forget"
        await press(pilot, "space", "tab")
        assert line.value == f"/memory forget {selected}"


@app_test
async def test_show_command_opens_the_selected_memory(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        assert isinstance(await _run(pilot, "/memory show"), MemoryDetailModal)
        await press(pilot, "escape")
        assert not isinstance(await _run(pilot, "/memory show mem_9999"), MemoryDetailModal)
        assert "not found" in status_text(app)


@app_test
async def test_forget_command_asks_then_forgets(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        assert isinstance(await _run(pilot, "/memory forget mem_0001"), ConfirmModal)
        await press(pilot, "y")
        assert app.pane("user").memory_list.count == 7


@app_test
async def test_forget_command_for_another_users_memory_is_not_found(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        bob_memory = Engine(app.store, "bob").identity.list_memories(limit=1)[0]
        assert not isinstance(await _run(pilot, f"/memory forget {bob_memory.id}"), ConfirmModal)
        assert "not found" in status_text(app)


@app_test
async def test_on_off_switch_generate_and_use_together(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        settings = Engine(app.store, "alice").settings
        await _run(pilot, "/memory off")
        assert (settings.get()["generate_memories"], settings.get()["use_memories"]) == (0, 0)
        await _run(pilot, "/memory on")
        assert (settings.get()["generate_memories"], settings.get()["use_memories"]) == (1, 1)
        await press(pilot, "ctrl+z")
        assert (settings.get()["generate_memories"], settings.get()["use_memories"]) == (0, 0)


@app_test
async def test_note_command_in_the_current_scope(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await _run(pilot, "/memory note Review the Terraform plan with Bob.")
        memory = app.pane("user").memory_list.current()
        assert (memory.content, memory.source, memory.scope) == (
            "Review the Terraform plan with Bob.", "note", "user")
        await press(pilot, "3")
        await _run(pilot, "/memory note The staging box is staging-2 now.")
        memory = app.pane("project").memory_list.current()
        assert (memory.source, memory.project) == ("note", "webshop")


@app_test
async def test_extract_backfill_consolidate_commands(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await _run(pilot, "/memory extract --force")
        assert app.runner.state.last_job == "round" and app.runner.state.last_error is None
        await _run(pilot, "/memory backfill")
        assert app.runner.state.last_job == "backfill" and app.runner.state.last_error is None
        assert "scanned" in status_text(app)
        await _run(pilot, "/memory consolidate")
        assert app.runner.state.last_job == "consolidate"
        assert "superseded" in status_text(app)


@app_test
async def test_palette_offers_memory_actions(tmp_path: Path) -> None:
    async with opened(tmp_path, "ctrl+p") as (app, pilot):
        await type_text(pilot, "forget selected")
        assert "memory: forget selected" in screen_text(app)
        await asks(pilot, "enter")
        await press(pilot, "escape")
        assert app.pane("user").memory_list.count == 8


@app_test
async def test_palette_switches_panes(tmp_path: Path) -> None:
    async with opened(tmp_path, "ctrl+p") as (app, pilot):
        await type_text(pilot, "pane: Log")
        await press(pilot, "enter")
        assert app.current_pane().PANE_ID == "log"


@app_test
async def test_palette_names_keys_and_lists_memtui_first(tmp_path: Path) -> None:
    """Each action shows its key (as remapped) and memtui's actions come before Textual's
    own (Theme, Quit ...), both before typing and when a word matches both."""
    from memtui.app.palette import MemoryCommands

    async with opened(tmp_path) as (app, pilot):
        provider = MemoryCommands(app.screen)
        found = [hit async for hit in provider.discover()]
        names = [hit.text for hit in found]
        assert names.index("memory: forget selected") < names.index("Theme")
        assert names.index("pane: Codex") < names.index("Quit")
        forget = next(hit for hit in found if hit.text == "memory: forget selected")
        assert forget.help is not None and forget.help.startswith("key d · ")
        app.set_keymap({"memory.forget": "x"})
        found = [hit async for hit in provider.discover()]
        forget = next(hit for hit in found if hit.text == "memory: forget selected")
        assert forget.help is not None and forget.help.startswith("key x · ")
        hits = sorted([hit async for hit in provider.search("te")],  # "memory: status", "Theme"
                      key=lambda hit: hit.score, reverse=True)
        texts = [hit.text for hit in hits]
        assert "Theme" in texts and texts[0] != "Theme"


@app_test
async def test_forget_selected_asks_the_pane_on_screen(tmp_path: Path) -> None:
    """The palette's "forget selected" goes through the pane protocol: on History it is the
    chain's forget (asks first); on a pane without a selection the app's fallback."""
    async with opened(tmp_path) as (app, pilot):
        app.show_history("mem_0009")
        await settle(pilot)
        await pilot_harness.run_palette(pilot, "memory: forget selected")
        assert isinstance(app.screen, ConfirmModal)
        assert "3 versions in all" in str(app.screen.query_one(".dialog-body").render())
        await press(pilot, "escape")
        await press(pilot, "9")  # Codex: no memory there; the app's last selection is used
        app.selected_memory_id = None
        await pilot_harness.run_palette(pilot, "memory: forget selected")
        assert "No memory selected." in status_text(app)


@app_test
async def test_the_history_target_is_a_reactive_the_pane_follows(tmp_path: Path) -> None:
    """Setting the History target while the pane is shown re-reads it (no refresh call)."""
    async with opened(tmp_path) as (app, pilot):
        app.show_history("mem_0009")
        await settle(pilot)
        assert "History of mem_0009" in screen_text(app)
        app.history_memory_id = "mem_0010"
        await settle(pilot)
        assert "History of mem_0010" in screen_text(app)
