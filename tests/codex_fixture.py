"""A realistic Codex home for tests, built from the formats Codex writes.

``build_codex_home(root, layout=...)`` creates ``root/.codex`` with memory files, ad-hoc notes
(two good, one badly named), Codex's databases built by applying Codex's own migration SQL
(``tests/data/codex_schema``) in one of three layouts — ``memories_1`` (since 2026-05-26),
``state_5`` (memories inside the state database, 2026-02 to 2026-05) or the unsupported
oldest one — holding threads (one ``polluted``), stage-1 outputs, an errored stage-1 job and
a stuck global consolidation, and session rollouts (normal with injected context, MCP, web search,
a truncated last line, an unknown record type). Run as a script to build one on disk:
``python tests/codex_fixture.py /tmp/somewhere``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from agents_fixture import write_file

NOW = datetime(2026, 10, 6, 12, 0, 0, tzinfo=UTC)
"""The time the fixture's leases and retries are judged at."""

THREAD_V7 = "0199a5c2-7d3e-7c41-9b2a-3f5e8d1c4a01"
"""A UUIDv7 thread id (the normal rollout)."""
THREAD_DOCS = "5f0c3a8e-2b71-4d9a-8e15-c0ffee123456"
THREAD_API = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
THREAD_MCP = "0199a5c2-9a10-7b22-8c33-44d5e6f70812"
THREAD_WEB = "0199a5c3-0b11-7c23-9d34-55e6f7081923"
THREAD_TRUNCATED = "0199a5c3-1c12-7d24-ae45-66f708192a34"
THREAD_UNKNOWN = "0199a5c3-2d13-7e25-bf56-7708192a3b45"
THREAD_ERRORED = "0199a5c3-3e14-7f26-8067-88192a3b4c56"
THREAD_RETRYING = "0199a5c3-4f15-7027-9178-992a3b4c5d67"

MEMORY_THREADS = (THREAD_V7, THREAD_DOCS, THREAD_API)
"""Threads with a stage-1 output, a raw memory and a rollout summary."""
PROJECT_CWD = "/home/dev/projects/ninfer"
DOCS_CWD = "/home/dev/projects/handbook"

SUMMARY_FILES = {
    THREAD_V7: "2026-10-02T03-29-31-rc5X-local_ninfer_cache_prefill_decode_optimization.md",
    THREAD_DOCS: "2026-10-03T08-00-00-Ab12-handbook_style_pass.md",
    THREAD_API: "2026-10-04T09-15-00-Zz9q.md",
}
GOOD_NOTES = ("2026-10-05T10-00-00-prefer-uv-over-pip.md",
              "2026-10-05T11-30-00-staging-db-is-read-only.md")
BAD_NOTE = "My Note (draft).md"
STAGE1_ERROR = "invalid params, unknown model 'gpt-5.4-mini' (2013)"
RETRY_ERROR = "unexpected status 403 Forbidden: This token has no access to model gpt-5.4-mini"

MEMORY_SUMMARY = """v1

## User Profile

Backend developer working on an inference engine (ninfer) and a team handbook.

## User preferences

- prefers uv over pip for Python environments
- wants tests run before every commit

## General Tips

- the ninfer cache tests need `NINFER_CACHE_DIR` set to a temp folder

## What's in Memory

### /home/dev/projects/ninfer

#### 2026-10-02

- cache prefill: kv-cache, prefill, decode, flaky test
  - desc: fixing the flaky prefill/decode cache test
  - learnings: the test raced on a shared cache dir

#### 2026-10-04

- api retries: http client, retry, backoff
  - desc: retry policy for the model API client

### /home/dev/projects/handbook

#### 2026-10-03

- style pass: markdown, headings, tone
  - desc: house style for the team handbook

### Older Memory Topics

- initial repo setup: uv, pre-commit
"""

