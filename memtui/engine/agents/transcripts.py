"""Claude Code transcripts (``projects/<slug>/<session>.jsonl``) read as finished tasks: the
one reader behind ``memtui claude import-transcripts`` and the session-end hook.

Only the main session's ``user`` and ``assistant`` records count (not ``isSidechain`` ones).
The goal is the first real user request (not ``isMeta``, tool results or
``INJECTED_PREFIXES``); the result is the last assistant text. External context (gate 4)
is a web tool or another server's MCP tool. A bad or too long line is a problem and is
skipped, so a transcript still being written reads as far as it is whole.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.engine.agents.errors import AGENT_FILES, AgentFileProblem
from memtui.engine.agents.folders import list_entries, subfolders
from memtui.engine.agents.models import Problem
from memtui.engine.codex.import_report import task_text
from memtui.engine.codex.timefmt import parse_datetime
from memtui.engine.safe_files import json_lines, real_root
from memtui.jsonable import JsonMixin
from memtui.store.timeutil import format_time

if TYPE_CHECKING:
    from memtui.engine.tasks import TaskApi
    from memtui.store.models import Task

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longer lines (a huge pasted file or tool output) are reported and skipped."""
MAX_PROBLEMS_PER_FILE = 20
SUBAGENT_PREFIX = "agent-"
TRANSCRIPT_SUFFIX = ".jsonl"
PROJECTS_DIR = "projects"
MCP_PREFIX = "mcp__"
OWN_MCP_PREFIX = "mcp__memtui__"
"""memtui's own MCP tools: not context from outside."""
WEB_TOOLS = frozenset({"WebSearch", "WebFetch", "web_search", "web_fetch"})
"""Claude Code's web tools and the API's server-side ones."""
TOOL_USE_BLOCKS = frozenset({"tool_use", "server_tool_use"})
INJECTED_PREFIXES = ("<command-", "<local-command-", "Caveat: The messages below",
                     "<system-reminder>", "[Request interrupted")
"""User texts that Claude Code injects, not the user's request."""
HOOK_TASK_SOURCE = "claude-code"
"""Task source of a session the session-end hook recorded (its agent name,
``engine.sessions.AGENTS``)."""
IMPORT_TASK_SOURCE = "claude"
"""Task source of a session ``claude import-transcripts`` recorded."""
SESSION_TASK_SOURCES = (HOOK_TASK_SOURCE, IMPORT_TASK_SOURCE)
"""A Claude Code session recorded under either source is not recorded again."""


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
    web_tools: tuple[str, ...] = ()
    prompts: int = 0
    problems: tuple[Problem, ...] = ()

    @property
    def used_external_context(self) -> bool:
        """True when MCP tools of another server or web access fed the session."""
        return self.used_mcp or self.used_web

    @property
    def external_tool(self) -> str | None:
        """The first tool that made the session external context (the log names it)."""
        return next(iter(self.mcp_tools + self.web_tools), None)

    def task_texts(self) -> tuple[str, str]:
        """The goal and the result redacted and cut as a task stores them."""
        return task_text(self.goal)[0], task_text(self.result)[0]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    texts = [item.get("text", "") for item in content
             if isinstance(item, dict) and item.get("type") == "text"
             and isinstance(item.get("text"), str)]
    return "\n".join(text for text in texts if text.strip()).strip()


def _text_value(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


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
    mcp_tools: list[str] = field(default_factory=list)
    web_tools: list[str] = field(default_factory=list)
    git_branch: str | None = None
    prompts: int = 0
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
        self._note(record)
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if kind == "user":
            self._user(record, content)
        else:
            self._assistant(content)

    def _note(self, record: dict[str, Any]) -> None:
        stamp = parse_datetime(record.get("timestamp"))
        if stamp is not None:
            self.last = format_time(stamp)
            self.first = self.first or self.last
        self.session_id = self.session_id or _text_value(record.get("sessionId"))
        self.cwd = self.cwd or _text_value(record.get("cwd"))
        self.git_branch = self.git_branch or _text_value(record.get("gitBranch"))

    def _user(self, record: dict[str, Any], content: Any) -> None:
        if record.get("isMeta") is True or _only_tool_results(content):
            return
        text = _text(content)
        if not text or text.startswith(INJECTED_PREFIXES):
            return
        self.prompts += 1
        if self.goal is None:
            self.goal = text

    def _assistant(self, content: Any) -> None:
        if isinstance(content, list):
            for item in content:
                if not isinstance(item, dict) or item.get("type") not in TOOL_USE_BLOCKS:
                    continue
                name = item.get("name")
                if not isinstance(name, str):
                    continue
                if name in WEB_TOOLS and name not in self.web_tools:
                    self.web_tools.append(name)
                elif name.startswith(MCP_PREFIX) and not name.startswith(OWN_MCP_PREFIX) \
                        and name not in self.mcp_tools:
                    self.mcp_tools.append(name)
        text = _text(content)
        if text:
            self.result = text

    def build(self) -> TranscriptTask:
        return TranscriptTask(
            session_id=self.session_id or Path(self.file).stem, file=self.file, cwd=self.cwd,
            goal=self.goal, result=self.result, started_at=self.first, finished_at=self.last,
            used_mcp=bool(self.mcp_tools), used_web=bool(self.web_tools),
            mcp_tools=tuple(self.mcp_tools), web_tools=tuple(self.web_tools),
            git_branch=self.git_branch,
            sidechain_only=self.side_records > 0 and self.main_records == 0,
            prompts=self.prompts, problems=tuple(self.problems))


def read_transcript(path: str | os.PathLike[str], root: Path | None = None
                    ) -> TranscriptTask:
    """One transcript as a task; ``AgentFileProblem`` when it cannot be read safely in ``root``."""
    file_path = Path(path)
    base = root if root is not None else real_root(file_path.parent)
    fd = AGENT_FILES.open_regular(file_path, base, MAX_TRANSCRIPT_BYTES)
    builder = _Builder(str(file_path))
    try:
        with os.fdopen(fd, "rb") as handle:
            for number, raw, _consumed in json_lines(handle, MAX_LINE_BYTES):
                if raw is None:
                    builder.problem(number, f"longer than {MAX_LINE_BYTES} bytes; line skipped")
                else:
                    builder.record(number, raw)
    except OSError as error:
        raise AgentFileProblem(f"read failed ({error.strerror or error})") from None
    return builder.build()


def recorded_session(tasks: TaskApi, source: str, session_id: str) -> Task | None:
    """The task a session is already recorded as under ``source`` (or its twin), or None."""
    sources = SESSION_TASK_SOURCES if source in SESSION_TASK_SOURCES else (source,)
    return next((found for each in sources
                 if (found := tasks.find_by_source_ref(each, session_id)) is not None), None)


def transcript_files(home: Path) -> tuple[list[Path], list[Problem]]:
    """Every ``projects/*/*.jsonl`` of a Claude Code home (a file's stem is its session id)."""
    root = real_root(home)
    problems: list[Problem] = []
    files = [path for folder in subfolders(home / PROJECTS_DIR, root, problems)
             for path in list_entries(folder, root, problems)
             if path.name.endswith(TRANSCRIPT_SUFFIX) and path.is_file()]
    return files, problems
