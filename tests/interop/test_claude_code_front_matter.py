"""What the real Claude Code makes of a memory file's front matter, against memtui's write
gate: the fake model has the Write tool save one file for each block of
``tests/data/claude_front_matter/cases.json``, then reads and edits some of them; every file
Claude Code left must be what the gate would have written for the same calls (the session
id and ``modified:`` time taken from the file).

With ``MEMTUI_CLAUDE_FRONT_MATTER_OUT=<file>`` the run also records what the program wrote
(``tests/data/claude_front_matter/claude-code-<version>.json``, which the unit tests in
tests/agents/test_claude_stamp.py read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from claude_front_matter import cases, differs_knowingly, edit_calls, expected, file_name

from .agent_install import AgentProgram
from .conftest import AgentHome
from .fake_model.anthropic import AnthropicAdapter
from .fake_model.exchange import CallTool, Exchange, Policy, Reply, Say
from .fake_model.server import FakeModelServer
from .scenarios.claude_code import memory_dir_of, run_session

OUT_ENV = "MEMTUI_CLAUDE_FRONT_MATTER_OUT"


def _write_each_then_edit(blocks: list[str], edits: list[dict[str, object]]) -> Policy:
    def policy(exchange: Exchange) -> Reply:
        folder = memory_dir_of(exchange)
        if "Write" not in exchange.tool_names or folder is None:
            return Say("Saved.")
        calls = [CallTool("Write", {"file_path": folder + file_name(number), "content": text})
                 for number, text in enumerate(blocks)]
        for edit in edits:
            path = folder + file_name(int(str(edit["file"])))
            calls.append(CallTool("Read", {"file_path": path}))
            calls += [CallTool("Edit", {"file_path": path, **call}) for call in edit_calls(edit)]
        done = len(exchange.tool_results)
        return calls[done] if done < len(calls) else Say("Saved.")

    return policy


def test_memtui_saves_each_block_as_claude_code_does(claude_program: AgentProgram,
                                                    agent_home: AgentHome) -> None:
    blocks, edits = cases()
    with FakeModelServer([AnthropicAdapter()], _write_each_then_edit(blocks, edits)) as server:
        done = run_session(agent_home, claude_program, server, "remember these")
    assert done.returncode == 0, done.stderr[-1500:]
    (folder,) = (agent_home.root / ".claude" / "projects").glob("*/memory")
    written = [(folder / file_name(number)).read_bytes().decode("utf-8")
               for number in range(len(blocks))]
    if os.environ.get(OUT_ENV):
        Path(os.environ[OUT_ENV]).write_text(json.dumps(
            {"program": claude_program.package, "version": claude_program.version,
             "written": written}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for number, (given, text) in enumerate(zip(blocks, written, strict=True)):
        ours = expected(given, [edit for edit in edits if edit["file"] == number], text,
                        claude_program.version)
        if differs_knowingly(given, text):
            assert ours != text, (number, given)
        else:
            assert ours == text, (number, given)
