"""Every write into an agent's home ends the same way when the system refuses it: one line
naming the file and the reason, exit 4, no temporary file left, every file as it was. The
refusals are injected where the system gives them (creating the temporary file, syncing it,
renaming it into place), and the real cases that need no injection are made for real."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agents_fixture import build_claude_home, build_gemini_home
from cli_support import CliResult, fresh_home

from memtui.engine import safe_files
from memtui.engine.safe_files import TEMP_PREFIX

Run = Callable[..., CliResult]

FAULTS = {
    "permission denied": (errno.EACCES, "create"),
    "read-only file system": (errno.EROFS, "create"),
    "immutable file": (errno.EPERM, "create+rename"),
    "disk full": (errno.ENOSPC, "sync"),
    "a directory in the way": (errno.EISDIR, "rename"),
}
"""What the system says (errno) and where it says it."""


def inject(monkeypatch: pytest.MonkeyPatch, code: int, stage: str) -> None:
    """Make the system refuse memtui's agent-file writes with ``code`` at ``stage``."""
    def refuse(name: object) -> OSError:
        return OSError(code, os.strerror(code), str(name))

    if "create" in stage:
        real_open = os.open

        def fake_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & os.O_CREAT and os.path.basename(str(path)).startswith(TEMP_PREFIX):
                raise refuse(path)
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", fake_open)
    if stage == "sync":
        real_fdopen = os.fdopen

        class FullDisk:
            """A file whose writes fail as on a full disk."""

            def __init__(self, handle: Any) -> None:
                self.handle = handle

            def __enter__(self) -> FullDisk:
                return self

            def __exit__(self, *_exc: object) -> None:
                self.handle.close()

            def write(self, _data: bytes) -> int:
                raise refuse("write")

        def fake_fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            handle = real_fdopen(fd, mode, *args, **kwargs)
            return FullDisk(handle) if "w" in mode else handle

        monkeypatch.setattr(os, "fdopen", fake_fdopen)
    if "rename" in stage:
        def fake_rename(source: Any, target: Any, *args: Any, **kwargs: Any) -> None:
            raise refuse(target)

        monkeypatch.setattr(os, "replace", fake_rename)
        monkeypatch.setattr(os, "link", fake_rename)
    if stage != "sync":  # removing a file needs no space
        real_unlink = os.unlink

        def fake_unlink(path: Any, *args: Any, **kwargs: Any) -> None:
            if os.path.basename(str(path)).startswith(TEMP_PREFIX):
                return real_unlink(path, *args, **kwargs)
            raise refuse(path)

        monkeypatch.setattr(os, "unlink", fake_unlink)
        monkeypatch.setattr(os, "remove", fake_unlink)
        monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: fake_unlink(self))


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file (its bytes) and symlink (its target) under ``root``."""
    found: dict[str, bytes | str] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            found[str(path)] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


def temporary_files(root: Path) -> list[str]:
    """memtui's temporary files left anywhere under ``root``."""
    return [name for _folder, _dirs, files in os.walk(root) for name in files
            if name.startswith(TEMP_PREFIX)]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with Claude Code, Gemini CLI and Codex settings and memories in it."""
    root = fresh_home(tmp_path, monkeypatch)
    build_claude_home(root)
    build_gemini_home(root)
    (root / ".claude.json").write_text(json.dumps({"numStartups": 3, "projects": {}}))
    (root / ".gemini" / "settings.json").write_text(json.dumps({"theme": "Default"}))
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    return root


def first_topic(home: Path) -> Path:
    """A topic file of the fixture's Claude Code home."""
    return next(path for path in sorted((home / ".claude" / "projects").glob("*/memory/*.md"))
                if path.name != "MEMORY.md" and not path.is_symlink())


def secret_topic(home: Path) -> Path:
    """The fixture's topic file that holds a token."""
    return next((home / ".claude" / "projects").glob("*-src-secret/memory/deploy.md"))


def app_project(home: Path) -> Path:
    """The fixture's project whose index names a missing file."""
    return home / "src" / "app"


