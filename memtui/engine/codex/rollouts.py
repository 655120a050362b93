"""Codex session rollouts (``sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``archived_sessions/``,
possibly ``.jsonl.zst``) read as finished tasks: the first user request, the last assistant
message, and external context (gate 4: an MCP call, a web search or a tool search). Lines
that cannot change the task are recognised from their first bytes and not decoded.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from memtui.engine.codex.errors import CODEX_FILES, FileProblemError
from memtui.engine.codex.models import Problem
from memtui.engine.codex.naming import ROLLOUT_FILE_RE, rollout_uuid_from_name
from memtui.engine.codex.paths import ARCHIVED_SESSIONS_DIR, SESSIONS_DIR
from memtui.engine.codex.timefmt import parse_datetime
from memtui.engine.safe_files import json_lines, real_root
from memtui.jsonable import JsonMixin
from memtui.store.timeutil import format_time

MAX_LINE_BYTES = 10 * 1024 * 1024
"""Longest rollout line parsed; longer lines are reported and skipped."""
MAX_ROLLOUT_FILE_BYTES = 1024 * 1024 * 1024
"""Largest rollout file read (compressed size for ``.zst``); larger ones are skipped."""
MAX_ROLLOUT_FILES = 100_000
MAX_PROBLEMS_PER_FILE = 50
"""Per-line problems kept per file; the rest are counted in one summary problem."""
MAX_KEPT_TEXT_CHARS = 64 * 1024
"""Longest request or result kept in the reader's state (the import cuts further)."""
ZSTD_SUFFIX = ".zst"
SESSIONS_DEPTH = 3
"""``sessions/YYYY/MM/DD/``: rollout files sit three folders down."""
ARCHIVED_MAX_DEPTH = 3
"""``archived_sessions/`` holds rollout files at its top, or dated folders like sessions."""

RECORD_SESSION_META = "session_meta"
RECORD_RESPONSE_ITEM = "response_item"
RECORD_EVENT_MSG = "event_msg"
RECORD_TURN_CONTEXT = "turn_context"
MCP_PREFIX = "mcp__"
OWN_MCP_SERVER = "memtui"
"""memtui's own MCP server: its tools only read and write memtui's store, so a session that
called them took in no outside context."""
REQUEST_MARKER = "## My request for Codex:"
"""Codex's IDE clients put context above this line; the user's request follows it."""
INJECTED_CONTEXT_PREFIXES = (
    "<environment_context>",
    "# agents.md instructions for",
    "<user_instructions>",
    "<instructions>",
    "<developer_instructions>",
    "<permissions",
    "<user_shell_command>",
    "<skill>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<recommended_plugins>",
    "<model_switch>",
    "<personality_spec>",
    "<additional_context>",
    "<hook_prompt",
)
"""User-role texts starting with these (case-insensitive) are context Codex injected."""
INTERACTIVE_SOURCES = frozenset({"cli", "vscode", "atlas", "chatgpt"})
"""The session sources Codex mines for memories (``INTERACTIVE_SESSION_SOURCES``); a
``session_meta`` without a source is ``vscode`` (Codex's default)."""
DEFAULT_SOURCE = "vscode"
USER_TEXT_TYPES = frozenset({"input_text", "text"})
ASSISTANT_TEXT_TYPES = frozenset({"output_text", "text"})
WEB_SEARCH_TYPES = frozenset({"web_search_call"})
TOOL_SEARCH_TYPES = frozenset({"tool_search_call", "tool_search_output"})
CALL_TYPES = frozenset({"function_call", "custom_tool_call"})
MCP_EVENTS = frozenset({"mcp_tool_call_begin", "mcp_tool_call_end"})
WEB_SEARCH_EVENTS = frozenset({"web_search_begin", "web_search_end"})
ITEM_COMPLETED = "item_completed"
ITEM_USER = "UserMessage"
ITEM_AGENT = "AgentMessage"
ITEM_MCP = "McpToolCall"
ITEM_WEB_SEARCH = "WebSearch"
ITEM_DYNAMIC_TOOL = "DynamicToolCall"
_DECODED_RESPONSE_TYPES = frozenset({"message", *CALL_TYPES})
_DECODED_EVENTS = frozenset({"user_message", "agent_message", *MCP_EVENTS})
_DECODED_ITEMS = frozenset({ITEM_USER, ITEM_AGENT, ITEM_MCP, ITEM_DYNAMIC_TOOL})
_LINE_HEAD = re.compile(
    rb'^\{\s*"timestamp"\s*:\s*"([^"\\]{10,40})"\s*,\s*"type"\s*:\s*"([a-z_]{1,40})"\s*,'
    rb'\s*"payload"\s*:\s*\{(?:\s*"type"\s*:\s*"([A-Za-z_]{1,60})")?')