MEMORY_MD = f"""# Task Group: ninfer cache and API client

scope: the ninfer inference engine: KV cache tests and the model API client
applies_to: cwd={PROJECT_CWD}; reuse_rule=safe for any checkout of ninfer on main

## Task 1: fix the flaky prefill/decode cache test (success)

### rollout_summary_files

- rollout_summaries/{SUMMARY_FILES[THREAD_V7]} (cwd={PROJECT_CWD}, rollout_path=/home/dev/.codex/sessions/2026/10/02/rollout-2026-10-02T11-29-31-{THREAD_V7}.jsonl, updated_at=2026-10-02T03:29:31+00:00, thread_id={THREAD_V7})

### keywords

- kv-cache, prefill, decode, flaky test, NINFER_CACHE_DIR

## Task 2: add retries with backoff to the API client (partial)

### rollout_summary_files

- rollout_summaries/{SUMMARY_FILES[THREAD_API]} (cwd={PROJECT_CWD}, rollout_path=/home/dev/.codex/sessions/2026/10/04/rollout-2026-10-04T17-15-00-{THREAD_API}.jsonl, updated_at=2026-10-04T09:15:00+00:00, thread_id={THREAD_API})

### keywords

- http client, retry, backoff

## User preferences

- when tests flake, the user asked: "find the race, do not add sleeps" -> look for shared state first [Task 1]

## Reusable knowledge

- set NINFER_CACHE_DIR to a per-test temp folder [Task 1]
- the API client lives in ninfer/client.py [Task 2]

## Failures and how to do differently

- retrying on 4xx made things worse; retry only 429 and 5xx [Task 2]

# Task Group: team handbook

scope: the markdown team handbook and its house style
applies_to: cwd={DOCS_CWD}; reuse_rule=style rules apply to every handbook page

## Task 1: style pass over the onboarding pages (success)

### rollout_summary_files

- rollout_summaries/{SUMMARY_FILES[THREAD_DOCS]} (cwd={DOCS_CWD}, updated_at=2026-10-03T08:00:00+00:00, thread_id={THREAD_DOCS})

### keywords

- markdown, headings, tone

## User preferences

- sentence-case headings, no exclamation marks [Task 1]
"""


def _raw_memory(description: str, task: str, group: str, outcome: str, cwd: str,
                keywords: str, body: str) -> str:
    return (f"---\ndescription: {description}\ntask: {task}\ntask_group: {group}\n"
            f"task_outcome: {outcome}\ncwd: {cwd}\nkeywords: {keywords}\n---\n\n{body}")


RAW_MEMORIES = {
    THREAD_V7: _raw_memory(
        "fixed the flaky prefill/decode cache test", "fix flaky cache test",
        "ninfer cache and API client", "success", PROJECT_CWD,
        "kv-cache, prefill, decode",
        "### Task 1: fix the flaky cache test\n\n- the test shared ~/.cache/ninfer; a temp "
        "dir per test fixed it\n- api_key=[REDACTED_SECRET] was in the env dump"),
    THREAD_DOCS: _raw_memory(
        "style pass over the handbook", "handbook style", "team handbook", "success",
        DOCS_CWD, "markdown, tone", "### Task 1: style pass\n\n- sentence-case headings"),
    THREAD_API: _raw_memory(
        "retries for the API client", "api retries", "ninfer cache and API client",
        "partial", PROJECT_CWD, "retry, backoff",
        "### Task 1: retries\n\n- retry only 429 and 5xx"),
}

UPDATED = {
    THREAD_V7: datetime(2026, 10, 2, 3, 29, 31, tzinfo=UTC),
    THREAD_DOCS: datetime(2026, 10, 3, 8, 0, 0, tzinfo=UTC),
    THREAD_API: datetime(2026, 10, 4, 9, 15, 0, tzinfo=UTC),
}
CWDS = {THREAD_V7: PROJECT_CWD, THREAD_DOCS: DOCS_CWD, THREAD_API: PROJECT_CWD}


def _rollout_path(home: Path, thread: str) -> str:
    moment = UPDATED.get(thread, NOW)
    return str(home / "sessions" / moment.strftime("%Y/%m/%d")
               / f"rollout-{moment.strftime('%Y-%m-%dT%H-%M-%S')}-{thread}.jsonl")


