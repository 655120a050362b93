"""A child process that churns one store: adds, supersedes and forgets memories, adds tasks.

Run as ``python -m tests.reliability.churn DB USER SECONDS SEED RESULT_JSON [MODE]``. It
writes what it did (ids that must exist, ids that must be gone, errors) to RESULT_JSON when
it finishes. The crash tests kill it mid-way instead and only check the store afterwards.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from pathlib import Path

from memtui.engine.api import Engine
from memtui.errors import MemtuiError
from memtui.store.database import open_store

PROJECT = "shared"


def churn(db: str, user: str, seconds: float, seed: int, mode: str = "mixed") -> dict:
    """Do random writes for ``seconds``; return the ledger of what happened."""
    rng = random.Random(seed)
    store = open_store(db)
    engine = Engine(store, user)
    alive: dict[str, str] = {}  # head id -> content
    gone: set[str] = set()
    tasks: list[str] = []
    errors: list[str] = []
    superseded: dict[str, str] = {}
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        step += 1
        op = mode if mode != "mixed" else rng.choice(
            ["add", "add", "add_project", "supersede", "forget", "task"])
        try:
            if op in ("add", "add_project") or not alive:
                project = PROJECT if op == "add_project" else None
                memory = engine.identity.add_memory(f"{user} note {step} about widgets",
                                                    "fact", project)
                alive[memory.id] = memory.content
            elif op == "supersede":
                old = rng.choice(sorted(alive))
                new = engine.identity.supersede(old, f"{user} corrected {step}")
                superseded[old] = new.id
                del alive[old]
                alive[new.id] = new.content
            elif op == "forget":
                head = rng.choice(sorted(alive))
                result = engine.identity.forget(head)
                gone.update(result.removed_ids)
                del alive[head]
            elif op == "task":
                task = engine.tasks.add_task(
                    project=PROJECT, goal=f"{user} task {step}", prompt="do it",
                    result="finished the work " * 20, started_at="2026-11-01T10:00:00Z",
                    finished_at="2026-11-01T10:05:00Z")
                tasks.append(task.id)
        except MemtuiError as error:
            errors.append(f"{op}: {error.message}")
        except Exception:  # noqa: BLE001 - everything unexpected is reported
            errors.append(f"{op}: {traceback.format_exc(limit=3)}")
    store.close()
    return {"alive": sorted(alive), "gone": sorted(gone), "superseded": superseded,
            "tasks": tasks, "errors": errors, "steps": step}


def main() -> None:
    """Entry point for the child process."""
    db, user, seconds, seed, result_path = sys.argv[1:6]
    mode = sys.argv[6] if len(sys.argv) > 6 else "mixed"
    ledger = churn(db, user, float(seconds), int(seed), mode)
    Path(result_path).write_text(json.dumps(ledger))


if __name__ == "__main__":
    main()
