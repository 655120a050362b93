"""Claude Code's memory write gate (issue 38): the hook's two paths and its fail-open
answers to bad input, every mode, the held writes (approve, edit, redo, reject, the index
meter), Claude Code's front matter as its own tools write it, and ``hooks install --gate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtui.cli import gate_hook
from memtui.engine.agent_setup import GATE_MATCHER, INSTALL, UNINSTALL, merge_claude_hooks
from memtui.engine.agents.claude_stamp import NEWEST
from memtui.engine.agents.write_gate import REJECTED, CannotCompute, after_call, saved_text
from memtui.engine.api import Engine
from memtui.errors import Conflict, InvalidInput, NotFound, UnsafePath

SECRET = "ghp_" + "R8x2Kq9LmZ4vT7wN1pY6sB3dF0hJ5cXeA2uQ"
"""A GitHub token (its shape; never real)."""
SESSION = "dc5ffbf3-e4f8-4671-bbbe-9071243e3964"
TOPIC = ("---\nname: deploy-days\ndescription: we deploy on Fridays only\nmetadata:\n"
         "  type: project\n---\n\nWe deploy on Fridays only.\n")


def written(at: str) -> str:
    """TOPIC as the newest Claude Code's Write tool saves it at ``at`` (tests/agents/
    test_claude_stamp.py checks each release)."""
    return ("---\nname: deploy-days\ndescription: we deploy on Fridays only\nmetadata:\n"
            f"  node_type: memory\n  type: project\n  originSessionId: {SESSION}\n"
            f"  modified: {at}\n---\n\nWe deploy on Fridays only.\n")


def memory_folder(root: Path) -> Path:
    """A project's memory folder in a Claude Code home under ``root/home`` (made)."""
    memory = root / "home" / ".claude" / "projects" / "-work-shop" / "memory"
    memory.mkdir(parents=True)
    return memory


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """``memory_folder`` of the test's folder."""
    return memory_folder(tmp_path)


def _payload(tool: str, path: Path | str, **tool_input: Any) -> dict[str, Any]:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    return {"session_id": SESSION, "cwd": "/work/shop", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": {key: str(path), **tool_input},
            "tool_use_id": "toolu_1"}


def _answer(engine: Engine, payload: dict[str, Any], folder: Path) -> dict[str, Any] | None:
    return engine.gate.answer(payload, str(folder), payload["tool_input"].get(
        "file_path") or payload["tool_input"]["notebook_path"])


# ---- the hook as Claude Code runs it ------------------------------------------------------


def _hook(tmp_path: Path, stdin: str | bytes, *args: str, env: dict[str, str] | None = None,
          db: str | None = None) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-I", "-S", gate_hook.__file__, "--db",
               db or str(tmp_path / "memtui.db"), "--user", "alice", *args]
    environ = {"HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", ""),
               **(env or {})}
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(command, input=data, capture_output=True, env=environ, timeout=60,
                          check=False)


def test_a_write_outside_the_memory_says_nothing_and_loads_no_memtui(tmp_path: Path,
                                                                     folder: Path) -> None:
    (tmp_path / "work").mkdir()
    payload = json.dumps(_payload("Write", tmp_path / "work" / "app.py", content="x = 1\n"))
    probe = (f"import sys; space = {{'__file__': {gate_hook.__file__!r}, '__name__': 'gate'}}; "
             f"exec(open({gate_hook.__file__!r}).read(), space); space['main']([]); "
             "print(sorted(m for m in sys.modules if m.startswith('memtui') or "
             "m in ('sqlite3', 'site', 'typing', 'dataclasses', 'pathlib')))")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", probe], input=payload.encode(),
                          capture_output=True, env={"HOME": str(tmp_path / "home")},
                          timeout=60, check=True)
    assert done.stdout.decode().strip() == "[]" and done.stderr == b""
    ran = _hook(tmp_path, payload)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    assert not (tmp_path / "memtui.db").exists()


