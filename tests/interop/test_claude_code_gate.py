"""Contract tests of the write gate (issue 38) with the real Claude Code: the fake model
asks for a Write into the memory folder, memtui's PreToolUse hook denies it with the id of
the held write, the write waits in memtui's inbox, approving writes the file as Claude Code
itself would have (checked against a home where Claude Code wrote it) with its MEMORY.md
line, and the next session loads that index. ``redact`` lets Claude Code write the file with
the secret replaced; ``ask`` leaves it to Claude Code's permission prompt, which a print-mode
session cannot answer; a file outside the memory is written at once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .agent_install import AgentProgram
from .conftest import AgentHome, new_agent_home
from .fake_model.anthropic import AnthropicAdapter
from .fake_model.exchange import CallTool, Exchange, Policy, Reply, Say
from .fake_model.server import FakeModelServer
from .scenarios.claude_code import install_memtui, memory_dir_of, run_session

TOPIC = ("---\nname: deploy-days\ndescription: we deploy on Fridays, never on Mondays\n"
         "metadata:\n  type: project\n---\n\nWe deploy on Fridays only.\n\n**Why:** Monday "
         "is the support rush.\n")
INDEX_LINE = "- [deploy-days](deploy-days.md) — we deploy on Fridays, never on Mondays"
SECRET = "ghp_R8x2Kq9LmZ4vT7wN1pY6sB3dF0hJ5cXeA2uQ"
DONE = "Noted."
WAITS = re.compile(r"memtui: this memory waits for the user's review as (write_\w+); "
                   r"go on with the task")


def _ok(done: Any) -> Any:
    assert done.returncode == 0, f"rc {done.returncode}: {done.stderr[-1500:]}"
    return done


def _json(done: Any) -> Any:
    return json.loads(_ok(done).stdout)


def write_policy(name: str, content: str, *, outside: Path | None = None) -> Policy:
    """The model writes ``name`` into the memory folder the system prompt names (or the
    file ``outside``) with the Write tool, then ends its turn."""
    def policy(exchange: Exchange) -> Reply:
        folder = memory_dir_of(exchange)
        if "Write" not in exchange.tool_names or folder is None or exchange.tool_results:
            return Say(DONE)
        target = str(outside) if outside is not None else folder + name
        return CallTool("Write", {"file_path": target, "content": content})

    return policy


def _gate(home: AgentHome, mode: str | None = None) -> None:
    install_memtui(home)
    _ok(home.memtui("hooks", "install", "claude-code", "--gate", "--write"))
    if mode is not None:
        _ok(home.memtui("settings", "set", f"claude_memory_gate={mode}"))


def _memory(home: AgentHome) -> Path:
    (folder,) = (home.root / ".claude" / "projects").glob("*/memory")
    return folder


def _session(home: AgentHome, program: AgentProgram, policy: Policy,
             prompt: str = "remember the deploy day") -> FakeModelServer:
    with FakeModelServer([AnthropicAdapter()], policy) as server:
        _ok(run_session(home, program, server, prompt))
    return server


def test_a_memory_write_is_denied_held_approved_and_loaded_next_session(
        claude_program: AgentProgram, agent_home: AgentHome, tmp_path: Path) -> None:
    _gate(agent_home)
    server = _session(agent_home, claude_program, write_policy("deploy-days.md", TOPIC))
    (result,) = [item for exchange in server.exchanges for item in exchange.tool_results][:1]
    match = WAITS.search(result.text)
    assert result.name == "Write" and match is not None, result.text
    folder = Path(memory_dir_of(server.exchanges[0]) or "")
    assert not (folder / "deploy-days.md").exists()
    (held,) = _json(agent_home.memtui("--json", "inbox", "list"))["items"]
    assert (held["id"], held["source"], held["tool"]) == (match.group(1), "claude-code",
                                                          "Write")
    assert held["file"] == str(folder / "deploy-days.md")
    assert held["project"] == str(agent_home.project) and held["session_id"]
    assert "+We deploy on Fridays only." in held["diff"]
    assert held["index"]["adds"] == INDEX_LINE
    _ok(agent_home.memtui("inbox", "approve", held["id"]))
    written = (folder / "deploy-days.md").read_text(encoding="utf-8")
    assert f"originSessionId: {held['session_id']}\n" in written
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == INDEX_LINE + "\n"
    # the bytes Claude Code itself writes for the same call, in a home without the gate
    (tmp_path / "plain").mkdir()
    plain = new_agent_home(tmp_path / "plain")
    install_memtui(plain)
    _session(plain, claude_program, write_policy("deploy-days.md", TOPIC))
    own = (_memory(plain) / "deploy-days.md").read_text(encoding="utf-8")
    session = re.search(r"originSessionId: (\S+)", own)
    assert session is not None
    own = own.replace(session.group(1), held["session_id"])
    assert written == re.sub(r"(?m)^(  modified: )\S+$",  # the time the gate held it
                             lambda line: line.group(1) + held["created_at"], own)
    # the next session loads the index with the approved line
    server = _session(agent_home, claude_program, lambda _exchange: Say(DONE), "hello")
    assert INDEX_LINE in server.exchanges[0].text
    assert _json(agent_home.memtui("--json", "inbox", "list"))["count"] == 0


def test_a_rejected_write_is_refused_again(claude_program: AgentProgram,
                                           agent_home: AgentHome) -> None:
    _gate(agent_home)
    _session(agent_home, claude_program, write_policy("deploy-days.md", TOPIC))
    (held,) = _json(agent_home.memtui("--json", "inbox", "list"))["items"]
    _ok(agent_home.memtui("inbox", "reject", held["id"]))
    server = _session(agent_home, claude_program, write_policy("deploy-days.md", TOPIC))
    (result,) = [item for exchange in server.exchanges for item in exchange.tool_results][:1]
    assert "the user rejected this memory (deploy-days.md) before" in result.text
    assert _json(agent_home.memtui("--json", "inbox", "list"))["count"] == 0


def test_redact_mode_lets_claude_code_write_the_file_redacted(
        claude_program: AgentProgram, agent_home: AgentHome) -> None:
    _gate(agent_home, "redact")
    _session(agent_home, claude_program,
             write_policy("token.md", TOPIC.replace("only.", f"only; token {SECRET}.")))
    written = (_memory(agent_home) / "token.md").read_text(encoding="utf-8")
    assert SECRET not in written and "only; token [REDACTED]." in written
    assert "node_type: memory" in written  # Claude Code wrote it, with its own front matter
    assert _json(agent_home.memtui("--json", "inbox", "list"))["count"] == 0


def test_ask_mode_leaves_it_to_claude_codes_prompt(claude_program: AgentProgram,
                                                   agent_home: AgentHome) -> None:
    _gate(agent_home, "ask")
    server = _session(agent_home, claude_program, write_policy("deploy-days.md", TOPIC))
    results = [item for exchange in server.exchanges for item in exchange.tool_results]
    assert results and "memtui: this memory waits" not in results[0].text
    folders = list((agent_home.root / ".claude" / "projects").glob("*/memory/deploy-days.md"))
    assert folders == []  # print mode has no one to ask: Claude Code refuses the write
    assert _json(agent_home.memtui("--json", "inbox", "list"))["count"] == 0


def test_a_write_outside_the_memory_goes_through(claude_program: AgentProgram,
                                                 agent_home: AgentHome) -> None:
    _gate(agent_home)
    target = agent_home.project / "notes.txt"
    _session(agent_home, claude_program, write_policy("", "plain file\n", outside=target))
    assert target.read_text(encoding="utf-8") == "plain file\n"
    assert _json(agent_home.memtui("--json", "inbox", "list"))["count"] == 0
