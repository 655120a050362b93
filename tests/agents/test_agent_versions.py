"""Each agent's version as found on PATH and in what it wrote, and ``agents show`` naming them
with the layout read and any installed memtui command that would not start."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from cli_support import CliResult, fresh_home

from memtui.cli.main import main
from memtui.engine.agents.overview import agents_overview
from memtui.engine.agents.versions import (
    AgentVersion,
    agent_version,
    installed_version,
    written_version,
)


def npm_program(root: Path, package: str, version: str, bin_name: str, entry: str) -> Path:
    """An npm install: ``node_modules/<package>`` with its package.json, the ``.bin`` link."""
    folder = root / "node_modules" / package
    (folder / Path(entry).parent).mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": package, "version": version}))
    (folder / entry).write_text("#!/bin/sh\n")
    (folder / entry).chmod(0o755)
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / bin_name).symlink_to(folder / entry)
    return bin_dir


def test_the_version_comes_from_the_npm_package(tmp_path: Path) -> None:
    bin_dir = npm_program(tmp_path, "@anthropic-ai/claude-code", "2.1.197", "claude",
                          "bin/claude.exe")
    program, version = installed_version("claude", str(bin_dir))
    assert program == str(bin_dir / "claude") and version == "2.1.197"
    bin_dir = npm_program(tmp_path / "g", "@google/gemini-cli", "0.61.0", "gemini",
                          "bundle/gemini.js")
    assert installed_version("gemini", str(bin_dir))[1] == "0.61.0"


def test_another_package_of_the_same_name_is_not_believed(tmp_path: Path) -> None:
    bin_dir = npm_program(tmp_path, "some-wrapper", "9.9.9", "codex", "bin/codex.js")
    assert installed_version("codex", str(bin_dir)) == (str(bin_dir / "codex"), None)


def test_a_native_install_names_its_version_in_its_path(tmp_path: Path) -> None:
    versions = tmp_path / "share" / "claude" / "versions"
    versions.mkdir(parents=True)
    (versions / "2.1.332").write_text("binary")
    (versions / "2.1.332").chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").symlink_to(versions / "2.1.332")
    assert installed_version("claude", str(tmp_path / "bin"))[1] == "2.1.332"


def test_not_on_path(tmp_path: Path) -> None:
    assert installed_version("codex", str(tmp_path)) == (None, None)
    assert agent_version("codex", None, str(tmp_path)).words == "codex not on PATH"


def test_claude_code_files_name_the_version_that_wrote_them(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-work-shop"
    project.mkdir(parents=True)
    old = project / "old.jsonl"
    old.write_text(json.dumps({"type": "user", "version": "2.1.100"}) + "\n")
    os.utime(old, (1_000_000, 1_000_000))
    new = project / "new.jsonl"
    new.write_text("\n".join(json.dumps({"type": "user", "version": v, "message": "x" * 100})
                             for v in ("2.1.190", "2.1.197")) + "\n")
    assert written_version("claude", tmp_path) == ("2.1.197", str(new))
    (project / "broken.jsonl").write_bytes(b"\xff\xfe not json")
    os.utime(project / "broken.jsonl", (2_000_000_000, 2_000_000_000))
    assert written_version("claude", tmp_path) == (None, None)


def test_codex_rollouts_name_their_cli_version(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "12" / "04"
    day.mkdir(parents=True)
    older = tmp_path / "sessions" / "2026" / "11" / "30"
    older.mkdir(parents=True)
    (older / "rollout-a.jsonl").write_text(json.dumps(
        {"type": "session_meta", "payload": {"cli_version": "0.160.0"}}) + "\n")
    rollout = day / "rollout-b.jsonl"
    rollout.write_text(json.dumps({"type": "session_meta",
                                   "payload": {"id": "t", "cli_version": "0.169.1"}}) + "\n"
                       + json.dumps({"type": "event_msg"}) + "\n")
    assert written_version("codex", tmp_path) == ("0.169.1", str(rollout))
    rollout.write_text("{ not json\n")
    assert written_version("codex", tmp_path) == (None, None)
    assert written_version("codex", tmp_path / "missing") == (None, None)
    assert written_version("gemini", tmp_path) == (None, None)


def test_words() -> None:
    assert AgentVersion("claude", "/b/claude", "2.1.197", "2.1.190", "/t").words == (
        "2.1.197 on PATH; files written by 2.1.190")
    assert AgentVersion("codex", "/b/codex", None, None, None).words == (
        "version unknown on PATH")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with an old bare-name memtui install in Codex and a Codex on PATH."""
    folder = fresh_home(tmp_path, monkeypatch)
    (folder / ".codex").mkdir(parents=True)
    (folder / ".codex" / "config.toml").write_text(
        '[mcp_servers.memtui]\ncommand = "/gone/venv/bin/memtui"\nargs = ["mcp"]\n')
    bin_dir = npm_program(tmp_path / "npm", "@openai/codex", "0.169.1", "codex", "bin/codex.js")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return folder


def test_agents_show_names_versions_layout_and_a_broken_command(home: Path) -> None:
    overview = agents_overview()
    codex = next(info for info in overview.homes if info.agent == "codex")
    assert codex.version is not None and codex.version.installed == "0.169.1"
    assert codex.layout == "no Codex database found"
    [broken] = codex.broken_commands
    assert broken.what == "mcp" and broken.check.problem == "/gone/venv/bin/memtui: no such file"
    out, err = io.StringIO(), io.StringIO()
    code = main(["agents", "show"], stdout=out, stderr=err)
    done = CliResult(code, out.getvalue(), err.getvalue())
    assert done.code == 0, done.err
    assert "version: 0.169.1 on PATH" in done.out
    assert "memtui's mcp entry in" in done.out and "/gone/venv/bin/memtui: no such file" in done.out
    out = io.StringIO()
    assert main(["--json", "agents", "show"], stdout=out, stderr=err) == 0
    data = json.loads(out.getvalue())
    codex_json = next(info for info in data["homes"] if info["agent"] == "codex")
    assert codex_json["version"]["installed"] == "0.169.1"
    assert codex_json["connection"][0]["ok"] is False


def test_an_explicit_home_is_not_checked_against_the_users_settings(home: Path) -> None:
    overview = agents_overview(codex_home=home / ".codex")
    codex = next(info for info in overview.homes if info.agent == "codex")
    assert codex.connection == ()