@pytest.mark.parametrize("stdin", [
    "", "not json", "[1, 2]", "null", '{"tool_name": "Write"}',
    '{"tool_name": "Write", "tool_input": "x"}', '{"tool_name": "Bash", "tool_input": {}}',
    '{"tool_name": "Write", "tool_input": {"content": "x"}}',
    '{"tool_name": "Write", "tool_input": {"file_path": 7}}',
    b'{"tool_name": "Write", "tool_input": {"file_path": "\xff"}}',
])
def test_bad_input_fails_open_with_one_line(tmp_path: Path, stdin: str | bytes) -> None:
    ran = _hook(tmp_path, stdin)
    assert ran.returncode == 0 and ran.stdout == b""
    lines = ran.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui write gate: ") and \
        lines[0].endswith("the call goes on")


def test_unknown_options_and_a_broken_store_fail_open(tmp_path: Path, folder: Path) -> None:
    payload = json.dumps(_payload("Write", folder / "a.md", content=TOPIC))
    ran = _hook(tmp_path, payload, "--bogus", "1")
    assert (ran.returncode, ran.stdout) == (0, b"") and b"unknown option" in ran.stderr
    (tmp_path / "memtui.db").mkdir()  # a folder where the store should be
    ran = _hook(tmp_path, payload)
    assert (ran.returncode, ran.stdout) == (0, b"") and len(ran.stderr.splitlines()) == 1
    assert not (folder / "a.md").exists()  # the gate wrote nothing; Claude Code would


def test_a_memory_write_is_denied_with_the_id_and_held(tmp_path: Path, folder: Path) -> None:
    payload = json.dumps(_payload("Write", folder / "deploy-days.md", content=TOPIC))
    ran = _hook(tmp_path, payload)
    assert ran.returncode == 0 and ran.stderr == b""
    answer = json.loads(ran.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert reason.startswith("memtui: this memory waits for the user's review as write_")
    assert reason.endswith("; go on with the task")
    assert not (folder / "deploy-days.md").exists()
    assert _hook(tmp_path, "--version").returncode == 0
    version = subprocess.run([sys.executable, "-I", "-S", gate_hook.__file__, "--version"],
                             capture_output=True, check=True, timeout=60)
    assert b"memtui" in version.stdout


def test_the_hook_holds_the_write_in_either_backend(tmp_path: Path, folder: Path,
                                                    store_target: str,
                                                    engine_for: Callable[[str], Engine]) -> None:
    ran = _hook(tmp_path, json.dumps(_payload("Write", folder / "a.md", content=TOPIC)),
                db=store_target)
    assert ran.stderr == b"" and b'"deny"' in ran.stdout
    (held,) = engine_for("alice").gate.items()
    assert held.row.content == written(held.row.created_at)


def test_memory_folders(tmp_path: Path) -> None:
    home = tmp_path / "h"
    claude = home / ".claude"
    env = {"HOME": str(home)}
    memory = claude / "projects" / "-a-b" / "memory"
    assert gate_hook.memory_folder(str(memory / "x.md"), env, None) == str(memory)
    assert gate_hook.memory_folder(str(memory / "logs" / "d.md"), env, None) == str(memory)
    for outside in (claude / "projects" / "-a-b" / "x.md", claude / "settings.json",
                    claude / "projects" / "-a-b" / "notes" / "x.md", memory,
                    tmp_path / "memory" / "x.md"):
        assert gate_hook.memory_folder(str(outside), env, None) is None, outside
    moved = tmp_path / "config"
    assert gate_hook.memory_folder(str(moved / "projects" / "p" / "memory" / "x.md"),
                                   {**env, "CLAUDE_CONFIG_DIR": str(moved)}, None)
    remote = tmp_path / "remote"
    assert gate_hook.memory_folder(str(remote / "projects" / "p" / "memory" / "x.md"),
                                   {**env, "CLAUDE_CODE_REMOTE_MEMORY_DIR": str(remote)}, None)
    cowork = tmp_path / "cowork"
    assert gate_hook.memory_folder(str(cowork / "x.md"), {
        **env, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": str(cowork)}, None) == str(cowork)
    claude.mkdir(parents=True)
    (claude / "settings.json").write_text('{"autoMemoryDirectory": "~/notes/mem"}')
    assert gate_hook.memory_folder(str(home / "notes" / "mem" / "x.md"), env, None) == \
        str(home / "notes" / "mem")
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "local-mem")}))
    assert gate_hook.memory_folder(str(tmp_path / "local-mem" / "x.md"), env, str(project))
    link = tmp_path / "link"
    memory.mkdir(parents=True)
    link.symlink_to(memory)
    assert gate_hook.memory_folder(str(link / "x.md"), env, None) == str(memory)


