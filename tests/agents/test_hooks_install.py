"""``memtui hooks show|install|uninstall``: memtui merged into the agents' own settings files,
keeping everything else, idempotent, safe."""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, fresh_home

from memtui.cli.main import main
from memtui.engine.agent_setup import INSTALL, plan, write_change
from memtui.engine.installed_command import running_command
from memtui.errors import Conflict

RUNNING = running_command(sys.argv[0], sys.executable)
"""The words ``hooks install`` names by default: this memtui, absolutely."""
SERVER = {"command": RUNNING[0], "args": [*RUNNING[1:], "mcp"]}
"""The MCP server entry an install writes."""


def hook_line(which: str) -> str:
    """The hook command an install writes (``which``: session-start / session-end)."""
    return " ".join(shlex.quote(word) for word in (*RUNNING, "hook", which))

CODEX_CONFIG = """# Codex settings, kept by hand
model = "gpt-5-codex"  # the default model
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
# the token comes from the environment
env = { GITHUB_TOKEN = "from-env" }

[profiles.fast]
model = "gpt-5-mini"
"""


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run ``memtui ARGS`` in-process with no ``--db`` (the store: ``$MEMTUI_DB``), as a
    person types the README's commands."""
    monkeypatch.setenv("MEMTUI_DB", str(tmp_path / "env.db"))

    def run(*args: str) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        code = main(list(args), stdout=out, stderr=err)
        return CliResult(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home folder: every agent's settings live under it."""
    return fresh_home(tmp_path, monkeypatch)


def write(path: Path, text: str) -> Path:
    """Write a file, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def our_hooks(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Every hook command, by event."""
    return {event: [hook["command"] for group in groups for hook in group.get("hooks", [])]
            for event, groups in settings.get("hooks", {}).items()}


def test_show_prints_the_configuration_and_writes_nothing(home: Path, cli: Callable[..., Any]
                                                         ) -> None:
    done = cli("hooks", "show", "claude-code")
    assert done.code == 0
    assert "mcpServers" in done.out and hook_line("session-start") in done.out
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    done = cli("--json", "hooks", "show", "codex")
    files = done.json["files"]
    assert files[0]["path"] == str(home / ".codex" / "config.toml")
    assert tomllib.loads(files[0]["content"])["mcp_servers"]["memtui"] == SERVER
    assert done.json["written"] is False and not (home / ".codex").exists()


def test_claude_code_install_keeps_other_keys_and_is_idempotent(
        home: Path, cli: Callable[..., Any]) -> None:
    settings = write(home / ".claude" / "settings.json", json.dumps({
        "model": "opus", "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
                  "PreToolUse": [{"matcher": "Bash", "hooks": [
                      {"type": "command", "command": "guard.sh"}]}]}}, indent=4))
    user_file = write(home / ".claude.json", json.dumps({
        "numStartups": 12, "projects": {"/x": {"allowedTools": []}},
        "mcpServers": {"github": {"command": "gh-mcp"}}}))
    original = settings.read_text()

    dry = cli("hooks", "install", "claude-code")
    assert dry.code == 0 and "would change" in dry.out and "--write" in dry.out
    assert settings.read_text() == original

    done = cli("hooks", "install", "claude-code", "--write")
    assert done.code == 0, done.err
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(npm test)"]}
    commands = our_hooks(data)
    assert commands["Stop"] == ["notify-send done", hook_line("session-end")]
    assert commands["SessionEnd"] == [hook_line("session-end")]
    assert commands["SessionStart"] == [hook_line("session-start")]
    assert commands["PreToolUse"] == ["guard.sh"]
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup"
    assert (home / ".claude" / "settings.json.bak").read_text() == original
    user = json.loads(user_file.read_text())
    assert user["numStartups"] == 12 and user["projects"] == {"/x": {"allowedTools": []}}
    assert user["mcpServers"] == {"github": {"command": "gh-mcp"},  # tools never deferred
                                  "memtui": {**SERVER, "alwaysLoad": True}}

    installed = (settings.read_text(), user_file.read_text())
    again = cli("hooks", "install", "claude-code", "--write")
    assert again.code == 0 and "already set" in again.out
    assert (settings.read_text(), user_file.read_text()) == installed  # no duplicate

    removed = cli("hooks", "uninstall", "claude-code", "--write")
    assert removed.code == 0
    data = json.loads(settings.read_text())
    assert our_hooks(data) == {"Stop": ["notify-send done"], "PreToolUse": ["guard.sh"]}
    assert json.loads(user_file.read_text())["mcpServers"] == {"github": {"command": "gh-mcp"}}