def _raw_memories_md(home: Path) -> str:
    parts = ["# Raw Memories", "",
             "Merged stage-1 raw memories (stable ascending thread-id order):", ""]
    for thread in sorted(MEMORY_THREADS):
        parts.extend([f"## Thread `{thread}`",
                      f"updated_at: {UPDATED[thread].isoformat()}",
                      f"cwd: {CWDS[thread]}",
                      f"rollout_path: {_rollout_path(home, thread)}",
                      f"rollout_summary_file: {SUMMARY_FILES[thread]}", "",
                      RAW_MEMORIES[thread], ""])
    return "\n".join(parts)


def _rollout_summary(home: Path, thread: str) -> str:
    branch = "git_branch: main\n" if thread != THREAD_DOCS else ""
    return (f"thread_id: {thread}\nupdated_at: {UPDATED[thread].isoformat()}\n"
            f"rollout_path: {_rollout_path(home, thread)}\ncwd: {CWDS[thread]}\n{branch}\n"
            f"## Task 1\n\nSummary of thread {thread}: what was done and learned.\n")


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


SCHEMA_DIR = Path(__file__).parent / "data" / "codex_schema"
"""Codex's own migration SQL (copied unchanged from openai/codex; see its README)."""
LAYOUT_MEMORIES_DB = "memories_1"
LAYOUT_STATE_DB = "state_5"
LAYOUT_OLD = "pre_2026_02"
LAST_STATE_MIGRATION_WITH_MEMORIES = 34
"""State migration 35 dropped the memory tables from ``state_5.sqlite``."""
OLD_SCHEMA_SQL = """
CREATE TABLE thread_memory (thread_id TEXT NOT NULL, scope_kind TEXT NOT NULL,
    scope_key TEXT NOT NULL, raw_memory TEXT NOT NULL, memory_summary TEXT NOT NULL,
    updated_at INTEGER NOT NULL, PRIMARY KEY (thread_id, scope_kind, scope_key));
CREATE TABLE memory_phase1_jobs (thread_id TEXT NOT NULL, scope_kind TEXT NOT NULL,
    scope_key TEXT NOT NULL, status TEXT NOT NULL, PRIMARY KEY (thread_id, scope_kind, scope_key));
"""
"""The two tables of Codex's pre-2026-02 memory schema that memtui names as unsupported."""
THREAD_POLLUTED = "0199a5c3-5a16-7128-a289-aa3b4c5d6e78"
"""A thread with a stage-1 output whose ``memory_mode`` is ``polluted`` (skipped)."""


def apply_migrations(conn: sqlite3.Connection, folder: Path, last: int | None = None) -> None:
    """Apply Codex's migration files in order, recording each in ``_sqlx_migrations``."""
    conn.execute("CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, "
                 "description TEXT NOT NULL, installed_on TIMESTAMP NOT NULL DEFAULT "
                 "CURRENT_TIMESTAMP, success BOOLEAN NOT NULL, checksum BLOB NOT NULL, "
                 "execution_time BIGINT NOT NULL)")
    for path in sorted(folder.glob("*.sql")):
        version = int(path.name.split("_", 1)[0])
        if last is not None and version > last:
            break
        conn.executescript(path.read_text(encoding="utf-8"))
        conn.execute("INSERT INTO _sqlx_migrations(version, description, success, checksum, "
                     "execution_time) VALUES (?, ?, 1, x'00', 1)",
                     (version, path.stem.split("_", 1)[1]))
    conn.commit()


def _thread_rows(home: Path) -> list[tuple[str, str, str, str]]:
    """(id, cwd, memory_mode, source) of every thread the fixture's state knows."""
    rows = [(thread, CWDS[thread], "enabled", "cli") for thread in MEMORY_THREADS]
    rows.append((THREAD_POLLUTED, PROJECT_CWD, "polluted", "cli"))
    rows += [(thread, PROJECT_CWD, "enabled", "vscode") for thread in ROLLOUT_STARTS
             if thread not in MEMORY_THREADS]
    return rows