# ---- the modes ----------------------------------------------------------------------------


def test_review_holds_the_redacted_file_once_with_claude_codes_front_matter(
        engine_for: Callable[[str], Engine], folder: Path) -> None:
    alice = engine_for("alice")
    path = folder / "deploy-days.md"
    text = TOPIC.replace("Fridays only.\n", f"Fridays only. token={SECRET}\n")
    answer = _answer(alice, _payload("Write", path, content=text), folder)
    assert answer is not None and answer["permissionDecision"] == "deny"
    (held,) = alice.gate.items()
    assert answer["permissionDecisionReason"] == \
        f"memtui: this memory waits for the user's review as {held.id}; go on with the task"
    row = held.row
    assert SECRET not in row.content and "[REDACTED]" in row.content
    assert row.content == written(row.created_at).replace("Fridays only.\n",
                                                          "Fridays only. token=[REDACTED]\n")
    assert (row.agent, row.tool, row.session_id, row.project_dir, row.path) == (
        "claude-code", "Write", SESSION, "/work/shop", str(path))
    assert row.base_sha256 is None and "+++ b/deploy-days.md" in row.diff
    assert SECRET not in json.dumps(held.to_json()) and not held.stale
    again = _answer(alice, _payload("Write", path, content=text), folder)
    assert again == answer and alice.gate.count() == 1  # the same write is held once
    assert engine_for("bob").gate.items() == []  # each user's own
    assert not path.exists()


def test_an_edit_is_held_as_the_file_after_it(engine_for: Callable[[str], Engine],
                                              folder: Path) -> None:
    alice = engine_for("alice")
    path = folder / "deploy-days.md"
    path.write_text(written("2020-01-01T00:00:00.000Z"))
    _answer(alice, _payload("Edit", path, old_string="Fridays only.",
                            new_string=f"Fridays, key {SECRET}."), folder)
    (held,) = alice.gate.items()
    assert held.row.content == written(held.row.created_at).replace(
        "Fridays only.\n", "Fridays, key [REDACTED].\n")
    assert "-We deploy on Fridays only." in held.row.diff
    assert held.row.base_sha256 is not None and not held.stale


def test_redact_lets_the_call_through_with_secrets_replaced(
        engine_for: Callable[[str], Engine], folder: Path) -> None:
    alice = engine_for("alice")
    alice.settings.update(claude_memory_gate="redact")
    path = folder / "a.md"
    answer = _answer(alice, _payload("Write", path, content=f"key {SECRET}\n"), folder)
    assert answer == {"hookEventName": "PreToolUse",
                      "updatedInput": {"file_path": str(path), "content": "key [REDACTED]\n"}}
    assert _answer(alice, _payload("Write", path, content="no secret\n"), folder) is None
    path.write_text("old line\n")
    edit = _answer(alice, _payload("Edit", path, old_string="old", new_string=SECRET),
                   folder)
    assert edit is not None and edit["updatedInput"]["new_string"] == "[REDACTED]"
    assert edit["updatedInput"]["old_string"] == "old"
    multi = _answer(alice, _payload("MultiEdit", path, edits=[
        {"old_string": "old", "new_string": "new"},
        {"old_string": "line", "new_string": SECRET}]), folder)
    assert multi is not None and [e["new_string"] for e in multi["updatedInput"]["edits"]] == [
        "new", "[REDACTED]"]
    assert alice.gate.count() == 0 and "permissionDecision" not in multi