def test_claude_code_project_install_names_the_store_and_user(
        home: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    db_path = tmp_path / "named.db"
    done = cli("--db", str(db_path), "--user", "ann", "hooks", "install", "claude-code", "--project", str(project),
               "--write")
    assert done.code == 0, done.err
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["memtui"]
    assert server["args"] == [*RUNNING[1:], "--db", str(db_path), "--user", "ann", "mcp"]
    hooks = our_hooks(json.loads((project / ".claude" / "settings.json").read_text()))
    assert hooks["SessionStart"] == [" ".join(shlex.quote(word) for word in (
        *RUNNING, "--db", str(db_path), "--user", "ann", "hook", "session-start"))]
    assert not (home / ".claude").exists()


def test_a_store_folder_that_does_not_exist_is_warned_of_and_flagged(
        home: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    db_path = tmp_path / "my store" / "m.db"
    done = cli("--db", str(db_path), "--user", "ann", "hooks", "install", "claude-code",
               "--write")
    assert done.code == 0  # written, with a warning line
    assert done.err.count("\n") == 1 and done.err.startswith("memtui: warning: ")
    assert f"folder {db_path.parent} does not exist" in done.err
    shown = cli("--json", "hooks", "show", "claude-code").json["installed"]
    assert shown and all(not entry["ok"] and str(db_path.parent) in entry["problem"]
                         for entry in shown)
    assert "(BROKEN: the store's folder" in cli("hooks", "show", "claude-code").out
    db_path.parent.mkdir()
    assert cli("--db", str(db_path), "hooks", "install", "claude-code").err == ""
    assert all(entry["ok"] for entry in
               cli("--json", "hooks", "show", "claude-code").json["installed"])


def test_codex_install_keeps_comments_and_other_tables(home: Path,
                                                       cli: Callable[..., Any]) -> None:
    config = write(home / ".codex" / "config.toml", CODEX_CONFIG)
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 0, done.err
    text = config.read_text()
    assert text.startswith(CODEX_CONFIG)  # every comment and key as it was
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["memtui"] == SERVER
    assert parsed["mcp_servers"]["github"]["env"] == {"GITHUB_TOKEN": "from-env"}
    assert parsed["profiles"]["fast"]["model"] == "gpt-5-mini"
    assert (home / ".codex" / "config.toml.bak").read_text() == CODEX_CONFIG

    again = cli("hooks", "install", "codex", "--write")
    assert again.code == 0 and config.read_text() == text
    assert text.count("[mcp_servers.memtui]") == 1

    # an older memtui entry in the middle of the file is replaced where it stands
    config.write_text(CODEX_CONFIG.replace("[profiles.fast]", '[mcp_servers.memtui]\n'
                                           'command = "old-memtui"\n\n[profiles.fast]'))
    assert cli("hooks", "install", "codex", "--write").code == 0
    moved = config.read_text()
    assert moved.count("[mcp_servers.memtui]") == 1 and "old-memtui" not in moved
    assert moved.index("[mcp_servers.memtui]") < moved.index("[profiles.fast]")

    assert cli("hooks", "uninstall", "codex", "--write").code == 0
    assert tomllib.loads(config.read_text()) == tomllib.loads(CODEX_CONFIG)
    assert "# the token comes from the environment" in config.read_text()


def test_codex_refuses_what_it_cannot_edit(home: Path, cli: Callable[..., Any]) -> None:
    config = write(home / ".codex" / "config.toml", "model = \n")
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 5 and "not valid TOML" in done.err and done.err.count("\n") == 1
    assert config.read_text() == "model = \n"
    inline = '[mcp_servers]\nmemtui = { command = "memtui", args = ["x"] }\n'
    config.write_text(inline)
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 5 and "inline table" in done.err and config.read_text() == inline


def test_gemini_install_keeps_other_keys(home: Path, cli: Callable[..., Any]) -> None:
    settings = write(home / ".gemini" / "settings.json", json.dumps({
        "theme": "GitHub", "mcpServers": {"other": {"command": "o"}},
        "context": {"fileName": "GEMINI.md"}}))
    assert cli("hooks", "install", "gemini", "--write").code == 0
    data = json.loads(settings.read_text())
    assert data["theme"] == "GitHub" and data["context"] == {"fileName": "GEMINI.md"}
    assert data["mcpServers"] == {"other": {"command": "o"},
                                  "memtui": SERVER}
    before = settings.read_text()
    assert cli("hooks", "install", "gemini", "--write").code == 0
    assert settings.read_text() == before
    assert cli("hooks", "uninstall", "gemini", "--write").code == 0
    assert json.loads(settings.read_text())["mcpServers"] == {"other": {"command": "o"}}


@pytest.mark.parametrize("agent,relative", [("claude-code", ".claude/settings.json"),
                                            ("gemini", ".gemini/settings.json")])
def test_a_settings_file_that_is_not_json_is_refused(home: Path, cli: Callable[..., Any],
                                                     agent: str, relative: str) -> None:
    settings = write(home / relative, '{"theme": "dark",, }')
    done = cli("hooks", "install", agent, "--write")
    assert done.code == 5 and "not valid JSON" in done.err and done.err.count("\n") == 1
    assert settings.read_text() == '{"theme": "dark",, }'
    assert not settings.with_name(settings.name + ".bak").exists()


def test_a_symlink_leading_outside_is_refused(home: Path, tmp_path: Path,
                                              cli: Callable[..., Any]) -> None:
    outside = write(tmp_path / "elsewhere" / "settings.json", "{}")
    (home / ".gemini").mkdir()
    os.symlink(outside, home / ".gemini" / "settings.json")
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 5 and "outside" in done.err
    assert outside.read_text() == "{}"


def test_a_file_changed_since_it_was_read_is_not_overwritten(home: Path) -> None:
    settings = write(home / ".gemini" / "settings.json", '{"theme": "dark"}')
    [change] = plan("gemini", INSTALL)
    settings.write_text('{"theme": "light"}')  # the agent wrote meanwhile
    with pytest.raises(Conflict):
        write_change(change)
    assert settings.read_text() == '{"theme": "light"}'


def test_the_file_mode_is_kept(home: Path, cli: Callable[..., Any]) -> None:
    settings = write(home / ".gemini" / "settings.json", "{}")
    settings.chmod(0o640)
    assert cli("hooks", "install", "gemini", "--write").code == 0
    assert settings.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in settings.parent.iterdir() if p.name.endswith(".tmp")] == []