def _insert_threads(conn: sqlite3.Connection, home: Path) -> None:
    for thread, cwd, mode, source in _thread_rows(home):
        updated = _unix(UPDATED.get(thread, NOW))
        conn.execute(
            "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, "
            "model_provider, cwd, title, sandbox_policy, approval_mode, git_branch, "
            "memory_mode) VALUES (?, ?, ?, ?, ?, 'openai', ?, 'title', 'workspace-write', "
            "'on-request', 'main', ?)",
            (thread, _rollout_path(home, thread), updated, updated, source, cwd, mode))


def _insert_memory_rows(conn: sqlite3.Connection) -> None:
    for index, thread in enumerate((*MEMORY_THREADS, THREAD_POLLUTED)):
        updated = _unix(UPDATED.get(thread, NOW - timedelta(days=1)))
        raw = RAW_MEMORIES.get(thread, _raw_memory(
            "polluted thread", "x", "g", "success", "unknown", "k", "### Task 1\n\n- secret"))
        conn.execute(
            "INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, "
            "rollout_summary, rollout_slug, generated_at, usage_count, last_usage, "
            "selected_for_phase2, selected_for_phase2_source_updated_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (thread, updated, raw, f"## Task 1\n\nSummary of thread {thread}.",
             f"slug_{index}", updated + 60, (11, 21, None, 1)[index],
             updated + 86400 if index < 2 else None, 1 if index != 2 else 0, updated))
        conn.execute("INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     ("memory_stage1", thread, "done", "worker-a", "tok", updated + 10,
                      updated + 60, None, None, 3, None, updated, updated))
    stuck = _unix(NOW - timedelta(hours=5))
    conn.executemany("INSERT INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", [
        ("memory_stage1", THREAD_ERRORED, "error", "worker-b", None, stuck, stuck + 5, None,
         None, 0, STAGE1_ERROR, stuck, None),
        ("memory_stage1", THREAD_RETRYING, "error", "worker-b", None, stuck, stuck + 5, None,
         _unix(NOW + timedelta(hours=1)), 2, RETRY_ERROR, stuck, None),
        ("memory_consolidate_global", "global", "running", "worker-c", "own-123", stuck, None,
         _unix(NOW - timedelta(hours=2)), None, 3, None, stuck, stuck - 3600),
    ])


