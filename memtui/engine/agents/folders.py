"""Read one memory folder (Claude Code's ``projects/<slug>/memory/``, Gemini CLI's
``tmp/<slug>/memory/``): the index, topic files with their front matter, daily logs, and
the secrets in all of them. Every bad file is one ``Problem``; the rest are read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.frontmatter import TOPIC_TYPES, parse_front_matter, topic_type
from memtui.engine.agents.index import INDEX_FILE, MAX_INDEX_BYTES, MAX_INDEX_LINES, index_load
from memtui.engine.agents.models import IndexLoad, MemoryFile, Problem, SecretFinding, find_secrets

MARKDOWN_SUFFIX = ".md"
LOGS_DIR = "logs"
MAX_FOLDER_DEPTH = 6
MAX_FOLDER_FILES = 5000
"""Most files read from one memory folder; the rest are reported."""
HIDDEN_PREFIX = "."
LIMITS = (MAX_INDEX_LINES, MAX_INDEX_BYTES)
UNLIMITED = (1 << 30, 1 << 40)
"""Gemini CLI loads its whole index."""


@dataclass
class FolderScan:
    """What one memory folder holds."""

    files: list[MemoryFile] = field(default_factory=list)
    index: IndexLoad | None = None
    index_text: str | None = None
    secrets: list[SecretFinding] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    other_files: int = 0


def list_entries(folder: Path, root: Path, problems: list[Problem]) -> list[Path]:
    """The entries of a folder inside ``root``; none, with a problem, when it cannot be listed."""
    try:
        return AGENT_FILES.list_folder(folder, root)
    except AgentFileProblem as error:
        problems.append(Problem(str(folder), error.reason))
        return []


def subfolders(folder: Path, root: Path, problems: list[Problem]) -> list[Path]:
    """The folders in ``folder`` that stay inside ``root`` (one leading outside: a problem)."""
    return [path for path in list_entries(folder, root, problems)
            if _stays_inside(path, root, problems) and path.is_dir()]


def _stays_inside(path: Path, root: Path, problems: list[Problem]) -> bool:
    """False, with the problem added, when ``path`` leads outside ``root``."""
    try:
        AGENT_FILES.check_inside(path, root)
    except AgentFileProblem as error:
        problems.append(Problem(str(path), error.reason))
        return False
    return True


def _walk(folder: Path, root: Path, depth: int, scan: FolderScan,
          found: list[Path]) -> None:
    for path in list_entries(folder, root, scan.problems):
        if path.name.startswith(HIDDEN_PREFIX):
            continue  # .inbox, editor swap files, memtui's own temporary files
        if os.path.islink(path) and not _stays_inside(path, root, scan.problems):
            continue
        if path.is_dir():
            if depth > 0:
                _walk(path, root, depth - 1, scan, found)
            else:
                scan.problems.append(Problem(str(path), "folder nested too deep; not read"))
            continue
        if path.suffix != MARKDOWN_SUFFIX:
            scan.other_files += 1
            continue
        if len(found) >= MAX_FOLDER_FILES:
            scan.problems.append(Problem(str(folder), f"more than {MAX_FOLDER_FILES} files; "
                                                      "the rest were not read"))
            return
        found.append(path)


def _role(relative: str, legacy_names: tuple[str, ...]) -> str:
    if relative == INDEX_FILE:
        return "index"
    if relative in legacy_names:
        return "file"
    if relative.split("/", 1)[0] == LOGS_DIR:
        return "log"
    return "topic"


def read_memory_folder(folder: Path, root: Path, *, limited: bool = True,
                       legacy_names: tuple[str, ...] = ()) -> FolderScan:
    """Read a memory folder inside ``root`` (``limited``: Claude Code's four topic types
    and index load limit; else Gemini CLI's, which loads its whole index)."""
    scan = FolderScan()
    if os.path.islink(folder):
        scan.problems.append(Problem(str(folder), "memory folder is a symlink; not followed "
                                                  "(memtui reads and writes only real folders)"))
        return scan
    if not folder.is_dir():
        return scan
    paths: list[Path] = []
    _walk(folder, root, MAX_FOLDER_DEPTH, scan, paths)
    index_path = folder / INDEX_FILE
    for path in paths:
        relative = path.relative_to(folder).as_posix()
        try:
            text, stamp = AGENT_FILES.read_text_stamped(path, root)
        except AgentFileProblem as error:
            scan.problems.append(Problem(str(path), error.reason))
            continue
        role = _role(relative, legacy_names)
        scan.secrets.extend(find_secrets(str(path), text))
        if role == "index":
            scan.index_text = text
            scan.files.append(MemoryFile(str(path), relative, role, stamp.size, body=text))
            continue
        parsed = parse_front_matter(text)
        fields = parsed.fields
        if parsed.problem:
            scan.problems.append(Problem(str(path), parsed.problem, 1))
        kind = topic_type(fields)
        if role == "topic" and limited and fields and kind not in TOPIC_TYPES:
            shown = kind if kind is None else repr(kind[:30])
            scan.problems.append(Problem(str(path), f"front matter type {shown} is not one of "
                                         f"{', '.join(TOPIC_TYPES)}", 1))
        scan.files.append(MemoryFile(str(path), relative, role, stamp.size,
                                     name=fields.get("name") or None,
                                     description=fields.get("description") or None,
                                     type=kind, body=parsed.body, front_matter=fields))
    if scan.index_text is not None:
        topics = [item.relative for item in scan.files if item.role == "topic"]
        scan.index = index_load(str(index_path), scan.index_text, topics,
                                *(LIMITS if limited else UNLIMITED))
        for target in scan.index.outside:
            scan.problems.append(Problem(str(index_path), f"index links outside the memory "
                                         f"folder ({target[:80]}); not followed"))
        for target in scan.index.dangling:
            scan.problems.append(Problem(str(index_path), f"dangling index link: {target[:80]}"
                                         " does not exist"))
    return scan
