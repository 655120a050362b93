"""The Agents pane: one row per agent and project with counts, sizes, switches,
secrets (never their value) and the index meter naming the entries that do not load;
writes only after a confirm; Pilot and snapshot tests at 80x24 and 160x48."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agents_fixture import AGENT_ENV, GITHUB_TOKEN
from pilot_harness import (
    SMALL,
    WIDE,
    agents_app,
    app_test,
    opened,
    press,
    screen_text,
    settle,
    status_text,
)
from textual.pilot import Pilot

from memtui.app.panes import PANES
from memtui.app.panes.agents import AgentsPane


def _pane(app: Any) -> AgentsPane:
    pane = app.current_pane()
    assert isinstance(pane, AgentsPane)
    return pane


def _preview(app: Any) -> str:
    return str(app.screen.query_one("#agents-preview").render())


async def _open(pilot: Pilot[Any]) -> AgentsPane:
    pilot.app.show_pane(AgentsPane.PANE_ID)
    await settle(pilot)
    return _pane(pilot.app)


def test_agents_pane_is_registered() -> None:
    assert "agents" in [pane.PANE_ID for pane in PANES]


@app_test
async def test_agents_pane_shows_rows_meter_and_secrets(homes: Path) -> None:
    async with opened(agents_app(homes), size=WIDE) as (app, pilot):
        pane = await _open(pilot)
        rows = pane.item_list.items
        assert {row.agent for row in rows} == {"claude", "gemini"}
        text = screen_text(app)
        assert "~/src/big" in text and "174/250" in text and "1 secret" in text
        assert GITHUB_TOKEN not in text
        big = next(i for i, row in enumerate(rows) if row.label.endswith("/src/big"))
        pane.item_list.move_cursor(big)
        await settle(pilot)
        preview = _preview(app)
        assert "Not loaded (76): Topic 175, Topic 176" in preview
        assert "limit 200 lines" in preview
        secret = next(i for i, row in enumerate(rows) if row.secrets)
        pane.item_list.move_cursor(secret)
        await settle(pilot)
        preview = _preview(app)
        assert "deploy.md:8  github-pat" in preview and GITHUB_TOKEN not in preview
        assert "Homes" in preview and "Codex: ~/.codex (not found)" in preview


@app_test
async def test_agents_pane_writes_only_after_a_confirm(homes: Path) -> None:
    deploy = next((homes / ".claude" / "projects").glob("*-src-secret")) / "memory" / \
        "deploy.md"
    async with opened(agents_app(homes), size=WIDE) as (app, pilot):
        pane = await _open(pilot)
        rows = pane.item_list.items
        pane.item_list.move_cursor(next(
            i for i, row in enumerate(rows) if row.secrets and row.agent == "claude"))
        await settle(pilot)
        await press(pilot, "s")
        text = screen_text(app)
        assert "Change the agent's files?" in text and "=«" in text and "[REDACTED]" in text
        assert "b/projects/" in text  # diff paths relative to the home
        assert GITHUB_TOKEN not in text
        await press(pilot, "n")
        assert GITHUB_TOKEN in deploy.read_text(encoding="utf-8")  # said no
        await press(pilot, "s", "y")
        assert GITHUB_TOKEN not in deploy.read_text(encoding="utf-8")
        await settle(pilot)
        assert all(not row.secrets for row in pane.item_list.items
                   if row.agent == "claude")
        # switching auto memory asks too, and keeps every other key
        pane.item_list.move_cursor(0)
        await press(pilot, "m", "y")
        settings = json.loads((homes / ".claude" / "settings.json").read_text())
        assert settings["autoMemoryEnabled"] is False and settings["theme"] == "dark"
        # a project whose own settings win: the switch is written where it is set
        rows = pane.item_list.items
        pane.item_list.move_cursor(next(
            i for i, row in enumerate(rows)
            if row.agent == "claude" and row.label.endswith("/src/app")))
        await press(pilot, "m", "y")
        project = json.loads((homes / "src" / "app" / ".claude" / "settings.json")
                             .read_text())
        assert project == {"autoMemoryEnabled": True}
        user = json.loads((homes / ".claude" / "settings.json").read_text())
        assert user["autoMemoryEnabled"] is False


@app_test
async def test_agents_pane_refuses_a_file_changed_meanwhile(homes: Path) -> None:
    async with opened(agents_app(homes), size=WIDE) as (app, pilot):
        pane = await _open(pilot)
        rows = pane.item_list.items
        app_row = next(i for i, row in enumerate(rows)
                       if row.agent == "claude" and row.label.endswith("/src/app"))
        pane.item_list.move_cursor(app_row)
        await settle(pilot)
        await press(pilot, "x")
        assert "Change the agent's files?" in screen_text(app)
        index = Path(rows[app_row].memory_dir or "") / "MEMORY.md"
        index.write_text(index.read_text() + "- [Agent](agent.md) — written meanwhile\n")
        await press(pilot, "y")
        assert "written meanwhile" in index.read_text() and "gone.md" in index.read_text()
        assert "Nothing written" in screen_text(app) or "changed since" in screen_text(app)


@app_test
async def test_agents_pane_fix_of_a_healthy_index_asks_nothing(homes: Path) -> None:
    async with opened(agents_app(homes), size=WIDE) as (app, pilot):
        pane = await _open(pilot)
        app_row = next(i for i, row in enumerate(pane.item_list.items)
                       if row.agent == "claude" and row.label.endswith("/src/app"))
        pane.item_list.move_cursor(app_row)
        await settle(pilot)
        await press(pilot, "x", "y")  # repaired
        await settle(pilot)
        await press(pilot, "x")  # now healthy: said, no dialog
        await settle(pilot)
        assert "nothing to repair in" in status_text(app)
        assert "Change the agent's files?" not in screen_text(app)


@app_test
async def test_agents_pane_without_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    # the harness points every home at /nonexistent
    async with opened(tmp_path) as (app, pilot):
        pane = await _open(pilot)
        assert pane.item_list.items == []
        preview = _preview(app)
        assert "No agent memory found" in preview and "(not found)" in preview


@pytest.mark.parametrize("size", [SMALL, WIDE], ids=["80x24", "160x48"])
def test_agents_pane_snapshot(snap_compare: Any, homes: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pane = _pane(pilot.app)
        rows = pane.item_list.items
        pane.item_list.move_cursor(next(
            i for i, row in enumerate(rows) if row.label.endswith("/src/big")))
        await settle(pilot, animations=True)

    app = agents_app(homes, start_pane=AgentsPane.PANE_ID)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@app_test
async def test_agents_pane_names_each_agents_version(homes: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    package = homes / "npm" / "node_modules" / "@anthropic-ai" / "claude-code"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps(
        {"name": "@anthropic-ai/claude-code", "version": "2.1.197"}))
    (package / "bin" / "claude.exe").write_text("#!/bin/sh\n")
    (package / "bin" / "claude.exe").chmod(0o755)
    (homes / "bin").mkdir()
    (homes / "bin" / "claude").symlink_to(package / "bin" / "claude.exe")
    monkeypatch.setenv("PATH", str(homes / "bin"))
    async with opened(agents_app(homes), size=WIDE) as (app, pilot):
        await _open(pilot)
        preview = _preview(app)
        assert "version: 2.1.197 on PATH" in preview
        assert "version: gemini not on PATH" in preview
        assert "layout: no Codex database found" in preview
