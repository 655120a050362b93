"""Readers of Claude Code and Gemini CLI homes on fixture homes with every hard
case: each bad item is one problem with a one-line reason, the rest is read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agents_fixture import BIG_INDEX_LINES, GITHUB_TOKEN, ClaudeFixture, GeminiFixture

from memtui.engine.agents.claude import read_claude_home
from memtui.engine.agents.frontmatter import parse_front_matter
from memtui.engine.agents.gemini import added_memories, read_gemini_home
from memtui.engine.agents.index import MAX_INDEX_BYTES, MAX_INDEX_LINES, index_load, loaded_cut
from memtui.engine.agents.paths import (
    claude_slug,
    claude_slug_matches,
    gemini_slug,
    resolve_claude_home,
    resolve_gemini_home,
)


def _read(fx: ClaudeFixture, **env: str):
    return read_claude_home(fx.home, env=env, managed_dir=None)


def _reasons(items) -> str:
    return "\n".join(f"{p.path}: {p.reason}" for p in items)


# ---- homes and slugs ---------------------------------------------------------------------------


def test_homes_resolve_flag_then_environment_then_default(tmp_path: Path) -> None:
    assert resolve_claude_home(tmp_path / "x", {"CLAUDE_CONFIG_DIR": "/nope"}) == tmp_path / "x"
    assert resolve_claude_home(None, {"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path
    assert resolve_claude_home(None, {}) == Path.home() / ".claude"
    assert resolve_gemini_home(None, {"GEMINI_CLI_HOME": str(tmp_path)}) == tmp_path
    (tmp_path / ".gemini").mkdir()
    assert resolve_gemini_home(None, {"GEMINI_CLI_HOME": str(tmp_path)}) == tmp_path / ".gemini"
    assert resolve_gemini_home(None, {}) == Path.home() / ".gemini"


def test_slugs_follow_each_agents_rule() -> None:
    assert claude_slug("/home/me/a.b") == "-home-me-a-b"
    long = "/src/" + "x" * 300
    slug = claude_slug(long)
    assert len(slug) > 200 and slug.startswith(claude_slug("/src/" + "x" * 195)[:200])
    assert claude_slug_matches(slug, long)
    assert claude_slug_matches(slug[:200] + "-otherhash", long)
    assert not claude_slug_matches("-src-y", long)
    assert gemini_slug("/home/me/My Project!!") == "my-project"


def test_missing_homes_are_one_problem_each(tmp_path: Path) -> None:
    claude = read_claude_home(tmp_path / "none", env={}, managed_dir=None)
    assert not claude.home_found and claude.projects == ()
    assert "Claude Code home not found" in claude.problems[0].reason
    gemini = read_gemini_home(tmp_path / "none", env={})
    assert not gemini.home_found and "Gemini CLI home not found" in gemini.problems[0].reason


# ---- Claude Code ---------------------------------------------------------------------------------


def test_claude_projects_are_found_by_scanning_and_matched_by_cwd(claude: ClaudeFixture) -> None:
    home = _read(claude)
    keys = {row.key for row in home.projects}
    assert claude.slug(claude.app) in keys and claude.slug(claude.long) in keys
    long = home.project(claude.slug(claude.long))
    assert long is not None and len(long.key) > 200
    assert long.project == str(claude.long)  # from the transcripts' cwd
    assert long.topics == 1


def test_claude_worktree_folders_name_their_main_checkout(claude: ClaudeFixture) -> None:
    home = _read(claude)
    worktree = home.project(str(claude.worktree))
    app = home.project(str(claude.app))
    assert worktree is not None and app is not None
    assert worktree.key != app.key
    assert worktree.worktree_of == str(claude.app)
    assert app.worktree_of is None


def test_claude_index_meter_names_the_entries_past_the_limit(claude: ClaudeFixture) -> None:
    row = _read(claude).project(str(claude.big))
    assert row is not None and row.index is not None
    index = row.index
    assert index.lines == BIG_INDEX_LINES and index.bytes >= 30_000
    assert index.over_limit
    assert index.loaded_bytes <= MAX_INDEX_BYTES and index.loaded_lines < MAX_INDEX_LINES
    dropped = index.dropped
    assert len(dropped) == BIG_INDEX_LINES - index.loaded_lines
    assert dropped[-1] == "Topic 250" and f"Topic {index.loaded_lines:03d}" not in dropped
    assert f"Topic {index.loaded_lines + 1:03d}" == dropped[0]


def test_index_cut_is_the_line_limit_when_lines_are_short() -> None:
    text = "".join(f"- [T{n}](t{n}.md)\n" for n in range(250))
    assert loaded_cut(text) == (200, len("".join(text.splitlines(True)[:200]).encode()))
    load = index_load("MEMORY.md", text, [f"t{n}.md" for n in range(250)])
    assert load.loaded_lines == 200 and len(load.dropped) == 50
    assert loaded_cut("a" * 30_000 + "\n") == (0, 0)
    assert loaded_cut("") == (0, 0)


def test_claude_bad_files_are_reported_and_the_rest_read(claude: ClaudeFixture) -> None:
    row = _read(claude).project(str(claude.app))
    assert row is not None and row.index is not None
    text = _reasons(row.problems)
    assert "binary.md: binary file" in text
    assert "huge.md: too large" in text
    assert "broken.md: broken front matter" in text
    assert "dangling index link: gone.md" in text
    assert "links outside the memory folder" in text
    assert row.index.dangling == ("gone.md",)
    assert row.index.unindexed == ("broken.md", "orphan.md")
    names = {item.relative: item for item in row.files}
    assert names["build.md"].type == "project" and names["build.md"].name == "Build commands"
    assert names["feedback_testing.md"].front_matter["confidence"] == "high"  # unknown field
    assert names["logs/2026/11/2026-11-30.md"].role == "log"
    assert row.other_files == 1  # scratch.txt
    assert row.transcripts == 4
    for problem in row.problems:
        assert "\n" not in problem.reason


def test_claude_symlinked_memory_folder_is_not_followed(claude: ClaudeFixture) -> None:
    home = _read(claude)
    row = home.project(claude.slug(claude.linked))
    assert row is not None and row.files == () and row.memory_dir is None
    assert "symlink" in _reasons(row.problems)


def test_claude_secrets_name_file_line_and_kind_never_the_value(claude: ClaudeFixture) -> None:
    home = _read(claude)
    row = home.project(str(claude.secret))
    assert row is not None and len(row.secrets) == 1
    finding = row.secrets[0]
    assert finding.path.endswith("deploy.md") and finding.line == 8
    assert GITHUB_TOKEN not in json.dumps(home.to_json())
    assert GITHUB_TOKEN[4:20] not in json.dumps(finding.to_json())


def test_claude_switches_say_where_each_is_set(claude: ClaudeFixture) -> None:
    home = _read(claude)
    assert home.auto_memory is True
    assert home.switches[0].where.endswith(".claude/settings.json")
    app = home.project(str(claude.app))
    assert app is not None and app.auto_memory is False  # the project's settings win
    assert [s.effective for s in app.switches] == [False, True]
    off = _read(claude, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")
    assert off.auto_memory is False
    assert off.switches[-1].where == "$CLAUDE_CODE_DISABLE_AUTO_MEMORY=1"
    worktree = off.project(str(claude.worktree))
    assert worktree is not None and worktree.auto_memory is False


def test_claude_settings_that_are_not_json_are_a_problem(claude: ClaudeFixture) -> None:
    (claude.home / "settings.json").write_text("{ not json", encoding="utf-8")
    home = _read(claude)
    assert "not valid JSON" in _reasons(home.problems)
    assert home.auto_memory is True  # the default
    assert home.projects  # the rest is read


def test_claude_instruction_hierarchy_with_origins_and_imports(claude: ClaudeFixture) -> None:
    home = _read(claude)
    origins = {(Path(item.path).name, item.origin) for item in home.instructions}
    assert ("CLAUDE.md", "user") in origins and ("style.md", "user-rules") in origins
    assert ("extra.md", "import") in origins and ("db.md", "project-rules") in origins
    assert not any("not/an/import" in item.path for item in home.instructions)
    extra = next(item for item in home.instructions if item.path.endswith("extra.md"))
    assert extra.depth == 1 and extra.imported_by == str(claude.home / "CLAUDE.md")


def test_claude_import_chains_stop_after_five_hops(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    home.mkdir()
    for number in range(8):
        (home / f"f{number}.md").write_text(f"@f{number + 1}.md\n", encoding="utf-8")
    (home / "CLAUDE.md").write_text("@f0.md\n", encoding="utf-8")
    read = read_claude_home(home, env={}, managed_dir=None)
    depths = sorted(item.depth for item in read.instructions)
    assert max(depths) == 5
    assert "hops deep" in _reasons(read.problems)


def test_unreadable_file_is_reported(claude: ClaudeFixture) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = claude.memory(claude.app) / "build.md"
    path.chmod(0)
    try:
        row = _read(claude).project(str(claude.app))
        assert row is not None and "permission denied" in _reasons(row.problems)
    finally:
        path.chmod(0o644)


def test_front_matter_tolerates_unknown_keys_and_reports_broken_blocks() -> None:
    parsed = parse_front_matter("---\nname: 'A'\nnew: x\n---\nBody\n")
    assert parsed.fields == {"name": "A", "new": "x"} and parsed.body == "Body\n"
    assert parsed.problem is None
    assert parse_front_matter("---\nname: A\n").problem is not None
    assert parse_front_matter("no front matter").fields == {}


# ---- Gemini CLI ----------------------------------------------------------------------------------


def test_gemini_global_memory_and_switches(gemini: GeminiFixture) -> None:
    home = read_gemini_home(gemini.home, env={})
    assert home.auto_memory is True  # settings with comments still read
    assert home.added_memories == ("The user prefers tabs in Go files.",)
    assert home.projects[0].key == "global" and home.projects[0].topics == 1


def test_gemini_slug_clash_and_project_root(gemini: GeminiFixture) -> None:
    home = read_gemini_home(gemini.home, env={})
    assert "slug clash" in _reasons(home.problems)
    app = home.project("app")
    assert app is not None and app.project == str(gemini.app)  # .project_root wins
    assert "claimed by 2 projects" in _reasons(app.problems)
    orphan = home.project("orphan-slug")
    assert orphan is not None and orphan.project is None


def test_gemini_index_loads_only_mentioned_files(gemini: GeminiFixture) -> None:
    app = read_gemini_home(gemini.home, env={}).project("app")
    assert app is not None and app.index is not None
    assert app.index.unindexed == ("unlisted.md",) and not app.index.over_limit


def test_gemini_inbox_lists_good_and_malformed_patches(gemini: GeminiFixture) -> None:
    home = read_gemini_home(gemini.home, env={})
    patches = {patch.id: patch for patch in home.inbox}
    assert set(patches) == {"private/0001-ci.patch", "private/0002-stale.patch",
                            "private/0003-broken.patch", "global/0001-tz.patch"}
    assert patches["private/0001-ci.patch"].valid and patches["private/0001-ci.patch"].added == 1
    broken = patches["private/0003-broken.patch"]
    assert not broken.valid and broken.reason and "malformed" in broken.reason


def test_gemini_older_memory_file_and_secrets(gemini: GeminiFixture) -> None:
    home = read_gemini_home(gemini.home, env={})
    web = home.project("web")
    assert web is not None and web.files[0].role == "file"
    assert [(Path(s.path).name, s.line) for s in web.secrets] == [("GEMINI.md", 1)]
    assert GITHUB_TOKEN not in json.dumps(home.to_json())
    origins = {(Path(i.path).parent.name, i.origin) for i in home.instructions}
    assert ("web", "project") in origins and ("docs", "subfolder") in origins


def test_gemini_settings_not_json(gemini: GeminiFixture) -> None:
    (gemini.home / "settings.json").write_text("[1, 2", encoding="utf-8")
    home = read_gemini_home(gemini.home, env={})
    assert "not valid JSON" in _reasons(home.problems) and home.auto_memory is False
    assert len(home.projects) == 4


def test_added_memories_stop_at_the_next_section() -> None:
    text = "## Gemini Added Memories\n- a\n- b\n### sub\n- c\n## Next\n- d\n"
    assert added_memories(text) == ["a", "b", "c"]
