"""``memtui hooks show|install|uninstall``: memtui merged into the agents' own settings files,
keeping everything else, idempotent, safe."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, fresh_home

from memtui.cli.main import main
from memtui.engine import codex_table
from memtui.engine.agent_setup import INSTALL, plan, write_change
from memtui.engine.installed_command import running_command
from memtui.engine.json_splice import blank_comments
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


def test_claude_code_hooks_of_other_events_keep_their_bytes(
        home: Path, cli: Callable[..., Any]) -> None:
    notify = '"Notification": [{"hooks": [{"type": "command", "command": "say caf\\u00e9"}]}]'
    original = '{\n  "model": "opus",\n  "hooks": {\n    ' + notify + '\n  }\n}\n'
    settings = write(home / ".claude" / "settings.json", original)
    assert cli("hooks", "install", "claude-code", "--write").code == 0
    installed = settings.read_text()
    assert notify in installed  # the escape and the one-line layout as the user wrote them
    assert our_hooks(json.loads(installed))["SessionStart"] == [hook_line("session-start")]
    assert cli("hooks", "uninstall", "claude-code", "--write").code == 0
    assert settings.read_text() == original


def test_claude_code_hooks_that_were_only_the_gate_stay_indented(
        home: Path, cli: Callable[..., Any]) -> None:
    """Members are set before any is taken out, so the hooks object never empties midway
    (an emptied one had the new members written at the top level's indent)."""
    settings = home / ".claude" / "settings.json"
    assert cli("hooks", "install", "claude-code", "--gate", "--write").code == 0
    gate_only = json.loads(settings.read_text())
    gate_only["hooks"] = {"PreToolUse": gate_only["hooks"]["PreToolUse"]}
    write(settings, json.dumps(gate_only, indent=2) + "\n")
    assert cli("hooks", "install", "claude-code", "--write").code == 0
    installed = settings.read_text()
    assert installed == json.dumps(json.loads(installed), indent=2, ensure_ascii=False) + "\n"
    assert "PreToolUse" not in our_hooks(json.loads(installed))


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


BOM = b"\xef\xbb\xbf"


def test_install_sets_only_the_keys_memtui_owns_and_says_which_store_it_drops(
        home: Path, cli: Callable[..., Any]) -> None:
    user_file = write(home / ".claude.json", json.dumps({"mcpServers": {"memtui": {
        "type": "stdio", "command": "/old/venv/bin/memtui",
        "args": ["--db", "/home/me/team.db", "mcp"], "env": {"MEMTUI_USER": "ann"}}}}))
    done = cli("hooks", "install", "claude-code", "--write")
    assert done.code == 0, done.err
    assert "replaces --db /home/me/team.db with the default store" in done.out
    assert json.loads(user_file.read_text())["mcpServers"]["memtui"] == {
        "type": "stdio", **SERVER, "env": {"MEMTUI_USER": "ann"}, "alwaysLoad": True}

    settings = write(home / ".gemini" / "settings.json", json.dumps({"mcpServers": {"memtui": {
        "command": "old", "args": ["--user", "bob", "mcp"], "env": {"A": "1"},
        "trust": True, "timeout": 30000}}}))
    done = cli("--json", "hooks", "install", "gemini")
    [planned] = done.json["files"]
    assert planned["summary"] == ("set mcpServers.memtui; replaces --user bob with the "
                                  "default user")
    assert json.loads(planned["content"])["mcpServers"]["memtui"] == {
        **SERVER, "env": {"A": "1"}, "trust": True, "timeout": 30000}
    assert json.loads(settings.read_text())["mcpServers"]["memtui"]["command"] == "old"

    assert install_codex_over(home, cli, (
        '[mcp_servers.memtui]\ncommand = "old"\nargs = [\n  "--db", "/team.db",\n  "mcp",\n]\n'
        'startup_timeout_sec = 30 # slow disk\n\n[mcp_servers.memtui.env]\nA = "1"\n'),
        "replaces --db /team.db with the default store") == {
        **SERVER, "startup_timeout_sec": 30, "env": {"A": "1"}}
    assert "startup_timeout_sec = 30 # slow disk\n" in (home / ".codex" / "config.toml").read_text()


def install_codex_over(home: Path, cli: Callable[..., Any], table: str, said: str
                       ) -> dict[str, Any]:
    """memtui's Codex entry after an install over ``table``, whose summary says ``said``."""
    config = write(home / ".codex" / "config.toml", table)
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 0 and said in done.out, done.err
    return dict(tomllib.loads(config.read_text())["mcp_servers"]["memtui"])


def test_install_drops_another_transports_keys_and_says_so(home: Path,
                                                           cli: Callable[..., Any]) -> None:
    assert install_codex_over(home, cli, (
        '[mcp_servers.memtui]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "T"\n'
        'startup_timeout_sec = 30\n'), "drops url, bearer_token_env_var") == {
        **SERVER, "startup_timeout_sec": 30}
    settings = write(home / ".gemini" / "settings.json", json.dumps({"mcpServers": {"memtui": {
        "httpUrl": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}, "trust": True}}}))
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 0 and "drops httpUrl, headers" in done.out
    assert json.loads(settings.read_text())["mcpServers"]["memtui"] == {**SERVER, "trust": True}
    stdio = write(home / "project" / ".mcp.json", json.dumps({"mcpServers": {"memtui": {
        "type": "stdio", "command": "old"}}}))
    done = cli("hooks", "install", "claude-code", "--project", str(home / "project"), "--write")
    assert done.code == 0 and "; drops" not in done.out
    assert json.loads(stdio.read_text())["mcpServers"]["memtui"]["type"] == "stdio"


