"""Two processes running extraction over one store at the same time: no task is extracted
twice, no log row is lost, repeated goals still end with one active memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fixtures_auto import LONG_RESULT

from memtui.engine.api import Engine
from memtui.store.database import open_store

TASKS = 400
REPEATED_GOALS = 20
"""Tasks i and i + REPEATED_GOALS ... share a goal, so supersedes race too."""
SHORT_EVERY = 7
"""Every SHORT_EVERY-th task has a short result (a skip that stays due)."""
WORKER = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    import memtui.engine.extraction as extraction
    from memtui.engine.api import Engine
    from memtui.store.database import open_store

    # Small batches and a breath between them, so the two processes take turns at the
    # write lock instead of one finishing before the other gets in.
    extraction.BATCH_SIZE = 8
    real_batch = extraction.ExtractionApi._run_batch

    def paced(self, *args, **kwargs):
        real_batch(self, *args, **kwargs)
        time.sleep(0.003)

    extraction.ExtractionApi._run_batch = paced

    path, go = sys.argv[1], Path(sys.argv[2])
    store = open_store(path)
    auto = Engine(store, "alice").extraction
    (go.parent / f"ready-{sys.argv[3]}").touch()
    deadline = time.monotonic() + 20
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.001)
    total = {"extracted": 0, "superseded": 0, "scanned": 0, "errors": 0}
    for _ in range(3):
        summary = auto.backfill(batch_limit=60).to_json()
        for key in total:
            total[key] += summary[key]
        round_summary = auto.run_round(limit=50).to_json()
        for key in total:
            total[key] += round_summary[key]
    print(json.dumps(total))
""")


def _seed(path: str) -> None:
    store = open_store(path)
    alice = Engine(store, "alice")
    alice.identity.create_project("web", "Web", None)
    alice.settings.update(generate_memories=1)
    alice.tasks.set_quota(unlimited=True)
    finished = datetime.now(UTC) - timedelta(hours=2)
    for i in range(TASKS):
        result = "short" if i % SHORT_EVERY == 0 else f"{LONG_RESULT} #{i}"
        alice.tasks.add_task("web", f"Goal number {i % (TASKS // REPEATED_GOALS)}", "p", result,
                             finished - timedelta(minutes=10), finished + timedelta(seconds=i))
    store.close()


@pytest.mark.slow
def test_two_processes_never_extract_a_task_twice(tmp_path: Path, store_target: str) -> None:
    path, go = store_target, tmp_path / "go"
    _seed(path)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, path, str(go), str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(2)]
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    go.touch()  # both are past their imports: the rounds start together
    outputs = [proc.communicate(timeout=120) for proc in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    totals = [json.loads(out) for out, _err in outputs]

    store = open_store(path)
    try:
        per_task = store.execute(
            "SELECT source_thread_id, count(*) FROM memories GROUP BY source_thread_id "
            "HAVING count(*) > 1").fetchall()
        assert per_task == []
        memories = store.execute("SELECT count(*) FROM memories").fetchone()[0]
        eligible = TASKS - len(range(0, TASKS, SHORT_EVERY))
        assert memories == eligible
        assert sum(t["extracted"] + t["superseded"] for t in totals) == memories
        assert sum(t["errors"] for t in totals) == 0
        logged = dict(store.execute(
            "SELECT outcome, count(*) FROM extraction_log GROUP BY outcome").fetchall())
        assert sum(logged.values()) == TASKS
        assert logged["skipped"] == TASKS - eligible
        assert logged.get("extracted", 0) + logged.get("superseded_previous", 0) == eligible
        dangling = store.execute(
            "SELECT count(*) FROM extraction_log l WHERE l.outcome IN "
            "('extracted', 'superseded_previous') AND NOT EXISTS "
            "(SELECT 1 FROM memories m WHERE m.id = l.memory_id AND "
            "m.source_thread_id = l.task_id)").fetchone()[0]
        assert dangling == 0
        doubled_goals = store.execute(
            "SELECT goal_key FROM memories WHERE status = 'active' GROUP BY project, goal_key "
            "HAVING count(*) > 1").fetchall()
        assert doubled_goals == []
        if store.dialect.is_sqlite:
            assert store.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
