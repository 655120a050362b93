"""Reading every agent home: ``agents_overview`` of Claude Code and Gemini CLI homes of
``python -m memtui.bench.agents [PROJECTS]`` projects each, beside a bare read of the same
files; and ``hooks install``'s merge of a large ``~/.claude.json``."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from memtui.bench.timing import seconds, timed
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
        bare: list[float] = []
        full: list[float] = []
        for _ in range(reps):
            bare.append(seconds(lambda: _bare_read((claude, gemini))))
            took, overview = timed(lambda: agents_overview(claude, gemini, root / "no-codex",
                                                           env={"HOME": str(root)}))
            full.append(took)
        rows = len(overview.rows)
    bare_s, full_s = statistics.median(bare), statistics.median(full)
    return {"projects": projects, "rows": rows, "bare_read_s": bare_s, "overview_s": full_s,
            "ratio_to_bare_read": full_s / bare_s if bare_s else None,
            "bar_s": BAR_SECONDS, "meets_bar": full_s < BAR_SECONDS}


SETTINGS_MB = 150
"""The size of the generated ``~/.claude.json`` (users report 65 MB, 101 MB)."""
SETTINGS_REPS = 3
MERGE_TIME_BAR = 1.0
"""The merge may take at most this share of a plain ``json.load`` + ``json.dump``."""
MERGE_MEMORY_BAR = 1.5
"""Its peak memory at most this multiple of theirs."""
HISTORY_PER_PROJECT = 200
_HISTORY_ENTRY = {"display": "fix the flaky test in «tests/test_api.py» — ünïcödé ✓",
                  "pastedContents": {}}


def build_large_claude_json(path: Path, megabytes: int) -> int:
    """A ``~/.claude.json`` shaped as Claude Code writes it (two-space indent, non-ASCII
    text, a ``projects`` map with each project's prompt history) of about ``megabytes``."""
    def project(number: int) -> dict[str, Any]:
        return {"allowedTools": [], "history": [_HISTORY_ENTRY] * HISTORY_PER_PROJECT,
                "mcpContextUris": [], "hasTrustDialogAccepted": True, "lastCost": 0.123456,
                "lastSessionId": f"{number:08d}-0000-4000-8000-000000000000"}

    one = len(json.dumps({"projects": {"/home/user/src/project-00000": project(0)}},
                         indent=2, ensure_ascii=False).encode("utf-8"))
    count = max(1, megabytes * 1024 * 1024 // one)
    projects = {f"/home/user/src/project-{number:05d}": project(number)
                for number in range(count)}
    data = {"numStartups": 412, "installMethod": "npm-global", "autoUpdates": False,
            "theme": "dark", "userID": "0" * 64, "projects": projects,
            "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}},
            "cachedChangelog": "# Änderungen\n- …"}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


_PEAK = """
def _peak():
    # VmHWM: this process's own peak (ru_maxrss would count the forking parent's too)
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
"""
_REFERENCE_CHILD = _PEAK + """
import json, sys
with open(sys.argv[1], encoding="utf-8") as handle:
    data = json.load(handle)
data.setdefault("mcpServers", {})["memtui"] = {"command": "/x/memtui", "args": ["mcp"]}
with open(sys.argv[2], "w", encoding="utf-8") as handle:
    json.dump(data, handle, indent=2, ensure_ascii=False)
print(_peak())
"""
_MERGE_CHILD = _PEAK + """
import sys
from memtui.engine.agent_setup import INSTALL, plan, write_change
for change in plan("claude-code", INSTALL, command=("/x/memtui",)):
    if change.path.name == ".claude.json":
        write_change(change)
print(_peak())
"""


def _child(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(wall seconds, peak memory in bytes: the child's last line) of one child process."""
    import subprocess
    import sys

    elapsed, done = timed(lambda: subprocess.run([sys.executable, *argv], env=env,
                                                 capture_output=True, text=True, check=False))
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child exited {done.returncode}: {done.stderr[-300:]}")
    return elapsed, int(done.stdout.strip().splitlines()[-1])


def measure_settings_merge(megabytes: int = SETTINGS_MB,
                           reps: int = SETTINGS_REPS) -> dict[str, Any]:
    """``hooks install claude-code``'s merge of a large ``~/.claude.json`` vs a plain
    ``json.load`` + ``json.dump`` of the same file, each in its own process (time and peak
    memory), medians of ``reps``; and whether every byte outside ``mcpServers`` was kept."""
    with tempfile.TemporaryDirectory(prefix="memtui-bench-settings-") as folder:
        home = Path(folder)
        source = home / "source.json"
        size = build_large_claude_json(source, megabytes)
        env = {**os.environ, "HOME": str(home)}
        env.pop("CLAUDE_CONFIG_DIR", None)
        reference: list[tuple[float, int]] = []
        merged: list[tuple[float, int]] = []
        kept = True
        for _ in range(reps):
            reference.append(_child(["-c", _REFERENCE_CHILD, str(source),
                                     str(home / "dumped.json")], env))
            target = home / ".claude.json"
            target.write_bytes(source.read_bytes())
            merged.append(_child(["-c", _MERGE_CHILD], env))
            kept = kept and _kept_outside_servers(source, target)
    (ref_s, ref_rss), (merge_s, merge_rss) = ([statistics.median(column) for column in
                                              zip(*samples, strict=True)]
                                             for samples in (reference, merged))
    return {"bytes": size, "reference_s": ref_s, "reference_peak_bytes": ref_rss,
            "merge_s": merge_s, "merge_peak_bytes": merge_rss,
            "time_ratio": merge_s / ref_s, "memory_ratio": merge_rss / ref_rss,
            "kept_every_other_byte": kept,
            "meets_bar": (merge_s / ref_s <= MERGE_TIME_BAR
                          and merge_rss / ref_rss <= MERGE_MEMORY_BAR and kept)}


def _kept_outside_servers(source: Path, merged: Path) -> bool:
    """Whether the merged file is the source with only the ``mcpServers`` value changed."""
    from memtui.engine.json_splice import scan_top_level

    before = source.read_text(encoding="utf-8")
    after = merged.read_text(encoding="utf-8")
    old = scan_top_level(before).members["mcpServers"]
    new = scan_top_level(after).members["mcpServers"]
    return before[:old[1]] == after[:new[1]] and before[old[2]:] == after[new[2]:]


def main() -> None:
    """Print the measurement as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("projects", nargs="?", type=int, default=DEFAULT_PROJECTS)
    args = parser.parse_args()
    print(json.dumps(measure_agents(args.projects), indent=2))


if __name__ == "__main__":
    main()
