"""The external-context gate, completed: a Claude Code transcript or a Codex rollout whose
session used an MCP tool (other than memtui's own) or web search is external context, and
the extraction log names the tool. The sessions are the real files Claude Code 2.1.197 and
Codex 0.169.1 wrote (tests/data/agent_homes), with one tool call added in the shape each
agent writes it (Claude Code: an assistant record's ``tool_use`` block, as the real file's
Write call; Codex: a ``function_call`` with the MCP server as its ``namespace``, as the
Responses API returns a namespaced tool, or a ``web_search_call``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures_auto import Team, add_done, make_team

from memtui.engine.agents.transcripts import read_transcript
from memtui.engine.api import Engine
from memtui.engine.codex.rollouts import RolloutReader
from memtui.store.database import Store
from memtui.store.timeutil import FixedClock

HOMES = Path(__file__).parents[1] / "data" / "agent_homes"
CLAUDE = next((HOMES / "claude-code-2.1.197" / ".claude" / "projects").glob("*/*.jsonl"))
CODEX = sorted((HOMES / "codex-0.169.1" / ".codex" / "sessions").rglob("*.jsonl"))[0]


def _claude_with(tmp_path: Path, tool: str) -> Path:
    """The real transcript with its first Write call renamed to ``tool``."""
    lines = CLAUDE.read_text().splitlines()
    for index, raw in enumerate(lines):
        record = json.loads(raw)
        content = record.get("message", {}).get("content") if record.get("type") == \
            "assistant" else None
        blocks = [b for b in content or () if isinstance(b, dict) and b.get("type") == "tool_use"]
        if blocks:
            blocks[0]["name"] = tool
            lines[index] = json.dumps(record)
            break
    else:
        raise AssertionError("the real transcript has no tool_use")
    path = tmp_path / CLAUDE.name
    path.write_text("\n".join(lines) + "\n")
    return path


def _codex_read(extra: list[dict[str, Any]]) -> Any:
    reader = RolloutReader(str(CODEX))
    lines = CODEX.read_bytes().splitlines() + [json.dumps(
        {"timestamp": "2026-12-04T13:23:05.000Z", "type": "response_item", "payload": p}
    ).encode() for p in extra]
    for number, raw in enumerate(lines, 1):
        reader.line(number, raw)
    return reader.task()


@pytest.mark.parametrize(("tool", "external"), [
    ("mcp__github__search_issues", "mcp__github__search_issues"),
    ("WebSearch", "WebSearch"), ("WebFetch", "WebFetch"),
    ("mcp__memtui__memory_recall", None), ("Write", None)])
def test_claude_code_tools(tmp_path: Path, tool: str, external: str | None) -> None:
    task = read_transcript(_claude_with(tmp_path, tool))
    assert task.used_external_context is (external is not None)
    assert task.external_tool == external


@pytest.mark.parametrize(("payload", "external"), [
    ({"type": "function_call", "namespace": "mcp__github__", "name": "search_issues",
      "arguments": "{}", "call_id": "c1"}, "mcp__github__search_issues"),
    ({"type": "function_call", "namespace": "mcp__memtui__", "name": "memory_recall",
      "arguments": "{}", "call_id": "c2"}, None),
    ({"type": "function_call", "name": "mcp__memtui__memory_add", "arguments": "{}",
      "call_id": "c3"}, None),
    ({"type": "web_search_call", "status": "completed",
      "action": {"type": "search", "query": "pytest"}}, "web_search"),
    ({"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c4"},
     None)])
def test_codex_calls(payload: dict[str, Any], external: str | None) -> None:
    assert _codex_read([]).used_external_context is False  # the real file as it is
    task = _codex_read([payload])
    assert task.used_external_context is (external is not None)
    assert task.external_tool == external


@pytest.fixture
def team(store: Store, clock: FixedClock, engine_for: Callable[[str], Engine]) -> Team:
    """alice owns web and api, generate on."""
    return make_team(store, clock, engine_for)


def test_the_log_names_the_tool(team: Team, tmp_path: Path) -> None:
    read = read_transcript(_claude_with(tmp_path, "mcp__github__search_issues"))
    task = add_done(team.alice, team.clock, external_context=read.used_external_context,
                    external_tool=read.external_tool, source="claude-code", source_ref="s1")
    assert dict(team.alice.extraction.run_round().skipped) == {"external_context": 1}
    entry = team.alice.extraction.log(10)[0]
    assert (entry.task_id, entry.reason, entry.detail) == (
        task.id, "external_context", "mcp__github__search_issues")
    team.alice.settings.update(disable_on_external_context=0)
    assert team.alice.extraction.run_round().extracted == 1
    assert team.alice.extraction.log(10)[0].detail is None
