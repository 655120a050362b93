"""Instruction files (CLAUDE.md, GEMINI.md …) with where each comes from, and their
``@path`` imports (at most ``MAX_IMPORT_HOPS`` deep). Read-only."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.models import InstructionFile, Problem, SecretFinding, find_secrets
from memtui.engine.safe_files import real_root

MAX_IMPORT_HOPS = 5
"""``@path`` imports are followed at most this many hops deep (as Claude Code does)."""
MAX_PARENT_LEVELS = 40
_IMPORT_RE = re.compile(r"(?:^|\s)@((?:~/|\.{0,2}/|[A-Za-z0-9_.-]+/)?[^\s`'\"<>()]+)")
_FENCE = "```"
_FILESYSTEM_ROOT = Path("/")


@dataclass
class InstructionScan:
    """The instruction files read, their secrets and problems."""

    files: list[InstructionFile] = field(default_factory=list)
    secrets: list[SecretFinding] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


def import_paths(text: str) -> list[str]:
    """``@path`` references of a file, outside code fences and inline code."""
    found: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if line.lstrip().startswith(_FENCE):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        plain = re.sub(r"`[^`]*`", "", line)
        for match in _IMPORT_RE.finditer(plain):
            target = match.group(1).rstrip(".,;:")
            if "/" in target or target.endswith(".md") or target.startswith("~"):
                found.append(target)
    return found


def _resolve(target: str, base: Path) -> Path:
    if target.startswith("~"):
        return Path(os.path.expanduser(target))
    path = Path(target)
    return path if path.is_absolute() else base / path


def read_instruction(scan: InstructionScan, path: Path, origin: str,
                     imported_by: str | None = None, depth: int = 0,
                     show_missing: bool = False) -> None:
    """Read one instruction file and follow its imports (a missing one listed with
    ``show_missing``)."""
    key = os.path.abspath(path)
    if key in scan.seen:
        return
    scan.seen.add(key)
    if not os.path.lexists(path):
        if show_missing or imported_by:
            scan.files.append(InstructionFile(str(path), origin, 0, False, imported_by, depth))
        if imported_by:
            scan.problems.append(Problem(imported_by, f"imports {path}, which does not exist"))
        return
    try:
        text, stamp = AGENT_FILES.read_text_stamped(path, real_root(_FILESYSTEM_ROOT))
    except AgentFileProblem as error:
        scan.problems.append(Problem(str(path), error.reason))
        scan.files.append(InstructionFile(str(path), origin, 0, True, imported_by, depth))
        return
    scan.files.append(InstructionFile(str(path), origin, stamp.size, True, imported_by, depth))
    scan.secrets.extend(find_secrets(str(path), text))
    for target in import_paths(text):
        child = _resolve(target, path.parent)
        if depth + 1 > MAX_IMPORT_HOPS:
            scan.problems.append(Problem(str(path), f"import {target[:80]} is more than "
                                         f"{MAX_IMPORT_HOPS} hops deep; not loaded"))
            continue
        read_instruction(scan, child, "import", str(path), depth + 1)


def read_rules(scan: InstructionScan, folder: Path, origin: str) -> None:
    """Every ``*.md`` of a rules folder (sorted)."""
    if not folder.is_dir():
        return
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        scan.problems.append(Problem(str(folder), f"cannot list folder "
                                                  f"({error.strerror or error})"))
        return
    for name in names:
        if name.endswith(".md"):
            read_instruction(scan, folder / name, origin)


def parents_of(project: Path) -> list[Path]:
    """The folders above a project, nearest first, to the filesystem root."""
    return list(project.parents)[:MAX_PARENT_LEVELS]