@pytest.mark.parametrize("mode", ["ask", "review", "redact"])
def test_ask_and_what_memtui_cannot_compute_go_to_claude_codes_prompt(
        engine_for: Callable[[str], Engine], folder: Path, mode: str) -> None:
    alice = engine_for("alice")
    alice.settings.update(claude_memory_gate=mode)
    path = folder / "a.md"
    path.write_text("text\n")
    notebook = _answer(alice, _payload("NotebookEdit", folder / "n.ipynb", new_source="x"),
                       folder)
    assert notebook is not None and notebook["permissionDecision"] == "ask"
    missing = _answer(alice, _payload("Edit", path, old_string="absent", new_string="x"),
                      folder)
    assert missing is not None and missing["permissionDecision"] == "ask"
    assert "memtui: Claude Code wants to write its memory file a.md" in \
        missing["permissionDecisionReason"]
    if mode == "ask":
        written = _answer(alice, _payload("Write", path, content="x"), folder)
        assert written is not None and written["permissionDecision"] == "ask"
    assert alice.gate.count() == 0


def test_off_says_nothing(engine_for: Callable[[str], Engine], folder: Path) -> None:
    alice = engine_for("alice")
    alice.settings.update(claude_memory_gate="off")
    assert _answer(alice, _payload("Write", folder / "a.md", content=SECRET), folder) is None
    assert alice.gate.count() == 0


def test_the_mode_is_a_checked_setting(engine_for: Callable[[str], Engine]) -> None:
    alice = engine_for("alice")
    assert alice.settings.get()["claude_memory_gate"] == "review"
    assert alice.settings.parse_typed("claude_memory_gate", " ASK ") == "ask"
    for bad in ("sometimes", 1, None):
        with pytest.raises(InvalidInput, match="claude_memory_gate"):
            alice.settings.update(claude_memory_gate=bad)


def test_after_call_applies_each_tool_as_claude_code_does() -> None:
    assert after_call("Write", {"content": "a\r\nb\r\n"}, "old") == "a\r\nb\r\n"
    crlf = "x\r\ny\r\nz\n"  # more CRLF than LF: edited in LF, saved in CRLF
    assert after_call("Edit", {"old_string": "y\r\n", "new_string": "w\n"}, crlf) == \
        "x\nw\nz\n"
    assert saved_text("a.txt", "Edit", "x\nw\nz\n", crlf, None, NEWEST, "") == \
        "x\r\nw\r\nz\r\n"
    assert saved_text("a.txt", "Edit", "x\n", "x\r\ny\nz\n", None, NEWEST, "") == "x\n"
    assert after_call("Edit", {"old_string": "a", "new_string": "b"}, "a a") == "b a"
    assert after_call("Edit", {"old_string": "a", "new_string": "b", "replace_all": True},
                      "a a") == "b b"
    assert after_call("Edit", {"old_string": "gone", "new_string": ""}, "x\ngone\ny\n") == \
        "x\ny\n"
    assert after_call("Edit", {"old_string": "", "new_string": "new"}, None) == "new"
    assert after_call("MultiEdit", {"edits": [{"old_string": "a", "new_string": "b"},
                                              {"old_string": "b c", "new_string": "d"}]},
                      "a c") == "d"
    with pytest.raises(CannotCompute):
        after_call("Edit", {"old_string": "x", "new_string": "y"}, "abc")
    for bad in ({"old_string": 1, "new_string": "y"}, {"edits": "no"}):
        with pytest.raises(ValueError):
            after_call("MultiEdit" if "edits" in bad else "Edit", bad, "x")