"""The first bytes of a record as Codex writes it: time, record type, payload type."""
_ITEM_TYPE = re.compile(rb'"item"\s*:\s*\{\s*"type"\s*:\s*"([A-Za-z_]{1,60})"')
_FLAG_LINES = {**{(b"response_item", name): "used_web_search" for name in WEB_SEARCH_TYPES},
               **{(b"response_item", name): "used_tool_search" for name in TOOL_SEARCH_TYPES},
               **{(b"event_msg", name): "used_web_search" for name in WEB_SEARCH_EVENTS}}
"""Lines that only set a flag (by record and payload type), so are never decoded."""


@dataclass(frozen=True)
class RolloutTask(JsonMixin):
    """One rollout read as a finished task for memtui's extractor (times in stored form)."""

    thread_id: str | None
    file: str
    cwd: str | None
    goal: str | None
    result: str | None
    started_at: str | None
    finished_at: str | None
    used_mcp: bool
    used_web_search: bool
    mcp_tools: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    used_tool_search: bool = False
    source: str | None = None
    memory_mode: str | None = None

    @property
    def used_external_context(self) -> bool:
        """True when MCP tools, web search or tool search fed the task (gate 4)."""
        return self.used_mcp or self.used_web_search or self.used_tool_search

    @property
    def external_tool(self) -> str | None:
        """The tool that made the session external context (the log names it)."""
        if self.mcp_tools:
            return self.mcp_tools[0]
        return ("an MCP tool" if self.used_mcp else "web_search" if self.used_web_search
                else "tool_search" if self.used_tool_search else None)

    @property
    def interactive(self) -> bool:
        """Whether Codex would mine this session (an interactive source)."""
        return (self.source or DEFAULT_SOURCE) in INTERACTIVE_SOURCES


def is_injected_context(text: str) -> bool:
    """True when a user-role text is context Codex injected (instructions, environment...)."""
    return text.lstrip()[:64].lower().startswith(INJECTED_CONTEXT_PREFIXES)


