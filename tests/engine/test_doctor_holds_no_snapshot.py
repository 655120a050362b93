"""doctor's row scan (every row against its rules: the long part, minutes at a million rows)
reads batch by batch, each batch a short read of its own, not inside the snapshot of the
store-wide checks: a forget made meanwhile can erase the text from the write-ahead log at once
instead of reporting that a reader held it up."""

from __future__ import annotations

from typing import Any

import pytest
from backends import elsewhere

from memtui.engine import purge, rows
from memtui.engine.api import Engine
from memtui.store.database import Store


def test_forget_during_the_row_scan_is_purged(store: Store, store_target: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine(store, "alice")
    keep = engine.identity.add_memory("the staging database lives on port 5433")
    gone = engine.identity.add_memory("the old deploy key is on the shared drive")
    assert keep.id != gone.id
    monkeypatch.setattr(purge, "FORGET_PURGE_WAIT_S", 0.2)
    results: list[Any] = []
    original = rows.row_findings

    def findings_then_forget(table: str, row: Any, *args: Any) -> Any:
        if table == "memories" and not results:  # another process forgets meanwhile
            results.append(elsewhere(store_target, "alice",
                                     lambda alice: alice.identity.forget(gone.id)))
        return original(table, row, *args)

    monkeypatch.setattr(rows, "row_findings", findings_then_forget)
    problems = engine.maintenance.check()
    assert results and results[0].purged, (results, problems)
    assert not problems, problems
    assert results and results[0].purged, results
