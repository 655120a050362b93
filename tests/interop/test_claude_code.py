"""Contract tests with the real Claude Code (``claude -p``) in a throwaway home against the
fake model: memtui's MCP server connects, the session hooks fire, ``memory_add`` and
``memory_recall`` round-trip, and the topic files Claude Code's Write tool saves are read
and imported by memtui with the right project, kind and text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .agent_install import AgentProgram
from .conftest import AgentHome
from .fake_model.anthropic import AnthropicAdapter
from .fake_model.exchange import add_then_recall, say
from .fake_model.server import FakeModelServer
from .scenarios.claude_code import (
    TOPICS,
    claude_env,
    install_memtui,
    memory_dir_of,
    run_session,
    save_topics_policy,
)

MARKER = "alice-keeps-zebra-notes"
"""A memory's text that can only reach the model through memtui's SessionStart hook."""
MCP_FACT = "The shop project deploys on Fridays only"


def _json(done: Any) -> Any:
    assert done.returncode == 0, done.stderr[-800:]
    return json.loads(done.stdout)


def _ok(done: Any) -> Any:
    assert done.returncode == 0, f"rc {done.returncode}: {done.stderr[-1500:]}"
    return done


def test_mcp_list_shows_memtui_connected(claude_program: AgentProgram,
                                         agent_home: AgentHome) -> None:
    install_memtui(agent_home)
    done = _ok(agent_home.run([claude_program.program, "mcp", "list"],
                              extra_env=claude_env("http://127.0.0.1:9")))
    line = next(line for line in done.stdout.splitlines() if line.startswith("memtui:"))
    assert "Connected" in line and "mcp" in line, done.stdout


def test_session_start_text_reaches_the_model_and_session_end_makes_a_task(
        claude_program: AgentProgram, agent_home: AgentHome) -> None:
    _ok(agent_home.memtui("settings", "set", "use_memories=1"))
    _ok(agent_home.memtui("memory", "add", "--kind", "preference", MARKER))
    install_memtui(agent_home)
    with FakeModelServer([AnthropicAdapter()], say("Hello.")) as server:
        done = _ok(run_session(agent_home, claude_program, server, "say hello"))
    assert "Hello." in done.stdout
    assert server.exchanges and MARKER in server.exchanges[0].text
    assert not server.unanswered
    _ok(agent_home.memtui("run", "--force"))
    tasks = _json(agent_home.memtui("--json", "task", "list"))["items"]
    assert [(task["source"], task["prompt"], task["status"]) for task in tasks] == [
        ("claude-code", "say hello", "completed")]


def test_memory_add_and_recall_round_trip_through_mcp(claude_program: AgentProgram,
                                                      agent_home: AgentHome) -> None:
    install_memtui(agent_home)
    with FakeModelServer([AnthropicAdapter()], add_then_recall(
            MCP_FACT, "decision", "deploys Fridays", "Recalled.")) as server:
        _ok(run_session(agent_home, claude_program, server, "remember the deploy day"))
    first = server.exchanges[0]
    assert first.has_tool("memory_add") == "mcp__memtui__memory_add"
    assert first.has_tool("memory_recall") == "mcp__memtui__memory_recall"
    turns = [exchange for exchange in server.exchanges if exchange.tool_names]
    assert [len(turn.tool_results) for turn in turns] == [0, 1, 2]
    added, recalled = turns[-1].tool_results
    assert added.name == "mcp__memtui__memory_add" and MCP_FACT in added.text
    assert recalled.name == "mcp__memtui__memory_recall" and MCP_FACT in recalled.text
    stored = _json(agent_home.memtui("--json", "memory", "list"))["items"]
    assert [(item["content"], item["kind"], item["source"]) for item in stored] == [
        (MCP_FACT, "decision", "mcp")]


def _topic_files(home: AgentHome) -> dict[str, Path]:
    folders = list((home.root / ".claude" / "projects").glob("*/memory"))
    assert len(folders) == 1, folders
    return {path.name: path for path in folders[0].glob("*.md")}


def test_topic_files_written_by_claude_code_are_read_and_imported(
        claude_program: AgentProgram, agent_home: AgentHome) -> None:
    install_memtui(agent_home)
    with FakeModelServer([AnthropicAdapter()], save_topics_policy()) as server:
        _ok(run_session(agent_home, claude_program, server, "remember how we work"))
    folder = memory_dir_of(server.exchanges[0])
    assert folder is not None and folder.startswith(str(agent_home.root / ".claude"))
    files = _topic_files(agent_home)
    assert set(files) == {"MEMORY.md", *(topic.file for topic in TOPICS)}
    # Claude Code writes the nested form itself, the flat file given to Write included
    for topic in TOPICS:
        text = files[topic.file].read_text(encoding="utf-8")
        assert "\nmetadata:" in text and "  node_type: memory\n" in text
        assert f"  type: {topic.type}\n" in text and "  originSessionId: " in text
    home = _json(agent_home.memtui("--json", "claude", "show"))
    (row,) = home["projects"]
    assert row["project"] == str(agent_home.project)
    assert row["problems"] == [] and home["problems"] == []
    read = {item["relative"]: item for item in row["files"]}
    for topic in TOPICS:
        item = read[topic.file]
        assert (item["name"], item["description"], item["type"]) == (
            topic.name, topic.description, topic.type)
        assert item["front_matter"]["metadata.node_type"] == "memory"
    assert row["index"]["unindexed"] == [] and row["index"]["dangling"] == []
    before = {name: path.read_bytes() for name, path in files.items()}
    report = _json(agent_home.memtui("--json", "claude", "import"))
    assert report["imported"] == len(TOPICS), report
    (project,) = report["created_projects"]
    stored = _json(agent_home.memtui("--json", "memory", "list", "--project", project))[
        "items"]
    kinds = {"user": "preference", "feedback": "convention", "project": "fact",
             "reference": "fact"}
    by_text = {item["content"].split("\n")[0]: item for item in stored}
    for topic in TOPICS:
        item = next(value for key, value in by_text.items() if key.startswith(topic.name))
        assert item["kind"] == kinds[topic.type]
        assert topic.text.split("\n")[0] in item["content"]
        assert item["project"] is not None and item["source"] == "import"
    assert {name: path.read_bytes() for name, path in files.items()} == before  # read-only
