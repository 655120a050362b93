"""``memtui agents show``, ``memtui claude …``, ``memtui gemini …``:
JSON shapes, exit codes, ``--write``, and import/export through the engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from agents_fixture import (
    GITHUB_TOKEN,
    ClaudeFixture,
    GeminiFixture,
    build_claude_home,
    build_gemini_home,
)
from cli_support import CliResult

Run = Callable[..., CliResult]


@pytest.fixture()
def homes(tmp_path: Path) -> tuple[ClaudeFixture, GeminiFixture]:
    return build_claude_home(tmp_path), build_gemini_home(tmp_path)


@pytest.fixture()
def claude(cli: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> Run:
    home = homes[0].home
    return lambda *args: cli("--user", "alice", "claude", *args, "--claude-home", str(home))


@pytest.fixture()
def gemini(cli: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> Run:
    home = homes[1].home
    return lambda *args: cli("--user", "alice", "gemini", *args, "--gemini-home", str(home))


def test_agents_show_json_has_every_agent_and_the_meter(
        cli: Run, homes: tuple[ClaudeFixture, GeminiFixture], tmp_path: Path) -> None:
    cfx, gfx = homes
    result = cli("agents", "show", "--json", "--claude-home", str(cfx.home), "--gemini-home",
                 str(gfx.home), "--codex-home", str(tmp_path / "no-codex"))
    assert result.code == 0, result.err
    data = result.json
    assert [home["agent"] for home in data["homes"]] == ["claude", "gemini", "codex"]
    assert data["homes"][2]["found"] is False
    big = next(row for row in data["rows"] if row["project"] == str(cfx.big))
    assert big["index"]["loaded_lines"] < big["index"]["lines"] == 250
    assert big["index"]["dropped"][-1] == "Topic 250"
    assert data["totals"]["secrets"] == 2 and data["totals"]["over_limit"] == 1
    assert GITHUB_TOKEN not in result.out
    human = cli("agents", "show", "--claude-home", str(cfx.home), "--gemini-home",
                str(gfx.home), "--codex-home", str(tmp_path / "no-codex"))
    assert human.code == 0 and "Not loaded at session start" in human.out
    assert "github-pat" in human.out and GITHUB_TOKEN not in human.out


def test_show_counts_instruction_files_that_exist_and_spells_switches_as_json(
        claude: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> None:
    home = homes[0].home
    assert "  autoMemoryEnabled = true — " in claude("show").out
    (home / "CLAUDE.md").unlink()
    listed = claude("show", "--json").json["instructions"]
    missing = [item for item in listed if not item["exists"]]
    assert [item["path"] for item in missing] == [str(home / "CLAUDE.md")]
    assert f"  instruction files: {len(listed) - 1} (" in claude("show").out


def test_show_missing_home_is_exit_3(cli: Run, tmp_path: Path) -> None:
    result = cli("claude", "show", "--json", "--claude-home", str(tmp_path / "nope"))
    assert result.code == 3 and result.json["error"]["code"] == "not_found"
    assert cli("gemini", "show", "--gemini-home", str(tmp_path / "nope")).code == 3


def test_show_json_shapes(claude: Run, gemini: Run) -> None:
    data = claude("show", "--json").json
    assert {"home", "switches", "instructions", "projects", "problems"} <= set(data)
    assert GITHUB_TOKEN not in json.dumps(data)
    gdata = gemini("show", "--json").json
    assert len(gdata["inbox"]) == 4 and gdata["added_memories"]


def test_forget_without_write_is_exit_4_and_changes_nothing(
        claude: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> None:
    topic = homes[0].memory(homes[0].app) / "build.md"
    result = claude("forget", str(topic), "--json")
    assert result.code == 4
    error = result.json["error"]
    assert error["code"] == "agent_write_refused" and error["plan"]["action"] == "forget"
    assert topic.exists()
    human = claude("forget", str(topic))
    assert human.code == 4 and "-- " in human.out or "---" in human.out
    assert "add --write" in human.err
    done = claude("forget", str(topic), "--write", "--json")
    assert done.code == 0 and done.json["written"] is True and not topic.exists()
    assert claude("forget", str(topic), "--write").code == 3


def test_redact_and_fix_index_and_auto_memory(
        claude: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> None:
    cfx = homes[0]
    deploy = cfx.memory(cfx.secret) / "deploy.md"
    preview = claude("redact", str(deploy))
    assert preview.code == 4 and "«github-pat»" in preview.out
    assert GITHUB_TOKEN not in preview.out + preview.err
    assert claude("redact", str(deploy), "--write").code == 0
    assert GITHUB_TOKEN not in deploy.read_text(encoding="utf-8")
    assert claude("fix-index", str(cfx.app), "--write").code == 0
    assert "gone.md" not in (cfx.memory(cfx.app) / "MEMORY.md").read_text(encoding="utf-8")
    for write in ((), ("--write",)):  # a healthy index: nothing to do is not an error
        healthy = claude("fix-index", str(cfx.app), *write, "--json")
        assert healthy.code == 0 and healthy.json["written"] is False, healthy.err
        assert healthy.json["files"] == [] and "nothing to repair" in healthy.json["summary"]
        again = claude("fix-index", str(cfx.app), *write)
        assert again.code == 0 and again.out.startswith("nothing to repair in ")
    assert claude("auto-memory", "off", "--write").code == 0
    assert json.loads((cfx.home / "settings.json").read_text())["autoMemoryEnabled"] is False
    (cfx.home / "settings.json").write_text("{ nope", encoding="utf-8")
    bad = claude("auto-memory", "on", "--write", "--json")
    assert bad.code == 5 and "not valid JSON" in bad.json["error"]["message"]


def test_gemini_inbox_exit_codes(gemini: Run, homes: tuple[ClaudeFixture, GeminiFixture]
                                 ) -> None:
    listed = gemini("inbox", "list", "--json").json
    assert listed["count"] == 4
    assert gemini("inbox", "apply", "private/0002-stale.patch", "--write").code == 5
    assert gemini("inbox", "apply", "private/0003-broken.patch", "--write").code == 5
    assert gemini("inbox", "apply", "app:private/0001-ci.patch").code == 4
    assert gemini("inbox", "apply", "app:private/0001-ci.patch", "--write").code == 0
    assert gemini("inbox", "dismiss", "private/0003-broken.patch", "--write").code == 0
    assert gemini("inbox", "dismiss", "private/missing.patch", "--write").code == 3
    assert gemini("inbox", "list", "--json").json["count"] == 2
    assert gemini("forget", "--fact", "tabs in Go", "--write").code == 0
    assert gemini("forget", "--write").code == 2  # neither a FILE nor --fact
    assert gemini("note", "Deploys need a ticket").code == 4
    assert gemini("note", f"deploy token {GITHUB_TOKEN}", "--write").code == 0
    facts = gemini("show", "--json").json["added_memories"]
    assert facts == ["deploy token [REDACTED]"]
    assert gemini("note", "   ", "--write").code == 5


def test_import_is_idempotent_keeps_provenance_and_redacts(
        claude: Run, gemini: Run, cli: Run, homes: tuple[ClaudeFixture, GeminiFixture]
        ) -> None:
    cfx = homes[0]
    first = claude("import", "--json").json
    assert first["imported"] >= 5 and first["errors"] == 0
    assert first["skipped"].get("no_project", 0) == 0
    again = claude("import", "--json").json
    assert again["imported"] == 0 and again["skipped"]["already_imported"] == first["imported"]
    memories = cli("--user", "alice", "memory", "list", "--json", "--limit", "200").json
    assert memories["count"] == 0  # project memories: listed per project
    projects = cli("--user", "alice", "project", "list", "--json").json["items"]
    roots = {item["root"]: item["id"] for item in projects}
    assert str(cfx.secret) in roots and str(cfx.worktree) in roots
    secret = cli("--user", "alice", "memory", "list", "--project", roots[str(cfx.secret)],
                 "--json").json["items"]
    assert len(secret) == 1 and GITHUB_TOKEN not in secret[0]["content"]
    assert "[REDACTED]" in secret[0]["content"] and secret[0]["source"] == "import"
    assert secret[0]["source_thread_id"].startswith("claude:") and \
        secret[0]["source_thread_id"].endswith("/deploy.md")
    gfirst = gemini("import", "--json").json
    # every bullet of the global GEMINI.md (0.61's global memory), "## Other"'s too
    assert gfirst["imported"] == 5 and gfirst["skipped"] == {"no_project": 1}
    user = cli("--user", "alice", "memory", "list", "--scope", "user", "--json").json
    assert sorted(item["content"] for item in user["items"]) == [
        "Be concise", "The user prefers tabs in Go files."]
    assert gemini("import", "--json").json["imported"] == 0


def test_import_transcripts_incremental_with_reasons(
        claude: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> None:
    first = claude("import-transcripts", "--json").json
    items = {item["ref"]: item for item in first["items"]}
    assert items["agent-33333333"]["reason"] == "subagent_session"
    assert items["44444444-4444-4444-8444-444444444444"]["reason"] == "missing_result"
    assert items["11111111-1111-4111-8111-111111111111"]["outcome"] == "imported"
    assert first["imported"] == 6
    assert any(problem["line"] == 5 for problem in first["problems"])  # the truncated line
    again = claude("import-transcripts", "--json").json
    assert again["imported"] == 0 and again["skipped"]["already_imported"] == 6


def test_transcript_goal_result_and_external_context(tmp_path: Path) -> None:
    from memtui.engine.agents.transcripts import read_transcript
    from memtui.engine.safe_files import real_root

    cfx = build_claude_home(tmp_path)
    path = cfx.home / "projects" / cfx.slug(cfx.app) / "11111111-1111-4111-8111-111111111111.jsonl"
    task = read_transcript(path, real_root(cfx.home))
    assert task.goal == "Make the build reproducible"
    assert task.result == "Pinned the compiler flags in the Makefile."
    assert task.used_mcp and task.used_web and task.mcp_tools == ("mcp__github__search_issues",)
    assert task.started_at == "2026-11-30T09:00:00.000Z"
    assert task.finished_at == "2026-11-30T09:20:00.000Z"


def test_export_writes_each_format_into_a_new_folder(
        claude: Run, gemini: Run, cli: Run, tmp_path: Path) -> None:
    assert claude("import").code == 0
    target = tmp_path / "out-claude"
    result = claude("export", str(target), "--json")
    assert result.code == 0, result.err
    assert any(name.endswith("/memory/MEMORY.md") for name in result.json["files"])
    reread = cli("--user", "alice", "claude", "show", "--json", "--claude-home", str(target))
    assert reread.code == 0
    rows = reread.json["projects"]
    assert sum(len(row["files"]) for row in rows) >= 5
    assert any(note for note in result.json["notes"])  # the big project's index is cut
    assert claude("export", str(target)).code == 5  # not a new folder
    gtarget = tmp_path / "out-gemini"
    assert gemini("export", str(gtarget)).code == 0
    exported = (gtarget / "GEMINI.md").read_text(encoding="utf-8")  # 0.61: plain bullets
    assert "Gemini Added Memories" not in exported
    assert json.loads((gtarget / "projects.json").read_text())["projects"]


def test_auto_memory_the_environment_overrides_is_refused(
        claude: Run, homes: tuple[ClaudeFixture, GeminiFixture],
        monkeypatch: pytest.MonkeyPatch) -> None:
    settings = homes[0].home / "settings.json"
    before = settings.read_text(encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    refused = claude("auto-memory", "on", "--write", "--json")
    assert refused.code == 5 and "in the environment" in refused.json["error"]["message"]
    assert settings.read_text(encoding="utf-8") == before
    assert claude("auto-memory", "off", "--write").code == 0  # the same way: written
    assert json.loads(settings.read_text())["autoMemoryEnabled"] is False


def test_what_one_user_imported_is_no_oracle_for_another(
        gemini: Run, cli: Run, homes: tuple[ClaudeFixture, GeminiFixture]) -> None:
    """The "already imported" check looks only at memories the importing user may see: a
    second user importing the same home gets their own memories, never another user's id."""
    alice = gemini("import", "--json").json
    alice_ids = {item["target_id"] for item in alice["items"] if item.get("target_id")}
    assert alice["imported"] == 5 and alice_ids
    bob = cli("--user", "bob", "gemini", "import", "--json", "--gemini-home",
              str(homes[1].home)).json
    assert bob["imported"] == 5 and "already_imported" not in bob["skipped"], bob
    assert not alice_ids & {item.get("target_id") for item in bob["items"]}
    user = cli("--user", "bob", "memory", "list", "--scope", "user", "--json").json
    assert sorted(item["content"] for item in user["items"]) == [
        "Be concise", "The user prefers tabs in Go files."]
    assert cli("--user", "bob", "gemini", "import", "--json", "--gemini-home",
               str(homes[1].home)).json["imported"] == 0