# ---- approve, edit, redo, reject ------------------------------------------------------------


def _held(engine: Engine, folder: Path, name: str = "deploy-days.md",
          text: str = TOPIC) -> str:
    _answer(engine, _payload("Write", folder / name, content=text), folder)
    return next(held.id for held in engine.gate.items() if held.row.path.endswith(name))


def test_approve_writes_the_file_and_its_index_line(engine_for: Callable[[str], Engine],
                                                    folder: Path) -> None:
    alice = engine_for("alice")
    write_id = _held(alice, folder)
    (held,) = alice.gate.items()
    assert held.index is not None and held.index.now is None
    assert held.index.added == "- [deploy-days](deploy-days.md) — we deploy on Fridays only"
    assert held.index.words().startswith("MEMORY.md 0 → 1 of 200 lines, 0 → ")
    alice.gate.approve(write_id, expected=held.version)
    assert (folder / "deploy-days.md").read_text() == written(held.row.created_at)
    assert (folder / "MEMORY.md").read_text() == f"{held.index.added}\n"
    assert alice.gate.count() == 0
    with pytest.raises(NotFound):
        alice.gate.approve(write_id)
    second = _held(alice, folder, "deploy-days.md", TOPIC.replace("only", "always"))
    alice.gate.approve(second)  # a topic the index lists already: the index as it was
    assert (folder / "MEMORY.md").read_text() == f"{held.index.added}\n"
    actions = [entry.action for entry in alice.identity.audit()]
    assert actions.count("agent_write_approved") == 2


def test_an_index_write_and_the_meter_past_the_limit(engine_for: Callable[[str], Engine],
                                                     folder: Path) -> None:
    alice = engine_for("alice")
    index = "".join(f"- [t{n}](t{n}.md) — hook {n}\n" for n in range(200))
    (folder / "MEMORY.md").write_text(index)
    held = alice.gate.item(_held(alice, folder))
    assert held.index is not None and held.index.unloaded == ("deploy-days",)
    assert "1 entry past the limit will not load" in held.index.words()
    short = alice.gate.item(_held(alice, folder, "MEMORY.md", "- [a](a.md) — b\n"))
    assert short.index is not None and short.index.after[0] == 1 and short.index.added is None
    alice.gate.approve(short.id)
    assert (folder / "MEMORY.md").read_text() == "- [a](a.md) — b\n"


def test_edit_and_approve_redacts_what_was_typed(engine_for: Callable[[str], Engine],
                                                 folder: Path) -> None:
    alice = engine_for("alice")
    held = alice.gate.item(_held(alice, folder))
    alice.gate.approve(held.id, content=TOPIC.replace("only.", f"only; {SECRET}."),
                       expected=held.version)
    written = (folder / "deploy-days.md").read_text()
    assert SECRET not in written and "only; [REDACTED]." in written
    assert f"originSessionId: {SESSION}" in written


def test_a_file_changed_since_the_proposal_is_refused_until_redone(
        engine_for: Callable[[str], Engine], folder: Path) -> None:
    alice = engine_for("alice")
    path = folder / "deploy-days.md"
    path.write_text("first\n")
    write_id = _held(alice, folder)
    path.write_text("changed by Claude Code\n")
    held = alice.gate.item(write_id)
    assert held.stale
    with pytest.raises(Conflict, match="changed since .* was proposed.*inbox redo"):
        alice.gate.approve(write_id)
    assert path.read_text() == "changed by Claude Code\n"
    redone = alice.gate.redo(write_id)
    assert not redone.stale and "-changed by Claude Code" in redone.row.diff
    with pytest.raises(Conflict, match="changed since it was shown"):
        alice.gate.approve(write_id, expected=held.version)
    alice.gate.approve(write_id, expected=redone.version)
    assert path.read_text() == written(held.row.created_at)


