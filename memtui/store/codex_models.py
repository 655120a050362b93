"""Plain rows read from Codex's databases, times in unix seconds as Codex stores them (the
engine's models extend the same rows with the times as ISO text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

STAGE1_JOB_KIND = "memory_stage1"
"""Job kind of a per-thread stage-1 extraction; its ``job_key`` is the thread id."""
CONSOLIDATE_JOB_KIND = "memory_consolidate_global"
"""Job kind of the global consolidation (phase 2); its ``job_key`` is ``global``."""
GLOBAL_JOB_KEY = "global"
Time = TypeVar("Time", int, str)
"""A row's time: ``int`` (unix seconds) as read, ``str`` (ISO) in the engine's models."""
TIME_ANNOTATION = "Time | None"
"""The annotation of a time field (the module's annotations are text)."""


@dataclass(frozen=True)
class Stage1Row(Generic[Time]):
    """One row of ``stage1_outputs``: the stage-1 memory Codex extracted from one thread."""

    thread_id: str
    source_updated_at: Time | None
    raw_memory: str
    rollout_summary: str
    rollout_slug: str | None
    generated_at: Time | None
    usage_count: int | None
    last_usage: Time | None
    selected_for_phase2: bool
    selected_for_phase2_source_updated_at: Time | None


@dataclass(frozen=True)
class JobRow(Generic[Time]):
    """One row of ``jobs``: Codex's leased job queue (stage-1 extraction, consolidation)."""

    kind: str
    job_key: str
    status: str
    worker_id: str | None
    ownership_token: str | None
    started_at: Time | None
    finished_at: Time | None
    lease_until: Time | None
    retry_at: Time | None
    retry_remaining: int | None
    last_error: str | None
    input_watermark: int | None
    last_success_watermark: int | None


# Codex's database layouts, each in words in the engine's ``LAYOUT_WORDS``.
LAYOUT_MEMORIES_DB = "memories_1"
LAYOUT_STATE_DB = "state_5"
LAYOUT_MEMORIES_V2 = "memories_v2_1"
LAYOUT_UNKNOWN = "unknown"
"""A newer Codex database memtui does not know: read where its tables are known, never written."""
LAYOUT_OLD = "pre_2026_02"
LAYOUT_NONE = "none"


@dataclass(frozen=True)
class ThreadRow(Generic[Time]):
    """One row of ``state_5.sqlite`` ``threads``: where a thread ran and whether Codex may
    remember it. Columns a database's schema lacks are None (``memory_mode`` came with state
    migration 18, ``history_mode`` with 40)."""

    thread_id: str
    cwd: str | None
    rollout_path: str | None
    git_branch: str | None
    source: str | None
    memory_mode: str | None
    history_mode: str | None
    archived: bool
    updated_at: Time | None
    cli_version: str | None


@dataclass(frozen=True)
class DatabaseFile:
    """What one of Codex's sqlite files is: its tables and its newest applied migration."""

    path: str
    exists: bool
    tables: frozenset[str] = frozenset()
    version: int | None = None
    """``MAX(version)`` of the successful rows of ``_sqlx_migrations`` (None without it)."""
    error: str | None = None
    """Why the file could not be inspected (locked, not a database); None when it was."""


@dataclass(frozen=True)
class CodexLayout:
    """Which of Codex's database layouts a home has, and where its tables are."""

    name: str
    state: DatabaseFile
    memories: DatabaseFile
    memory_db_path: str | None
    """The file holding ``stage1_outputs`` and ``jobs`` (None when no readable one does)."""
    memories_v2: DatabaseFile | None = None
    """``memories_v2_1.sqlite`` (None when it was not looked for)."""
    unknown: tuple[DatabaseFile, ...] = ()

    @property
    def supported(self) -> bool:
        """True for the layouts memtui reads and writes (never an unknown or the oldest one)."""
        return self.name in (LAYOUT_MEMORIES_DB, LAYOUT_STATE_DB, LAYOUT_MEMORIES_V2)


@dataclass(frozen=True)
class CodexDbRead:
    """Everything read from a home's databases, each file in one read transaction: the
    layout, the threads, the memory rows, and why the memory tables or ``threads`` could not
    be read (None when they were or are none)."""

    layout: CodexLayout
    threads: tuple[ThreadRow[int], ...] = ()
    memory_read: bool = False
    """True when the memory tables (``stage1_outputs`` and ``jobs``) were read."""
    stage1_outputs: tuple[Stage1Row[int], ...] = ()
    jobs: tuple[JobRow[int], ...] = ()
    max_thread_count: int | None = None
    """``consolidation_progress.max_thread_count``; None when the table or row is absent."""
    skipped_rows: tuple[str, ...] = ()
    """One-line reasons for rows that could not be read (for example a NULL key)."""
    memory_error: str | None = None
    threads_error: str | None = None


@dataclass(frozen=True)
class ForgetRows:
    """What a thread has in the databases (a dry run, read-only) or what a forget changed (all
    in one transaction)."""

    thread_found: bool
    memory_mode: str | None
    """Its ``memory_mode`` (a dry run only; None after a forget)."""
    stage1_rows: int
    job_rows: int
    selected_for_phase2: bool
    """Its stage-1 row was consolidated, so a forget enqueues the global consolidation."""
    marked_polluted: bool = False
    layout: str | None = None
