"""A small ``memories_1.sqlite`` in Codex's own schema, for the demo's Codex home (never a
real one: ``engine.demo_codex`` calls it on a folder it has just made)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE stage1_outputs (
    thread_id TEXT PRIMARY KEY, source_updated_at INTEGER NOT NULL,
    raw_memory TEXT NOT NULL, rollout_summary TEXT NOT NULL, rollout_slug TEXT,
    generated_at INTEGER NOT NULL, usage_count INTEGER, last_usage INTEGER,
    selected_for_phase2 INTEGER NOT NULL DEFAULT 0,
    selected_for_phase2_source_updated_at INTEGER);
CREATE TABLE jobs (
    kind TEXT NOT NULL, job_key TEXT NOT NULL, status TEXT NOT NULL, worker_id TEXT,
    ownership_token TEXT, started_at INTEGER, finished_at INTEGER,
    lease_until INTEGER, retry_at INTEGER, retry_remaining INTEGER NOT NULL,
    last_error TEXT, input_watermark INTEGER, last_success_watermark INTEGER,
    PRIMARY KEY (kind, job_key));
CREATE TABLE consolidation_progress (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    max_thread_count INTEGER NOT NULL DEFAULT 0);
"""


@dataclass(frozen=True)
class DemoStage1:
    """One stage-1 output row (times in Unix seconds)."""

    thread_id: str
    updated_at: int
    raw_memory: str
    rollout_summary: str
    slug: str
    usage_count: int | None
    last_usage: int | None


@dataclass(frozen=True)
class DemoJob:
    """One job row (times in Unix seconds)."""

    kind: str
    job_key: str
    status: str
    worker_id: str
    started_at: int
    finished_at: int | None
    lease_until: int | None
    retry_remaining: int
    last_error: str | None = None


def create_demo_codex_db(path: Path, outputs: Sequence[DemoStage1],
                         jobs: Sequence[DemoJob]) -> Path:
    """Create ``path`` (which must not exist) with Codex's tables and these rows."""
    if path.exists():
        raise FileExistsError(f"{path}: already exists")
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        conn.executemany(
            "INSERT INTO stage1_outputs VALUES (?,?,?,?,?,?,?,?,?,?)",
            [(row.thread_id, row.updated_at, row.raw_memory, row.rollout_summary, row.slug,
              row.updated_at + 60, row.usage_count, row.last_usage, 1, row.updated_at)
             for row in outputs])
        conn.executemany(
            "INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(job.kind, job.job_key, job.status, job.worker_id, None, job.started_at,
              job.finished_at, job.lease_until, None, job.retry_remaining, job.last_error,
              job.started_at, job.finished_at) for job in jobs])
        conn.execute("INSERT INTO consolidation_progress VALUES (1, ?)", (len(outputs),))
        conn.commit()
    finally:
        conn.close()
    return path
