"""Unified diffs (Gemini CLI's ``.inbox`` patches): parse, check and apply exactly.

A patch is applied only when every hunk matches the file as it is (context and removed
lines, at the stated line or, if the file moved, at the one nearest place where the whole
hunk matches); otherwise nothing is written and the reason names the hunk.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

DEV_NULL = "/dev/null"
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@")
MAX_PATCH_BYTES = 1024 * 1024


class PatchError(ValueError):
    """A patch that cannot be parsed or does not apply; the message is one line."""


@dataclass
class Hunk:
    """One ``@@`` hunk: where it starts in the old file and its lines (with their mark)."""

    old_start: int
    old_count: int
    new_count: int
    lines: list[tuple[str, str]] = field(default_factory=list)

    @property
    def old_lines(self) -> list[str]:
        """The lines the hunk expects (context and removed)."""
        return [text for mark, text in self.lines if mark in (" ", "-")]

    @property
    def new_lines(self) -> list[str]:
        """The lines the hunk leaves (context and added)."""
        return [text for mark, text in self.lines if mark in (" ", "+")]


@dataclass
class FilePatch:
    """The hunks for one file."""

    old_path: str
    new_path: str
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def target(self) -> str:
        """The file the patch changes (``b/`` or ``a/`` prefixes dropped)."""
        path = self.new_path if self.new_path != DEV_NULL else self.old_path
        return strip_prefix(path)

    @property
    def creates(self) -> bool:
        """True when the patch makes a new file."""
        return self.old_path == DEV_NULL

    @property
    def deletes(self) -> bool:
        """True when the patch removes the file."""
        return self.new_path == DEV_NULL


def strip_prefix(path: str) -> str:
    """A diff path without its ``a/`` / ``b/`` prefix and timestamp."""
    path = path.split("\t", 1)[0].strip()
    return path[2:] if path.startswith(("a/", "b/")) else path


def parse_patch(text: str) -> list[FilePatch]:
    """The file patches of a unified diff; ``PatchError`` when it is malformed."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    patches: list[FilePatch] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("--- "):
            index += 1
            continue
        if index + 1 >= len(lines) or not lines[index + 1].startswith("+++ "):
            raise PatchError(f"line {index + 1}: '---' without a '+++' line")
        patch = FilePatch(line[4:].split("\t", 1)[0].strip(),
                          lines[index + 1][4:].split("\t", 1)[0].strip())
        index += 2
        while index < len(lines) and lines[index].startswith("@@"):
            match = _HUNK_RE.match(lines[index])
            if match is None:
                raise PatchError(f"line {index + 1}: malformed hunk header")
            hunk = Hunk(int(match.group(1)), int(match.group(2) or "1"),
                        int(match.group(3) or "1"))
            index += 1
            old = new = 0
            while index < len(lines) and (old < hunk.old_count or new < hunk.new_count):
                body = lines[index]
                if body.startswith("\\"):
                    index += 1
                    continue
                mark, rest = (body[:1], body[1:]) if body else (" ", "")
                if mark not in (" ", "-", "+"):
                    raise PatchError(f"line {index + 1}: hunk line starts with {mark!r}")
                hunk.lines.append((mark, rest))
                old += mark in (" ", "-")
                new += mark in (" ", "+")
                index += 1
            if old != hunk.old_count or new != hunk.new_count:
                raise PatchError(f"hunk at line {hunk.old_start}: expected {hunk.old_count}/"
                                 f"{hunk.new_count} lines, found {old}/{new} (truncated?)")
            while index < len(lines) and lines[index].startswith("\\"):
                index += 1
            patch.hunks.append(hunk)
        if not patch.hunks:
            raise PatchError(f"{patch.target or 'a file'}: no hunks")
        patches.append(patch)
    if not patches:
        raise PatchError("no '---'/'+++' file header: not a unified diff")
    return patches


def _find(lines: list[str], wanted: list[str], start: int) -> int | None:
    if not wanted:
        return min(max(start, 0), len(lines))
    nearest = sorted(range(len(lines) - len(wanted) + 1), key=lambda at: abs(at - start))
    return next((at for at in nearest if lines[at:at + len(wanted)] == wanted), None)


def apply_file_patch(text: str | None, patch: FilePatch) -> str | None:
    """The file's new text (None: deleted) from its text (None: no file); ``PatchError`` when a
    hunk does not match."""
    if text is None and not patch.creates:
        raise PatchError(f"{patch.target}: file does not exist")
    if text is not None and patch.creates:
        raise PatchError(f"{patch.target}: the patch creates it, but it already exists")
    source = "" if text is None else text
    trailing = source.endswith("\n") or not source
    lines = source.removesuffix("\n").split("\n") if source else []
    offset = 0
    for number, hunk in enumerate(patch.hunks, start=1):
        at = _find(lines, hunk.old_lines, hunk.old_start - 1 + offset if hunk.old_count
                   else hunk.old_start + offset)
        if at is None:
            raise PatchError(f"{patch.target}: hunk {number} (line {hunk.old_start}) does not "
                             "match the file")
        lines[at:at + len(hunk.old_lines)] = hunk.new_lines
        offset += len(hunk.new_lines) - len(hunk.old_lines)
    if patch.deletes:
        if lines:
            raise PatchError(f"{patch.target}: the patch deletes it but lines remain")
        return None
    return "\n".join(lines) + ("\n" if trailing and lines else "")


def patch_counts(patches: list[FilePatch]) -> tuple[int, int]:
    """(added, removed) lines over every hunk."""
    marks = Counter(mark for patch in patches for hunk in patch.hunks for mark, _ in hunk.lines)
    return marks["+"], marks["-"]
