"""Browse a Codex home, read-only: the threads with their memory, job and ``threads`` row."""

from __future__ import annotations

import os
from dataclasses import dataclass

from memtui.engine.codex.models import LAYOUT_WORDS, CodexHome
from memtui.engine.codex.parsers import first_line, parse_front_matter
from memtui.jsonable import JsonMixin
from memtui.store.codex_models import LAYOUT_OLD


@dataclass(frozen=True)
class CodexThread(JsonMixin):
    """One thread of a Codex home, merged from the database, raw memories and summaries."""

    thread_id: str
    cwd: str | None
    updated_at: str | None
    description: str | None
    usage_count: int | None
    last_usage: str | None
    generated_at: str | None
    in_database: bool
    has_raw_memory: bool
    rollout_summary_file: str | None
    job_status: str | None
    job_error: str | None
    rollout_path: str | None = None
    git_branch: str | None = None
    source: str | None = None
    memory_mode: str | None = None
    """From ``state_5.sqlite`` ``threads``: ``enabled``, ``disabled`` or ``polluted``."""
    has_memory: bool = True
    """False for a thread known only from ``threads`` (no stage-1 output, job or file)."""


def database_problem(codex: CodexHome) -> str | None:
    """Why the home's memory database could not be read, else None (read, or absent): a
    locked or broken file, or the oldest layout (named, not supported)."""
    if codex.layout is not None and codex.layout.name == LAYOUT_OLD:
        return LAYOUT_WORDS[LAYOUT_OLD]
    if codex.database_read or not os.path.lexists(codex.sqlite_path):
        return None
    return next((problem.reason for problem in codex.problems
                 if problem.path == codex.sqlite_path), "could not be read")


def codex_threads(codex: CodexHome) -> list[CodexThread]:
    """Every thread of a home with a memory, a job or a ``threads`` row, for browsing: those
    with a memory or job first, each part newest first."""
    memory = codex.memory_by_thread()
    jobs = {job.job_key: job for job in codex.jobs if job.is_stage1}
    metas = codex.threads_by_id()
    with_memory = set(memory) | set(jobs)
    threads: list[CodexThread] = []
    for thread_id in sorted(with_memory | set(metas)):
        meta, job = metas.get(thread_id), jobs.get(thread_id)
        row, entry, summary = memory.get(thread_id, (None, None, None))
        front = parse_front_matter(row.raw_memory if row else entry.body if entry else "")
        # the v2 layout keeps no raw memory: its rollout summary is the memory
        description = front.get("description") or (first_line(row.rollout_summary) if row
                                                    else "")
        updated = ((row.source_updated_at if row else None)
                   or (entry.updated_at if entry else None)
                   or (summary.updated_at if summary else None)
                   or (meta.updated_at if meta else None))
        threads.append(CodexThread(
            thread_id=thread_id,
            cwd=(meta.cwd if meta else None) or (row.cwd if row else None)
            or (entry.cwd if entry else None) or (summary.cwd if summary else None),
            updated_at=updated, description=description or None,
            usage_count=row.usage_count if row else None,
            last_usage=row.last_usage if row else None,
            generated_at=row.generated_at if row else None, in_database=row is not None,
            has_raw_memory=entry is not None,
            rollout_summary_file=summary.file if summary else None,
            job_status=job.status if job else None,
            job_error=job.last_error if job else None,
            rollout_path=meta.rollout_path if meta else None,
            git_branch=meta.git_branch if meta else None,
            source=meta.source if meta else None,
            memory_mode=meta.memory_mode if meta else None,
            has_memory=thread_id in with_memory))
    threads.sort(key=lambda item: (item.has_memory, item.updated_at or "", item.thread_id),
                 reverse=True)
    return threads

