"""What each Claude Code release wrote for a memory file's front matter, and what memtui's
write gate writes for the same calls: the cases (``tests/data/claude_front_matter/cases.json``:
blocks the model writes with the Write tool, then edits of some of them), the recordings of
what each release left (``claude-code-<version>.json``, made by
tests/interop/test_claude_code_front_matter.py with ``MEMTUI_CLAUDE_FRONT_MATTER_OUT`` set)
and the rules of comparing with them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memtui.engine.agents.claude_stamp import stamp_for
from memtui.engine.agents.write_gate import CannotCompute, after_call, saved_text

RECORDINGS = Path(__file__).parent / "data" / "claude_front_matter"
CASES = RECORDINGS / "cases.json"
DIFFERENT = {
    "\n    - ": "a list, which Claude Code writes under metadata; memtui keeps the block as it is",
    "metadata: {": "a flow mapping: Claude Code rewrites it, memtui keeps the block as it is",
}
"""Blocks memtui knowingly saves otherwise than Claude Code (a text in the model's block or
in what Claude Code wrote: why)."""


def cases() -> tuple[list[str], list[dict[str, Any]]]:
    """(the blocks, in file order; the edits, in the order they are made)."""
    data = json.loads(CASES.read_text(encoding="utf-8"))
    return data["blocks"], data["edits"]


def file_name(number: int) -> str:
    """The memory file the block ``number`` is written to."""
    return f"c{number:03d}.md"


def edit_calls(edit: dict[str, Any]) -> list[dict[str, Any]]:
    """The Edit tool inputs of one edit case (a multi-edit: one call each, in order)."""
    parts = edit.get("edits") or [edit]
    return [{key: part[key] for key in ("old_string", "new_string", "replace_all")
             if key in part} for part in parts]


def expected(given: str, edits: list[dict[str, Any]], written: str, version: str) -> str:
    """What memtui's gate writes for the calls that left ``written`` (its session and time):
    the Write of ``given``, then each of ``edits`` (an edit whose text is not in the file
    fails, in Claude Code as in memtui)."""
    session = re.search(r"originSessionId: ([0-9a-f-]{36})", written)
    modified = re.findall(r"modified: (\S+)", written)
    args = (session.group(1) if session else "S", stamp_for(version),
            modified[-1] if modified else "")
    text = saved_text("c.md", "Write", given, None, *args)
    for edit in edits:
        for call in edit_calls(edit):
            try:
                text = saved_text("c.md", "Edit", after_call("Edit", call, text), text, *args)
            except CannotCompute:
                continue
    return text


EMPTIED = 'name: ""\nmetadata: \n  node_type: memory\n  originSessionId: '
"""How Claude Code before 2.1.213 saves a block its YAML reader refuses: emptied (memtui
keeps the model's text)."""


def differs_knowingly(given: str, written: str) -> bool:
    """Whether memtui keeps ``given`` as it is where Claude Code rewrites it."""
    return any(mark in given or mark in written for mark in DIFFERENT) or \
        (EMPTIED in written and re.search(r"^name: [^\"\s]", given, re.M) is not None)