WRITES: dict[str, Callable[[Path], list[str]]] = {
    "hooks install claude-code": lambda home: ["hooks", "install", "claude-code", "--write"],
    "hooks install codex": lambda home: ["hooks", "install", "codex", "--write"],
    "hooks install gemini": lambda home: ["hooks", "install", "gemini", "--write"],
    "claude edit": lambda home: ["claude", "edit", str(first_topic(home)), "new text",
                                 "--write"],
    "claude auto-memory": lambda home: ["claude", "auto-memory", "off", "--write"],
    "gemini note": lambda home: ["gemini", "note", "deploys need a ticket", "--write"],
    "gemini auto-memory": lambda home: ["gemini", "auto-memory", "on", "--write"],
    "codex note": lambda home: ["codex", "note", "the api is versioned", "--write"],
    "hooks uninstall claude-code": lambda home: ["hooks", "uninstall", "claude-code",
                                                 "--write"],
    "claude redact": lambda home: ["claude", "redact", str(secret_topic(home)), "--write"],
    "claude forget": lambda home: ["claude", "forget", str(secret_topic(home)), "--write"],
    "claude promote": lambda home: ["claude", "promote", str(secret_topic(home)), "--write"],
    "claude fix-index": lambda home: ["claude", "fix-index", str(app_project(home)),
                                      "--write"],
    "gemini forget": lambda home: ["gemini", "forget", "--fact", "tabs in Go", "--write"],
    "gemini inbox apply": lambda home: ["gemini", "inbox", "apply", "app:private/0001-ci.patch",
                                        "--write"],
    "gemini inbox dismiss": lambda home: ["gemini", "inbox", "dismiss",
                                          "private/0003-broken.patch", "--write"],
}
"""Each agent-file write, as a person types it."""


ONLY_REMOVES = {"gemini inbox dismiss"}
"""Writes that only remove a file: a full disk does not stop them."""
CASES = [(write, fault) for write in WRITES for fault in FAULTS
         if not (write in ONLY_REMOVES and fault == "disk full")]


