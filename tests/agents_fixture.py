"""Realistic Claude Code and Gemini CLI homes for tests, built from the formats those agents write.

``build_claude_home(root)`` makes ``root/.claude`` and project folders under ``root/src``
with every hard case: a slug over 200 characters, two worktree folders of one project, an
index of 250 lines / 30 KB, a topic file holding a token, a dangling index link, a link
outside the folder, broken front matter, a binary and a huge file, a symlinked memory
folder, unknown fields and files, and transcripts (a main session with MCP and web use, a
sub-agent session, a running one, a broken line).

``build_gemini_home(root)`` makes ``root/.gemini`` with the global GEMINI.md and its
"Gemini Added Memories", a slug clash in projects.json, private memory folders (an index
and an older GEMINI.md), inbox patches (good private, good global, malformed, not
applying), unknown fields and files.

Run as a script to build both on disk: ``python tests/agents_fixture.py /tmp/somewhere``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memtui.engine.agents.paths import claude_slug  # noqa: E402

AGENT_ENV = ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
             "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "CODEX_HOME", "CODEX_SQLITE_HOME")
"""Variables that would point the agents' homes elsewhere or turn their memory off."""
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
"""A token-shaped value the redaction engine finds (never a real secret)."""
BIG_INDEX_LINES = 250
BIG_INDEX_MIN_BYTES = 30_000
LONG_NAME = "a-very-long-project-folder-name-that-keeps-going-" * 5


@dataclass(frozen=True)
class ClaudeFixture:
    """Paths of a built Claude Code home."""

    root: Path
    home: Path
    app: Path
    worktree: Path
    long: Path
    big: Path
    secret: Path
    linked: Path

    def slug(self, project: Path) -> str:
        """The project folder name Claude Code gives ``project``."""
        return claude_slug(str(project))

    def memory(self, project: Path) -> Path:
        """The project's memory folder."""
        return self.home / "projects" / self.slug(project) / "memory"


def write_file(path: Path, text: str | bytes) -> Path:
    """Write ``text`` (or bytes) to ``path``, its folders made first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


AGENT_HOMES = Path(__file__).parent / "data" / "agent_homes"
"""Homes the real agent programs left (``tests/data/agent_homes/<program>-<version>``)."""


def copied_home(root: Path, release: str, folder: str) -> Path:
    """A copy of the real home ``AGENT_HOMES/release/folder`` as ``root/folder``."""
    target = root / folder
    shutil.copytree(AGENT_HOMES / release / folder, target)
    return target


def file_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (symlinks left out), its bytes by its relative path."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()}


def _jsonl(path: Path, records: list[dict[str, object] | str]) -> Path:
    lines = [item if isinstance(item, str) else json.dumps(item) for item in records]
    return write_file(path, "\n".join(lines) + "\n")


def topic(name: str, description: str, kind: str, body: str, **extra: str) -> str:
    """A Claude Code topic file: front matter, then the body."""
    fields = {"name": name, "description": description, "type": kind, **extra}
    head = "\n".join(f"{key}: {value}" for key, value in fields.items())
    return f"---\n{head}\n---\n\n{body.strip()}\n"


def session(cwd: Path, session_id: str, goal: str, result: str, *, start: str,
            end: str, tools: tuple[str, ...] = (), sidechain: bool = False) -> list[
        dict[str, object] | str]:
    """A Claude Code transcript: a summary line, the user's request, tool use, the answer."""
    base = {"sessionId": session_id, "cwd": str(cwd), "gitBranch": "main", "version": "2.1.0",
            "userType": "external", "isSidechain": sidechain}
    records: list[dict[str, object] | str] = [
        {"type": "summary", "summary": "Work on the project", "leafUuid": "u0"},
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": start,
         "message": {"role": "user", "content": goal}},
    ]
    parent = "u1"
    for number, name in enumerate(tools, start=2):
        records.append({**base, "type": "assistant", "uuid": f"a{number}", "parentUuid": parent,
                        "timestamp": start, "message": {"role": "assistant", "content": [
                            {"type": "thinking", "thinking": "let me look"},
                            {"type": "tool_use", "id": f"t{number}", "name": name,
                             "input": {"query": "x"}}]}})
        records.append({**base, "type": "user", "uuid": f"r{number}", "parentUuid": f"a{number}",
                        "timestamp": start, "message": {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": f"t{number}",
                             "content": "ok"}]}})
        parent = f"r{number}"
    records.append({**base, "type": "assistant", "uuid": "a9", "parentUuid": parent,
                    "timestamp": end, "message": {"role": "assistant", "content": [
                        {"type": "text", "text": result}]}, "newUnknownField": {"x": 1}})
    records.append({**base, "type": "file-history-snapshot", "timestamp": end})
    return records