def test_approve_never_writes_through_a_symlink(engine_for: Callable[[str], Engine],
                                                folder: Path, tmp_path: Path) -> None:
    alice = engine_for("alice")
    outside = tmp_path / "outside.md"
    outside.write_text("keep\n")
    (folder / "link.md").symlink_to(outside)
    answer = _answer(alice, _payload("Write", folder / "link.md", content="x"), folder)
    assert answer is not None and answer["permissionDecision"] == "ask"
    assert "is a symlink" in answer["permissionDecisionReason"] and alice.gate.count() == 0
    write_id = _held(alice, folder, "escape.md")
    (folder / "escape.md").symlink_to(outside)
    with pytest.raises((UnsafePath, InvalidInput, Conflict)):
        alice.gate.approve(write_id)
    assert outside.read_text() == "keep\n"


def test_reject_deletes_it_and_the_same_write_is_refused_after(
        engine_for: Callable[[str], Engine], folder: Path) -> None:
    alice = engine_for("alice")
    write_id = _held(alice, folder)
    result = alice.gate.reject(write_id)
    assert result.memory_id == write_id and result.tombstoned.startswith("claude-write:")
    assert alice.gate.count() == 0
    with pytest.raises(NotFound):
        alice.gate.reject(write_id)
    later = {**_payload("Write", folder / "deploy-days.md", content=TOPIC),
             "session_id": "a-later-session"}
    again = _answer(alice, later, folder)
    assert again is not None and again["permissionDecision"] == "deny"
    assert again["permissionDecisionReason"] == REJECTED.format(file="deploy-days.md")
    assert alice.gate.count() == 0 and not (folder / "deploy-days.md").exists()


# ---- hooks install --gate ---------------------------------------------------------------------


def test_install_adds_and_takes_out_the_gate(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    gate = ("/venv/bin/python", "-I", "-S", "/site/memtui/cli/gate_hook.py")
    text, summary = merge_claude_hooks(path, None, INSTALL, ["--db", "/x.db"], gate=gate)
    assert summary.endswith("and the PreToolUse write gate")
    (group,) = json.loads(text)["hooks"]["PreToolUse"]
    assert group["matcher"] == GATE_MATCHER == "Write|Edit|MultiEdit|NotebookEdit"
    assert GATE_MATCHER.split("|") == list(gate_hook.PATH_KEYS)  # the hook answers each one
    assert group["hooks"][0]["command"] == \
        "/venv/bin/python -I -S /site/memtui/cli/gate_hook.py --db /x.db"
    assert merge_claude_hooks(path, text, INSTALL, ["--db", "/x.db"], gate=gate)[0] == text
    other = json.loads(text)
    other["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [
        {"type": "command", "command": "audit.sh"}]})
    without, _ = merge_claude_hooks(path, json.dumps(other), INSTALL, ["--db", "/x.db"])
    assert json.loads(without)["hooks"]["PreToolUse"] == other["hooks"]["PreToolUse"][1:]
    removed, _ = merge_claude_hooks(path, text, UNINSTALL)
    assert "PreToolUse" not in (json.loads(removed or "{}").get("hooks") or {})


def test_hooks_install_gate_from_the_command_line(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  cli: Callable[..., Any]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert cli("hooks", "install", "claude-code", "--gate", "--write").code == 0
    groups = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    command = groups["PreToolUse"][0]["hooks"][0]["command"]
    assert command.startswith(f"{os.path.abspath(sys.executable)} -I -S ")
    assert f"{os.sep}memtui{os.sep}cli{os.sep}gate_hook.py --db " in command
    shown = cli("--json", "hooks", "show", "claude-code").json["installed"]
    gate = next(entry for entry in shown if entry["what"] == "hook PreToolUse")
    assert gate["ok"] and gate["command"][-1].endswith("gate_hook.py")
    assert cli("hooks", "install", "gemini", "--gate").code == 5