@pytest.mark.parametrize("write, fault", CASES)
def test_a_refused_write_is_one_line_exit_4_and_leaves_everything(
        write: str, fault: str, home: Path, cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    if write.startswith("hooks uninstall"):
        assert cli("hooks", "install", write.split()[-1], "--write").code == 0
    argv = WRITES[write](home)
    before = snapshot(home)
    code, stage = FAULTS[fault]
    inject(monkeypatch, code, stage)
    done = cli(*argv)
    monkeypatch.undo()
    assert done.code == 4, (done.out, done.err)
    assert done.err.count("\n") == 1 and "Traceback" not in done.err
    assert os.strerror(code) in done.err and "nothing" in done.err
    assert str(home) in done.err  # it names the file
    assert temporary_files(home) == []
    assert snapshot(home) == before


def test_json_output_names_the_error(home: Path, cli: Run,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    inject(monkeypatch, errno.EROFS, "create")
    done = cli("--json", "hooks", "install", "gemini", "--write")
    monkeypatch.undo()
    assert done.code == 4
    error = json.loads(done.out)["error"]
    assert error["code"] == "agent_file_write_failed"
    assert "Read-only file system" in error["message"]


def test_a_file_where_a_folder_should_be(home: Path, cli: Run) -> None:
    (home / ".gemini" / "settings.json").unlink(missing_ok=True)
    gemini = home / ".gemini"
    for path in sorted(gemini.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
    gemini.rmdir()
    gemini.write_text("not a folder")
    done = cli("hooks", "install", "gemini", "--write")
    assert done.code == 4 and done.err.count("\n") == 1
    assert str(gemini) in done.err and gemini.read_text() == "not a folder"


def test_a_real_read_only_folder(home: Path, cli: Run) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = home / ".codex"
    before = snapshot(home)
    folder.chmod(0o500)
    try:
        done = cli("hooks", "install", "codex", "--write")
    finally:
        folder.chmod(0o700)
    assert done.code == 4 and "Permission denied" in done.err
    assert snapshot(home) == before and temporary_files(home) == []


def writer_loop(path: Path, times: int) -> Iterator[None]:
    """Each step rewrites ``path`` as a running agent does (a new key each time)."""
    for number in range(times):
        data = json.loads(path.read_text())
        data["numStartups"] = number
        path.write_text(json.dumps(data, indent=2))
        yield


def agent_writes_before_each_check(monkeypatch: pytest.MonkeyPatch, path: Path,
                                   times: int) -> None:
    """The agent rewrites ``path`` just before each of memtui's since-read checks of it, for
    the first ``times`` checks."""
    from memtui.engine import agent_setup

    steps = writer_loop(path, times)
    real_check = agent_setup._unchanged_since_read

    def agent_writes_first(change: Any) -> None:
        if change.path == path:
            next(steps, None)
        real_check(change)

    monkeypatch.setattr(agent_setup, "_unchanged_since_read", agent_writes_first)


def test_a_file_the_agent_rewrites_is_read_again_and_merged(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import agent_setup

    user_file = home / ".claude.json"
    agent_writes_before_each_check(monkeypatch, user_file, 2)
    waits: list[float] = []
    [change, _hooks] = agent_setup.plan("claude-code", agent_setup.INSTALL)
    written, _backup = agent_setup.write_with_retry(change, sleep=waits.append)
    data = json.loads(user_file.read_text())
    assert data["numStartups"] == 1  # the agent's newest value, kept
    assert "memtui" in data["mcpServers"]
    assert waits == [agent_setup.RETRY_WAIT_S, 2 * agent_setup.RETRY_WAIT_S]
    assert written.before is not None and '"numStartups": 1' in written.before


def test_an_agent_that_never_stops_writing_gets_the_final_word(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import agent_setup

    user_file = home / ".claude.json"
    agent_writes_before_each_check(monkeypatch, user_file, 1000)
    [change, _hooks] = agent_setup.plan("claude-code", agent_setup.INSTALL)
    with pytest.raises(agent_setup.Conflict, match="kept changing while memtui wrote it "
                                                   r"\(5 tries"):
        agent_setup.write_with_retry(change, sleep=lambda _s: None)
    data = json.loads(user_file.read_text())
    assert "mcpServers" not in data  # never over the agent's content
    assert temporary_files(home) == []


def test_a_change_just_before_the_rename_is_caught(home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import agent_setup

    user_file = home / ".claude.json"
    [change, _hooks] = agent_setup.plan("claude-code", agent_setup.INSTALL)
    real_replace = safe_files.replace_atomically

    def agent_writes_during(path: Path, data: bytes, mode: int,
                            before_rename: Callable[[], None] | None = None) -> None:
        def then_check() -> None:
            if path == user_file:
                user_file.write_text('{"numStartups": 99}')
            if before_rename is not None:
                before_rename()
        real_replace(path, data, mode, then_check)

    monkeypatch.setattr(agent_setup, "replace_atomically", agent_writes_during)
    with pytest.raises(agent_setup.Conflict, match="changed since it was read"):
        agent_setup.write_change(change)
    assert json.loads(user_file.read_text()) == {"numStartups": 99}
    assert not (home / ".claude.json.bak").exists()
    assert temporary_files(home) == []


@pytest.mark.parametrize("write", ["claude promote", "claude forget"])
def test_a_plan_refused_part_way_puts_back_what_it_wrote(
        write: str, home: Path, cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    argv = WRITES[write](home)
    before = snapshot(home)
    real_replace, real_unlink = os.replace, os.unlink
    calls = {"n": 0}

    def second_write_fails(operation: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            first = str(args[0])
            if os.path.basename(first).startswith(TEMP_PREFIX) and operation is real_unlink:
                return operation(*args, **kwargs)
            calls["n"] += 1
            if calls["n"] == 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), first)
            return operation(*args, **kwargs)
        return run

    monkeypatch.setattr(os, "replace", second_write_fails(real_replace))
    monkeypatch.setattr(os, "unlink", second_write_fails(real_unlink))
    done = cli(*argv)
    monkeypatch.undo()
    assert calls["n"] >= 2
    assert done.code == 4 and done.err.count("\n") == 1
    assert "the files written before it were put back" in done.err
    assert temporary_files(home) == []
    assert snapshot(home) == before
