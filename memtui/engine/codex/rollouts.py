"""Codex session rollouts (``sessions/YYYY/MM/DD/rollout-*.jsonl``) read as finished tasks.

Each line is ``{"timestamp", "type", "payload"}``. The goal is the first real user message
(injected context such as AGENTS.md instructions or ``<environment_context>`` is skipped), the
result is the last assistant message, times come from the record timestamps, and MCP tool
calls or web searches mark the task as having taken in external context.

A truncated or non-JSON line is one ``Problem`` (with its line number) and is skipped;
unknown record types and newer payload types are skipped silently.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from memtui.engine.codex.errors import FileProblemError
from memtui.engine.codex.models import JsonMixin, Problem
from memtui.engine.codex.naming import ROLLOUT_FILE_RE, rollout_uuid_from_name
from memtui.engine.codex.paths import sessions_dir
from memtui.engine.codex.safe_fs import check_inside, open_regular_file, real_root
from memtui.engine.codex.timefmt import format_utc, parse_datetime

MAX_LINE_BYTES = 10 * 1024 * 1024
"""Longest rollout line parsed; longer lines are reported and skipped."""
MAX_ROLLOUT_FILE_BYTES = 1024 * 1024 * 1024
"""Largest rollout file read; larger files are reported and skipped."""
MAX_ROLLOUT_FILES = 100_000
"""Most rollout files one scan returns."""
MAX_PROBLEMS_PER_FILE = 50
"""Per-line problems kept per file; the rest are counted in one summary problem."""
_SKIP_CHUNK_BYTES = 1 << 20

RECORD_SESSION_META = "session_meta"
RECORD_RESPONSE_ITEM = "response_item"
RECORD_EVENT_MSG = "event_msg"
RECORD_TURN_CONTEXT = "turn_context"
MCP_PREFIX = "mcp__"
INJECTED_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions",
    "# AGENTS.md instructions for",
    "<INSTRUCTIONS>",
    "<developer_instructions>",
)
"""User-role messages starting with these are context Codex injected, not the user's ask."""
USER_TEXT_TYPES = frozenset({"input_text", "text"})
ASSISTANT_TEXT_TYPES = frozenset({"output_text", "text"})
MCP_EVENTS = frozenset({"mcp_tool_call_begin", "mcp_tool_call_end"})
WEB_SEARCH_EVENTS = frozenset({"web_search_begin", "web_search_end"})


@dataclass(frozen=True)
class RolloutTask(JsonMixin):
    """One rollout read as a finished task for memtui's extractor (times in stored form)."""

    thread_id: str | None
    file: str
    cwd: str | None
    goal: str | None
    prompt: str | None
    result: str | None
    started_at: str | None
    finished_at: str | None
    used_mcp: bool
    used_web_search: bool
    mcp_tools: tuple[str, ...] = ()
    model: str | None = None
    git_branch: str | None = None
    originator: str | None = None
    cli_version: str | None = None
    problems: tuple[Problem, ...] = ()

    @property
    def used_external_context(self) -> bool:
        """True when MCP tools or web search fed the task (gate 4 of spec/20)."""
        return self.used_mcp or self.used_web_search


@dataclass(frozen=True)
class RolloutScan(JsonMixin):
    """The result of reading every rollout of a home: tasks, and files that were skipped."""

    tasks: tuple[RolloutTask, ...]
    problems: tuple[Problem, ...]


def is_injected_context(text: str) -> bool:
    """True when a user-role text is context Codex injected (instructions, environment)."""
    return text.lstrip().startswith(INJECTED_CONTEXT_PREFIXES)


def _text_of(content: Any, kinds: frozenset[str], skip_injected: bool) -> str:
    if isinstance(content, str):
        items: list[Any] = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        items = content
    else:
        return ""
    texts = []
    for item in items:
        if not isinstance(item, dict) or _str(item.get("type")) not in kinds:
            continue
        text = item.get("text")
        if isinstance(text, str) and text.strip():
            if skip_injected and is_injected_context(text):
                continue
            texts.append(text)
    return "\n".join(texts).strip()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass
