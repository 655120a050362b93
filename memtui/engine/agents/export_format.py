"""memtui's memories written in Claude Code's and Gemini CLI's formats (file name -> text):
per project a memory folder (``MEMORY.md`` and one topic file per memory) under
``projects/<slug>/`` or ``tmp/<slug>/`` (with ``.project_root`` and ``projects.json``);
user-level memories as bullets of ``CLAUDE.md`` / ``GEMINI.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, count

from memtui.engine.agents.frontmatter import render_front_matter
from memtui.engine.agents.index import MAX_INDEX_BYTES, MAX_INDEX_LINES, loaded_cut
from memtui.engine.agents.paths import claude_slug, gemini_slug

KIND_TO_CLAUDE_TYPE = {"preference": "user", "convention": "feedback", "decision": "project",
                       "fact": "project"}
CLAUDE_TYPE_TO_KIND = {"user": "preference", "feedback": "convention", "project": "fact",
                       "reference": "fact"}
MAX_TITLE_CHARS = 60
MAX_FILE_SLUG_CHARS = 48
USER_HEADING = "## memtui user memories"
_FILE_JUNK = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class ExportMemory:
    """One memory to write: its id, kind and text."""

    id: str
    kind: str
    content: str


@dataclass(frozen=True)
class ExportProject:
    """One project's memories to write."""

    id: str
    root: str | None
    memories: tuple[ExportMemory, ...]


def title_of(text: str) -> str:
    """The first non-empty line, flattened and cut to ``MAX_TITLE_CHARS``."""
    first = next((" ".join(line.split()) for line in text.split("\n") if line.strip()), "")
    first = first.lstrip("#-* ").replace("[", "(").replace("]", ")")
    return (first[:MAX_TITLE_CHARS - 1] + "…") if len(first) > MAX_TITLE_CHARS else first


def file_name(memory: ExportMemory, taken: set[str]) -> str:
    """A unique topic file name from the memory's kind and title."""
    base = _FILE_JUNK.sub("_", f"{memory.kind} {title_of(memory.content)}".lower()).strip("_")
    base = base[:MAX_FILE_SLUG_CHARS].rstrip("_") or "memory"
    name = next(name for name in chain([f"{base}.md"], (f"{base}_{number}.md"
                                                        for number in count(2)))
                if name not in taken)
    taken.add(name)
    return name


def _memory_folder(memories: Iterable[ExportMemory], base: str
                   ) -> tuple[dict[str, str], list[str]]:
    """The files of a memory folder ``base`` (its index first) and the index's lines."""
    files: dict[str, str] = {}
    lines: list[str] = []
    taken: set[str] = {"MEMORY.md"}
    for memory in memories:
        name = file_name(memory, taken)
        title = title_of(memory.content) or memory.id
        fields = {"name": title, "description": title,
                  "type": KIND_TO_CLAUDE_TYPE.get(memory.kind, "project")}
        files[f"{base}/{name}"] = f"{render_front_matter(fields)}\n{memory.content.strip()}\n"
        lines.append(f"- [{title}]({name}) — {memory.kind}")
    return {f"{base}/MEMORY.md": "\n".join(lines) + "\n", **files} if lines else {}, lines


def render_claude(projects: Iterable[ExportProject], user: Iterable[ExportMemory]
                  ) -> tuple[dict[str, str], list[str]]:
    """(files, notes) of a Claude Code home; a note says when an index passes the limit."""
    files: dict[str, str] = {}
    notes: list[str] = []
    for project in projects:
        slug = claude_slug(project.root) if project.root else f"memtui-{project.id}"
        folder, lines = _memory_folder(project.memories, f"projects/{slug}/memory")
        files.update(folder)
        loaded = loaded_cut("\n".join(lines) + "\n")[0] if lines else 0
        if loaded < len(lines):
            notes.append(f"project {project.id}: {len(lines) - loaded} of {len(lines)} index "
                         f"entries fall past Claude Code's {MAX_INDEX_LINES}-line / "
                         f"{MAX_INDEX_BYTES}-byte limit")
    bullets = [" ".join(memory.content.split()) for memory in user]
    if bullets:
        files["CLAUDE.md"] = USER_HEADING + "\n\n" + "\n".join(f"- {b}" for b in bullets) + "\n"
    return files, notes


def render_gemini(projects: Iterable[ExportProject], user: Iterable[ExportMemory]
                  ) -> tuple[dict[str, str], list[str]]:
    """(files, notes) of a Gemini CLI home."""
    files: dict[str, str] = {}
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for project in projects:
        if not project.memories:
            continue
        base_slug = gemini_slug(project.root or project.id)
        slug = next(name for name in chain([base_slug], (f"{base_slug}-{number}"
                                                         for number in count(1)))
                    if name not in used)
        used.add(slug)
        files.update(_memory_folder(project.memories, f"tmp/{slug}/memory")[0])
        if project.root:
            mapping[project.root] = slug
            files[f"tmp/{slug}/.project_root"] = project.root + "\n"
    bullets = [" ".join(memory.content.split()) for memory in user]
    files["GEMINI.md"] = "".join(f"- {b}\n" for b in bullets)  # 0.61: plain bullets
    files["projects.json"] = json.dumps({"projects": mapping}, indent=2) + "\n"
    return files, []
