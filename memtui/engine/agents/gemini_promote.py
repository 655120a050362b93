"""Promote one of Gemini CLI 0.61's brief private facts to the global tier.

0.61 writes a brief private fact as a bullet straight into the project's
``tmp/<slug>/memory/MEMORY.md`` (no sibling file). Promoting it removes that one line and
adds the fact to the global file the way 0.61 keeps global memory (``append_global``), in
one plan: nothing else in either file changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from memtui.engine.agents.curation import append_global, read_stamped, target_change
from memtui.engine.agents.errors import (
    AgentInputError,
    only_match,
)
from memtui.engine.agents.gemini_context import DEFAULT_CONTEXT_FILE
from memtui.engine.agents.index import INDEX_FILE, parse_entries
from memtui.engine.agents.plans import ACTION_REPLACE, FileChange, WritePlan
from memtui.engine.redaction import redact
from memtui.engine.safe_files import real_root

TMP_DIR = "tmp"
MEMORY_DIR = "memory"


def _indexes(home: Path) -> list[Path]:
    tmp = home / TMP_DIR
    if not tmp.is_dir():
        return []
    return [tmp / name / MEMORY_DIR / INDEX_FILE for name in sorted(os.listdir(tmp))
            if (tmp / name / MEMORY_DIR / INDEX_FILE).is_file()]


def index_facts(home: Path, root: Path) -> list[tuple[Path, int, str]]:
    """(index, 0-based line, text) of every plain bullet (not a link or pointer) of every
    project's ``MEMORY.md`` in the home."""
    found: list[tuple[Path, int, str]] = []
    for index in _indexes(home):
        text, _stamp = read_stamped(index, root)
        for entry in parse_entries(text, 0):
            if entry.target is None:
                found.append((index, entry.line - 1, entry.title))
    return found


def plan_promote_index_fact(home: Path, fact: str,
                            context_file: str = DEFAULT_CONTEXT_FILE) -> WritePlan:
    """Move one ``MEMORY.md`` bullet (matched exactly, else by a unique part, over every
    project of the home) to the global file: the line is removed from its index and the fact
    (redacted) added as 0.61 keeps global memory."""
    wanted = " ".join(fact.split())
    if not wanted:
        raise AgentInputError("name the fact to promote")
    root = real_root(home)
    facts = index_facts(home, root)
    chosen = [item for item in facts if item[2] == wanted] or \
        [item for item in facts if wanted.lower() in item[2].lower()]
    index, line, text = only_match(chosen, f"no MEMORY.md bullet matching {wanted[:60]!r} in "
                                           f"{home / TMP_DIR}",
                                   f"MEMORY.md bullets match {wanted[:60]!r}; be more precise")
    old, stamp = read_stamped(index, root)
    lines = old.split("\n")
    new_index = FileChange(str(index), ACTION_REPLACE, stamp, old,
                           "\n".join(lines[:line] + lines[line + 1:]))
    target = home / context_file
    clean = redact(text)
    added = target_change(target, root, append_global, [clean])
    notes = ("the text was redacted",) if clean != text else ()
    return WritePlan("promote", f"move one MEMORY.md fact of {index.parent.parent.name} to "
                     f"{target}", str(root), (added, new_index), notes)
