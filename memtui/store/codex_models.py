"""Plain rows read from Codex's ``memories_1.sqlite`` (spec/40).

These mirror the database: times are unix seconds exactly as Codex stores them. The engine
(``memtui.engine.codex``) turns them into its own models with ISO-8601 times.
"""

from __future__ import annotations

from dataclasses import dataclass

STAGE1_JOB_KIND = "memory_stage1"
"""Job kind of a per-thread stage-1 extraction; its ``job_key`` is the thread id."""
CONSOLIDATE_JOB_KIND = "memory_consolidate_global"
"""Job kind of the global consolidation (phase 2); its ``job_key`` is ``global``."""
GLOBAL_JOB_KEY = "global"
"""The ``job_key`` of the global consolidation job."""


@dataclass(frozen=True)
class Stage1Row:
    """One row of ``stage1_outputs``: the stage-1 memory Codex extracted from one thread."""

    thread_id: str
    source_updated_at: int | None
    raw_memory: str
    rollout_summary: str
    rollout_slug: str | None
    generated_at: int | None
    usage_count: int | None
    last_usage: int | None
    selected_for_phase2: bool
    selected_for_phase2_source_updated_at: int | None


@dataclass(frozen=True)
class JobRow:
    """One row of ``jobs``: Codex's leased job queue (stage-1 extraction, consolidation)."""

    kind: str
    job_key: str
    status: str
    worker_id: str | None
    ownership_token: str | None
    started_at: int | None
    finished_at: int | None
    lease_until: int | None
    retry_at: int | None
    retry_remaining: int | None
    last_error: str | None
    input_watermark: int | None
    last_success_watermark: int | None


@dataclass(frozen=True)
class CodexDbSnapshot:
    """Everything read from one ``memories_1.sqlite`` in a single read transaction."""

    stage1_outputs: tuple[Stage1Row, ...]
    jobs: tuple[JobRow, ...]
    max_thread_count: int | None
    """``consolidation_progress.max_thread_count``; None when the table or row is absent."""
    skipped_rows: tuple[str, ...] = ()
    """One-line reasons for rows that could not be read (for example a NULL key)."""


@dataclass(frozen=True)
class ForgetDbResult:
    """What ``forget_thread`` deleted from ``memories_1.sqlite``."""

    stage1_deleted: int
    jobs_deleted: int