def request_text(text: str) -> str:
    """A user message as a request: everything up to ``## My request for Codex:`` cut."""
    before, marker, after = text.partition(REQUEST_MARKER)
    return (after if marker else before).strip()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _texts(content: Any, kinds: frozenset[str]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [item["text"] for item in content
            if isinstance(item, dict) and isinstance(item.get("type"), str)
            and item["type"] in kinds
            and isinstance(item.get("text"), str) and item["text"].strip()]


def _user_request(texts: list[str]) -> str:
    kept = [text for text in texts if not is_injected_context(text)]
    return request_text("\n".join(kept))[:MAX_KEPT_TEXT_CHARS]


def _source_name(value: Any) -> str | None:
    if isinstance(value, str):
        return value.lower() or None
    if isinstance(value, dict) and value:
        return str(next(iter(value))).lower()  # {"subagent": {...}}
    return None


def _new_state() -> dict[str, Any]:
    return {"thread_id": None, "cwd": None, "goal": None, "fallback_goal": None,
            "result": None, "meta_started": None, "first_time": None, "last_time": None,
            "used_mcp": False, "used_web_search": False, "used_tool_search": False,
            "mcp_tools": [], "mcp_servers": [], "source": None, "memory_mode": None,
            "seen_meta": False, "lines": 0, "problems": [], "dropped": 0}


class RolloutReader:
    """Reads a rollout's lines one at a time; its whole state is ``state`` (JSON-ready). A
    tool call in the namespace of one of ``mcp_servers`` (``config.toml``) is an MCP call."""

    def __init__(self, file: str, state: dict[str, Any] | None = None,
                 mcp_servers: Iterable[str] = ()) -> None:
        self.file = file
        self.state: dict[str, Any] = state if state is not None else _new_state()
        self._servers = frozenset(mcp_servers) | frozenset(self.state["mcp_servers"])
        self._records: dict[str, Callable[[dict[str, Any]], None]] = {
            RECORD_SESSION_META: self._session_meta, RECORD_RESPONSE_ITEM: self._response_item,
            RECORD_EVENT_MSG: self._event_msg, RECORD_TURN_CONTEXT: self._turn_context}

    def problem(self, line: int, reason: str) -> None:
        """Record one bad line (at most ``MAX_PROBLEMS_PER_FILE`` are kept)."""
        if len(self.state["problems"]) < MAX_PROBLEMS_PER_FILE:
            self.state["problems"].append([line, reason])
        else:
            self.state["dropped"] += 1

    def _time(self, stamp: str) -> None:
        state = self.state
        if state["first_time"] is None:
            state["first_time"] = stamp
        state["last_time"] = stamp

    def _mcp(self, tool: str, server: str | None = None) -> None:
        if server == OWN_MCP_SERVER or tool.startswith(f"{MCP_PREFIX}{OWN_MCP_SERVER}__"):
            return
        state = self.state
        state["used_mcp"] = True
        if tool and tool not in state["mcp_tools"]:
            state["mcp_tools"].append(tool)
        if server and server not in state["mcp_servers"]:
            state["mcp_servers"].append(server)

    def _mcp_call(self, call: Any) -> None:
        """An MCP call given as ``{"server", "tool"}`` (an event's invocation, an item)."""
        server = _str(call.get("server")) if isinstance(call, dict) else None
        tool = _str(call.get("tool")) if isinstance(call, dict) else None
        self._mcp(f"{MCP_PREFIX}{server}__{tool}" if server and tool else "", server)

    def _session_meta(self, payload: dict[str, Any]) -> None:
        state = self.state
        if state["seen_meta"]:
            return
        state["seen_meta"] = True
        state["thread_id"] = _str(payload.get("id")) or state["thread_id"]
        state["cwd"] = _str(payload.get("cwd")) or state["cwd"]
        started = parse_datetime(payload.get("timestamp"))
        state["meta_started"] = format_time(started) if started else None
        state["source"] = _source_name(payload.get("source"))
        state["memory_mode"] = _str(payload.get("memory_mode"))

    def _call(self, payload: dict[str, Any]) -> None:
        name = _str(payload.get("name")) or ""
        namespace = _str(payload.get("namespace")) or ""
        server = namespace[len(MCP_PREFIX):].rstrip("_") if namespace.startswith(MCP_PREFIX) \
            else namespace
        if namespace.startswith(MCP_PREFIX) or (namespace and namespace in self._servers):
            self._mcp(f"{MCP_PREFIX}{server}__{name}" if name else namespace, server)
        elif name.startswith(MCP_PREFIX):
            self._mcp(name)

    def _response_item(self, payload: dict[str, Any]) -> None:
        state, kind = self.state, _str(payload.get("type"))
        if kind == "message":
            role = payload.get("role")
            if role == "user" and state["fallback_goal"] is None and state["goal"] is None:
                text = _user_request(_texts(payload.get("content"), USER_TEXT_TYPES))
                state["fallback_goal"] = text or None
            elif role == "assistant":
                text = "\n".join(_texts(payload.get("content"), ASSISTANT_TEXT_TYPES)).strip()
                state["result"] = text[:MAX_KEPT_TEXT_CHARS] or state["result"]
        elif kind in CALL_TYPES:
            self._call(payload)
        elif kind in WEB_SEARCH_TYPES:
            state["used_web_search"] = True
        elif kind in TOOL_SEARCH_TYPES:
            state["used_tool_search"] = True

    def _user_event(self, text: str) -> None:
        if self.state["goal"] is None and not is_injected_context(text):
            self.state["goal"] = request_text(text)[:MAX_KEPT_TEXT_CHARS] or None

    def _agent_text(self, text: str) -> None:
        if text.strip():
            self.state["result"] = text.strip()[:MAX_KEPT_TEXT_CHARS]

    def _item(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == ITEM_USER:
            self._user_event("".join(_texts(item.get("content"), USER_TEXT_TYPES)))
        elif kind == ITEM_AGENT:
            self._agent_text("\n".join(_texts(item.get("content"), frozenset({"Text", "text"}))))
        elif kind == ITEM_MCP:
            self._mcp_call(item)
        elif kind == ITEM_WEB_SEARCH:
            self.state["used_web_search"] = True
        elif kind == ITEM_DYNAMIC_TOOL:
            self._call({"name": item.get("tool"), "namespace": item.get("namespace")})

    def _event_msg(self, payload: dict[str, Any]) -> None:
        kind, message = _str(payload.get("type")), payload.get("message")
        if kind == "user_message" and isinstance(message, str):
            self._user_event(message)
        elif kind == "agent_message" and isinstance(message, str):
            self._agent_text(message)
        elif kind in MCP_EVENTS:
            self._mcp_call(payload.get("invocation"))
        elif kind in WEB_SEARCH_EVENTS:
            self.state["used_web_search"] = True
        elif kind == ITEM_COMPLETED:
            item = payload.get("item")
            if isinstance(item, dict):
                self._item(item)

    def _turn_context(self, payload: dict[str, Any]) -> None:
        self.state["cwd"] = self.state["cwd"] or _str(payload.get("cwd"))

    def _skippable(self, raw: bytes, kind: bytes, ptype: bytes | None) -> bool:
        """Whether a well-formed line cannot change the task (so it is not decoded)."""
        state = self.state
        name = (ptype or b"").decode("ascii")
        flag = _FLAG_LINES.get((kind, name))
        if flag is not None:
            state[flag] = True
            return True
        if kind == b"response_item":
            return name not in _DECODED_RESPONSE_TYPES
        if kind == b"event_msg":
            if name == ITEM_COMPLETED:
                found = _ITEM_TYPE.search(raw)
                item = found.group(1).decode("ascii") if found else ""
                if item == ITEM_WEB_SEARCH:
                    state["used_web_search"] = True
                return bool(found) and item not in _DECODED_ITEMS
            if name == "user_message":
                return state["goal"] is not None
            return name not in _DECODED_EVENTS
        if kind == b"turn_context":
            return state["cwd"] is not None
        return kind not in (b"session_meta",)

    def line(self, number: int, raw: bytes) -> None:
        """Read one line (bytes, with or without its newline)."""
        self.state["lines"] = number
        head = _LINE_HEAD.match(raw)
        if head is not None and raw.rstrip().endswith(b"}"):
            self._time(head.group(1).decode("ascii", "replace"))
            if self._skippable(raw, head.group(2), head.group(3)):
                return
        elif not raw.strip():
            return
        self._decode(number, raw, noted_time=head is not None)

    def _decode(self, number: int, raw: bytes, *, noted_time: bool) -> None:
        try:
            record = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            self.problem(number, "not valid UTF-8; line skipped")
            return
        except (ValueError, RecursionError):
            self.problem(number, "not valid JSON (truncated?); line skipped")
            return
        if not isinstance(record, dict):
            self.problem(number, "not a JSON object; line skipped")
            return
        stamp = record.get("timestamp")
        if not noted_time and isinstance(stamp, str) and parse_datetime(stamp) is not None:
            self._time(stamp)
        kind, payload = record.get("type"), record.get("payload")
        handle = self._records.get(kind) if isinstance(kind, str) else None
        if handle is not None and isinstance(payload, dict):
            handle(payload)
        elif handle is not None:
            self.problem(number, f"'{kind}' record without an object payload; line skipped")

    def task(self) -> RolloutTask:
        """The task the lines read so far describe."""
        state = self.state
        problems = [Problem(self.file, reason, line) for line, reason in state["problems"]]
        if not state["seen_meta"]:
            problems.insert(0, Problem(self.file, "no session_meta record", 1))
        if state["dropped"]:
            problems.append(Problem(self.file, f"{state['dropped']} more bad line(s) not "
                                               "listed"))
        goal = state["goal"] or state["fallback_goal"]
        first, last = parse_datetime(state["first_time"]), parse_datetime(state["last_time"])
        return RolloutTask(
            thread_id=state["thread_id"] or rollout_uuid_from_name(Path(self.file).name),
            file=self.file, cwd=state["cwd"], goal=goal, result=state["result"],
            started_at=state["meta_started"] or (format_time(first) if first else None),
            finished_at=format_time(last) if last else None,
            used_mcp=state["used_mcp"], used_web_search=state["used_web_search"],
            mcp_tools=tuple(state["mcp_tools"]), problems=tuple(problems),
            used_tool_search=state["used_tool_search"], source=state["source"],
            memory_mode=state["memory_mode"])


def is_compressed(path: Path) -> bool:
    """Whether a rollout file is zstd-compressed (``.jsonl.zst``)."""
    return path.name.endswith(ZSTD_SUFFIX)


def open_text(fd: int, compressed: bool) -> IO[bytes]:
    """The bytes of an open file, decompressed as they are read when ``compressed`` (zstd)."""
    raw = os.fdopen(fd, "rb")
    if not compressed:
        return raw
    import zstandard

    return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True))


