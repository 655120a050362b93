"""The model cost ledger (``model_usage``) and the per-task extraction details
(``extraction_details``) survive a whole-store backup, a user's export and ``memtui store
copy`` on each backend; a user's export holds only their own; doctor removes the details of
tasks that are gone."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_main
from pg_support import BACKENDS, store_location

from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.engine.store_copy import copy_store
from memtui.store import maintenance as sql
from memtui.store.database import open_store
from memtui.store.model_ledger import TaskDetail, UsageRow

T = "2026-01-02T03:04:05.000Z"
LEDGER = ("model_usage", "extraction_details")
USAGE = [UsageRow("alice", "extract", "round_1", "task_0001", "webshop", "m-1", 120, 30,
                  "answered", T),
         UsageRow("alice", "consolidate", "cons_1", None, "ml-pipeline", "m-2", 7, 0,
                  "timeout", T),
         UsageRow("bob", "extract", "round_2", "task_0015", "webshop", "m-1", 50, 5,
                  "answered", T)]
DETAILS = [TaskDetail("task_0001", "alice", None, "timeout: slow (try 2 of 4)", 2, T),
           TaskDetail("task_0015", "bob", "web_search", None, 0, None),
           TaskDetail("task_0009", "bob", None, "bob's words zq7", 1, None)]
"""Bob's details of task_0009 (ml-pipeline, a project bob cannot read) are never his to
export; the demo adds alice's ``web_search`` details of task_0010."""


def _source(backend: str, request: pytest.FixtureRequest | None, tmp_path: Path) -> str:
    """A demo store with the ledger filled, of kind ``backend``."""
    store = build_demo_store(tmp_path / "demo.db")
    with store.transaction():
        for usage in USAGE:
            store.model_ledger.add_usage(usage)
        for detail in DETAILS:
            store.model_ledger.set_detail(detail)
    store.close()
    if request is None or backend == "sqlite":
        return str(tmp_path / "demo.db")
    location = store_location(backend, request, tmp_path, "source.db")
    copy_store(str(tmp_path / "demo.db"), location, "alice")
    return location


def _ledger(location: str) -> dict[str, list[dict[str, Any]]]:
    store = open_store(location)
    try:
        return {table: list(sql.dump_rows(store, table)) for table in LEDGER}
    finally:
        store.close()


def _export(location: str, user: str, *, everything: bool = False) -> str:
    engine = Engine(open_store(location), user)
    try:
        buffer = io.StringIO()
        engine.maintenance.export_to(buffer, everything=everything)
        return buffer.getvalue()
    finally:
        engine.store.close()


def _import(location: str, text: str) -> None:
    engine = Engine(open_store(location), "alice")
    try:
        engine.maintenance.import_lines(io.StringIO(text))
        assert engine.maintenance.doctor().healthy
    finally:
        engine.store.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_whole_store_backup_and_a_store_copy_keep_the_ledger(
        backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _source(backend, request, tmp_path)
    kept = _ledger(source)
    assert len(kept["model_usage"]) == 3 and len(kept["extraction_details"]) == 4
    restored = store_location(backend, request, tmp_path, "restored.db")
    _import(restored, _export(source, "alice", everything=True))
    assert _ledger(restored) == kept
    copied = store_location(backend, request, tmp_path, "copied.db")
    result = run_main("--user", "alice", "--json", "store", "copy", "--from", source,
                      "--to", copied)
    assert result.code == 0, result.err
    assert result.json["rows"]["model_usage"] == 3
    assert _ledger(copied) == kept
    store = open_store(copied)  # numbering goes on past the copied rows
    try:
        store.model_ledger.add_usage(USAGE[0])
        assert [row["seq"] for row in sql.dump_rows(store, "model_usage")][-1] > \
            max(row["seq"] for row in kept["model_usage"])
    finally:
        store.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("user", "calls", "detailed"), [
    ("alice", ["round_1", "cons_1"], ["task_0001", "task_0010"]),
    ("bob", ["round_2"], ["task_0015"]),
    ("carol", [], []),
])
def test_a_users_export_holds_their_own_ledger_and_imports_back(
        backend: str, user: str, calls: list[str], detailed: list[str],
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _source(backend, request, tmp_path)
    text = _export(source, user)
    assert "zq7" not in text
    restored = store_location(backend, request, tmp_path, "restored.db")
    _import(restored, text)
    after, before = _ledger(restored), _ledger(source)
    assert [row["round_id"] for row in after["model_usage"]] == calls
    assert [row["task_id"] for row in after["extraction_details"]] == detailed
    for table in LEDGER:
        assert all(row in before[table] for row in after[table]), table
    engine = Engine(open_store(restored), user)
    try:
        shown = {entry.task_id: entry.detail for entry in engine.extraction.log(limit=100)}
        assert ("task_0010" in detailed) == (shown.get("task_0010") == "web_search")
    finally:
        engine.store.close()


def test_doctor_removes_the_details_of_missing_tasks(tmp_path: Path) -> None:
    location = _source("sqlite", None, tmp_path)
    store = open_store(location)
    store.model_ledger.set_detail(TaskDetail("task_gone", "alice", "web_search"))
    engine = Engine(store, "alice")
    try:
        assert engine.maintenance.doctor().problems == [
            "extraction details for missing task task_gone"]
        report = engine.maintenance.doctor(repair=True)
        assert any("removed 1 extraction log row(s) and details" in line
                   for line in report.repaired)
        assert engine.maintenance.doctor().healthy
        assert len(list(sql.dump_rows(store, "extraction_details"))) == 4
    finally:
        store.close()
