"""Claude Code transcripts (``projects/<slug>/<session>.jsonl``) read as finished tasks.

Goal = the first real user request (a user message whose content is only ``tool_result``
blocks is not one, nor a meta or command record); result = the last assistant text; times
from the records' timestamps; a ``mcp__<server>__<tool>`` call is MCP use and ``WebSearch``
/ ``WebFetch`` web access (external context for the extractor's gate 4). Sub-agent sessions
(``agent-*.jsonl``, or every record ``isSidechain``) are skipped with that reason. Bad lines
are problems with their line number; unknown record types are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.models import JsonMixin, Problem
from memtui.engine.codex.timefmt import format_utc, parse_datetime
from memtui.engine.safe_files import real_root

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_PROBLEMS_PER_FILE = 20
SUBAGENT_PREFIX = "agent-"
TRANSCRIPT_SUFFIX = ".jsonl"
MCP_PREFIX = "mcp__"
WEB_TOOLS = frozenset({"WebSearch", "WebFetch"})
INJECTED_PREFIXES = ("<command-name>", "<command-message>", "<local-command-stdout>",
                     "Caveat: The messages below", "<system-reminder>", "[Request interrupted")
"""User texts that Claude Code injects, not the user's request."""


@dataclass(frozen=True)
class TranscriptTask(JsonMixin):
    """One main session read as a finished task."""

    session_id: str | None
    file: str
    cwd: str | None
    goal: str | None
    result: str | None
    started_at: str | None
    finished_at: str | None
    used_mcp: bool
    used_web: bool
    mcp_tools: tuple[str, ...] = ()
    git_branch: str | None = None
    sidechain_only: bool = False
    problems: tuple[Problem, ...] = ()

    @property
    def used_external_context(self) -> bool:
        """True when MCP tools or web access fed the session."""
        return self.used_mcp or self.used_web


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    texts = [item.get("text", "") for item in content
             if isinstance(item, dict) and item.get("type") == "text"
             and isinstance(item.get("text"), str)]
    return "\n".join(text for text in texts if text.strip()).strip()


def _only_tool_results(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(
        isinstance(item, dict) and item.get("type") == "tool_result" for item in content)


@dataclass
class _Builder:
    file: str
    session_id: str | None = None
    cwd: str | None = None
    goal: str | None = None
    result: str | None = None
    first: str | None = None
    last: str | None = None
    used_mcp: bool = False
    used_web: bool = False
    mcp_tools: list[str] = field(default_factory=list)
    git_branch: str | None = None
    main_records: int = 0
    side_records: int = 0
    problems: list[Problem] = field(default_factory=list)

    def problem(self, line: int, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS_PER_FILE:
            self.problems.append(Problem(self.file, reason, line))

    def record(self, line: int, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self.problem(line, "not valid JSON (truncated?); line skipped")
            return
        if not isinstance(record, dict):
            self.problem(line, "not a JSON object; line skipped")
            return
        kind = record.get("type")
        if kind not in ("user", "assistant"):
            return
        if record.get("isSidechain") is True:
            self.side_records += 1
            return
        self.main_records += 1
        stamp = parse_datetime(record.get("timestamp"))
        if stamp is not None:
            text = format_utc(stamp)
            self.first = self.first or text
            self.last = text
        for key in ("sessionId", "cwd", "gitBranch"):
            value = record.get(key)
            if isinstance(value, str) and value:
                if key == "sessionId":
                    self.session_id = self.session_id or value
                elif key == "cwd":
                    self.cwd = self.cwd or value
                else:
                    self.git_branch = self.git_branch or value
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if kind == "user":
            if record.get("isMeta") is True or _only_tool_results(content):
                return
            text = _text(content)
            if text and self.goal is None and not text.startswith(INJECTED_PREFIXES):
                self.goal = text
            return
        if isinstance(content, list):
            for item in content:
                if not isinstance(item, dict) or item.get("type") != "tool_use":
                    continue
                name = item.get("name")
                if isinstance(name, str) and name.startswith(MCP_PREFIX):
                    self.used_mcp = True
                    if name not in self.mcp_tools:
                        self.mcp_tools.append(name)
                elif name in WEB_TOOLS:
                    self.used_web = True
        text = _text(content)
        if text:
            self.result = text

    def build(self) -> TranscriptTask:
        return TranscriptTask(
            session_id=self.session_id or Path(self.file).stem, file=self.file, cwd=self.cwd,
            goal=self.goal, result=self.result, started_at=self.first, finished_at=self.last,
            used_mcp=self.used_mcp, used_web=self.used_web, mcp_tools=tuple(self.mcp_tools),
            git_branch=self.git_branch,
            sidechain_only=self.side_records > 0 and self.main_records == 0,
            problems=tuple(self.problems))


def _lines(handle: Any) -> Iterator[tuple[int, bytes]]:
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = handle.readline(1 << 20)
            yield number, b"\x00too-long"
            continue
        yield number, raw


def read_transcript(path: Path, root: Path) -> TranscriptTask:
    """One transcript as a task; ``AgentFileProblem`` when the file cannot be read."""
    real = AGENT_FILES.check_inside(path, root)
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise AgentFileProblem(f"cannot open ({error.strerror or error})") from None
    info = os.fstat(fd)
    if info.st_size > MAX_TRANSCRIPT_BYTES:
        os.close(fd)
        raise AgentFileProblem(f"too large ({info.st_size} bytes)")
    builder = _Builder(str(path))
    try:
        with os.fdopen(fd, "rb") as handle:
            for number, raw in _lines(handle):
                builder.record(number, raw)
    except OSError as error:
        raise AgentFileProblem(f"read failed ({error.strerror or error})") from None
    return builder.build()


@dataclass(frozen=True)
class TranscriptFile:
    """A transcript file found under ``projects/<slug>/``."""

    path: Path
    slug: str

    @property
    def subagent(self) -> bool:
        """True for a sub-agent session file (``agent-*.jsonl``)."""
        return self.path.name.startswith(SUBAGENT_PREFIX)

    @property
    def ref(self) -> str:
        """The session id its name gives (the file's stem)."""
        return self.path.stem


def transcript_files(home: Path) -> tuple[list[TranscriptFile], list[Problem]]:
    """Every ``projects/*/*.jsonl`` of a Claude Code home, oldest folder name first."""
    root = real_root(home)
    files: list[TranscriptFile] = []
    problems: list[Problem] = []
    try:
        folders = AGENT_FILES.list_folder(home / "projects", root)
    except AgentFileProblem as error:
        return [], [Problem(str(home / "projects"), error.reason)]
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink():
            continue
        try:
            entries = AGENT_FILES.list_folder(folder, root)
        except AgentFileProblem as error:
            problems.append(Problem(str(folder), error.reason))
            continue
        for path in entries:
            if path.name.endswith(TRANSCRIPT_SUFFIX) and path.is_file():
                files.append(TranscriptFile(path, folder.name))
    return files, problems