def read_rollout_from(path: Path, root: Path, reader: RolloutReader, offset: int = 0) -> int:
    """Read a rollout file inside ``root`` into ``reader`` on from ``offset`` (a compressed
    one from its start); returns the offset (in the uncompressed text) after the last whole
    line. ``FileProblemError`` when the file cannot be read."""
    fd = CODEX_FILES.open_regular(path, real_root(root), MAX_ROLLOUT_FILE_BYTES)
    compressed = is_compressed(path)
    start = 0 if compressed else offset
    try:
        with open_text(fd, compressed) as handle:
            if start:
                handle.seek(start)
            position = start
            for number, line, consumed in json_lines(handle, MAX_LINE_BYTES,
                                                     int(reader.state["lines"])):
                raw = line or b""
                if line is None:
                    reader.problem(number, f"longer than {MAX_LINE_BYTES} bytes; line skipped")
                elif raw:
                    reader.line(number, raw)
                if raw.endswith(b"\n") or not raw:
                    position += consumed
                else:
                    reader.state["lines"] = number - 1
    except OSError as error:
        raise FileProblemError(f"read failed ({error.strerror or error})") from None
    except Exception as error:  # zstandard.ZstdError and friends: a damaged file
        if type(error).__module__.startswith("zstandard"):
            raise FileProblemError(f"not a valid zstd file ({error})") from None
        raise
    return position


