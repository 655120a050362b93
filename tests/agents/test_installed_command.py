"""The memtui command written into the agents' settings: absolute by default, ``--command`` to
choose, and a check that flags an installed command that no longer exists or runs."""

from __future__ import annotations

import io
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from cli_support import CliResult, fresh_home

from memtui.cli.main import main
from memtui.engine.agent_setup import INSTALL, UNINSTALL, installed_entries, plan, write_change
from memtui.engine.installed_command import (
    check_command,
    chosen_command,
    executable_problem,
    running_command,
)
from memtui.errors import InvalidInput


def script(path: Path, body: str, interpreter: str = "/bin/sh") -> Path:
    """An executable script."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{interpreter}\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home; the agents' settings under it."""
    return fresh_home(tmp_path, monkeypatch)


def cli(*args: str) -> CliResult:
    """``memtui ARGS`` in-process."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return CliResult(code, out.getvalue(), err.getvalue())


# ---- which command --------------------------------------------------------------------------


def test_a_memtui_program_names_itself_absolutely(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    program = script(tmp_path / "venv" / "bin" / "memtui", "exit 0")
    monkeypatch.chdir(tmp_path / "venv")
    assert running_command("bin/memtui", "/nowhere/python") == [str(program)]


def test_otherwise_the_memtui_beside_the_python(tmp_path: Path) -> None:
    program = script(tmp_path / "bin" / "memtui", "exit 0")
    assert running_command("/usr/lib/pytest", str(tmp_path / "bin" / "python")) == [
        str(program)]


def test_with_no_script_the_python_runs_the_module(tmp_path: Path) -> None:
    python = tmp_path / "bin" / "python"
    assert running_command("", str(python)) == [str(python), "-m", "memtui"]


def test_a_chosen_path_must_be_an_executable_file(tmp_path: Path) -> None:
    program = script(tmp_path / "m", "exit 0")
    assert chosen_command(str(program)) == [str(program)]
    plain = tmp_path / "plain"
    plain.write_text("x")
    for bad, why in ((plain, "not executable"), (tmp_path / "gone", "no such file"),
                     (tmp_path, "a folder")):
        with pytest.raises(InvalidInput, match=why):
            chosen_command(str(bad))
    with pytest.raises(InvalidInput, match="empty"):
        chosen_command("  ")


def test_a_chosen_bare_name_must_be_on_path(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    script(tmp_path / "bin" / "memtui-dev", "exit 0")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert chosen_command("memtui-dev") == ["memtui-dev"]
    with pytest.raises(InvalidInput, match="not found on PATH"):
        chosen_command("memtui-missing")


# ---- the check ------------------------------------------------------------------------------


def test_the_check_names_what_is_wrong(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "deleted")
    plain = tmp_path / "plain"
    plain.write_text("x")
    orphan = script(tmp_path / "orphan", "exit 0", interpreter=str(tmp_path / "gone" / "py"))
    assert executable_problem(str(tmp_path / "none")) == "no such file"
    assert "no longer exists" in (executable_problem(str(dangling)) or "")
    assert executable_problem(str(plain)) == "not executable"
    assert executable_problem(str(tmp_path)) == "a folder, not a program"
    assert executable_problem(str(orphan)) == (
        f"its interpreter {tmp_path / 'gone' / 'py'} no longer exists")
    env_script = script(tmp_path / "env-script", "exit 0", interpreter="/usr/bin/env python3")
    assert executable_problem(str(env_script)) is None


def test_a_bare_name_off_path_is_flagged(tmp_path: Path) -> None:
    check = check_command(["memtui"], path_env=str(tmp_path))
    assert not check.ok and "not on PATH" in (check.problem or "")


def test_running_the_command_checks_it_answers_as_memtui(tmp_path: Path) -> None:
    good = script(tmp_path / "good", 'echo "memtui 9.9"')
    failing = script(tmp_path / "failing", 'echo "ModuleNotFoundError: memtui" >&2; exit 1')
    other = script(tmp_path / "other", 'echo "something else 1.0"')
    assert check_command([str(good)], run=True).ok
    assert check_command([str(good)]).ok
    failed = check_command([str(failing)], run=True)
    assert failed.problem == f"{failing} --version failed: ModuleNotFoundError: memtui"
    assert "does not say it is memtui" in (check_command([str(other)], run=True).problem or "")
    assert check_command([], run=True).problem == "no command"


def test_this_memtui_passes_its_own_check() -> None:
    assert check_command(running_command(sys.argv[0], sys.executable), run=True).ok


# ---- installs -------------------------------------------------------------------------------


def test_install_names_this_memtui_and_command_chooses_another(home: Path,
                                                                tmp_path: Path) -> None:
    done = cli("hooks", "install", "codex", "--write")
    assert done.code == 0, done.err
    running = running_command(sys.argv[0], sys.executable)
    assert os.path.isabs(running[0])
    assert f'command = "{running[0]}"' in (home / ".codex" / "config.toml").read_text()
    other = script(tmp_path / "opt" / "memtui", 'echo "memtui 0"')
    done = cli("hooks", "install", "codex", "--command", str(other), "--write")
    assert done.code == 0, done.err
    text = (home / ".codex" / "config.toml").read_text()
    assert f'command = "{other}"' in text and text.count("[mcp_servers.memtui]") == 1
    done = cli("hooks", "install", "codex", "--command", str(tmp_path / "nope"), "--write")
    assert done.code != 0 and "no such file; nothing written" in done.err
    assert (home / ".codex" / "config.toml").read_text() == text


def test_show_flags_an_old_bare_install_and_a_reinstall_replaces_it(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / ".claude").mkdir()
    (home / ".claude.json").write_text(json.dumps(
        {"mcpServers": {"memtui": {"command": "memtui", "args": ["mcp"]}}}))
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "memtui hook session-end"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    done = cli("--json", "hooks", "show", "claude-code")
    installed = done.json["installed"]
    assert [(entry["what"], entry["ok"]) for entry in installed] == [
        ("mcp", False), ("hook SessionEnd", False)]
    assert "'memtui' is not on PATH" in installed[0]["problem"]
    text = cli("hooks", "show", "claude-code").out
    assert "BROKEN: 'memtui' is not on PATH" in text and "--write` again" in text
    assert cli("hooks", "install", "claude-code", "--write").code == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    end_commands = [hook["command"] for group in settings["hooks"]["SessionEnd"]
                    for hook in group["hooks"]]
    running = running_command(sys.argv[0], sys.executable)
    assert end_commands == [" ".join(shlex.quote(word)
                                     for word in (*running, "hook", "session-end"))]
    assert all(entry.check.ok for entry in installed_entries("claude-code", run=True))


def test_a_module_install_is_recognised_and_uninstalled(home: Path) -> None:
    python = (sys.executable, "-m", "memtui")
    for change in plan("claude-code", INSTALL, extra=["--user", "ann"], command=python):
        write_change(change)
    entries = installed_entries("claude-code")
    assert {entry.check.command for entry in entries} == {python}
    assert all(entry.check.ok for entry in entries)
    for change in plan("claude-code", UNINSTALL):
        write_change(change)
    assert installed_entries("claude-code") == []
    assert "hooks" not in json.loads((home / ".claude" / "settings.json").read_text())


def test_an_install_whose_venv_was_deleted_is_flagged(home: Path, tmp_path: Path) -> None:
    venv_python = tmp_path / "venv" / "bin" / "python"
    program = script(tmp_path / "venv" / "bin" / "memtui", "import memtui",
                     interpreter=str(venv_python))
    for change in plan("gemini", INSTALL, command=(str(program),)):
        write_change(change)
    [entry] = installed_entries("gemini")
    assert entry.what == "mcp" and not entry.check.ok
    assert entry.check.problem == (f"{program}: its interpreter {venv_python} "
                                   "no longer exists")
    program.unlink()
    [entry] = installed_entries("gemini")
    assert entry.check.problem == f"{program}: no such file"
    assert stat.S_IMODE((home / ".gemini" / "settings.json").stat().st_mode) == 0o600
