"""Small, realistic Claude Code and Gemini CLI homes for the screenshots and ``memtui --demo``:
``build_demo_agent_homes(root)`` writes ``root/.claude`` and ``root/.gemini`` for projects
under ``root/src`` (one index past Claude Code's load limit, a topic file holding a
token-shaped value, a git worktree with its own folder, Gemini inbox patches).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from memtui.engine.agents.frontmatter import render_front_matter
from memtui.engine.agents.paths import claude_slug

DEMO_TOKEN = "ghp_" + "x7Qm2Lk9Vb4Np8Rt3Wz6Hc1Jd5Fg0Ys7Ue2K"
"""Token-shaped, so the secret scan finds it (not a real credential)."""
OVER_LIMIT_ENTRIES = 230
PATCH_PROPOSED_AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
"""When Gemini CLI proposed the demo's inbox patch (its file time: the Inbox shows it, and
the pictures must not change with the day they are taken; the demo store's clock stands at
10:00 that day)."""
TOPICS = (
    ("build", "Build and test commands", "project",
     "Use `make build`; `make test` runs the fast suite.\n\n**Why:** CI runs the same "
     "targets.\n\n**How to apply:** never call pytest directly."),
    ("feedback_reviews", "Review feedback", "feedback",
     "Keep pull requests under 400 lines.\n\n**Why:** the team asked for it.\n\n"
     "**How to apply:** split refactors from features."),
    ("user_prefs", "How the user likes to work", "user",
     "Prefers small commits with clear messages and uv over pip."),
    ("staging", "Staging environment", "reference",
     "Staging is https://staging.example.test; the database there is read-only."),
)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _transcript(folder: Path, project: Path, goal: str, answer: str) -> None:
    base = {"sessionId": "5d1e7a3c-0000-4000-8000-000000000001", "cwd": str(project),
            "gitBranch": "main", "isSidechain": False}
    lines = [{**base, "type": "user", "timestamp": "2026-11-30T09:00:00Z",
              "message": {"role": "user", "content": goal}},
             {**base, "type": "assistant", "timestamp": "2026-11-30T09:12:00Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]}}]
    _write(folder / f"{base['sessionId']}.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")


def _claude_project(claude: Path, project: Path, topics: list[tuple[str, str, str, str, str]],
                    hook: str | None, task: tuple[str, str], more: tuple[str, ...] = ()) -> None:
    """A project's memory folder: topic files (name, title, description, type, body) and an
    index listing them (with ``hook``, else each description), then a transcript."""
    folder = claude / "projects" / claude_slug(str(project))
    for name, title, description, kind, body in topics:
        fields = {"name": title, "description": description, "type": kind}
        _write(folder / "memory" / f"{name}.md", f"{render_front_matter(fields)}\n{body}\n")
    lines = [f"- [{title}]({name}.md) — {hook or description}"
             for name, title, description, _kind, _body in topics]
    _write(folder / "memory" / "MEMORY.md", "\n".join([*lines, *more]) + "\n")
    _transcript(folder, project, *task)


def build_demo_agent_homes(root: Path) -> tuple[Path, Path]:
    """Write the demo homes under ``root``; returns (Claude Code home, Gemini CLI home)."""
    root = Path(root)
    claude, gemini = root / ".claude", root / ".gemini"
    webshop, hotfix = root / "src" / "webshop", root / "src" / "webshop-hotfix"
    pipeline, infra = root / "src" / "data-pipeline", root / "src" / "infra"
    for project in (webshop, hotfix, pipeline, infra):
        project.mkdir(parents=True, exist_ok=True)
    (webshop / ".git" / "worktrees" / "webshop-hotfix").mkdir(parents=True, exist_ok=True)
    _write(hotfix / ".git", f"gitdir: {webshop}/.git/worktrees/webshop-hotfix\n")
    _write(claude / "settings.json", json.dumps({"autoMemoryEnabled": True,
                                                 "theme": "dark"}, indent=2) + "\n")
    _write(claude / "CLAUDE.md", "# My instructions\n\n- Use uv, never pip.\n")
    _write(pipeline / ".claude" / "settings.json", json.dumps({"autoMemoryEnabled": False}))
    _claude_project(claude, webshop, [(name, title, title.lower(), kind, body)
                                      for name, title, kind, body in TOPICS], None,
                    ("Make the checkout tests pass", "All 212 checkout tests pass."),
                    ("- [Old deploy notes](deploy_old.md) — removed last week",))
    _claude_project(claude, hotfix, [("hotfix", "Hotfix branch", "release 4.2.1", "project",
                                      "Only cherry-picks from main.")], None,
                    ("Cherry-pick the VAT fix", "Picked 3 commits onto 4.2.1."))
    _claude_project(claude, pipeline, [
        (f"table_{number:03d}", f"Table {number:03d}", "schema notes", "reference",
         f"Table {number} is partitioned by day.") for number in range(1, OVER_LIMIT_ENTRIES + 1)
    ], "partitioning, owners and the nightly backfill schedule",
        ("Document the tables", "Wrote one note per table."))
    _claude_project(claude, infra, [("deploy", "Deploy", "how to deploy", "reference",
                                     "Deploy with the bot account.\nexport GH_TOKEN="
                                     f"{DEMO_TOKEN}\nThen run `make deploy`.")], None,
                    ("Deploy the API", "Deployed v4.2.1 to production."))
    _write(gemini / "settings.json", json.dumps({"experimental": {"autoMemory": True}},
                                                indent=2) + "\n")
    _write(gemini / "GEMINI.md", "# Global context\n\n## Gemini Added Memories\n"
                                 "- The user prefers tabs in Go files.\n"
                                 "- The user's time zone is Europe/Berlin.\n")
    _write(gemini / "projects.json", json.dumps({"projects": {str(webshop): "webshop",
                                                              str(infra): "infra"}}, indent=2))
    memory = gemini / "tmp" / "webshop" / "memory"
    _write(memory / "MEMORY.md", "- [Conventions](conventions.md) — naming and layout\n")
    _write(memory / "conventions.md", "Files are kebab-case; components live in src/ui.\n")
    patch = memory / ".inbox" / "private" / "0001-ci.patch"
    _write(patch, "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n"
                  " - [Conventions](conventions.md) — naming and layout\n"
                  "+- CI runs on every push to main.\n")
    proposed = PATCH_PROPOSED_AT.timestamp()
    os.utime(patch, (proposed, proposed))
    _write(gemini / "tmp" / "infra" / "memory" / "GEMINI.md", "- Terraform state is in S3.\n")
    return claude, gemini
