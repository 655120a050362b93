"""Four writer processes and the extraction loop on one store: nothing lost, nothing locked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.engine.api import Engine
from memtui.engine.worker import BackgroundLoop
from memtui.store.database import open_store

WRITERS = 4
SECONDS = float(os.environ.get("MEMTUI_STRESS_SECONDS", "12"))
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_concurrent_writers_and_worker_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    store = open_store(db)
    owner = Engine(store, "u1")
    owner.identity.create_project("shared", "Shared")
    for index in range(2, WRITERS + 1):
        owner.identity.set_member("shared", f"u{index}", "member")
    owner.settings.update(generate_memories=1, idle_seconds=0, min_duration_seconds=0,
                          min_result_chars=0)
    owner.tasks.set_quota(unlimited=True)

    events: list[object] = []
    loop = BackgroundLoop(store, "u1", interval_s=0.2, on_event=events.append)
    loop.start()
    children = []
    for index in range(1, WRITERS + 1):
        result = tmp_path / f"u{index}.json"
        children.append((f"u{index}", result, subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.churn", str(db), f"u{index}",
             str(SECONDS), str(index), str(result)], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    for _user, _result, child in children:
        _out, err = child.communicate(timeout=SECONDS + 120)
        assert child.returncode == 0, err.decode()[-2000:]
    time.sleep(0.5)
    loop.stop(timeout=30)

    check = Engine(open_store(db), "u1")
    assert check.maintenance.check() == []
    total_steps = 0
    for user, result, _child in children:
        ledger = json.loads(result.read_text())
        total_steps += ledger["steps"]
        assert not [e for e in ledger["errors"] if "locked" in e or "busy" in e.lower()]
        assert ledger["errors"] == []
        engine = Engine(check.store, user)
        mine = {m.id for m in engine.identity.list_memories(status="all", limit=10_000)}
        mine |= {m.id for m in engine.identity.list_memories("shared", status="all",
                                                             limit=10_000)
                 if m.owner == user and m.source != "auto"}
        expected = set(ledger["alive"]) | (set(ledger["superseded"]) - set(ledger["gone"]))
        assert mine == expected
        for head in ledger["alive"]:
            assert engine.identity.get_memory(head).status == "active"
        for task_id in ledger["tasks"]:
            assert engine.tasks.get_task(task_id).id == task_id
    assert total_steps > WRITERS * 10
    errors = [e for e in events if getattr(e, "kind", "") == "error"]
    assert errors == []
