"""A curation as a plan: every file it would change, shown first (a diff with secrets
masked), then written by ``apply_plan`` through the one safe-write helper (``AGENT_FILES``):
every stamp checked before any write, each file written atomically in order, and the files
already written put back when the system refuses one part-way.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.engine.agents.errors import (
    AGENT_FILES,
    AgentFileProblem,
    AgentInputError,
    AgentNotFound,
    AgentWriteRefused,
)
from memtui.engine.redaction import scan
from memtui.engine.safe_files import FileStamp
from memtui.errors import MemtuiError, UnsafePath

ACTION_REPLACE = "replace"
ACTION_REMOVE = "remove"
ACTION_CREATE = "create"
WRITE_HINT = "add --write to do it"
MASK = "«{kind}»"
"""How a secret shows in a plan's diff: its kind, never its value."""


def diff_body(diff: str) -> list[str]:
    """A unified diff's lines without its ``--- `` / ``+++ `` file lines (a removed line
    whose text starts ``--`` stays)."""
    return [line for line in diff.splitlines() if not line.startswith(("--- ", "+++ "))]


@dataclass(frozen=True)
class FileChange:
    """One file a plan changes: replaced, removed or created."""

    path: str
    action: str
    stamp: FileStamp | None
    old_text: str
    new_text: str


def file_change(path: str | Path, stamp: FileStamp | None, old: str | None, new: str | None
                ) -> FileChange:
    """Writing ``new`` (None: removing the file) over ``old`` (None: there is none)."""
    action = ACTION_REMOVE if new is None else ACTION_CREATE if old is None else ACTION_REPLACE
    return FileChange(str(path), action, stamp, old or "", new or "")


@dataclass(frozen=True)
class WritePlan:
    """What a curation would write, in order, inside ``root``."""

    action: str
    summary: str
    root: str
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()

    def diff(self) -> str:
        """A unified diff of every change, with secrets shown as their kind only."""
        parts: list[str] = []
        for change in self.changes:
            old = mask_secrets(change.old_text).splitlines(keepends=True)
            new = mask_secrets(change.new_text).splitlines(keepends=True)
            name = display_path(change.path, self.root)
            before = "/dev/null" if change.action == ACTION_CREATE else f"a/{name}"
            after = "/dev/null" if change.action == ACTION_REMOVE else f"b/{name}"
            lines = list(difflib.unified_diff(old, new, before, after, n=2))
            parts.extend(line if line.endswith("\n") else line + "\n" for line in lines)
        return "".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The plan: action, summary, files and the masked diff."""
        return {"action": self.action, "summary": self.summary, "root": self.root,
                "files": [{"path": change.path, "action": change.action}
                          for change in self.changes],
                "notes": list(self.notes), "diff": self.diff()}


@dataclass(frozen=True)
class AppliedPlan:
    """A plan that was written."""

    plan: WritePlan

    def to_json(self) -> dict[str, Any]:
        """The plan's summary and files, ``written`` (false: it had nothing to change)."""
        data = self.plan.to_json()
        data.pop("diff", None)
        return {**data, "written": bool(self.plan.changes)}


def read_stamped(path: Path, root: Path, max_bytes: int | None = None
                 ) -> tuple[str, FileStamp]:
    """A file's text and stamp, read inside ``root`` to be changed (no symlink)."""
    if not os.path.lexists(path):
        raise AgentNotFound(f"{path}: no such memory file")
    if path.is_symlink():
        raise UnsafePath(f"{path}: is a symlink; memtui does not write through one")
    try:
        return AGENT_FILES.read_text_stamped(path, root, max_bytes)
    except AgentFileProblem as error:
        raise AgentInputError(f"{path}: {error.reason}") from None


def display_path(path: str, root: str) -> str:
    """``path`` relative to the store's root (or the root's real path) when inside it."""
    for base in (root, os.path.realpath(root)):
        real = os.path.realpath(path)
        for candidate in (path, real):
            if candidate.startswith(base.rstrip(os.sep) + os.sep):
                return candidate[len(base.rstrip(os.sep)) + 1:]
    return path


def mask_secrets(text: str) -> str:
    """``text`` with every secret replaced by ``«kind»``."""
    out: list[str] = []
    position = 0
    for finding in sorted(scan(text).findings, key=lambda item: item.start):
        out += [text[position:finding.start], MASK.format(kind=finding.kind)]
        position = max(position, finding.end)
    return "".join(out) + text[position:]


def refuse_without_write(plan: WritePlan, write: bool) -> None:
    """``AgentWriteRefused`` (with the plan) unless ``write`` or the plan changes nothing."""
    if write is not True and plan.changes:
        raise AgentWriteRefused(f"would {plan.summary}; {WRITE_HINT} (nothing was changed)",
                                plan=plan.to_json())


def apply_plan(plan: WritePlan, write: bool) -> AppliedPlan:
    """Write a plan (refused without ``write``): whole or not at all (the module doc)."""
    refuse_without_write(plan, write)
    root = Path(plan.root)
    for change in plan.changes:
        if change.stamp is not None:
            AGENT_FILES.check_unchanged(change.stamp, root)
    done: list[tuple[FileChange, FileStamp | None]] = []
    for change in plan.changes:
        try:
            done.append((change, _apply_change(change, root)))
        except MemtuiError as error:
            if not done:
                raise
            left = _undo(done, root)
            words = ("the files written before it were put back" if not left else
                     "could not put back " + ", ".join(left))
            raise type(error)(f"{error.message}; {words}") from None
    return AppliedPlan(plan)


def _apply_change(change: FileChange, root: Path) -> FileStamp | None:
    """Write one change; the file's new stamp (None once removed)."""
    if change.action == ACTION_REPLACE and change.stamp is not None:
        return AGENT_FILES.replace_file(change.stamp, change.new_text, root)
    if change.action == ACTION_REMOVE and change.stamp is not None:
        AGENT_FILES.remove_file(change.stamp, root)
        return None
    if change.action == ACTION_CREATE:
        return AGENT_FILES.create_file(change.path, change.new_text, root)
    return None


def _undo(done: list[tuple[FileChange, FileStamp | None]], root: Path) -> list[str]:
    """Put the written changes back, the last first; the paths that could not be."""
    left: list[str] = []
    for change, stamp in reversed(done):
        try:
            if change.action == ACTION_REPLACE and stamp is not None:
                AGENT_FILES.replace_file(stamp, change.old_text, root)
            elif change.action == ACTION_REMOVE and change.stamp is not None:
                AGENT_FILES.create_file(change.path, change.old_text, root, change.stamp.mode)
            elif change.action == ACTION_CREATE and stamp is not None:
                AGENT_FILES.remove_file(stamp, root)
        except MemtuiError:
            left.append(change.path)
    return left
