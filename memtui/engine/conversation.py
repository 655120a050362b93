"""A finished session's conversation, read back for model extraction: the turns of a
Claude Code transcript or a Codex rollout as ``(who, text)``, bounded at any file size (the
first ``HEAD_TURNS`` and last ``TAIL_TURNS``, each cut), injected context left out.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.engine.agents.errors import AGENT_FILES
from memtui.engine.agents.transcripts import INJECTED_PREFIXES
from memtui.engine.codex.rollouts import (
    ZSTD_SUFFIX,
    is_compressed,
    is_injected_context,
    open_text,
    request_text,
)
from memtui.engine.safe_files import FileProblem, json_lines, real_root
from memtui.engine.validation import redact

MAX_LINE_BYTES = 4 * 1024 * 1024
MESSAGE_CHARS = 1_500
TOOL_CHARS = 200
HEAD_TURNS = 20
TAIL_TURNS = 60
REDACT_MARGIN = 8_192
"""Characters past a cut redacted with the part kept (longer than any secret's pattern)."""


@dataclass(frozen=True)
class Conversation:
    """The turns kept, and how many were left out between the head and the tail."""

    head: tuple[tuple[str, str], ...]
    tail: tuple[tuple[str, str], ...]
    left_out: int

    def lines(self) -> list[str]:
        """One ``who: text`` line per turn, a marker where turns were left out."""
        middle = [f"[... {self.left_out} turns left out ...]"] if self.left_out else []
        return [f"{who}: {text}" for who, text in self.head] + middle + \
            [f"{who}: {text}" for who, text in self.tail]


def cut(text: str, limit: int) -> str:
    """``text`` stripped, redacted and cut to ``limit`` characters with a marker; redaction
    runs first, ``REDACT_MARGIN`` past the cut, so a secret it would split is found whole."""
    text = text.strip()
    if len(text) <= limit:
        return redact(text)
    return redact(text[:limit + REDACT_MARGIN])[:limit] + f" [... {len(text) - limit} chars cut]"


def _blocks(content: Any) -> Iterator[tuple[str, str]]:
    """Claude Code / API content blocks as (kind, text)."""
    if isinstance(content, str):
        yield "text", content
        return
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            yield "text", block["text"]
        elif kind in ("tool_use", "server_tool_use"):
            yield "call", f"{block.get('name')} " \
                f"{json.dumps(block.get('input'))[:TOOL_CHARS + REDACT_MARGIN]}"
        elif kind == "tool_result":
            inner = block.get("content")
            yield "output", inner if isinstance(inner, str) else \
                " ".join(text for _kind, text in _blocks(inner))


def _claude_turns(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    role = record.get("type")
    if role not in ("user", "assistant") or record.get("isSidechain") or record.get("isMeta"):
        return
    message = record.get("message")
    for kind, text in _blocks(message.get("content") if isinstance(message, dict) else None):
        if kind == "text":
            if role == "assistant" or not text.lstrip().startswith(INJECTED_PREFIXES):
                yield role, text
        else:
            yield f"tool {kind}", text


def _codex_turns(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    payload = record.get("payload")
    if record.get("type") != "response_item" or not isinstance(payload, dict):
        return
    kind = payload.get("type")
    if kind == "message" and payload.get("role") in ("user", "assistant"):
        for item in payload.get("content") or ():
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                continue
            if payload["role"] == "assistant":
                yield "assistant", item["text"]
            elif not is_injected_context(item["text"]):
                yield "user", request_text(item["text"])
    elif kind in ("function_call", "custom_tool_call"):
        yield "tool call", f"{payload.get('name')} {payload.get('arguments') or payload.get('input')}"
    elif kind in ("function_call_output", "custom_tool_call_output"):
        yield "tool output", str(payload.get("output"))
    elif kind == "web_search_call":
        yield "tool call", f"web_search {json.dumps(payload.get('action'))}"


def read_conversation(path: str | Path) -> Conversation | None:
    """The conversation of a transcript or rollout file, or None when unsafe to read."""
    file = Path(path)
    if not file.name.endswith((".jsonl", ZSTD_SUFFIX)):
        return None
    head: list[tuple[str, str]] = []
    tail: deque[tuple[str, str]] = deque(maxlen=TAIL_TURNS)
    seen = 0
    try:
        fd = AGENT_FILES.open_regular(file, real_root(file.parent))
        with open_text(fd, is_compressed(file)) as handle:
            for _number, raw, _size in json_lines(handle, MAX_LINE_BYTES):
                try:
                    record = json.loads(raw) if raw else None
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                turns = _codex_turns(record) if "payload" in record else _claude_turns(record)
                for who, text in turns:
                    if not text.strip():
                        continue
                    turn = (who, cut(text, TOOL_CHARS if who.startswith("tool") else
                                     MESSAGE_CHARS))
                    seen += 1
                    (head.append if len(head) < HEAD_TURNS else tail.append)(turn)
    except (OSError, FileProblem):
        return None
    except Exception as error:  # zstandard.ZstdError and friends: a damaged file
        if type(error).__module__.startswith("zstandard"):
            return None
        raise
    return Conversation(tuple(head), tuple(tail), seen - len(head) - len(tail))
