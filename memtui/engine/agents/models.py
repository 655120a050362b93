"""What the agent-store readers return: frozen dataclasses with ``to_json()``; ``Problem``
is the Codex reader's."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from memtui.engine.codex.models import Problem as Problem
from memtui.engine.redaction import redact, scan
from memtui.jsonable import JsonMixin

AGENT_CLAUDE = "claude"
AGENT_GEMINI = "gemini"
AGENT_CODEX = "codex"
PREVIEW_CHARS = 160
"""Characters of a memory file's first line shown in listings and JSON."""


@dataclass(frozen=True)
class SecretFinding(JsonMixin):
    """A secret found in a file: where and what kind, never the value."""

    path: str
    line: int
    kind: str


def find_secrets(path: str, text: str) -> tuple[SecretFinding, ...]:
    """Every secret in ``text`` (``redaction.scan``) as (path, 1-based line, kind)."""
    findings = scan(text).findings
    starts = [0] + [match.end() for match in re.finditer("\n", text)] if findings else []
    return tuple(SecretFinding(path, bisect_right(starts, finding.start), finding.kind)
                 for finding in findings)


@dataclass(frozen=True)
class Switch(JsonMixin):
    """One memory switch: its name, value and where it is set (``default`` when nowhere)."""

    name: str
    value: object
    where: str
    effective: bool = True
    """False when a later (stronger) setting overrides this one."""

    @property
    def value_text(self) -> str:
        """The value as JSON spells it (``true``, ``"on"``), as the settings files do."""
        return json.dumps(self.value, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class IndexEntry(JsonMixin):
    """One line of a memory index (``- [Title](file.md) — hook``)."""

    line: int
    title: str
    target: str | None
    hook: str
    loaded: bool
    exists: bool | None = None
    """Whether the linked file exists in the folder (None: no link)."""


METER_COUNTS = ("path", "lines", "bytes", "loaded_lines", "loaded_bytes", "max_lines",
                "max_bytes")
"""The fields of an index load its meter shows as they are, in the meter's order."""


@dataclass(frozen=True)
class IndexLoad(JsonMixin):
    """What of an index is loaded at session start (200 lines / 25,000 bytes) and not."""

    path: str
    lines: int
    bytes: int
    loaded_lines: int
    loaded_bytes: int
    max_lines: int
    max_bytes: int
    entries: tuple[IndexEntry, ...] = ()
    dangling: tuple[str, ...] = ()
    """Linked files that do not exist."""
    outside: tuple[str, ...] = ()
    """Links that lead outside the memory folder (never followed)."""
    unindexed: tuple[str, ...] = ()
    """Topic files the index does not mention."""

    @property
    def over_limit(self) -> bool:
        """True when part of the index is not loaded."""
        return self.loaded_lines < self.lines

    @property
    def dropped(self) -> tuple[str, ...]:
        """Titles (or lines) of the entries that fall past the limit."""
        return tuple(entry.title or entry.target or f"line {entry.line}"
                     for entry in self.entries if not entry.loaded)

    def meter_json(self) -> dict[str, Any]:
        """The index's load meter: counts, limits and the names past the limit, not the entries."""
        data = {name: getattr(self, name) for name in METER_COUNTS}
        return data | {"dropped": list(self.dropped), "dangling": list(self.dangling),
                       "unindexed": list(self.unindexed)}


@dataclass(frozen=True)
class MemoryFile(JsonMixin):
    """One memory file: a topic file, a daily log, an index, a Gemini memory file."""

    path: str
    relative: str
    role: str
    """``index``, ``topic``, ``log``, ``global`` or ``file``."""
    size: int
    name: str | None = None
    description: str | None = None
    type: str | None = None
    body: str = ""
    front_matter: dict[str, str] = field(default_factory=dict)

    def preview(self, chars: int = PREVIEW_CHARS) -> str:
        """The first line of the body, redacted, at most ``chars`` characters."""
        first = next((line.strip() for line in self.body.split("\n") if line.strip()), "")
        return redact(first)[:chars]

    def to_json(self) -> dict[str, Any]:
        """The file without its body (which may hold a secret): a redacted preview."""
        data = {key: value for key, value in super().to_json().items() if key != "body"}
        data["preview"] = self.preview()
        data["front_matter"] = {key: redact(value) for key, value in self.front_matter.items()}
        return data


@dataclass(frozen=True)
class InstructionFile(JsonMixin):
    """An instruction file (CLAUDE.md, GEMINI.md, rules) with where it comes from."""

    path: str
    origin: str
    """``managed``, ``user``, ``project``, ``local``, ``parent``, ``import``, ... ."""
    size: int
    exists: bool
    imported_by: str | None = None
    depth: int = 0


@dataclass(frozen=True)
class InboxPatch(JsonMixin):
    """A pending Gemini auto-memory change: a unified diff waiting in ``.inbox``."""

    id: str
    """``<scope>/<file name>`` (``private/x.patch``), unique within its memory folder."""
    path: str
    scope: str
    """``private`` or ``global``."""
    project: str | None
    targets: tuple[str, ...]
    added: int
    removed: int
    valid: bool
    reason: str | None = None
    size: int = 0


@dataclass(frozen=True)
class AgentProject(JsonMixin):
    """One agent's memory for one project (or its user/global tier, ``project`` None)."""

    agent: str
    key: str
    """Stable id within the agent: the slug (Claude, Gemini) or ``global``."""
    project: str | None
    """The project's absolute path when known."""
    memory_dir: str | None
    files: tuple[MemoryFile, ...] = ()
    index: IndexLoad | None = None
    secrets: tuple[SecretFinding, ...] = ()
    inbox: tuple[InboxPatch, ...] = ()
    transcripts: int = 0
    worktree_of: str | None = None
    other_files: int = 0
    switches: tuple[Switch, ...] = ()
    auto_memory: bool | None = None
    """Whether the agent writes memories here (None: unknown)."""
    problems: tuple[Problem, ...] = ()

    @property
    def size(self) -> int:
        """Bytes of every memory file read."""
        return sum(item.size for item in self.files)

    @property
    def topics(self) -> int:
        """How many memory files, the index and daily logs excluded."""
        return sum(1 for item in self.files if item.role in ("topic", "file", "global"))


class ProjectRows:
    """Gives a home as read (``ClaudeHome``, ``GeminiHome``) ``project(key)``."""

    projects: tuple[AgentProject, ...]

    def project(self, key: str) -> AgentProject | None:
        """A project row by its key (a slug, ``global``) or by its project path."""
        return next((item for item in self.projects
                     if item.key == key or item.project == key), None)