def _fixture_connection(path: Path) -> sqlite3.Connection:
    """A connection that builds a fixture database without waiting for the disk: each migration
    file commits, and a synced commit per file made every Codex home cost ~40 fsyncs. The file
    is the same; only this connection skips the syncs (a test never outlives a power cut)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")
    return conn


def build_codex_dbs(home: Path, *, layout: str = LAYOUT_MEMORIES_DB, wal: bool = True,
                    sqlite_home: Path | None = None) -> Path:
    """Create Codex's databases of one layout by applying Codex's own migration SQL."""
    folder = sqlite_home or home
    folder.mkdir(parents=True, exist_ok=True)
    state = _fixture_connection(folder / "state_5.sqlite")
    if wal:
        state.execute("PRAGMA journal_mode = WAL")
    if layout == LAYOUT_OLD:
        apply_migrations(state, SCHEMA_DIR / "state-migrations", last=5)
        state.executescript(OLD_SCHEMA_SQL)
        state.commit()
        state.close()
        return folder
    last = LAST_STATE_MIGRATION_WITH_MEMORIES if layout == LAYOUT_STATE_DB else None
    apply_migrations(state, SCHEMA_DIR / "state-migrations", last=last)
    _insert_threads(state, home)
    if layout == LAYOUT_STATE_DB:
        _insert_memory_rows(state)
    state.commit()
    state.close()
    if layout == LAYOUT_MEMORIES_DB:
        memories = _fixture_connection(folder / "memories_1.sqlite")
        if wal:
            memories.execute("PRAGMA journal_mode = WAL")
        apply_migrations(memories, SCHEMA_DIR / "memory-migrations")
        _insert_memory_rows(memories)
        memories.commit()
        memories.close()
    return folder


def _record(moment: datetime, kind: str, payload: dict[str, Any]) -> str:
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})


def _message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


AGENTS_MD = ("# AGENTS.md instructions for /home/dev/projects/ninfer\n\n<INSTRUCTIONS>\n"
             "Run the tests with uv.\n</INSTRUCTIONS>")
ENVIRONMENT = ("<environment_context>\n  <cwd>/home/dev/projects/ninfer</cwd>\n"
               "  <approval_policy>on-request</approval_policy>\n</environment_context>")
GOALS = {
    THREAD_V7: "Fix the flaky prefill/decode cache test in ninfer",
    THREAD_MCP: "List the open GitHub issues labelled cache",
    THREAD_WEB: "Find the latest CUDA toolkit release notes",
    THREAD_TRUNCATED: "Rename the config loader",
    THREAD_UNKNOWN: "Bump the version to 0.4.0",
}
RESULTS = {
    THREAD_V7: "The test shared ~/.cache/ninfer; each test now gets its own temp dir.",
    THREAD_MCP: "There are 3 open cache issues: #12, #15, #19.",
    THREAD_WEB: "CUDA 13.1 is the latest; notes linked.",
    THREAD_TRUNCATED: "Renamed load_cfg to load_config.",
    THREAD_UNKNOWN: "Version bumped to 0.4.0 in pyproject.toml.",
}


def _rollout_lines(thread: str, start: datetime) -> list[str]:
    step = timedelta(seconds=20)
    lines = [
        _record(start, "session_meta", {
            "id": thread, "timestamp": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "cwd": PROJECT_CWD, "originator": "codex_cli_rs", "cli_version": "0.46.0",
            "instructions": None,
            "git": {"commit_hash": "abc123", "branch": "main",
                    "repository_url": "git@github.com:dev/ninfer.git"}}),
        _record(start, "response_item", _message("user", AGENTS_MD)),
        _record(start, "response_item", _message("user", ENVIRONMENT)),
        _record(start + step, "turn_context", {"cwd": PROJECT_CWD, "model": "gpt-5-codex",
                                               "approval_policy": "on-request"}),
        _record(start + step, "response_item", _message("user", GOALS[thread])),
        _record(start + step, "event_msg", {"type": "user_message", "message": GOALS[thread],
                                            "images": []}),
        _record(start + 2 * step, "response_item",
                {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}),
    ]
    if thread == THREAD_MCP:
        lines += [
            _record(start + 3 * step, "response_item", {
                "type": "function_call", "namespace": "mcp__github", "name": "list_issues",
                "arguments": json.dumps({"label": "cache"}), "call_id": "call_1"}),
            _record(start + 3 * step, "event_msg", {
                "type": "mcp_tool_call_begin", "call_id": "call_1",
                "invocation": {"server": "github", "tool": "list_issues",
                               "arguments": {"label": "cache"}}}),
            _record(start + 4 * step, "event_msg", {
                "type": "mcp_tool_call_end", "call_id": "call_1",
                "invocation": {"server": "github", "tool": "list_issues"},
                "result": {"Ok": {"content": []}}}),
        ]
    elif thread == THREAD_WEB:
        lines += [
            _record(start + 3 * step, "event_msg", {"type": "web_search_begin",
                                                    "call_id": "ws_1"}),
            _record(start + 3 * step, "response_item", {
                "type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": "CUDA toolkit release notes"}}),
            _record(start + 4 * step, "event_msg", {"type": "web_search_end",
                                                    "call_id": "ws_1", "query": "CUDA"}),
        ]
    else:
        lines += [
            _record(start + 3 * step, "response_item", {
                "type": "function_call", "name": "shell", "call_id": "call_9",
                "arguments": json.dumps({"command": ["uv", "run", "pytest", "-q"]})}),
            _record(start + 4 * step, "response_item", {
                "type": "function_call_output", "call_id": "call_9",
                "output": json.dumps({"output": "12 passed", "metadata": {"exit_code": 0}})}),
        ]
    if thread == THREAD_UNKNOWN:
        lines += [
            _record(start + 4 * step, "future_record_kind", {"anything": [1, 2, 3]}),
            _record(start + 4 * step, "response_item", {"type": "ghost_snapshot",
                                                        "commit": "deadbeef"}),
            _record(start + 4 * step, "compacted", {"message": "summary of earlier turns"}),
        ]
    lines += [
        _record(start + 5 * step, "response_item", _message("assistant", RESULTS[thread])),
        _record(start + 5 * step, "event_msg", {"type": "agent_message",
                                                "message": RESULTS[thread]}),
        _record(start + 6 * step, "event_msg", {"type": "token_count", "info": None}),
    ]
    return lines


ROLLOUT_STARTS = {
    THREAD_V7: datetime(2026, 10, 2, 3, 29, 31, tzinfo=UTC),
    THREAD_MCP: datetime(2026, 10, 4, 10, 0, 0, tzinfo=UTC),
    THREAD_WEB: datetime(2026, 10, 4, 11, 0, 0, tzinfo=UTC),
    THREAD_TRUNCATED: datetime(2026, 10, 5, 9, 0, 0, tzinfo=UTC),
    THREAD_UNKNOWN: datetime(2026, 10, 5, 10, 0, 0, tzinfo=UTC),
}
"""Session rollouts written by the fixture, by thread."""


def rollout_file(home: Path, thread: str) -> Path:
    """Where the fixture writes a thread's rollout."""
    start = ROLLOUT_STARTS[thread]
    return (home / "sessions" / start.strftime("%Y/%m/%d")
            / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{thread}.jsonl")


def _write_rollouts(home: Path) -> None:
    for thread, start in ROLLOUT_STARTS.items():
        lines = _rollout_lines(thread, start)
        text = "\n".join(lines) + "\n"
        if thread == THREAD_TRUNCATED:
            text = "\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2]
        write_file(rollout_file(home, thread), text)


def build_codex_home(root: Path, *, wal: bool = True, layout: str = LAYOUT_MEMORIES_DB
                     ) -> Path:
    """Create a realistic Codex home at ``root/.codex`` (databases of ``layout``)."""
    home = Path(root) / ".codex"
    memories = home / "memories"
    write_file(memories / "memory_summary.md", MEMORY_SUMMARY)
    write_file(memories / "MEMORY.md", MEMORY_MD)
    write_file(memories / "raw_memories.md", _raw_memories_md(home))
    for thread, name in SUMMARY_FILES.items():
        write_file(memories / "rollout_summaries" / name, _rollout_summary(home, thread))
    ad_hoc = memories / "extensions" / "ad_hoc"
    write_file(ad_hoc / "instructions.md", "Write one note per fact. Keep notes short.\n")
    write_file(ad_hoc / "notes" / GOOD_NOTES[0], "Use uv, not pip, for every Python project.\n")
    write_file(ad_hoc / "notes" / GOOD_NOTES[1], "The staging database is read-only.\n")
    write_file(ad_hoc / "notes" / BAD_NOTE, "This note has a name Codex would not accept.\n")
    write_file(memories / "skills" / "run-tests" / "SKILL.md", "# run-tests\n\nUse uv run pytest.\n")
    write_file(memories / "phase2_workspace_diff.md", "diff --git a/MEMORY.md b/MEMORY.md\n")
    write_file(memories / ".git" / "HEAD", "ref: refs/heads/main\n")
    write_file(home / "config.toml", "[features]\nmemories = true\n\n[memories]\n"
                                 "generate_memories = true\nuse_memories = true\n")
    build_codex_dbs(home, layout=layout, wal=wal)
    _write_rollouts(home)
    return home


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    print(build_codex_home(target))


# ---- rollouts as newer Codex writes them ------------------------------------------------------

THREAD_PAGINATED = "0199a5c5-0001-7001-8001-000000000001"
"""An archived, zstd-compressed rollout in the "paginated" history mode (imported)."""
THREAD_EXEC = "0199a5c5-0002-7002-8002-000000000002"
"""A ``codex exec`` session: not interactive, so Codex does not mine it (skipped)."""
THREAD_DISABLED = "0199a5c5-0003-7003-8003-000000000003"
"""A compressed legacy rollout whose ``threads`` row says ``memory_mode = disabled``."""
MODERN_GOAL = "Add a --dry-run flag to the importer"
MODERN_RESULT = "Added --dry-run; it prints the plan and writes nothing."


def _compact(moment: datetime, kind: str, payload: dict[str, Any]) -> bytes:
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload},
                      separators=(",", ":")).encode()