class _Builder:
    """Accumulates what the records of one rollout say."""

    file: str
    thread_id: str | None = None
    cwd: str | None = None
    goal: str | None = None
    result: str | None = None
    meta_started: str | None = None
    first_time: str | None = None
    last_time: str | None = None
    used_mcp: bool = False
    used_web_search: bool = False
    mcp_tools: list[str] = field(default_factory=list)
    model: str | None = None
    git_branch: str | None = None
    originator: str | None = None
    cli_version: str | None = None
    seen_meta: bool = False
    problems: list[Problem] = field(default_factory=list)
    dropped_problems: int = 0

    def problem(self, line: int, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS_PER_FILE:
            self.problems.append(Problem(self.file, reason, line))
        else:
            self.dropped_problems += 1

    def note_time(self, value: Any) -> None:
        moment = parse_datetime(value) if isinstance(value, str) else None
        if moment is None:
            return
        stamp = format_utc(moment)
        self.first_time = self.first_time or stamp
        self.last_time = stamp

    def mcp(self, tool: str) -> None:
        self.used_mcp = True
        if tool and tool not in self.mcp_tools:
            self.mcp_tools.append(tool)

    def session_meta(self, payload: dict[str, Any]) -> None:
        if self.seen_meta:
            return
        self.seen_meta = True
        self.thread_id = _str(payload.get("id")) or self.thread_id
        self.cwd = _str(payload.get("cwd")) or self.cwd
        started = parse_datetime(payload.get("timestamp"))
        self.meta_started = format_utc(started) if started else None
        self.originator = _str(payload.get("originator"))
        self.cli_version = _str(payload.get("cli_version"))
        git = payload.get("git")
        if isinstance(git, dict):
            self.git_branch = _str(git.get("branch"))

    def user_text(self, text: str) -> None:
        if text and self.goal is None:
            self.goal = text

    def response_item(self, payload: dict[str, Any]) -> None:
        kind = _str(payload.get("type"))
        if kind == "message":
            role = payload.get("role")
            if role == "user":
                self.user_text(_text_of(payload.get("content"), USER_TEXT_TYPES, True))
            elif role == "assistant":
                text = _text_of(payload.get("content"), ASSISTANT_TEXT_TYPES, False)
                self.result = text or self.result
        elif kind in ("function_call", "custom_tool_call"):
            name = _str(payload.get("name")) or ""
            namespace = _str(payload.get("namespace")) or ""
            if namespace.startswith(MCP_PREFIX):
                self.mcp(f"{namespace}__{name}" if name else namespace)
            elif name.startswith(MCP_PREFIX):
                self.mcp(name)
        elif kind == "web_search_call":
            self.used_web_search = True

    def event_msg(self, payload: dict[str, Any]) -> None:
        kind = _str(payload.get("type"))
        if kind == "user_message":
            message = payload.get("message")
            if isinstance(message, str) and not is_injected_context(message):
                self.user_text(message.strip())
        elif kind == "agent_message":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                self.result = message.strip()
        elif kind in MCP_EVENTS:
            invocation = payload.get("invocation")
            tool = ""
            if isinstance(invocation, dict):
                server, name = _str(invocation.get("server")), _str(invocation.get("tool"))
                tool = f"{MCP_PREFIX}{server}__{name}" if server and name else ""
            self.mcp(tool)
        elif kind in WEB_SEARCH_EVENTS:
            self.used_web_search = True

    def turn_context(self, payload: dict[str, Any]) -> None:
        self.cwd = self.cwd or _str(payload.get("cwd"))
        self.model = self.model or _str(payload.get("model"))

    def record(self, line: int, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            record = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            self.problem(line, "not valid UTF-8; line skipped")
            return
        except (ValueError, RecursionError):
            self.problem(line, "not valid JSON (truncated?); line skipped")
            return
        if not isinstance(record, dict):
            self.problem(line, "not a JSON object; line skipped")
            return
        self.note_time(record.get("timestamp"))
        kind, payload = record.get("type"), record.get("payload")
        handlers = {RECORD_SESSION_META: self.session_meta,
                    RECORD_RESPONSE_ITEM: self.response_item,
                    RECORD_EVENT_MSG: self.event_msg,
                    RECORD_TURN_CONTEXT: self.turn_context}
        handler = handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return
        if not isinstance(payload, dict):
            self.problem(line, f"'{kind}' record without an object payload; line skipped")
            return
        handler(payload)

    def build(self) -> RolloutTask:
        if not self.seen_meta:
            self.problem(1, "no session_meta record")
        if self.thread_id is None:
            self.thread_id = rollout_uuid_from_name(Path(self.file).name)
        problems = list(self.problems)
        if self.dropped_problems:
            problems.append(Problem(self.file, f"{self.dropped_problems} more bad line(s) "
                                               "not listed"))
        return RolloutTask(
            thread_id=self.thread_id, file=self.file, cwd=self.cwd, goal=self.goal,
            prompt=self.goal, result=self.result,
            started_at=self.meta_started or self.first_time, finished_at=self.last_time,
            used_mcp=self.used_mcp, used_web_search=self.used_web_search,
            mcp_tools=tuple(self.mcp_tools), model=self.model, git_branch=self.git_branch,
            originator=self.originator, cli_version=self.cli_version,
            problems=tuple(problems),
        )


def parse_rollout_lines(lines: Iterable[bytes], file: str = "<rollout>") -> RolloutTask:
    """Parse rollout lines (bytes, with or without newlines) into a task. Never raises."""
    builder = _Builder(file)
    for number, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE_BYTES:
            builder.problem(number, f"longer than {MAX_LINE_BYTES} bytes; line skipped")
            continue
        builder.record(number, raw)
    return builder.build()


def _bounded_lines(handle: BinaryIO, builder: _Builder) -> Iterator[tuple[int, bytes]]:
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = handle.readline(_SKIP_CHUNK_BYTES)
            builder.problem(number, f"longer than {MAX_LINE_BYTES} bytes; line skipped")
            continue
        yield number, raw


def read_rollout_file(path: Path, root: Path | None = None) -> RolloutTask:
    """Read one rollout file inside ``root`` (default: its folder) into a task.

    Raises ``FileProblemError`` when the file itself cannot be read (outside the home, not a
    regular file, too large, unreadable); bad lines become problems of the task.
    """
    base = real_root(root if root is not None else path.parent)
    fd = open_regular_file(path, base)
    size = os.fstat(fd).st_size
    if size > MAX_ROLLOUT_FILE_BYTES:
        os.close(fd)
        raise FileProblemError(f"too large ({size} bytes; the limit is "
                               f"{MAX_ROLLOUT_FILE_BYTES})")
    builder = _Builder(str(path))
    try:
        with os.fdopen(fd, "rb") as handle:
            for number, raw in _bounded_lines(handle, builder):
                builder.record(number, raw)
    except OSError as error:
        raise FileProblemError(f"read failed ({error.strerror or error})") from None
    return builder.build()


def _walk(folder: Path, root: Path, depth: int, problems: list[Problem]) -> Iterator[Path]:
    try:
        names = sorted(os.listdir(folder))
    except OSError as error:
        problems.append(Problem(str(folder), f"cannot list folder ({error.strerror or error})"))
        return
    for name in names:
        path = folder / name
        try:
            check_inside(path, root)
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
            continue
        if depth > 0:
            if path.is_dir():
                yield from _walk(path, root, depth - 1, problems)
        elif ROLLOUT_FILE_RE.match(name) and path.is_file():
            yield path


SESSIONS_DEPTH = 3
"""``sessions/YYYY/MM/DD/``: rollout files sit three folders down."""


def scan_rollout_files(home: Path, max_files: int = MAX_ROLLOUT_FILES
                       ) -> tuple[list[Path], list[Problem]]:
    """Rollout files under ``<home>/sessions`` (oldest first by path) and walk problems."""
    folder = sessions_dir(Path(home).absolute())
    problems: list[Problem] = []
    if not folder.is_dir():
        return [], problems
    root = real_root(Path(home).absolute())
    try:
        check_inside(folder, root)
    except FileProblemError as error:
        return [], [Problem(str(folder), error.reason)]
    files: list[Path] = []
    for path in _walk(folder, root, SESSIONS_DEPTH, problems):
        if len(files) >= max_files:
            problems.append(Problem(str(folder), f"more than {max_files} rollout files; "
                                                 "the rest were not read"))
            break
        files.append(path)
    return files, problems


def iter_rollout_files(home: Path, max_files: int = MAX_ROLLOUT_FILES) -> Iterator[Path]:
    """Rollout files under ``<home>/sessions`` that are safe to read, oldest first."""
    files, _problems = scan_rollout_files(home, max_files)
    yield from files


def read_rollouts(home: Path, max_files: int = MAX_ROLLOUT_FILES) -> RolloutScan:
    """Read every rollout of a home; a file that cannot be read is one problem, skipped."""
    home_path = Path(home).absolute()
    files, problems = scan_rollout_files(home_path, max_files)
    tasks: list[RolloutTask] = []
    for path in files:
        try:
            tasks.append(read_rollout_file(path, home_path))
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
    return RolloutScan(tuple(tasks), tuple(problems))
