"""A child process that repeats one kind of write until it is killed.

``python -m tests.reliability.crash_child DB MODE [EXPORT_FILE]``; MODE is one of
``supersede``, ``forget``, ``extract``, ``import``. It prints ``ready`` once it starts writing.
"""

from __future__ import annotations

import sys

from memtui.engine.api import Engine
from memtui.store.database import open_store


def main() -> None:
    """Loop the chosen write forever (the parent kills it)."""
    db, mode = sys.argv[1], sys.argv[2]
    engine = Engine(open_store(db), "alice")
    print("ready", flush=True)
    step = 0
    while True:
        step += 1
        if mode == "supersede":
            for memory in engine.identity.list_memories("web", limit=20):
                engine.identity.supersede(memory.id, f"corrected again {step} " * 20)
        elif mode == "forget":
            memories = engine.identity.list_memories("web", limit=5)
            if not memories:
                for index in range(30):
                    first = engine.identity.add_memory(f"refill {step} {index}", "fact", "web")
                    engine.identity.supersede(first.id, f"refill fixed {step} {index}")
            for memory in memories:
                engine.identity.forget(memory.id)
        elif mode == "extract":
            engine.extraction.run_round(force=True)
            for _ in range(20):
                engine.tasks.add_task(project="web", goal=f"goal {step % 7}",
                                      prompt="p", result="the result text " * 30,
                                      started_at="2026-11-01T10:00:00Z",
                                      finished_at="2026-11-01T10:10:00Z")
        elif mode == "import":
            target = Engine(open_store(f"{db}.import-{step}"), "alice")
            with open(sys.argv[3], encoding="utf-8") as handle:
                target.maintenance.import_lines(handle)
            target.store.close()


if __name__ == "__main__":
    main()
