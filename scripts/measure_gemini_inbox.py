"""Seconds the Gemini CLI inbox count, a project row's entries and the inbox review take in a
home of many projects, each with its own settings, many trust rules and global patches.

    python scripts/measure_gemini_inbox.py [PROJECTS] [RULES] [PATCHES]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memtui.engine.agents.entries import row_entries
from memtui.engine.agents.gemini_review import count_gemini_inbox, review_gemini_inbox


def build(root: Path, projects: int, rules: int, patches: int) -> Path:
    """A Gemini CLI home under ``root`` (returned)."""
    home = root / ".gemini"
    (home / "tmp").mkdir(parents=True)
    (home / "settings.json").write_text("{}")
    (home / "GEMINI.md").write_text("- a global fact\n")
    mapping = {}
    for number in range(projects):
        project, slug = root / "src" / f"p{number}", f"p{number}"
        (project / ".gemini").mkdir(parents=True)
        (project / ".gemini" / "settings.json").write_text(
            json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}))
        memory = home / "tmp" / slug / "memory"
        memory.mkdir(parents=True)
        (memory / "MEMORY.md").write_text("- a fact\n")
        mapping[str(project)] = slug
        if number < patches:
            inbox = memory / ".inbox" / "global"
            inbox.mkdir(parents=True)
            target = home / "AGENTS.md"
            (inbox / "x.patch").write_text(f"--- /dev/null\n+++ {target}\n@@ -0,0 +1,1 @@\n+x\n")
    (home / "projects.json").write_text(json.dumps({"projects": mapping}))
    (home / "trustedFolders.json").write_text(json.dumps(
        {str(root / "src" / f"p{number}"): "TRUST_FOLDER" for number in range(rules)}))
    return home


def timed(what: str, run: Callable[[], object]) -> None:
    """Print the seconds one ``run`` takes."""
    start = time.perf_counter()
    run()
    print(f"{what:24} {time.perf_counter() - start:7.3f} s")


def main() -> None:
    """Build the home and time each read once."""
    projects, rules, patches = (int(arg) for arg in (sys.argv[1:] + ["500", "100", "20"])[:3])
    with tempfile.TemporaryDirectory() as folder:
        home = build(Path(folder), projects, rules, patches)
        env = {"HOME": folder}
        timed("count_gemini_inbox", lambda: count_gemini_inbox(home, env=env))
        timed("row_entries (project)", lambda: row_entries(
            "gemini", home, "p1", str(home / "tmp" / "p1" / "memory")))
        timed("row_entries (global)", lambda: row_entries("gemini", home, "global", str(home)))
        timed("review_gemini_inbox", lambda: review_gemini_inbox(home, env=env))


if __name__ == "__main__":
    main()