def _modern_meta(thread: str, start: datetime, source: str) -> bytes:
    return _compact(start, "session_meta", {
        "id": thread, "timestamp": start.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "cwd": PROJECT_CWD, "originator": "codex_cli_rs", "cli_version": "0.130.0",
        "source": source, "git": {"branch": "main"}})


def _item(start: datetime, item: dict[str, Any]) -> bytes:
    return _compact(start, "event_msg", {"type": "item_completed", "thread_id": "t",
                                         "turn_id": "turn-1", "item": item})


def paginated_lines(thread: str, start: datetime, source: str = "cli") -> list[bytes]:
    """A rollout in the paginated history mode, with the newer record types."""
    step = timedelta(seconds=30)
    return [
        _modern_meta(thread, start, source),
        _compact(start, "response_item", _message("user", AGENTS_MD)),
        _compact(start, "world_state", {"open_files": []}),
        _item(start + step, {"type": "UserMessage", "id": "u1", "content": [
            {"type": "text", "text": "# Context from my IDE setup:\n\n## Active file: a.py\n\n"
                                     f"## My request for Codex:\n{MODERN_GOAL}",
             "text_elements": []}]}),
        _compact(start + step, "inter_agent_communication", {"from": "a", "to": "b"}),
        _compact(start + step, "inter_agent_communication_metadata", {}),
        _compact(start + 2 * step, "response_item", {
            "type": "function_call", "name": "shell", "call_id": "c1",
            "arguments": json.dumps({"command": ["uv", "run", "pytest"]})}),
        _compact(start + 2 * step, "response_item", {
            "type": "function_call_output", "call_id": "c1", "output": "ok " * 500}),
        _compact(start + 3 * step, "compacted", {"message": "summary",
                                                 "replacement_history": []}),
        _item(start + 4 * step, {"type": "AgentMessage", "id": "a1",
                                 "content": [{"type": "Text", "text": MODERN_RESULT}]}),
    ]


