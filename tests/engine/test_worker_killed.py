"""A worker killed (``kill -9``) in the middle of an extraction batch: its transaction rolls
back, ``doctor`` finds the store clean, nothing stays locked, and the next round extracts
every task (on each backend: SQLite's file lock and PostgreSQL's row and advisory locks go
with the process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from fixtures_auto import LONG_RESULT

from memtui.engine.api import Engine
from memtui.store.database import open_store

TASKS = 12
START_WAIT_S = 60.0
"""Upper bound for the child to reach the middle of its batch (it signals by a file)."""
WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import memtui.engine.extraction as extraction
    from memtui.engine.api import Engine
    from memtui.store.database import open_store

    real_scan = extraction.ExtractionApi._scan_one
    seen = []

    def scan_then_hang(self, *args, **kwargs):
        outcome = real_scan(self, *args, **kwargs)
        seen.append(outcome)
        if len(seen) == 3:  # mid-batch: three tasks written, the transaction open
            Path(sys.argv[2]).touch()
            time.sleep(600)
        return outcome

    extraction.ExtractionApi._scan_one = scan_then_hang
    Engine(open_store(sys.argv[1]), "alice").extraction.run_round()
""")


def test_a_worker_killed_mid_batch_leaves_a_clean_store(store_target: str,
                                                        tmp_path: Path) -> None:
    store = open_store(store_target)
    try:
        alice = Engine(store, "alice")
        alice.identity.create_project("web", "Web", None)
        alice.settings.update(generate_memories=1, idle_seconds=0)
        alice.tasks.set_quota(unlimited=True)
        for index in range(TASKS):
            alice.tasks.add_task("web", f"Goal {index}", "p", f"{LONG_RESULT} #{index}",
                                 "2026-11-01T10:00:00Z", "2026-11-01T10:40:00Z")
    finally:
        store.close()
    mid_batch = tmp_path / "mid-batch"
    child = subprocess.Popen([sys.executable, "-c", WORKER, store_target, str(mid_batch)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + START_WAIT_S
        while not mid_batch.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert mid_batch.exists(), child.communicate(timeout=30)[1].decode()[-2000:]
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate(timeout=30)

    store = open_store(store_target)
    try:
        alice = Engine(store, "alice")
        assert alice.maintenance.check() == []
        assert store.tasks.count_log_rows("alice") == 0  # the killed batch left nothing
        summary = alice.extraction.run_round()  # nothing of the dead worker holds it up
        assert summary.scanned == TASKS and summary.errors == 0
        assert store.tasks.count_log_rows("alice") == TASKS
        assert alice.maintenance.check() == []
    finally:
        store.close()
