"""What the real Claude Code makes of a memory file's front matter, against memtui's
``claude_memory_text``: the fake model has the Write tool save one file for each case, then
edits the first one; every file Claude Code left must be what memtui's write gate would have
written for the same call (the session id and ``modified:`` time taken from the file).

With ``MEMTUI_CLAUDE_FRONT_MATTER_OUT=<file>`` the run also records what the program wrote
(``tests/data/claude_front_matter/claude-code-<version>.json``, which the unit tests in
tests/agents/test_claude_stamp.py read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from claude_front_matter import EDIT, differs_knowingly, expected

from .agent_install import AgentProgram
from .conftest import AgentHome
from .fake_model.anthropic import AnthropicAdapter
from .fake_model.exchange import CallTool, Exchange, Policy, Reply, Say
from .fake_model.server import FakeModelServer
from .scenarios.claude_code import memory_dir_of, run_session

DESCRIPTIONS = (
    "plain words here", "has, comma: and colon # hash", "a #b", "yes", "123", "true", "~",
    "x-", "it's", "*star", "a?b", "a:b", "2024-01-01", "x: ", "[a] b", "b {a}", "a`b", "100%",
    "NaN", '"123"', '"a\\\\b"', '"-"', '"12:30"', "'it''s'", '"<x>"', '"a\\nb"', "ünï — d",
)
"""A ``description`` as a model might give it, in a block as Claude Code's prompt asks."""
OTHER_BLOCKS = (
    "---\nname: Big Name\ndescription: d\ntype: user\nextra: 5\n---\nBody\n",
    "no front matter\n",
    "---\nname: x\ndescription: d\nmetadata:\n  type: project\n  originSessionId: old\n---\nB\n",
    "---\nname: x\ntags:\n  - a\n---\nB\n",
    "---\nname: x\ndescription: &a\n---\n",
    "---\nname: x\ndescription: d\nmetadata:\n  type: project\n  originSessionId: old\n"
    "  modified: 2020-01-01T00:00:00.000Z\n---\nB\n",
    "---\nname: x\ndescription: d\n---\nB\n",
    "---\nname: x\ndescription: d\nmetadata:\n  type: project\n"
    "  modified: 2020-01-01T00:00:00.000Z\n---\nB\n",
    "---\nname: q\ndescription: 123 #x\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: a: b: c\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: #tag\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: &a b #c\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: null #x\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: \"quoted\" # c\nmetadata:\n  type: project\n---\nB\n",
    "---\nname: q\ndescription: d\nmetadata: # the type\n  type: project\n---\n\n  B\n",
    "---\nname: q\ndescription: d\nmodified: 2020-01-01\n---\nB\n",
    "---\nname: q\ndescription: d\nmetadata:\n  type: project\n  originSessionId: old\n"
    "  modified: 2020-01-01 # when\n---\nB\n",
    "---\nname: q\ndescription: d\noriginSessionId: old\n---\nB\n",
    "---\nname: q\ndescription: a --- b\nmetadata:\n  type: project\n---\nB\n",
    "---\n# only a comment\n---\nB\n",
)
"""Blocks Claude Code reads differently: flat keys, a session already named, a list, an
anchor, a ``modified`` time, comments, a fence inside a value."""
OUT_ENV = "MEMTUI_CLAUDE_FRONT_MATTER_OUT"


def _blocks() -> list[str]:
    return [f"---\nname: q\ndescription: {text}\nmetadata:\n  type: project\n---\nB\n"
            for text in DESCRIPTIONS] + list(OTHER_BLOCKS)


def _write_each_then_edit(blocks: list[str]) -> Policy:
    def policy(exchange: Exchange) -> Reply:
        folder = memory_dir_of(exchange)
        if "Write" not in exchange.tool_names or folder is None:
            return Say("Saved.")
        calls = [CallTool("Write", {"file_path": f"{folder}c{number:02d}.md", "content": text})
                 for number, text in enumerate(blocks)]
        calls += [CallTool("Read", {"file_path": f"{folder}c00.md"}),
                  CallTool("Edit", {"file_path": f"{folder}c00.md", **EDIT})]
        done = len(exchange.tool_results)
        return calls[done] if done < len(calls) else Say("Saved.")

    return policy


def test_memtui_saves_each_block_as_claude_code_does(claude_program: AgentProgram,
                                                    agent_home: AgentHome) -> None:
    blocks = _blocks()
    with FakeModelServer([AnthropicAdapter()], _write_each_then_edit(blocks)) as server:
        done = run_session(agent_home, claude_program, server, "remember these")
    assert done.returncode == 0, done.stderr[-1500:]
    (folder,) = (agent_home.root / ".claude" / "projects").glob("*/memory")
    cases = [{"file": f"c{number:02d}.md", "given": given,
              "written": (folder / f"c{number:02d}.md").read_text(encoding="utf-8")}
             for number, given in enumerate(blocks)]
    if os.environ.get(OUT_ENV):
        Path(os.environ[OUT_ENV]).write_text(json.dumps(
            {"program": claude_program.package, "version": claude_program.version,
             "edit": {"file": "c00.md", **EDIT}, "cases": cases}, indent=1,
            ensure_ascii=False) + "\n", encoding="utf-8")
    for number, case in enumerate(cases):
        ours = expected(case["given"], case["written"], claude_program.version, number == 0)
        if differs_knowingly(case["given"]):
            assert ours == case["given"] != case["written"], case["file"]
        else:
            assert ours == case["written"], (case["file"], case["given"])
