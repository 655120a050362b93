"""Parser of one ``rollout_summaries/*.md`` file: header lines, a blank line, the summary."""

from __future__ import annotations

import re
from pathlib import PurePath

from memtui.engine.codex.models import Problem, RolloutSummary
from memtui.engine.codex.timefmt import normalize_time

MAX_HEADER_LINES = 32

_HEADER_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$")


def _headers(lines: list[str]) -> tuple[dict[str, str], int]:
    """The ``key: value`` lines at the top (the first of each key wins, at most
    ``MAX_HEADER_LINES``, up to the first blank or other line) and where the body starts."""
    headers: dict[str, str] = {}
    index = 0
    while index < len(lines) and index < MAX_HEADER_LINES:
        match = _HEADER_RE.match(lines[index])
        if not lines[index].strip() or not match:
            break
        headers.setdefault(match.group(1), match.group(2).strip())
        index += 1
    return headers, index


def read_headers(text: str) -> dict[str, str]:
    """The ``key: value`` lines at the top of a summary, up to the first blank line."""
    return _headers(text.splitlines())[0]


def parse_rollout_summary(text: str, file: str) -> tuple[RolloutSummary | None, list[Problem]]:
    """Parse one rollout summary. Never raises; without ``thread_id:`` it is skipped."""
    lines = text.splitlines()
    headers, index = _headers(lines)
    thread_id = headers.get("thread_id", "")
    if not thread_id:
        return None, [Problem(file, "no 'thread_id:' header line; skipped", 1)]
    body = "\n".join(lines[index:]).strip("\n")
    return RolloutSummary(
        thread_id=thread_id,
        updated_at=normalize_time(headers.get("updated_at")),
        rollout_path=headers.get("rollout_path") or None,
        cwd=headers.get("cwd") or None,
        git_branch=headers.get("git_branch") or None,
        body=body,
        file=PurePath(file).name,
    ), []