def _git_worktree(main: Path, worktree: Path) -> None:
    (main / ".git" / "worktrees" / worktree.name).mkdir(parents=True, exist_ok=True)
    write_file(worktree / ".git", f"gitdir: {main}/.git/worktrees/{worktree.name}\n")


def build_claude_home(root: Path) -> ClaudeFixture:
    """A Claude Code home with every hard case (see the module doc)."""
    root = Path(root)
    home = root / ".claude"
    src = root / "src"
    fx = ClaudeFixture(root=root, home=home, app=src / "app", worktree=src / "app-feature",
                       long=src / LONG_NAME, big=src / "big", secret=src / "secret",
                       linked=src / "linked")
    for project in (fx.app, fx.worktree, fx.long, fx.big, fx.secret, fx.linked):
        project.mkdir(parents=True, exist_ok=True)
    write_file(home / "settings.json", json.dumps({
        "autoMemoryEnabled": True, "theme": "dark", "permissions": {"allow": ["Bash(ls)"]},
        "someFutureSetting": {"nested": [1, 2]}}, indent=2) + "\n")
    write_file(home / "CLAUDE.md", "# My instructions\n\n- Use uv, never pip.\n- See @docs/extra.md"
                               "\n\n```\n@not/an/import.md\n```\n")
    write_file(home / "docs" / "extra.md", "Extra user rules.\n")
    write_file(home / "rules" / "style.md", "- Short functions.\n")
    write_file(home / "unknown-tool-state.bin", b"\x00\x01")
    # the main project: instructions, project settings, a full memory folder
    (fx.app / ".git").mkdir(exist_ok=True)
    write_file(fx.app / "CLAUDE.md", "# App\n\nRun `make test`.\n")
    write_file(fx.app / ".claude" / "settings.json", json.dumps({"autoMemoryEnabled": False}))
    write_file(fx.app / ".claude" / "rules" / "db.md", "- Migrations are append-only.\n")
    memory = fx.memory(fx.app)
    write_file(memory / "MEMORY.md", (
        "- [Build commands](build.md) — how to build and test\n"
        "- [Testing feedback](feedback_testing.md) — run the slow tests too\n"
        "- [Old notes](gone.md) — removed long ago\n"
        "- [Escape](../../../../etc/passwd) — should never be followed\n"))
    write_file(memory / "build.md", topic("Build commands", "how to build", "project",
                                      "Use `make build`.\n\n**Why:** the Makefile pins flags."
                                      "\n\n**How to apply:** always call make."))
    write_file(memory / "feedback_testing.md", topic(
        "Testing feedback", "run slow tests", "feedback",
        "Run the slow tests before a release.\n\n**Why:** they caught a regression.\n\n"
        "**How to apply:** `make test-slow`.", confidence="high"))
    write_file(memory / "orphan.md", topic("Orphan", "not in the index", "reference",
                                       "See the wiki."))
    write_file(memory / "broken.md", "---\nname: Broken\nthis line is not a pair\n"
                                 "no closing fence\n")
    write_file(memory / "binary.md", b"\x00\x01\x02binary")
    write_file(memory / "huge.md", "x" * (1024 * 1024 + 10))
    write_file(memory / "logs" / "2026" / "11" / "2026-11-30.md", "- worked on the build\n")
    write_file(memory / "scratch.txt", "unknown file\n")
    slug_dir = home / "projects" / fx.slug(fx.app)
    _jsonl(slug_dir / "11111111-1111-4111-8111-111111111111.jsonl",
           session(fx.app, "11111111-1111-4111-8111-111111111111",
                   "Make the build reproducible", "Pinned the compiler flags in the Makefile.",
                   start="2026-11-30T09:00:00.000Z", end="2026-11-30T09:20:00.000Z",
                   tools=("Bash", "mcp__github__search_issues", "WebSearch")))
    _jsonl(slug_dir / "22222222-2222-4222-8222-222222222222.jsonl",
           [*session(fx.app, "22222222-2222-4222-8222-222222222222", "Rename the CLI flag",
                     "Renamed --fast to --quick everywhere.", start="2026-11-29T10:00:00Z",
                     end="2026-11-29T10:05:00Z"), "{\"type\": \"user\", truncated"])
    _jsonl(slug_dir / "agent-33333333.jsonl",
           session(fx.app, "22222222-2222-4222-8222-222222222222", "Sub task", "Sub done",
                   start="2026-11-29T10:01:00Z", end="2026-11-29T10:02:00Z", sidechain=True))
    running = session(fx.app, "44444444-4444-4444-8444-444444444444", "Still going", "x",
                      start="2026-11-30T11:00:00Z", end="2026-11-30T11:00:00Z")[:2]
    _jsonl(slug_dir / "44444444-4444-4444-8444-444444444444.jsonl", running)
    # a worktree of the app with its own folder
    _git_worktree(fx.app, fx.worktree)
    wt_memory = fx.memory(fx.worktree)
    write_file(wt_memory / "MEMORY.md", "- [Branch notes](branch.md) — feature branch quirks\n")
    write_file(wt_memory / "branch.md", topic("Branch notes", "feature quirks", "project",
                                          "The feature flag is on in this worktree."))
    _jsonl(home / "projects" / fx.slug(fx.worktree) / "55555555-5555-4555-8555-555555555555"
           ".jsonl", session(fx.worktree, "55555555-5555-4555-8555-555555555555",
                             "Try the feature", "It works behind the flag.",
                             start="2026-11-28T08:00:00Z", end="2026-11-28T08:30:00Z"))
    # a slug longer than 200 characters
    long_memory = fx.memory(fx.long)
    write_file(long_memory / "MEMORY.md", "- [Long](long.md) — a long path\n")
    write_file(long_memory / "long.md", topic("Long", "long path project", "user",
                                          "The user keeps deep folders."))
    _jsonl(home / "projects" / fx.slug(fx.long) / "66666666-6666-4666-8666-666666666666.jsonl",
           session(fx.long, "66666666-6666-4666-8666-666666666666", "Deep work", "Done deep.",
                   start="2026-11-27T08:00:00Z", end="2026-11-27T08:10:00Z"))
    # an index of 250 lines / 30 KB
    big_memory = fx.memory(fx.big)
    lines = []
    for number in range(1, BIG_INDEX_LINES + 1):
        name = f"topic_{number:03d}.md"
        lines.append(f"- [Topic {number:03d}]({name}) — " + "hook words " * 10)
        write_file(big_memory / name, topic(f"Topic {number:03d}", "one of many", "reference",
                                        f"Fact number {number}."))
    write_file(big_memory / "MEMORY.md", "\n".join(lines) + "\n")
    _jsonl(home / "projects" / fx.slug(fx.big) / "77777777-7777-4777-8777-777777777777.jsonl",
           session(fx.big, "77777777-7777-4777-8777-777777777777", "Big", "Big done.",
                   start="2026-11-26T08:00:00Z", end="2026-11-26T08:10:00Z"))
    # a topic file holding a token
    secret_memory = fx.memory(fx.secret)
    write_file(secret_memory / "MEMORY.md", "- [Deploy](deploy.md) — how to deploy\n")
    write_file(secret_memory / "deploy.md", topic(
        "Deploy", "deploy steps", "reference",
        f"Deploy with the bot account.\nexport GITHUB_TOKEN={GITHUB_TOKEN}\nThen run deploy."))
    _jsonl(home / "projects" / fx.slug(fx.secret) / "88888888-8888-4888-8888-888888888888.jsonl",
           session(fx.secret, "88888888-8888-4888-8888-888888888888", "Deploy it",
                   "Deployed.", start="2026-11-25T08:00:00Z", end="2026-11-25T08:10:00Z"))
    # a memory folder that is a symlink (to a folder outside the home)
    outside = root / "elsewhere" / "memory"
    write_file(outside / "MEMORY.md", "- [Elsewhere](x.md)\n")
    linked_dir = home / "projects" / fx.slug(fx.linked)
    linked_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, linked_dir / "memory")
    return fx


