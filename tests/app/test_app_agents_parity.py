"""The Agents pane and ``memtui claude|gemini …`` plan the same write for the same home:
the auto-memory switch in the file that decides it, a row's redaction, a promotion to
Gemini CLI's global file, and the same refusal for a settings file that is not JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult
from pilot_harness import agents_app, app_test, opened, press, settle
from textual.pilot import Pilot

from memtui.app.panes.agents import AgentsPane
from memtui.engine.agents.plans import WritePlan

Planned = list[tuple[WritePlan | None, str | None]]


async def _pane_plan(pilot: Pilot[Any], planned: Planned, agent: str, label_end: str,
                     *keys: str) -> dict[str, Any] | str:
    """The plan (as JSON) or the refusal the pane makes for ``keys`` on a row."""
    pane = pilot.app.current_pane()
    assert isinstance(pane, AgentsPane)
    if pane.opened is not None:
        await press(pilot, "escape")
    rows = pane.item_list.items
    pane.item_list.move_cursor(next(i for i, row in enumerate(rows)
                                    if row.agent == agent and row.label.endswith(label_end)))
    await settle(pilot)
    for key in keys:
        if key.startswith("entry:"):
            items = pane.entry_list.items
            pane.entry_list.move_cursor(next(i for i, entry in enumerate(items)
                                             if entry.name == key[6:]))
            await settle(pilot)
        else:
            await press(pilot, key)
    plan, error = planned.pop()
    return plan.to_json() if plan is not None else error or ""


def _cli_plan(result: CliResult) -> dict[str, Any] | str:
    """The plan a run without ``--write`` shows (exit 4), or its refusal's message."""
    error = result.json["error"]
    return error["plan"] if result.code == 4 else error["message"]


@app_test
async def test_the_pane_and_the_cli_plan_the_same_write(
        homes: Path, cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch) -> None:
    claude_home, gemini_home = homes / ".claude", homes / ".gemini"

    def claude(*args: str) -> dict[str, Any] | str:
        return _cli_plan(cli("--user", "alice", "claude", *args, "--claude-home",
                             str(claude_home), "--json"))

    def gemini(*args: str) -> dict[str, Any] | str:
        return _cli_plan(cli("--user", "alice", "gemini", *args, "--gemini-home",
                             str(gemini_home), "--json"))

    app_project = homes / "src" / "app"
    local = app_project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"autoMemoryEnabled": False}), encoding="utf-8")
    settings = gemini_home / "settings.json"
    settings.write_text(json.dumps({"context": {"fileName": ["NOTES.md", "GEMINI.md"]}}),
                        encoding="utf-8")
    planned: Planned = []
    async with opened(agents_app(homes)) as (app, pilot):
        await settle(pilot)
        app.show_pane(AgentsPane.PANE_ID)
        await settle(pilot)
        pane = app.current_pane()
        monkeypatch.setattr(pane, "_planned", lambda plan, error: planned.append((plan, error)))
        monkeypatch.setattr(pane, "_entry_planned", lambda _action, _entry, _source, plan,
                            error: planned.append((plan, error)))
        # the project's local settings decide: both switch it there
        switch = await _pane_plan(pilot, planned, "claude", "/src/app", "m")
        assert isinstance(switch, dict) and switch["files"] == [
            {"path": str(local), "action": "replace"}]
        assert claude("auto-memory", "on", "--project", str(app_project)) == switch
        # nothing decides for the project: the user's settings
        local.unlink()
        (app_project / ".claude" / "settings.json").unlink()
        await press(pilot, "o")
        switch = await _pane_plan(pilot, planned, "claude", "/src/app", "m")
        assert claude("auto-memory", "off") == switch
        assert isinstance(switch, dict) and switch["files"][0]["path"] == \
            str(claude_home / "settings.json")
        # a row's redaction: the one file's plan, the same summary
        deploy = next((claude_home / "projects").glob("*-src-secret")) / "memory" / "deploy.md"
        redact = await _pane_plan(pilot, planned, "claude", "/src/secret", "s")
        assert claude("redact", str(deploy)) == redact
        assert isinstance(redact, dict) and "(github-pat) in deploy.md" in redact["summary"]
        # context.fileName a list: the first name is the global file for both
        promote = await _pane_plan(pilot, planned, "gemini", "/src/app", "enter",
                                   "entry:conventions.md", "P")
        conventions = gemini_home / "tmp" / "app" / "memory" / "conventions.md"
        assert gemini("promote", str(conventions)) == promote
        assert isinstance(promote, dict) and promote["files"][0]["path"] == \
            str(gemini_home / "NOTES.md")
        # settings that are not JSON: the same refusal
        settings.write_text("{ nope", encoding="utf-8")
        await press(pilot, "escape", "o")
        refusal = await _pane_plan(pilot, planned, "gemini", "global", "m")
        assert refusal == gemini("auto-memory", "on")
        assert isinstance(refusal, str) and "not valid JSON" in refusal
