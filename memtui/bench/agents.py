"""Reading every agent home (spec/80: "a home of 100 projects in under a second").

``python -m memtui.bench.agents [PROJECTS]`` builds a Claude Code home and a Gemini CLI
home of PROJECTS projects each (an index, five topic files and a transcript per Claude
project; an index, two files and an inbox patch per Gemini project), then times, in the
same run:

- the reference: a bare loop that lists the same folders and reads the same files with
  ``open().read()`` (no parsing, no checks), and
- the overview: ``agents_overview`` end to end (safe opens, front matter, index meters,
  secret scans, switches, instruction files).

It prints both medians and their ratio; the bar is the absolute ``BAR_SECONDS``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from memtui.engine.agents.overview import agents_overview
from memtui.engine.agents.paths import claude_slug

BAR_SECONDS = 1.0
DEFAULT_PROJECTS = 100
TOPICS_PER_PROJECT = 5
REPS = 5
_TOPIC = ("---\nname: {name}\ndescription: {name} in one line\ntype: project\n---\n\n"
          "The build uses make; run `make test` before pushing.\n\n**Why:** CI runs the same."
          "\n\n**How to apply:** always run it.\n")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build_agent_homes(root: Path, projects: int) -> tuple[Path, Path]:
    """A Claude Code and a Gemini CLI home of ``projects`` projects each under ``root``."""
    claude, gemini = root / ".claude", root / ".gemini"
    _write(claude / "settings.json", json.dumps({"autoMemoryEnabled": True}))
    _write(claude / "CLAUDE.md", "# Me\n- Prefer uv.\n")
    _write(gemini / "settings.json", json.dumps({"experimental": {"autoMemory": True}}))
    _write(gemini / "GEMINI.md", "## Gemini Added Memories\n- Tabs in Go.\n")
    mapping: dict[str, str] = {}
    for number in range(projects):
        project = root / "src" / f"project-{number:03d}"
        project.mkdir(parents=True, exist_ok=True)
        folder = claude / "projects" / claude_slug(str(project))
        lines = []
        for topic in range(TOPICS_PER_PROJECT):
            name = f"topic_{topic}.md"
            _write(folder / "memory" / name, _TOPIC.format(name=f"Topic {topic}"))
            lines.append(f"- [Topic {topic}]({name}) — how the build works")
        _write(folder / "memory" / "MEMORY.md", "\n".join(lines) + "\n")
        _write(folder / "00000000-0000-4000-8000-000000000000.jsonl", json.dumps(
            {"type": "user", "cwd": str(project), "sessionId": "s",
             "message": {"role": "user", "content": "hi"}}) + "\n")
        slug = f"project-{number:03d}"
        mapping[str(project)] = slug
        memory = gemini / "tmp" / slug / "memory"
        _write(memory / "MEMORY.md", "- [Notes](notes.md)\n- a loose fact\n")
        _write(memory / "notes.md", "Files are kebab-case.\n")
        _write(memory / "other.md", "Not in the index.\n")
        _write(memory / ".inbox" / "private" / "0001.patch",
               "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1,2 @@\n Files are kebab-case.\n"
               "+Tests live in tests/.\n")
    _write(gemini / "projects.json", json.dumps({"projects": mapping}))
    return claude, gemini


def _bare_read(homes: tuple[Path, ...]) -> int:
    total = 0
    for home in homes:
        for folder, _dirs, files in os.walk(home):
            for name in files:
                with open(os.path.join(folder, name), "rb") as handle:
                    total += len(handle.read())
    return total


def measure_agents(projects: int = DEFAULT_PROJECTS, reps: int = REPS) -> dict[str, Any]:
    """Medians of the bare read and of ``agents_overview`` over homes of ``projects``."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-agents-") as folder:
        root = Path(folder)
        claude, gemini = build_agent_homes(root, projects)
        empty = {"HOME": str(root)}
        bare: list[float] = []
        full: list[float] = []
        rows = 0
        for _ in range(reps):
            started = time.perf_counter()
            _bare_read((claude, gemini))
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            overview = agents_overview(claude, gemini, root / "no-codex", env=empty)
            full.append(time.perf_counter() - started)
            rows = len(overview.rows)
    bare_s, full_s = statistics.median(bare), statistics.median(full)
    return {"projects": projects, "rows": rows, "bare_read_s": bare_s, "overview_s": full_s,
            "ratio_to_bare_read": full_s / bare_s if bare_s else None,
            "bar_s": BAR_SECONDS, "meets_bar": full_s < BAR_SECONDS}


def main() -> None:
    """Print the measurement as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("projects", nargs="?", type=int, default=DEFAULT_PROJECTS)
    args = parser.parse_args()
    print(json.dumps(measure_agents(args.projects), indent=2))


if __name__ == "__main__":
    main()
