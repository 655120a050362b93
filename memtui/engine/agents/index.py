"""A memory index (``MEMORY.md``): its entries and what is loaded at session start.

Claude Code loads only the first ``MAX_INDEX_LINES`` lines and ``MAX_INDEX_BYTES`` bytes
(cut at a newline). ``index_load`` computes the cut and checks each link: *dangling* (no
such file), *outside* (leads out of the folder; never followed), and names the topic files
the index does not mention (*unindexed*).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import replace

from memtui.engine.agents.models import IndexEntry, IndexLoad

MAX_INDEX_LINES = 200
MAX_INDEX_BYTES = 25_000
INDEX_FILE = "MEMORY.md"
ENTRY_RE = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r"\s*(?:[—–:-]+\s*(?P<hook>.*))?$")
POINTER_RE = re.compile(
    r"^\s*[-*+]\s+See\s+`?(?P<target>[^\s`]+\.md)`?(?:\s+(?:for\s+)?(?P<hook>.*?))?\s*$")
"""Gemini CLI 0.61's pointer line: ``- See /abs/memory/<topic>.md for <summary>.`` (its
auto memory writes sibling files' index lines this way, with the absolute path)."""
_BULLET_RE = re.compile(r"^\s*[-*+]\s+(?P<text>\S.*)$")
_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+")
_URL_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def loaded_cut(text: str, max_lines: int = MAX_INDEX_LINES,
               max_bytes: int = MAX_INDEX_BYTES) -> tuple[int, int]:
    """(lines, bytes) of ``text`` loaded at session start: the whole lines within both limits."""
    lines = size = 0
    for line in _LINE_RE.findall(text):
        length = len(line.encode("utf-8"))
        if lines >= max_lines or size + length > max_bytes:
            break
        lines += 1
        size += length
    return lines, size


def link_target(target: str) -> str | None:
    """The file a link names (anchor and ``./`` dropped); None for a URL or an anchor."""
    if _URL_RE.match(target) or target.startswith("#"):
        return None
    path = target.split("#", 1)[0]
    return path or None


def is_outside(target: str) -> bool:
    """True when a link leads outside its folder (absolute, ``~``, or ``..`` above it)."""
    if target.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", target):
        return True
    normal = posixpath.normpath(target)
    return normal == ".." or normal.startswith("../")


def line_target(line: str, folder: str | None = None) -> str | None:
    """The file an index line links to: a ``[title](file.md)`` link's, or a 0.61 pointer's
    (``- See <folder>/file.md for …``: its name when the path is in ``folder``)."""
    match = ENTRY_RE.match(line)
    if match is not None:
        return link_target(match.group("target"))
    pointer = POINTER_RE.match(line)
    if pointer is None:
        return None
    target = pointer.group("target")
    if folder is not None and posixpath.isabs(target) and posixpath.dirname(target) == folder:
        return posixpath.basename(target)
    return target


def index_line(relative: str, name: str | None, description: str | None) -> str:
    """A topic's line in ``MEMORY.md``: ``- [name](file.md) — description``."""
    title = (name or posixpath.splitext(posixpath.basename(relative))[0]).replace("]", ")")
    hook = " ".join((description or "").split())
    return f"- [{title}]({relative})" + (f" — {hook}" if hook else "")


def parse_entries(text: str, loaded_lines: int) -> list[IndexEntry]:
    """The index's bullet lines: linked entries and plain bullets."""
    entries: list[IndexEntry] = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = ENTRY_RE.match(line)
        loaded = number <= loaded_lines
        if match is not None:
            target = link_target(match.group("target"))
            entries.append(IndexEntry(number, match.group("title").strip(), target,
                                      (match.group("hook") or "").strip(), loaded))
            continue
        pointer = POINTER_RE.match(line)
        if pointer is not None:
            target = pointer.group("target")
            hook = (pointer.group("hook") or "").strip().rstrip(".")
            entries.append(IndexEntry(number, hook or posixpath.basename(target), target,
                                      hook, loaded))
            continue
        bullet = _BULLET_RE.match(line)
        if bullet is not None:
            entries.append(IndexEntry(number, bullet.group("text").strip(), None, "", loaded))
    return entries


def index_load(path: str, text: str, topic_files: Iterable[str],
               max_lines: int = MAX_INDEX_LINES,
               max_bytes: int = MAX_INDEX_BYTES) -> IndexLoad:
    """The load of an index whose folder holds ``topic_files`` (folder-relative paths)."""
    topics = set(topic_files)
    loaded_lines, loaded_bytes = loaded_cut(text, max_lines, max_bytes)
    lines = text.split("\n")
    total_lines = len(lines) - (1 if lines and lines[-1] == "" else 0)
    entries: list[IndexEntry] = []
    dangling: list[str] = []
    outside: list[str] = []
    mentioned: set[str] = set()
    for entry in parse_entries(text, loaded_lines):
        if entry.target is None:
            entries.append(entry)
            continue
        named = entry.target
        if posixpath.isabs(named) and posixpath.dirname(named) == posixpath.dirname(path):
            named = posixpath.basename(named)  # a 0.61 pointer into the folder
        if is_outside(named):
            outside.append(named)
            entries.append(replace(entry, target=named, exists=False))
            continue
        target = posixpath.normpath(named)  # ./a.md -> a.md
        mentioned.add(target)
        if target not in topics:
            dangling.append(target)
        entries.append(replace(entry, target=target, exists=target in topics))
    unindexed = sorted(topics - mentioned)
    return IndexLoad(path=path, lines=total_lines, bytes=len(text.encode("utf-8")),
                     loaded_lines=loaded_lines, loaded_bytes=loaded_bytes,
                     max_lines=max_lines, max_bytes=max_bytes, entries=tuple(entries),
                     dangling=tuple(dangling), outside=tuple(outside),
                     unindexed=tuple(unindexed))
