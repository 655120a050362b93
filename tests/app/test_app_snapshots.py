"""Snapshots of every pane at 80x24 and 160x48, and of the dialogs at 80x24, on the
deterministic demo store (fixed clock, sequential ids, timers off, workers awaited)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import SMALL, WIDE, demo_app, settle
from textual.pilot import Pilot

from memtui.app.app import MemtuiApp
from memtui.app.panes import PANES

HISTORY_HEAD = "mem_0009"
"""The demo's three-version memory (the indentation preference), current version."""
SIZES = {"80x24": SMALL, "160x48": WIDE}
SPEC_PANES = ("profile", "user", "project", "history", "log", "settings", "inject", "inbox")
"""The app's panes (panes added later, such as Codex and Bundles, snapshot their own)."""


def _app(tmp_path: Path, pane: str, **config: Any) -> MemtuiApp:
    app = demo_app(tmp_path, start_pane=pane, **config)
    app.history_memory_id = HISTORY_HEAD
    return app


def _then(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot, animations=True)

    return run_before


@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
@pytest.mark.parametrize("pane", SPEC_PANES)
def test_pane(snap_compare: Any, tmp_path: Path, pane: str, size: str) -> None:
    assert pane in {registered.PANE_ID for registered in PANES}
    assert snap_compare(_app(tmp_path, pane), terminal_size=SIZES[size], run_before=_then())


@pytest.mark.parametrize(("name", "pane", "keys"), [
    ("new_memory", "user", ("a",)),
    ("correct", "user", ("j", "e")),
    ("forget_confirm", "user", ("j", "d")),
    ("filter", "project", ("f",)),
    ("detail_provenance", "project", ("enter",)),
    ("search", "project", ("slash", "s", "t", "r", "i", "p", "e")),
    ("marked", "project", ("space", "j", "space")),
    ("command_error", "user", ("colon", "x", "enter")),
    ("status", "user", ("colon", "s", "t", "a", "t", "u", "s", "enter")),
    ("help", "user", ("question_mark",)),
    ("project_picker", "project", ("p",)),
    ("log_task", "log", ("t",)),
    ("inbox_reject_confirm", "inbox", ("space", "space", "x")),
    ("inbox_edit", "inbox", ("e",)),
])
def test_dialog(snap_compare: Any, tmp_path: Path, name: str, pane: str,
                keys: tuple[str, ...]) -> None:
    assert snap_compare(_app(tmp_path, pane), terminal_size=SMALL, run_before=_then(*keys))


def test_no_color(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(tmp_path, "user"), terminal_size=SMALL, run_before=_then("j"))


def test_light_theme(snap_compare: Any, tmp_path: Path) -> None:
    app = _app(tmp_path, "project")
    app.theme = "textual-light"
    assert snap_compare(app, terminal_size=SMALL, run_before=_then())


def test_stale_view(snap_compare: Any, tmp_path: Path) -> None:
    """The User pane's stale view: the demo's user memories, unused for over a day."""
    app = _app(tmp_path, "user")
    app.engine.settings.update(max_unused_days=1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        pilot.app.screen.query_one("#status-stale").value = True
        await pilot.press("ctrl+s")
        await settle(pilot, animations=True)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
