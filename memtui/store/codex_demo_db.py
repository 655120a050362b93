"""A small ``memories_1.sqlite`` in Codex's own schema, for the demo's Codex home (never a
real one: ``engine.demo_codex`` calls it on a folder it has just made)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path

from memtui.store.codex_models import JobRow, Stage1Row

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


def create_demo_codex_db(path: Path, outputs: Sequence[Stage1Row[int]],
                         jobs: Sequence[JobRow[int]]) -> Path:
    """Create ``path`` (which must not exist) with Codex's tables and these rows."""
    if path.exists():
        raise FileExistsError(f"{path}: already exists")
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        conn.executemany("INSERT INTO stage1_outputs VALUES (?,?,?,?,?,?,?,?,?,?)",
                         map(astuple, outputs))
        conn.executemany("INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", map(astuple, jobs))
        conn.execute("INSERT INTO consolidation_progress VALUES (1, ?)", (len(outputs),))
        conn.commit()
    finally:
        conn.close()
    return path
