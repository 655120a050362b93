"""Claude Code's memory-file stamp, release by release: memtui's ``claude_memory_text`` against
what the real programs wrote (tests/data/claude_front_matter), which release stamps how, and
how the write gate finds the release that made a hook call."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claude_front_matter import RECORDINGS, cases, differs_knowingly, expected

from memtui.engine.agents.claude_stamp import (
    NEWEST,
    OLDEST,
    ClaudeStamp,
    claude_memory_text,
    stamp_for,
    transcript_version,
)
from memtui.engine.agents.write_gate import proposer_stamp
from memtui.engine.api import Engine
from memtui.store.timeutil import FixedClock

SESSION = "dc5ffbf3-e4f8-4671-bbbe-9071243e3964"
TOPIC = "---\nname: deploy-days\ndescription: d\nmetadata:\n  type: project\n---\n\nBody.\n"
AT = "2026-12-06T10:00:00.000Z"


@pytest.mark.parametrize("recording", sorted(RECORDINGS.glob("claude-code-*.json")),
                         ids=lambda path: path.stem)
def test_each_file_is_what_that_release_wrote(recording: Path) -> None:
    data = json.loads(recording.read_text(encoding="utf-8"))
    blocks, edits = cases()
    assert len(blocks) == len(data["written"]) > 200
    for number, (given, written) in enumerate(zip(blocks, data["written"], strict=True)):
        ours = expected(given, [edit for edit in edits if edit["file"] == number], written,
                        data["version"])
        if differs_knowingly(given, written):
            assert ours != written, (data["version"], number)
        else:
            assert ours == written, (data["version"], number, given)


@pytest.mark.parametrize(("version", "stamp"), [
    ("2.1.197", OLDEST), ("2.1.212", OLDEST), ("2.1.213", ClaudeStamp(True, False)),
    ("2.1.278", ClaudeStamp(True, False)), ("2.1.280", NEWEST), ("2.1.332", NEWEST),
    ("2.10.0", NEWEST), ("3.0.0-beta.1", NEWEST), ("2.0.77", OLDEST), (None, NEWEST),
    ("", NEWEST), ("not a version", NEWEST),
])
def test_which_release_stamps_how(version: str | None, stamp: ClaudeStamp) -> None:
    assert stamp_for(version) == stamp


def test_the_three_stamps_of_one_file() -> None:
    oldest = claude_memory_text(TOPIC, SESSION, OLDEST, AT)
    assert "metadata: \n" in oldest and "modified" not in oldest
    middle = claude_memory_text(TOPIC, SESSION, stamp_for("2.1.250"), AT)
    assert middle == oldest.replace("\n---\n\nBody", f"\n  modified: {AT}\n---\n\nBody")
    newest = claude_memory_text(TOPIC, SESSION, NEWEST, AT)
    assert newest == middle.replace("metadata: \n", "metadata:\n")
    assert claude_memory_text(oldest, "other", OLDEST, AT) == oldest  # names a session
    later = "2027-01-01T00:00:00.000Z"
    assert claude_memory_text(newest, "other", NEWEST, later) == newest.replace(AT, later)
    assert [ClaudeStamp.of_text(text) for text in (oldest, middle, newest, "no block\n")] == \
        [OLDEST, stamp_for("2.1.250"), NEWEST, NEWEST]


@pytest.mark.parametrize("text", [
    "", "---\n", "---\nname: x\n", "no front matter\n---\n", "---\n---\n",
    "---\nname: x\n---", "---\r\nname: x\r\n---\r\nB\r\n", "---\nname: [\n---\nB\n",
    "---\nname: !tag x\n---\nB\n", "---\ndescription: ? x\n---\nB\n",
    "---\nmetadata: {a: 1}\n---\nB\n", "---\n\tname: x\n---\n", "---\nname: x\n---\n" * 3,
])
def test_odd_blocks_never_break_it(text: str) -> None:
    for stamp in (OLDEST, stamp_for("2.1.250"), NEWEST):
        out = claude_memory_text(text, SESSION, stamp, AT)
        assert isinstance(out, str) and out.endswith(text.split("---")[-1].lstrip())


def _transcript(path: Path, *versions: str) -> Path:
    path.write_text("".join(json.dumps({"type": "user", "version": version}) + "\n"
                            for version in versions), encoding="utf-8")
    return path


def test_the_transcript_names_the_release(tmp_path: Path) -> None:
    assert transcript_version(_transcript(tmp_path / "t.jsonl", "2.1.197", "2.1.332")) == \
        "2.1.332"
    assert transcript_version(_transcript(tmp_path / "none.jsonl")) is None
    assert transcript_version(tmp_path / "missing.jsonl") is None
    os.mkfifo(tmp_path / "fifo")  # nobody writes it: a blocking read would hang the hook
    assert transcript_version(tmp_path / "fifo") is None
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "t.jsonl")
    assert transcript_version(tmp_path / "link.jsonl") is None
    assert transcript_version(tmp_path) is None


def test_the_hook_call_names_the_release(tmp_path: Path) -> None:
    old = str(_transcript(tmp_path / "old.jsonl", "2.1.197"))
    assert proposer_stamp({"transcript_path": old}) == OLDEST
    assert proposer_stamp({"transcript_path": str(_transcript(tmp_path / "m.jsonl", "2.1.250"))}
                          ) == stamp_for("2.1.250")
    for payload in ({}, {"transcript_path": 7}, {"transcript_path": ""},
                    {"transcript_path": str(tmp_path / "gone.jsonl")}):
        assert proposer_stamp(payload) == NEWEST


def _payload(path: Path, content: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": SESSION, "cwd": "/work/shop", "hook_event_name": "PreToolUse",
            "tool_name": "Write", "tool_input": {"file_path": str(path), "content": content},
            **extra}


def test_the_gate_holds_the_text_that_release_writes(engine_for: Callable[[str], Engine],
                                                     tmp_path: Path, clock: FixedClock) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    alice = engine_for("alice")
    old = str(_transcript(tmp_path / "old.jsonl", "2.1.197"))
    alice.gate.answer(_payload(folder / "old.md", TOPIC, transcript_path=old), str(folder),
                      str(folder / "old.md"))
    alice.gate.answer(_payload(folder / "new.md", TOPIC), str(folder), str(folder / "new.md"))
    first = {Path(held.row.path).name: held for held in alice.gate.items()}
    assert first["old.md"].row.content == claude_memory_text(TOPIC, SESSION, OLDEST)
    assert first["new.md"].row.content == claude_memory_text(
        TOPIC, SESSION, NEWEST, first["new.md"].row.created_at)
    clock.advance(90)  # the same write later: the same held item, though its time differs
    alice.gate.answer(_payload(folder / "new.md", TOPIC), str(folder), str(folder / "new.md"))
    assert alice.gate.count() == 2
    alice.gate.reject(first["new.md"].id)
    clock.advance(90)  # rejected: refused later and in another session
    answer = alice.gate.answer({**_payload(folder / "new.md", TOPIC), "session_id": "s2"},
                               str(folder), str(folder / "new.md"))
    assert answer is not None and "rejected this memory" in answer["permissionDecisionReason"]
    alice.gate.approve(first["old.md"].id, content=TOPIC.replace("Body.", "Edited."))
    assert (folder / "old.md").read_text() == claude_memory_text(
        TOPIC.replace("Body.", "Edited."), SESSION, OLDEST)


def test_a_rejection_holds_across_releases_and_from_before(
        engine_for: Callable[[str], Engine], tmp_path: Path) -> None:
    import hashlib

    from memtui.engine.agents.write_gate import TOMBSTONE_PREFIX

    folder = tmp_path / "memory"
    folder.mkdir()
    alice = engine_for("alice")
    old = str(_transcript(tmp_path / "old.jsonl", "2.1.197"))
    path = str(folder / "a.md")
    alice.gate.answer(_payload(folder / "a.md", TOPIC, transcript_path=old), str(folder), path)
    (held,) = alice.gate.items()
    alice.gate.reject(held.id)
    newer = alice.gate.answer({**_payload(folder / "a.md", TOPIC), "session_id": "s2"},
                              str(folder), path)  # the newest release, another session
    assert newer is not None and "rejected this memory" in newer["permissionDecisionReason"]
    # a mark an earlier memtui left (2.1.197's stamp hashed, the session taken out)
    stamped = claude_memory_text(TOPIC, SESSION, OLDEST).replace(
        f"originSessionId: {SESSION}\n", "originSessionId:\n")
    digest = hashlib.sha256(f"{folder / 'b.md'}\0{stamped}".encode()).hexdigest()
    with alice.store.transaction():
        alice.store.memories.add_forgotten_source(f"{TOMBSTONE_PREFIX}{digest[:40]}",
                                                  alice.store.now(), "alice")
    earlier = alice.gate.answer(_payload(folder / "b.md", TOPIC), str(folder),
                                str(folder / "b.md"))
    assert earlier is not None and "rejected this memory" in earlier["permissionDecisionReason"]
    assert alice.gate.count() == 0


@pytest.mark.parametrize("text", [
    "---" + "\n" * 300_000 + "Body",  # no closing fence: the plain pattern backtracks for minutes
    "---\nname: q\ndescription: " + "&a " * 3000 + "\n---\nB\n",  # anchors on anchors
    "---\nname: q\ndescription: " + "!t " * 3000 + "x\n---\nB\n",
])
def test_pathological_blocks_are_read_in_linear_time(text: str) -> None:
    for stamp in (OLDEST, NEWEST):
        out = claude_memory_text(text, SESSION, stamp, AT)
        assert out.endswith("Body" if text.endswith("Body") else "B\n")
    assert transcript_version("a\0b") is None
