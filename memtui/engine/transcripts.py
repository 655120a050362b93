"""Claude Code session transcripts (JSON Lines) read as one finished task.

A transcript is one JSON object a line. The records this reader uses (others, such as
``summary``, ``system`` or ``file-history-snapshot``, are passed over):

- ``{"type": "user", "message": {"role": "user", "content": "..." | [blocks]}, "timestamp",
  "isMeta"?, "isSidechain"?}``: a prompt typed by the person when its content is text (a
  string, or ``text`` blocks); a user record holding only ``tool_result`` blocks is a tool's
  answer, not a prompt; ``isMeta`` records (caveats, command output) and side chains (a
  sub-agent's conversation) are not prompts either.
- ``{"type": "assistant", "message": {"content": [{"type": "text", "text"} |
  {"type": "tool_use", "name", "input"}]}, "timestamp"}``: the agent's answers and tool calls.

What comes out: the first prompt (the goal), the agent's last text answer (the result), the
first and last timestamps (start and finish), and whether outside context came in: a web
search or fetch, or an MCP tool of another server (``mcp__<server>__<tool>``; memtui's own
``mcp__memtui__*`` tools only read and write memtui's store). Reading is bounded: at most
``MAX_TRANSCRIPT_BYTES`` are read and lines longer than ``MAX_LINE_BYTES`` are skipped; a
line that is not a JSON object is skipped, so a transcript still being written (a cut last
line) reads as far as it is whole.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
"""How much of a transcript is read at most (a longer one is read up to here)."""
MAX_LINE_BYTES = 8 * 1024 * 1024
"""Longer lines (a huge pasted file or tool output) are skipped."""
MAX_GOAL_CHARS = 4000
MAX_RESULT_CHARS = 64 * 1024
WEB_TOOLS = frozenset({"WebSearch", "WebFetch"})
MCP_TOOL_PREFIX = "mcp__"
OWN_MCP_PREFIX = "mcp__memtui__"


class TranscriptError(Exception):
    """A transcript that cannot be read (missing, not a regular file, unreadable)."""


@dataclass(frozen=True)
class TranscriptTask:
    """A session's transcript read as a finished task."""

    goal: str
    result: str
    started_at: str | None
    finished_at: str | None
    external_context: bool
    prompts: int


def _text_of(content: Any) -> str:
    """The text of a message's content (a string, or the ``text`` blocks of a list)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [block.get("text", "") for block in content
             if isinstance(block, dict) and block.get("type") == "text"
             and isinstance(block.get("text"), str)]
    return "\n".join(part for part in parts if part)


def _is_prompt(record: dict[str, Any]) -> bool:
    if record.get("isMeta") or record.get("isSidechain"):
        return False
    message = record.get("message")
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(block, dict) and
                                         block.get("type") == "tool_result" for block in content):
        return False
    text = _text_of(content).strip()
    # Slash commands and their output are recorded as tagged user text, not as prompts.
    return bool(text) and not text.startswith(("<command-", "<local-command-"))


def _uses_outside_context(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if not isinstance(content, list):
        return False
    for block in content:
        if not isinstance(block, dict) or block.get("type") not in ("tool_use",
                                                                    "server_tool_use"):
            continue
        name = block.get("name")
        if not isinstance(name, str):
            continue
        if name in WEB_TOOLS or name in ("web_search", "web_fetch"):
            return True
        if name.startswith(MCP_TOOL_PREFIX) and not name.startswith(OWN_MCP_PREFIX):
            return True
    return False


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise TranscriptError(f"transcript {path} does not exist") from None
    except OSError as error:
        raise TranscriptError(f"transcript {path} cannot be opened ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise TranscriptError(f"transcript {path} is not a regular file")
        records: list[dict[str, Any]] = []
        total = 0
        for line in handle:
            total += len(line)
            if total > MAX_TRANSCRIPT_BYTES:
                break
            if len(line) > MAX_LINE_BYTES or not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def read_transcript(path: str | os.PathLike[str]) -> TranscriptTask | None:
    """The transcript as a task, or None when it holds no prompt. Raises TranscriptError."""
    goal = ""
    result = ""
    prompts = 0
    outside = False
    first: str | None = None
    last: str | None = None
    for record in _records(Path(path)):
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and stamp:
            first = first or stamp
            last = stamp
        kind = record.get("type")
        message = record.get("message")
        if kind == "user" and _is_prompt(record):
            prompts += 1
            if not goal:
                goal = _text_of(message.get("content") if isinstance(message, dict) else "")
        elif kind == "assistant" and isinstance(message, dict) and not record.get("isSidechain"):
            outside = outside or _uses_outside_context(message)
            text = _text_of(message.get("content")).strip()
            if text:
                result = text
    if not prompts:
        return None
    return TranscriptTask(goal=goal.strip()[:MAX_GOAL_CHARS], result=result[:MAX_RESULT_CHARS],
                          started_at=first, finished_at=last, external_context=outside,
                          prompts=prompts)
