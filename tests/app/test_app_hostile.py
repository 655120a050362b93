"""Hostile text in every pane: Rich markup, Textual action links, OSC 52, cursor movement and
screen clearing from memories, tasks and the profile (as a store written before control
characters were stripped holds them) render literally and do nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from backends import plant_legacy_text
from pilot_harness import SMALL, app_test, demo_app, demo_store, opened, press, screen_text, settle
from textual.pilot import Pilot

from memtui.app.app import MemtuiApp
from memtui.engine.api import Engine
from memtui.engine.demo import DEMO_PROJECT, DEMO_USER

HOSTILE = ("[@click=app.quit]Click[/] [bold red]loud[/] \x1b[2J\x1b[H\x1b]52;c;SGk=\x07"
           "\x1b[5A end")
LITERAL = "[@click=app.quit]Click[/] [bold red]loud[/]"
MARK = "hostile-text-here"
PANES = ("profile", "user", "project", "history", "log", "inject")


def _hostile_app(tmp_path: Path, pane: str) -> MemtuiApp:
    store = demo_store(tmp_path)
    alice = Engine(store, DEMO_USER)
    alice.identity.update_profile(display_name=MARK, preferences={"motto": MARK})
    alice.identity.add_memory(MARK, "fact")
    first = alice.identity.add_memory(MARK, "decision", DEMO_PROJECT)
    head = alice.identity.supersede(first.id, MARK + " (corrected)")
    task = alice.tasks.add_task(project=DEMO_PROJECT, goal=MARK, prompt=MARK,
                                result=(MARK + " ") * 20,
                                started_at="2026-11-20T10:00:00Z",
                                finished_at="2026-11-20T10:10:00Z")
    plant_legacy_text(store, MARK, HOSTILE)
    alice.extraction.run_round(force=True)
    assert alice.identity.get_memory(head.id).content.startswith("[@click")
    assert task.id
    app = demo_app(tmp_path, start_pane=pane, store=store)
    app.history_memory_id = head.id
    return app


@pytest.mark.parametrize("pane", PANES)
def test_hostile_text_snapshot(snap_compare: Any, tmp_path: Path, pane: str) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, animations=True)

    assert snap_compare(_hostile_app(tmp_path, pane), terminal_size=SMALL,
                        run_before=run_before)


@pytest.mark.parametrize("pane", PANES)
@app_test
async def test_hostile_text_is_literal_and_harmless(tmp_path: Path, pane: str) -> None:
    app = _hostile_app(tmp_path, pane)
    async with opened(app, size=(160, 48)) as (app, pilot):
        shown = screen_text(app)
        assert "\x1b" not in shown and "\x07" not in shown
        if pane != "inject" or "[@click" in shown:
            assert "[@click=app.quit]" in shown
        await pilot.click(offset=(40, 8))
        await press(pilot, "enter")
        await settle(pilot)
        assert "\x1b" not in app.export_screenshot()
        assert app.is_running
    assert app.return_code in (None, 0)
