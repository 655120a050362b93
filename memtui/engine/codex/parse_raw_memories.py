"""Parser of ``raw_memories.md``: one ``RawMemory`` per ``## Thread `<id>``` entry."""

from __future__ import annotations

import re

from memtui.engine.codex.markdown import header_lines
from memtui.engine.codex.models import Problem, RawMemory
from memtui.engine.codex.timefmt import normalize_time

RAW_MEMORIES_TITLE = "# Raw Memories"
NO_RAW_MEMORIES = "No raw memories yet."
THREAD_HEADER_KEYS = ("updated_at", "cwd", "rollout_path", "rollout_summary_file")
FRONT_MATTER_FENCE = "---"
MAX_FRONT_MATTER_LINES = 64

_THREAD_RE = re.compile(r"^## Thread `([^`]+)`\s*$")
_HEADER_RE = re.compile(r"^([a-z_]+):\s?(.*)$")


def parse_front_matter(body: str) -> dict[str, str]:
    """The ``key: value`` lines between leading ``---`` fences of a raw memory, else {}."""
    lines = body.lstrip("\n").splitlines()
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        return {}
    found: dict[str, str] = {}
    for line in lines[1:MAX_FRONT_MATTER_LINES]:
        if line.strip() == FRONT_MATTER_FENCE:
            return found
        match = _HEADER_RE.match(line)
        if match and match.group(1) not in found:
            found[match.group(1)] = match.group(2).strip()
    return {}


def _thread(thread_id: str, lines: list[str]) -> RawMemory:
    headers, index = header_lines(lines, THREAD_HEADER_KEYS)
    body = "\n".join(lines[index:]).strip("\n")
    return RawMemory(
        thread_id=thread_id,
        updated_at=normalize_time(headers.get("updated_at")),
        cwd=headers.get("cwd") or None,
        rollout_path=headers.get("rollout_path") or None,
        rollout_summary_file=headers.get("rollout_summary_file") or None,
        front_matter=parse_front_matter(body),
        body=body,
    )


def parse_raw_memories(text: str, path: str = "raw_memories.md"
                       ) -> tuple[list[RawMemory], list[Problem]]:
    """Parse ``raw_memories.md``. Never raises; defects come back as ``Problem``s.

    "No raw memories yet." gives an empty list. A repeated thread id is reported and only
    its first entry kept.
    """
    problems: list[Problem] = []
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if first.strip() != RAW_MEMORIES_TITLE:
        problems.append(Problem(path, f"does not start with '{RAW_MEMORIES_TITLE}'", 1))
    threads: list[RawMemory] = []
    seen: set[str] = set()
    current: tuple[str, int] | None = None
    chunk: list[str] = []

    def flush() -> None:
        if current is None:
            return
        thread_id, line = current
        if thread_id in seen:
            problems.append(Problem(path, f"thread {thread_id!r} repeated; later entry "
                                          "skipped", line))
            return
        seen.add(thread_id)
        threads.append(_thread(thread_id, chunk))

    for number, line in enumerate(lines, start=1):
        match = _THREAD_RE.match(line)
        if match:
            flush()
            current, chunk = (match.group(1).strip(), number), []
        elif current is not None:
            chunk.append(line)
    flush()
    return threads, problems