def legacy_lines(thread: str, start: datetime, source: str = "cli") -> list[bytes]:
    """A short rollout in the legacy history mode, compact as Codex writes it."""
    return [_modern_meta(thread, start, source),
            _compact(start, "event_msg", {"type": "user_message", "message": MODERN_GOAL}),
            _compact(start + timedelta(seconds=40), "event_msg",
                     {"type": "agent_message", "message": MODERN_RESULT})]


def write_modern_rollouts(home: Path, sqlite_home: Path | None = None) -> dict[str, Path]:
    """Add the paginated/archived/compressed, exec and disabled rollouts (and their
    ``threads`` rows when the home has ``state_5.sqlite``); returns their paths."""
    import zstandard

    start = datetime(2026, 10, 6, 8, 0, 0, tzinfo=UTC)
    name = "rollout-2026-10-06T08-00-00-{}.jsonl"
    day = home / "sessions" / "2026" / "10" / "06"
    files = {
        THREAD_PAGINATED: (home / "archived_sessions" / (name.format(THREAD_PAGINATED) + ".zst"),
                           paginated_lines(THREAD_PAGINATED, start)),
        THREAD_EXEC: (day / name.format(THREAD_EXEC), legacy_lines(THREAD_EXEC, start, "exec")),
        THREAD_DISABLED: (day / (name.format(THREAD_DISABLED) + ".zst"),
                          legacy_lines(THREAD_DISABLED, start)),
    }
    for path, lines in files.values():
        data = b"\n".join(lines) + b"\n"
        if path.name.endswith(".zst"):
            data = zstandard.ZstdCompressor().compress(data)
        write_file(path, data)
    state = (sqlite_home or home) / "state_5.sqlite"
    if state.exists():
        conn = sqlite3.connect(state)
        for thread, mode, source in ((THREAD_PAGINATED, "enabled", "cli"),
                                     (THREAD_EXEC, "enabled", "exec"),
                                     (THREAD_DISABLED, "disabled", "cli")):
            conn.execute(
                "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, "
                "model_provider, cwd, title, sandbox_policy, approval_mode, memory_mode) "
                "VALUES (?, ?, ?, ?, ?, 'openai', ?, 't', 'workspace-write', 'on-request', ?)",
                (thread, str(files[thread][0]), _unix(start), _unix(start), source,
                 PROJECT_CWD, mode))
        conn.commit()
        conn.close()
    return {thread: path for thread, (path, _lines) in files.items()}


