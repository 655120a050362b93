"""What each Claude Code release wrote for a memory file's front matter, and what memtui's
``claude_memory_text`` writes for the same call: the recordings under
``tests/data/claude_front_matter`` (made by tests/interop/test_claude_code_front_matter.py
with ``MEMTUI_CLAUDE_FRONT_MATTER_OUT`` set) and the rules of comparing with them."""

from __future__ import annotations

import re
from pathlib import Path

from memtui.engine.agents.claude_stamp import claude_memory_text, stamp_for

RECORDINGS = Path(__file__).parent / "data" / "claude_front_matter"
EDIT = {"old_string": "B\n", "new_string": "C\n"}
"""The edit made to the first file after it is written (it names a session by then)."""
DIFFERENT = {"tags:": "a list: Claude Code rewrites it, memtui keeps the block as it is"}
"""Blocks memtui knowingly saves otherwise than Claude Code (a text in the block: why)."""


def expected(given: str, written: str, version: str, edited: bool) -> str:
    """What memtui's gate writes for the call that left ``written`` (its session and time;
    ``edited``: the file was written, then edited with ``EDIT``)."""
    session = re.search(r"originSessionId: ([0-9a-f-]{36})", written)
    modified = re.search(r"modified: (\S+)", written)
    stamp = stamp_for(version)
    args = (session.group(1) if session else "S", stamp, modified.group(1) if modified else "")
    if edited:
        given = claude_memory_text(given, *args).replace(EDIT["old_string"],
                                                         EDIT["new_string"], 1)
    return claude_memory_text(given, *args)


def differs_knowingly(given: str) -> bool:
    """Whether memtui keeps ``given`` as it is where Claude Code rewrites it."""
    return any(mark in given for mark in DIFFERENT)
