"""``memtui inbox`` with Claude Code's held memory writes (issue 38): listed beside the
pending memories (table and JSON), approved (also edited, also ``--all --source
claude-code``), redone, rejected; ``--kind`` refused for a file; the gate's mode set with
``memtui settings``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_write_gate import memory_folder

from memtui.engine.api import Engine
from memtui.store.database import open_store

TOPIC = ("---\nname: ci-runner\ndescription: CI runs on every push\nmetadata:\n"
         "  type: reference\n---\n\nCI runs `.ci/run` on every push.\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A project's memory folder of a Claude Code home."""
    return memory_folder(tmp_path)


def _hold(db_path: Path, folder: Path, name: str = "ci-runner.md", text: str = TOPIC) -> str:
    store = open_store(db_path)
    try:
        answer = Engine(store, "alice").gate.answer(
            {"tool_name": "Write", "session_id": "s-1", "cwd": "/work/shop",
             "tool_input": {"file_path": str(folder / name), "content": text}},
            str(folder), str(folder / name))
    finally:
        store.close()
    assert answer is not None
    return str(answer["permissionDecisionReason"]).split(" as ")[1].split(";")[0]


def test_list_shows_held_writes_beside_pending_memories(
        cli: Callable[..., Any], db_path: Path, folder: Path) -> None:
    cli("--user", "alice", "settings", "set", "review_new_memories=on")
    write_id = _hold(db_path, folder)
    items = cli("--user", "alice", "--json", "inbox", "list").json["items"]
    (held,) = items
    assert (held["id"], held["source"], held["file"], held["session_id"], held["tool"]) == (
        write_id, "claude-code", str(folder / "ci-runner.md"), "s-1", "Write")
    assert held["index"]["adds"] == "- [ci-runner](ci-runner.md) — CI runs on every push"
    assert "+CI runs `.ci/run` on every push." in held["diff"] and held["stale"] is False
    assert cli("--user", "alice", "--json", "inbox", "list", "--source", "auto").json[
        "count"] == 0
    assert cli("--user", "alice", "--json", "inbox", "list", "--source",
               "claude-code").json["count"] == 1
    table = cli("--user", "alice", "inbox", "list")
    assert table.code == 0 and "claude-code" in table.out and "1 waiting for review" in table.out
    (row,) = [line for line in table.out.splitlines() if write_id in line]
    assert "shop: Write ci-runner" in row  # a summary: the diff is for inbox show
    shown = cli("--user", "alice", "inbox", "show", write_id)
    assert shown.code == 0 and "MEMORY.md" in shown.out
    assert "+CI runs `.ci/run` on every push." in shown.out


def test_list_in_an_80_column_terminal_is_one_line_a_row(
        cli: Callable[..., Any], db_path: Path, folder: Path, terminal_80: None) -> None:
    ids = [_hold(db_path, folder, f"topic-{n}.md") for n in range(2)]
    lines = cli("--user", "alice", "inbox", "list").out.splitlines()
    assert max(len(line) for line in lines) <= 80
    for write_id in ids:  # whole, on one line: the id to give to inbox approve
        assert len([line for line in lines if write_id in line]) == 1, lines
    assert len(lines) == len(ids) + 5, lines  # edge, header, rule, rows, edge, count


def test_approve_writes_the_file_and_reject_and_redo(cli: Callable[..., Any], db_path: Path,
                                                     folder: Path) -> None:
    write_id = _hold(db_path, folder)
    assert cli("--user", "alice", "inbox", "approve", write_id, "--kind", "fact").code == 5
    done = cli("--user", "alice", "--json", "inbox", "approve", write_id)
    assert done.code == 0 and done.json["items"][0]["id"] == write_id
    written = (folder / "ci-runner.md").read_text()
    assert "originSessionId: s-1" in written and written.endswith("on every push.\n")
    assert (folder / "MEMORY.md").read_text().startswith("- [ci-runner](ci-runner.md)")
    again = cli("--user", "alice", "inbox", "approve", write_id)
    assert again.code == 3 and write_id in again.err
    other = _hold(db_path, folder, text=TOPIC.replace("every push", "each push"))
    (folder / "ci-runner.md").write_text("changed meanwhile\n")
    refused = cli("--user", "alice", "inbox", "approve", other)
    assert refused.code == 1 and f"memtui inbox redo {other}" in " ".join(refused.err.split())
    assert (folder / "ci-runner.md").read_text() == "changed meanwhile\n"
    redone = cli("--user", "alice", "--json", "inbox", "redo", other)
    assert redone.code == 0 and "-changed meanwhile" in redone.json["items"][0]["diff"]
    assert cli("--user", "alice", "inbox", "redo", "write_nope").code == 3
    rejected = cli("--user", "alice", "--json", "inbox", "reject", other)
    assert rejected.code == 0 and rejected.json["items"][0]["rejected"] is True
    assert cli("--user", "alice", "--json", "inbox", "list").json["count"] == 0


def test_all_of_a_source_and_edit(cli: Callable[..., Any], db_path: Path, folder: Path,
                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _hold(db_path, folder, "a.md")
    second = _hold(db_path, folder, "b.md")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/every push/each merge/' \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    assert cli("--user", "alice", "inbox", "approve", first, "--edit").code == 0
    assert "CI runs `.ci/run` on each merge." in (folder / "a.md").read_text()
    done = cli("--user", "alice", "--json", "inbox", "approve", "--all", "--source",
               "claude-code")
    assert [item["id"] for item in done.json["items"]] == [second]
    index = (folder / "MEMORY.md").read_text().splitlines()
    assert [line.split("(")[1].split(")")[0] for line in index] == ["a.md", "b.md"]


def test_the_gate_mode_is_a_setting(cli: Callable[..., Any]) -> None:
    shown = cli("--user", "alice", "--json", "settings", "show").json
    assert shown["claude_memory_gate"] == "review"
    assert cli("--user", "alice", "--json", "settings", "set",
               "claude_memory_gate=redact").json["claude_memory_gate"] == "redact"
    bad = cli("--user", "alice", "settings", "set", "claude_memory_gate=maybe")
    assert bad.code == 5 and "review, redact, ask, off" in bad.err
    assert json.loads(cli("--user", "alice", "--json", "settings", "show").out)[
        "claude_memory_gate"] == "redact"
