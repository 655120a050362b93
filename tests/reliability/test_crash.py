"""SIGKILL in the middle of writes leaves a store that passes every integrity check."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from memtui.engine.api import Engine
from memtui.store.database import open_store

ROOT = Path(__file__).resolve().parents[2]
KILLS_PER_MODE = int(os.environ.get("MEMTUI_CRASH_KILLS", "6"))


def _seed(db: Path) -> None:
    engine = Engine(open_store(db), "alice")
    engine.identity.create_project("web", "Web")
    for index in range(40):
        memory = engine.identity.add_memory(f"seed memory {index} " * 5, "fact", "web")
        engine.identity.supersede(memory.id, f"seed memory {index} fixed")
    engine.settings.update(generate_memories=1, idle_seconds=0)
    engine.tasks.set_quota(unlimited=True)
    for index in range(200):
        engine.tasks.add_task(project="web", goal=f"goal {index % 9}", prompt="p",
                              result="the result text " * 30, started_at="2026-11-01T10:00:00Z",
                              finished_at="2026-11-01T10:10:00Z")
    engine.store.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["supersede", "forget", "extract", "import"])
def test_kill_mid_write_leaves_a_consistent_store(tmp_path: Path, mode: str) -> None:
    db = tmp_path / "crash.db"
    _seed(db)
    export = tmp_path / "export.jsonl"
    source = Engine(open_store(db), "alice")
    with export.open("w") as out:
        source.maintenance.export_to(out, everything=True)
    expected_rows = sum(1 for _ in export.open()) - 1
    source.store.close()
    rng = random.Random(zlib.crc32(mode.encode()))  # the same pauses in every run
    for kill in range(KILLS_PER_MODE):
        child = subprocess.Popen([sys.executable, "-m", "tests.reliability.crash_child",
                                  str(db), mode, str(export)], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready", child.stderr.read().decode()
        time.sleep(rng.uniform(0.05, 0.6))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        check = Engine(open_store(db), "alice")
        problems = check.maintenance.check()
        if mode == "forget" and problems and all(p.startswith("forgotten text") for p in problems):
            # killed between a forget's commit and its checkpoint: the text really is still
            # in the WAL, doctor says so, and a repair (no reader left) erases it
            report = check.maintenance.doctor(repair=True)
            assert report.healthy and report.repaired, report.to_json()
            problems = check.maintenance.check()
        assert problems == [], f"after kill {kill} in {mode}"
        check.store.close()
        for imported in tmp_path.glob("crash.db.import-*"):
            if imported.name.endswith(("-wal", "-shm", "-journal")):  # the store is the file
                continue
            target = Engine(open_store(imported), "alice")
            assert target.maintenance.check() == []
            rows = sum(target.maintenance.export_to(open(os.devnull, "w"), everything=True).values())
            assert rows in (0, expected_rows)  # all or nothing
            target.store.close()