def _walk(folder: Path, root: Path, depth: int, problems: list[Problem], *,
          files_at_every_level: bool = False) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        problems.append(Problem(str(folder), f"cannot list folder ({error.strerror or error})"))
        return
    for entry in entries:
        path = folder / entry.name
        try:
            if entry.is_symlink():  # followed only when it stays inside the home
                CODEX_FILES.check_inside(path, root)
            is_dir, is_file = entry.is_dir(), entry.is_file()
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
            continue
        except OSError:
            continue
        if is_dir:
            if depth > 0:
                yield from _walk(path, root, depth - 1, problems,
                                 files_at_every_level=files_at_every_level)
        elif is_file and (depth == 0 or files_at_every_level) \
                and ROLLOUT_FILE_RE.match(entry.name):
            yield path


def scan_rollout_files(home: Path, max_files: int = MAX_ROLLOUT_FILES
                       ) -> tuple[list[Path], list[Problem]]:
    """Rollout files under ``sessions/`` then ``archived_sessions/`` (each oldest first by
    path) and the problems of the walk. Only names are listed; no file is opened."""
    home_path = Path(home).absolute()
    root = real_root(home_path)
    problems: list[Problem] = []
    files: list[Path] = []
    for folder, depth, anywhere in ((home_path / SESSIONS_DIR, SESSIONS_DEPTH, False),
                                    (home_path / ARCHIVED_SESSIONS_DIR, ARCHIVED_MAX_DEPTH,
                                     True)):
        if not folder.is_dir():
            continue
        try:
            CODEX_FILES.check_inside(folder, root)
        except FileProblemError as error:
            problems.append(Problem(str(folder), error.reason))
            continue
        for path in _walk(folder, root, depth, problems, files_at_every_level=anywhere):
            if len(files) >= max_files:
                problems.append(Problem(str(folder), f"more than {max_files} rollout files; "
                                                     "the rest were not read"))
                return files, problems
            files.append(path)
    return files, problems
