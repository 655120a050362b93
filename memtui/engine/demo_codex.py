"""A small Codex home beside the demo store, so the Codex pane shows something on
``memtui --demo`` (threads, stage-1 outputs, a MEMORY.md group, notes, a failed job).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from memtui.store.codex_demo_db import create_demo_codex_db
from memtui.store.codex_models import JobRow, Stage1Row

THREAD_CHECKOUT = "0199b1a0-4c2e-7a10-9b3d-1a2b3c4d5e01"
THREAD_MIGRATION = "0199b1a4-8d3f-7b21-8c4e-2b3c4d5e6f02"
THREAD_FAILED = "0199b1a9-1e40-7c32-9d5f-3c4d5e6f7003"
PROJECT_CWD = "/home/alice/src/webshop"
UPDATED = {
    THREAD_CHECKOUT: datetime(2026, 11, 20, 14, 5, tzinfo=UTC),
    THREAD_MIGRATION: datetime(2026, 11, 24, 9, 40, tzinfo=UTC),
}
DESCRIPTIONS = {
    THREAD_CHECKOUT: "fixed the Stripe webhook retries in the checkout service",
    THREAD_MIGRATION: "split the orders migration into two steps",
}
SUMMARY_FILES = {
    THREAD_CHECKOUT: "2026-11-20T14-05-00-Qw3e-checkout_webhook_retries.md",
    THREAD_MIGRATION: "2026-11-24T09-40-00-Rt5y-orders_migration_split.md",
}
FAILED_AT = datetime(2026, 11, 30, 22, 0, tzinfo=UTC)
STAGE1_ERROR = "unexpected status 429 Too Many Requests: rate limit reached for the model"
NOTES = {
    "2026-11-25T10-00-00-run-tests-with-uv.md": "Run the webshop tests with `uv run pytest`.\n",
    "2026-11-26T16-30-00-stripe-test-keys.md": "Stripe test keys live in 1Password, "
                                               "never in .env.\n",
}
DAY = 86_400


def _raw_memory(thread: str, keywords: str, body: str) -> str:
    return (f"---\ndescription: {DESCRIPTIONS[thread]}\ntask: {DESCRIPTIONS[thread]}\n"
            f"task_group: webshop checkout and orders\ntask_outcome: success\n"
            f"cwd: {PROJECT_CWD}\nkeywords: {keywords}\n---\n\n{body}")


RAW = {
    THREAD_CHECKOUT: _raw_memory(THREAD_CHECKOUT, "stripe, webhook, retry",
                                 "### Task 1: webhook retries\n\n- make the webhook handler "
                                 "idempotent before retrying"),
    THREAD_MIGRATION: _raw_memory(THREAD_MIGRATION, "django, migration, orders",
                                  "### Task 1: orders migration\n\n- add the column first, "
                                  "backfill, then make it NOT NULL"),
}

MEMORY_SUMMARY = """v1

## User Profile

Backend developer on a Django webshop with a Stripe checkout.

## User preferences

- prefers uv over pip
- wants migrations split into safe steps
"""


def _memory_md() -> str:
    tasks = []
    for number, thread in enumerate((THREAD_CHECKOUT, THREAD_MIGRATION), start=1):
        updated = UPDATED[thread].isoformat()
        tasks.append(
            f"## Task {number}: {DESCRIPTIONS[thread]} (success)\n\n"
            f"### rollout_summary_files\n\n- rollout_summaries/{SUMMARY_FILES[thread]} "
            f"(cwd={PROJECT_CWD}, updated_at={updated}, thread_id={thread})\n\n"
            f"### keywords\n\n- {RAW[thread].split('keywords: ')[1].split(chr(10))[0]}\n")
    return ("# Task Group: webshop checkout and orders\n\n"
            "scope: the webshop's checkout service and the orders schema\n"
            f"applies_to: cwd={PROJECT_CWD}; reuse_rule=safe on main\n\n"
            + "\n".join(tasks)
            + "\n## Reusable knowledge\n\n- the checkout service talks to Stripe [Task 1]\n")


def _raw_memories_md() -> str:
    parts = ["# Raw Memories", "",
             "Merged stage-1 raw memories (stable ascending thread-id order):", ""]
    for thread in sorted(RAW):
        parts += [f"## Thread `{thread}`", f"updated_at: {UPDATED[thread].isoformat()}",
                  f"cwd: {PROJECT_CWD}", f"rollout_summary_file: {SUMMARY_FILES[thread]}", "",
                  RAW[thread], ""]
    return "\n".join(parts)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build_demo_codex_home(home: Path) -> Path:
    """Create the demo Codex home at ``home`` (which must not exist yet) and return it."""
    if home.exists():
        raise FileExistsError(f"{home}: already exists")
    memories = home / "memories"
    _write(memories / "memory_summary.md", MEMORY_SUMMARY)
    _write(memories / "MEMORY.md", _memory_md())
    _write(memories / "raw_memories.md", _raw_memories_md())
    for thread, name in SUMMARY_FILES.items():
        _write(memories / "rollout_summaries" / name,
               f"thread_id: {thread}\nupdated_at: {UPDATED[thread].isoformat()}\n"
               f"cwd: {PROJECT_CWD}\n\n## Task 1\n\n{DESCRIPTIONS[thread]}.\n")
    ad_hoc = memories / "extensions" / "ad_hoc"
    _write(ad_hoc / "instructions.md", "Write one note per fact. Keep notes short.\n")
    for name, text in NOTES.items():
        _write(ad_hoc / "notes" / name, text)
    _write(home / "config.toml", "[features]\nmemories = true\n\n[memories]\n"
                                 "generate_memories = true\nuse_memories = true\n")
    outputs, jobs = [], []
    for index, (thread, usage) in enumerate(((THREAD_CHECKOUT, 7), (THREAD_MIGRATION, 2))):
        at = int(UPDATED[thread].timestamp())
        outputs.append(Stage1Row(thread, at, RAW[thread], f"## Task 1\n\n{DESCRIPTIONS[thread]}.",
                                 f"demo_{index}", at + 60, usage, at + DAY if usage else None,
                                 True, at))
        jobs.append(JobRow("memory_stage1", thread, "done", "worker-a", None, at + 10, at + 60,
                           None, None, 3, None, at + 10, at + 60))
    failed = int(FAILED_AT.timestamp())
    jobs.append(JobRow("memory_stage1", THREAD_FAILED, "error", "worker-b", None, failed,
                       failed + 5, None, None, 0, STAGE1_ERROR, failed, failed + 5))
    create_demo_codex_db(home / "memories_1.sqlite", outputs, jobs)
    return home