def parse_rollout_lines(lines: Any, file: str = "<rollout>", mcp_servers: Any = ()) -> Any:
    """Rollout lines (bytes, with or without newlines) read into a ``RolloutTask`` the way
    a rollout file is read (a line longer than ``rollouts.MAX_LINE_BYTES`` is skipped)."""
    from memtui.engine.codex import rollouts

    reader = rollouts.RolloutReader(file, mcp_servers=mcp_servers)
    for number, raw in enumerate(lines, start=1):
        if len(raw) > rollouts.MAX_LINE_BYTES:
            reader.problem(number, f"longer than {rollouts.MAX_LINE_BYTES} bytes; line skipped")
            continue
        reader.line(number, raw)
    return reader.task()


def read_rollout_file(path: Path, root: Path | None = None) -> Any:
    """One whole rollout file inside ``root`` (default: its folder) read into a task
    (``FileProblemError`` when the file itself cannot be read)."""
    from memtui.engine.codex import rollouts

    reader = rollouts.RolloutReader(str(path))
    rollouts.read_rollout_from(path, root if root is not None else path.parent, reader)
    return reader.task()


class RolloutScan(NamedTuple):
    """Every rollout task of a home, and the files that were skipped."""

    tasks: tuple[Any, ...]
    problems: tuple[Any, ...]


def rollout_files(home: Path, max_files: int | None = None) -> list[Path]:
    """The rollout files of a home that are safe to read (sessions, then archived ones)."""
    from memtui.engine.codex import rollouts

    return rollouts.scan_rollout_files(
        Path(home).absolute(), rollouts.MAX_ROLLOUT_FILES if max_files is None else max_files)[0]


def read_rollouts(home: Path, max_files: int | None = None) -> RolloutScan:
    """Every rollout task of a home, a file that cannot be read one problem, skipped (what
    ``memtui codex import-rollouts`` reads)."""
    from memtui.engine.codex import rollouts
    from memtui.engine.codex.errors import FileProblemError
    from memtui.engine.codex.models import Problem

    home = Path(home).absolute()
    files, problems = rollouts.scan_rollout_files(
        home, rollouts.MAX_ROLLOUT_FILES if max_files is None else max_files)
    tasks = []
    for path in files:
        try:
            tasks.append(read_rollout_file(path, home))
        except FileProblemError as error:
            problems.append(Problem(str(path), error.reason))
    return RolloutScan(tuple(tasks), tuple(problems))


LOCK_SCRIPT = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute(sys.argv[2])
print("locked", flush=True)
time.sleep(60)
"""
"""Another process that holds an SQLite database locked (argv: the file, the BEGIN)."""


@contextlib.contextmanager
def locked_by_another_process(database: Path, begin: str = "BEGIN EXCLUSIVE") -> Iterator[None]:
    """While the block runs, another process holds ``database`` locked (``begin``: how)."""
    holder = subprocess.Popen([sys.executable, "-c", LOCK_SCRIPT, str(database), begin],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait()