@dataclass(frozen=True)
class GeminiFixture:
    """Paths of a built Gemini CLI home."""

    root: Path
    home: Path
    app: Path
    web: Path
    clash: Path

    def memory(self, slug: str) -> Path:
        """A project's private memory folder."""
        return self.home / "tmp" / slug / "memory"


GOOD_PRIVATE_PATCH = """--- a/MEMORY.md
+++ b/MEMORY.md
@@ -1,2 +1,3 @@
 # Project memory
 - [Conventions](conventions.md) — naming and layout
+- The CI runs on every push to main.
"""
GOOD_GLOBAL_PATCH = """--- a/GEMINI.md
+++ b/GEMINI.md
@@ -4,2 +4,3 @@
 ## Gemini Added Memories
 - The user prefers tabs in Go files.
+- The user's timezone is Europe/Berlin.
"""
STALE_PATCH = """--- a/MEMORY.md
+++ b/MEMORY.md
@@ -1,2 +1,2 @@
 # Project memory
-- a line that is not there
+- replaced
"""
MALFORMED_PATCH = "this is not a diff\n@@ nonsense @@\n"


def build_gemini_home(root: Path) -> GeminiFixture:
    """A Gemini CLI home with every hard case (see the module doc)."""
    root = Path(root)
    home = root / ".gemini"
    fx = GeminiFixture(root=root, home=home, app=root / "src" / "app",
                       web=root / "src" / "web", clash=root / "other" / "app")
    for project in (fx.app, fx.web, fx.clash):
        project.mkdir(parents=True, exist_ok=True)
    write_file(home / "settings.json", "{\n  // comments are allowed here\n"
           "  \"experimental\": {\"autoMemory\": true},\n"
           "  \"context\": {\"fileName\": \"GEMINI.md\"},\n  \"ui\": {\"theme\": \"x\"}\n}\n")
    write_file(home / "GEMINI.md", "# Global context\n\nBe brief.\n\n## Gemini Added Memories\n"
                               "- The user prefers tabs in Go files.\n\n## Other\n- Be concise\n")
    write_file(home / "projects.json", json.dumps({"projects": {
        str(fx.app): "app", str(fx.clash): "app", str(fx.web): "web"},
        "version": 3}, indent=2))
    write_file(home / "oauth_creds.json", "{}")
    write_file(home / "trustedFolders.json", json.dumps(  # Gemini CLI reads nothing else
        {str(fx.app): "TRUST_FOLDER", str(fx.web): "TRUST_FOLDER"}))
    app = fx.memory("app")
    write_file(app.parent / ".project_root", f"{fx.app}\n")
    write_file(app / "MEMORY.md", "# Project memory\n- [Conventions](conventions.md) — naming and "
                              "layout\n")
    write_file(app / "conventions.md", "Files are kebab-case.\n")
    write_file(app / "unlisted.md", "Not mentioned by the index, so never loaded.\n")
    write_file(app / ".inbox" / "private" / "0001-ci.patch", GOOD_PRIVATE_PATCH)
    write_file(app / ".inbox" / "private" / "0002-stale.patch", STALE_PATCH)
    write_file(app / ".inbox" / "private" / "0003-broken.patch", MALFORMED_PATCH)
    write_file(app / ".inbox" / "global" / "0001-tz.patch", GOOD_GLOBAL_PATCH)
    write_file(app / ".inbox" / "private" / "README.txt", "unknown file\n")
    web = fx.memory("web")
    write_file(web / "GEMINI.md", f"- The web app deploys with token {GITHUB_TOKEN}\n")
    write_file(fx.web / "GEMINI.md", "# Web\nUse pnpm.\n")
    write_file(fx.web / "docs" / "GEMINI.md", "# Docs\nWrite short pages.\n")
    write_file(home / "tmp" / "orphan-slug" / "memory" / "MEMORY.md", "- loose fact\n")
    write_file(home / "tmp" / "orphan-slug" / "chats" / "session.json", "{}")
    return fx


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".").absolute()
    claude = build_claude_home(target)
    gemini = build_gemini_home(target)
    print(f"Claude Code home: {claude.home}\nGemini CLI home: {gemini.home}")
