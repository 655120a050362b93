"""Parser of one ``rollout_summaries/*.md`` file: header lines, a blank line, the summary."""

from __future__ import annotations

from pathlib import PurePath

from memtui.engine.codex.markdown import header_lines
from memtui.engine.codex.models import Problem, RolloutSummary
from memtui.engine.codex.timefmt import normalize_time

MAX_HEADER_LINES = 32


def read_headers(text: str) -> dict[str, str]:
    """The ``key: value`` lines at the top of a summary, up to the first blank line."""
    return header_lines(text.splitlines(), limit=MAX_HEADER_LINES)[0]


def parse_rollout_summary(text: str, file: str) -> tuple[RolloutSummary | None, list[Problem]]:
    """Parse one rollout summary. Never raises; without ``thread_id:`` it is skipped."""
    lines = text.splitlines()
    headers, index = header_lines(lines, limit=MAX_HEADER_LINES)
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