def test_installing_again_with_the_same_options_says_nothing_of_them(
        home: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    db = str(tmp_path / "team.db")
    assert cli("--db", db, "hooks", "install", "gemini", "--write").code == 0
    again = cli("--db", db, "hooks", "install", "gemini", "--write")
    assert again.code == 0 and "already set" in again.out and "replaces" not in again.out
    other = cli("--db", str(tmp_path / "other.db"), "hooks", "install", "claude-code",
                "--project", str(home), "--write")
    assert other.code == 0 and "replaces" not in other.out  # nothing was installed there
    moved = cli("--db", str(tmp_path / "other.db"), "hooks", "install", "gemini", "--write")
    assert f"replaces --db {db} with --db {tmp_path / 'other.db'}" in moved.out


def test_a_backup_already_there_is_never_written_over(home: Path,
                                                      cli: Callable[..., Any]) -> None:
    settings = home / ".claude" / "settings.json"
    write(settings, "{}")
    settings.write_bytes(BOM + b'{\r\n  "model": "opus"\r\n}')
    mine = write(settings.with_name("settings.json.bak"), "my own backup\n")
    done = cli("--json", "hooks", "install", "claude-code", "--write")
    assert done.code == 0, done.err
    backups = {Path(file["path"]).name: file["backup"] for file in done.json["files"]}
    assert backups["settings.json"] == str(settings.with_name("settings.json.bak.1"))
    assert mine.read_text() == "my own backup\n"
    assert settings.with_name("settings.json.bak.1").read_bytes() == \
        BOM + b'{\r\n  "model": "opus"\r\n}'  # the exact bytes
    out = cli("hooks", "uninstall", "claude-code", "--write").out
    assert f"(written; the old file kept as {settings}.bak.2)" in out
    assert settings.read_bytes() == BOM + b'{\r\n  "model": "opus"\r\n}'
    again = cli("hooks", "install", "claude-code", "--write").out  # that copy is there
    assert f"the old file kept as {settings}.bak.1)" in again
    assert sorted(p.name for p in settings.parent.glob("settings.json.bak*")) == [
        "settings.json.bak", "settings.json.bak.1", "settings.json.bak.2"]


@pytest.mark.parametrize("name", ["settings.json", "missing.json", "."])
def test_a_backup_name_that_is_a_symlink_is_never_used(home: Path, cli: Callable[..., Any],
                                                       name: str) -> None:
    settings = write(home / ".gemini" / "settings.json", '{"theme": "dark"}')
    os.symlink(name, settings.with_name("settings.json.bak"))
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 0, done.err
    assert f"the old file kept as {settings}.bak.1)" in done.out
    assert settings.with_name("settings.json.bak.1").read_text() == '{"theme": "dark"}'
    assert os.readlink(settings.with_name("settings.json.bak")) == name
    assert not (home / ".gemini" / "missing.json").exists()


def test_bom_and_crlf_are_kept_and_added_lines_use_crlf(home: Path,
                                                         cli: Callable[..., Any]) -> None:
    settings = write(home / ".claude" / "settings.json", "")
    settings.write_bytes(BOM + b'{\r\n  "model": "opus"\r\n}\r\n')
    assert cli("hooks", "install", "claude-code", "--write").code == 0
    data = settings.read_bytes()
    assert data.startswith(BOM + b'{\r\n  "model": "opus",\r\n  "hooks": {\r\n')
    assert data.count(b"\n") == data.count(b"\r\n") and data.endswith(b"}\r\n")
    assert json.loads(data[len(BOM):])["hooks"]["SessionStart"]


PROJECT_TABLES = ('\n[projects."/home/me/src/[old]/app"]\ntrust_level = "trusted"\n\n'
                  '[projects."/home/me/src/new"]\ntrust_level = "trusted"\n')
MULTI_LINE_STRING = ('[profiles.review]\ndeveloper_instructions = """\nTo use memtui, add to '
                     'config.toml:\n[mcp_servers.memtui]\n[mcp_servers.github]\n"""\n'
                     'model = "o3"\n')


@pytest.mark.parametrize("tail", [
    PROJECT_TABLES,
    '\n[mcp_servers."docs[v2]"]\ncommand = "docs"\n',
    "\n[tools]\nlist = [\n  'a',\n# [mcp_servers.memtui]\n  'b',\n]\n",
    "\n[x]\ntext = '''\n# not a comment\n'''\n",
])
def test_codex_uninstall_keeps_the_tables_after_memtuis(home: Path, cli: Callable[..., Any],
                                                        tail: str) -> None:
    config = write(home / ".codex" / "config.toml", 'model = "o3"\n')
    assert cli("hooks", "install", "codex", "--write").code == 0
    config.write_text(config.read_text() + tail)  # Codex appends its own tables
    done = cli("hooks", "uninstall", "codex", "--write")
    assert done.code == 0, done.err
    assert config.read_text() == 'model = "o3"\n' + tail


def test_codex_uninstall_leaves_multi_line_strings_alone(home: Path,
                                                          cli: Callable[..., Any]) -> None:
    config = write(home / ".codex" / "config.toml", MULTI_LINE_STRING)
    done = cli("hooks", "uninstall", "codex", "--write")
    assert done.code == 0 and "no [mcp_servers.memtui] to remove" in done.out
    assert config.read_text() == MULTI_LINE_STRING
    assert not config.with_name("config.toml.bak").exists()
    config.write_text(MULTI_LINE_STRING + '\n[mcp_servers.memtui]\ncommand = "m"\n')
    assert cli("hooks", "uninstall", "codex", "--write").code == 0
    assert config.read_text() == MULTI_LINE_STRING


def test_codex_install_does_not_take_owned_keys_from_a_string(home: Path,
                                                              cli: Callable[..., Any]) -> None:
    table = ('[mcp_servers.memtui]\ncommand = "old"\nnote = """\ncommand = "kept"\n'
             '# kept too"""\n')
    config = write(home / ".codex" / "config.toml", table)
    assert cli("hooks", "install", "codex", "--write").code == 0
    assert tomllib.loads(config.read_text())["mcp_servers"]["memtui"] == {
        **SERVER, "note": 'command = "kept"\n# kept too'}
    assert cli("hooks", "uninstall", "codex", "--write").code == 0
    assert config.read_text() == ""


def test_a_codex_removal_that_would_change_another_value_is_refused(
        home: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    config = write(home / ".codex" / "config.toml", 'model = "o3"\n')
    assert cli("hooks", "install", "codex", "--write").code == 0
    config.write_text(config.read_text() + PROJECT_TABLES)
    before = config.read_text()
    monkeypatch.setattr(codex_table, "_TOML_HEADER", re.compile(  # a header it fails to see
        r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$"))
    done = cli("hooks", "uninstall", "codex", "--write")
    assert done.code == 5 and "cannot take [mcp_servers.memtui] out of" in done.err
    assert config.read_text() == before
    assert [path.name for path in config.parent.glob("config.toml.bak*")] == ["config.toml.bak"]


@pytest.mark.parametrize("original", [
    BOM + b'model = "x"\r\n# mine\r\n[tui]\r\nnotifications = true',
    b'model = "x"\n',
    b'model = "x"\n\n\n',
    b'model = "x"',
    b"\n",
    b"",
    b'[mcp_servers.other]\ncommand = "o"\n\n# next\n[profiles.fast]\nmodel = "m"\n',
    MULTI_LINE_STRING.encode(),
    PROJECT_TABLES.encode(),
])
def test_codex_install_then_uninstall_gives_back_the_file_byte_for_byte(
        home: Path, cli: Callable[..., Any], original: bytes) -> None:
    config = write(home / ".codex" / "config.toml", "")
    config.write_bytes(original)
    for _cycle in range(2):
        assert cli("hooks", "install", "codex", "--write").code == 0
        installed = config.read_bytes()
        assert tomllib.loads(installed.decode("utf-8-sig"))["mcp_servers"]["memtui"] == SERVER
        assert installed.startswith(original.rstrip(b"\n")) and \
            installed.endswith(b"\n") == (original.endswith(b"\n") or not original)
        assert cli("hooks", "uninstall", "codex", "--write").code == 0
        assert config.read_bytes() == original


def test_codex_uninstall_of_a_table_in_the_middle_keeps_the_next_tables_comment(
        home: Path, cli: Callable[..., Any]) -> None:
    config = write(home / ".codex" / "config.toml", (
        'model = "x"\n\n[mcp_servers.memtui]\ncommand = "m"\n\n[mcp_servers.memtui.env]\n'
        'A = "1"\n\n# fast profile\n[profiles.fast]\nmodel = "m"\n'))
    assert cli("hooks", "uninstall", "codex", "--write").code == 0
    assert config.read_text() == 'model = "x"\n\n# fast profile\n[profiles.fast]\nmodel = "m"\n'


def test_codex_inline_mcp_servers_is_refused_in_words(home: Path,
                                                      cli: Callable[..., Any]) -> None:
    inline = 'model = "x"\nmcp_servers = { other = { command = "x" } }\n\n[tui]\nx = 1\n'
    config = write(home / ".codex" / "config.toml", inline)
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 5 and done.err.count("\n") == 1
    assert "inline table (mcp_servers = { ... })" in done.err and "by hand" in done.err
    assert f'memtui = {{ command = "{RUNNING[0]}"' in done.err
    assert "not valid TOML" not in done.err
    assert config.read_text() == inline and not config.with_name("config.toml.bak").exists()


def test_a_file_of_another_user_is_never_written(home: Path, cli: Callable[..., Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    settings = write(home / ".gemini" / "settings.json", '{"theme": "dark"}')
    other = os.geteuid() + 4242  # memtui runs as someone else (root under sudo -E)
    monkeypatch.setattr(os, "geteuid", lambda: other)
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 4 and "belongs to another user" in done.err
    assert settings.read_text() == '{"theme": "dark"}'
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    done = cli("hooks", "install", "codex", "--write")  # a new file in another's folder
    assert done.code == 4 and "its folder" in done.err and not (home / ".codex").exists()


GEMINI_WITH_COMMENTS = """{
  // the look
  "theme": "GitHub", /* kept */
  "mcpServers": {"other": {"command": "o"}} // servers
}
"""


def test_gemini_settings_with_comments_are_edited_with_them_kept(
        home: Path, cli: Callable[..., Any]) -> None:
    settings = write(home / ".gemini" / "settings.json", GEMINI_WITH_COMMENTS)
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 0, done.err
    text = settings.read_text()
    for comment in ("// the look", "/* kept */", "// servers"):
        assert comment in text
    assert "installed mcp" in cli("hooks", "show", "gemini").out
    assert cli("hooks", "uninstall", "gemini", "--write").code == 0
    assert settings.read_text() == GEMINI_WITH_COMMENTS


@pytest.mark.parametrize("original", [
    '{\n  "mcpServers": {\n    // mine\n    "other": {"command": "o"}\n  },\n  "x": 1\n}\n',
    '{"theme": "dark"}',
    '{\n\t"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}\n}',
])
def test_a_json_install_then_uninstall_gives_back_the_file_byte_for_byte(
        home: Path, cli: Callable[..., Any], original: str) -> None:
    settings = write(home / ".gemini" / "settings.json", original)
    assert cli("hooks", "install", "gemini", "--write").code == 0
    installed = settings.read_text()
    assert json.loads(blank_comments(installed))["mcpServers"]["memtui"] == SERVER
    if "other" in original:  # the other server's line as it was, memtui's in the file's indent
        assert '    "other": {"command": "o"},\n    "memtui": {\n      "command": ' in installed
    assert cli("hooks", "uninstall", "gemini", "--write").code == 0
    assert settings.read_text() == original


def test_comments_memtui_cannot_keep_are_a_refusal_saying_what_to_add(
        home: Path, cli: Callable[..., Any]) -> None:
    inside = '{"mcpServers": {"memtui": {"command": "old" /* pinned */}}}'
    settings = write(home / ".gemini" / "settings.json", inside)
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 5 and "comments" in done.err and "not valid JSON" not in done.err
    assert f'"memtui": {{"command": "{RUNNING[0]}"' in done.err
    assert settings.read_text() == inside
    claude = write(home / ".claude" / "settings.json", '{\n  // no\n}\n')
    done = cli("hooks", "install", "claude-code", "--write")  # Claude Code reads no comments
    assert done.code == 5 and "not valid JSON" in done.err
    assert claude.read_text() == '{\n  // no\n}\n'


def test_claude_code_hooks_say_which_store_and_user_they_drop(
        home: Path, tmp_path: Path, cli: Callable[..., Any]) -> None:
    db = str(tmp_path / "team.db")
    assert cli("--db", db, "--user", "ann", "hooks", "install", "claude-code",
               "--write").code == 0
    done = cli("--user", "bob", "hooks", "install", "claude-code", "--write")
    assert done.code == 0, done.err
    lines = [line for line in done.out.splitlines() if "settings.json" in line]
    assert f"hooks; replaces --db {db} with the default store; replaces --user ann with " \
        "--user bob (written" in lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a file to another user")
def test_root_under_sudo_leaves_the_users_file_to_the_user(home: Path,
                                                           cli: Callable[..., Any]) -> None:
    user_file = write(home / ".claude.json", '{"mcpServers": {}}')
    user_file.chmod(0o600)
    os.chown(user_file, 65534, 65534)
    done = cli("hooks", "install", "claude-code", "--write")
    assert done.code == 4 and "belongs to another user (uid 65534)" in done.err
    info = user_file.stat()
    assert (info.st_uid, info.st_mode & 0o777) == (65534, 0o600)
    assert user_file.read_text() == '{"mcpServers": {}}' and not (home / ".claude").exists()
