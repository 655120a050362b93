"""On PostgreSQL, the extraction scan's per-task reads stay small while the planner has no
statistics for the memories (a fresh table, or a round adding memories faster than
autovacuum analyses them): they read the task's few rows through an index, never every
memory in key order. Bound by the buffers each statement touches (``EXPLAIN (ANALYZE,
BUFFERS)`` of the very statement the repository ran), not by time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memtui.engine.api import Engine
from memtui.store.database import open_store
from memtui.store.postgres.bench_data import copy_rows
from memtui.store.postgres.store import PostgresStore

MEMORIES = 6_000
"""Memories of the project (none of them the task's): a table size where, without
statistics, the planner prefers walking an ordered index to the few rows an equality finds."""
MIN_PAGES = 100
"""The memories table must be at least this big for a walk over it to show."""
PAGE_SHARE = 10
"""A statement may touch at most 1/PAGE_SHARE of the table's pages."""
STAMP = "2026-11-01T10:00:00.000Z"


def _rows() -> Iterator[tuple[Any, ...]]:
    for i in range(MEMORIES):
        yield (f"mem_{i:08d}", "project", "alice", "web", "fact",
               f"Generated memory {i} about the web project and its deploys.", "active", None,
               "auto", f"task_other_{i:08d}", STAMP, STAMP, 0, None, f"goal number {i}")


def _buffers(plan: dict[str, Any]) -> int:
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


@pytest.mark.postgres
def test_the_scan_reads_of_one_task_stay_small_without_statistics(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    try:
        store.execute("ALTER TABLE memories SET (autovacuum_enabled = false)")
        alice = Engine(store, "alice")
        alice.identity.create_project("web")
        task = alice.tasks.add_task("web", "Ship the release notes", "p", "done",
                                    "2026-11-01T09:00:00Z", "2026-11-01T09:30:00Z")
        loader = store.connect()
        with loader.transaction():
            copy_rows(loader, "memories", _rows())  # no ANALYZE: the planner has no statistics
        pages = int(store.execute("SELECT pg_relation_size('memories') / "
                                  "current_setting('block_size')::int").fetchone()[0])
        assert pages >= MIN_PAGES

        ran: list[tuple[str, Any]] = []
        real = PostgresStore._run_on

        def recording(self: PostgresStore, conn: Any, query: str, params: Any,
                      many: bool) -> Any:
            ran.append((query, params))
            return real(self, conn, query, params, many)

        monkeypatch.setattr(PostgresStore, "_run_on", recording)
        with store.transaction(shared=True):
            row = store.tasks.scan_row(task.id)
            assert row is not None and row.existing_memory is None
            assert store.tasks.active_auto_for_goal("web", "ship the release notes") is None
        monkeypatch.undo()

        checked = [(q, p) for q, p in ran if "FROM memories" in q
                   and q.lstrip().startswith(("SELECT", "WITH"))]
        assert len(checked) == 2, [q[:60] for q, _p in ran]
        explain = store.connect()
        for query, params in checked:
            row = explain.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query, params).fetchone()
            assert row is not None
            plan = (row[0] if isinstance(row[0], list) else json.loads(row[0]))[0]["Plan"]
            assert _buffers(plan) <= pages // PAGE_SHARE, (query[:80], _buffers(plan), pages)
    finally:
        store.close()


SEARCHES = ("w", "we", "web", "d", "de", "dep", "deploy", "p", "pr", "pro", "project", "m",
            "me", "mem", "memory")
"""Searches typed one after another: one statement text, each with its own words."""
GENERIC_PLAN_COUNTS_SINCE = 140_000
"""``pg_prepared_statements`` counts generic and custom plans from PostgreSQL 14 on."""


@pytest.mark.postgres
def test_every_searched_page_is_planned_for_its_own_words(pg_url: str) -> None:
    """psycopg prepares a statement run five times; PostgreSQL would then be free to run it
    with one generic plan whatever the words (a common prefix through the full-text index).
    Every connection the store opens plans each run for its own parameters."""
    from memtui.store.models import MemoryFilter

    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    try:
        alice = Engine(store, "alice")
        for index in range(40):
            alice.identity.add_memory(f"Memory {index} of the web project: deploy it", "fact")
        if store.execute("SHOW server_version_num").fetchone()[0] < str(GENERIC_PLAN_COUNTS_SINCE):
            pytest.skip("the server does not count generic plans (PostgreSQL 14+)")
        with store.snapshot():  # one connection for every statement below
            for search in SEARCHES * 2:
                store.memories.page(MemoryFilter(scope="user", owner="alice", search=search), 10)
            plans = store.execute("SELECT statement, generic_plans, custom_plans "
                                  "FROM pg_prepared_statements").fetchall()
        # (a statement without parameters has one plan anyway: BEGIN, SHOW ...)
        assert [row for row in plans if row[1] and "$1" in row[0]] == []
        searched = [row for row in plans if "to_tsquery" in row[0]]
        assert searched and max(row[2] for row in searched) >= len(SEARCHES)  # prepared
        lane = store.lane()
        with lane.reading(lane.begin()):  # the app's search-as-you-type connection
            assert store.execute("SHOW plan_cache_mode").fetchone()[0] == "force_custom_plan"
    finally:
        store.close()
