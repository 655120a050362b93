"""Curations of Claude Code and Gemini CLI memory: each a plan shown first, then
written only with the explicit flag, atomically, mode kept, refusing symlink escapes and
files changed since they were read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from agents_fixture import GITHUB_TOKEN, ClaudeFixture, GeminiFixture, file_bytes

from memtui.engine import safe_files
from memtui.engine.agents.claude import read_claude_home
from memtui.engine.agents.curation import (
    plan_edit,
    plan_fix_index,
    plan_forget,
    plan_forget_fact,
    plan_promote_claude,
    plan_promote_gemini,
    plan_redact,
)
from memtui.engine.agents.errors import (
    AgentInputError,
    AgentNotFound,
    AgentWriteRefused,
    ChangedSinceRead,
)
from memtui.engine.agents.gemini import list_gemini_inbox, read_gemini_home
from memtui.engine.agents.inbox import plan_apply_patch, plan_dismiss_patch
from memtui.engine.agents.plans import apply_plan
from memtui.engine.agents.switches import CLAUDE_SWITCH, GEMINI_SWITCH, plan_switch
from memtui.errors import UnsafePath


def test_forget_removes_the_topic_and_its_index_line_only_with_write(
        claude: ClaudeFixture) -> None:
    memory = claude.memory(claude.app)
    before = file_bytes(memory)
    plan = plan_forget(claude.home, memory / "build.md")
    assert "build.md" in plan.diff() and "Build commands" in plan.diff()
    with pytest.raises(AgentWriteRefused) as refused:
        apply_plan(plan, False)
    assert refused.value.exit_code == 4 and refused.value.detail["plan"]["action"] == "forget"
    assert file_bytes(memory) == before
    apply_plan(plan, True)
    assert not (memory / "build.md").exists()
    index = (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert "build.md" not in index and "feedback_testing.md" in index
    assert not any(p.name.startswith(".memtui-tmp-") for p in memory.iterdir())


def test_a_file_changed_since_read_is_refused_and_nothing_written(claude: ClaudeFixture) -> None:
    memory = claude.memory(claude.app)
    plan = plan_forget(claude.home, memory / "build.md")
    index = memory / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- [New](new.md) — by the agent\n",
                     encoding="utf-8")
    before = file_bytes(memory)
    with pytest.raises(ChangedSinceRead):
        apply_plan(plan, True)
    assert file_bytes(memory) == before


def test_replace_keeps_the_mode_and_refuses_a_race(claude: ClaudeFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = claude.memory(claude.app) / "orphan.md"
    path.chmod(0o640)
    plan = plan_edit(claude.home, path, "See the new wiki.")
    apply_plan(plan, True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_text(encoding="utf-8").startswith("---\nname: Orphan\n")
    assert "See the new wiki." in path.read_text(encoding="utf-8")
    # the agent writes between memtui's check and its rename: refused, old file kept
    plan = plan_edit(claude.home, path, "Third text.")
    real_check = safe_files.SafeFiles.check_unchanged
    calls = {"n": 0}

    def racing(files: safe_files.SafeFiles, expected: safe_files.FileStamp,
               root: Path) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # replace_file checks, writes its temporary file, re-checks
            path.write_text("written by the agent\n", encoding="utf-8")
        real_check(files, expected, root)

    monkeypatch.setattr(safe_files.SafeFiles, "check_unchanged", racing)
    with pytest.raises(ChangedSinceRead):
        apply_plan(plan, True)
    assert path.read_text(encoding="utf-8") == "written by the agent\n"
    assert not any(p.name.startswith(".memtui-tmp-") for p in path.parent.iterdir())


def test_symlinks_are_refused(claude: ClaudeFixture, tmp_path: Path) -> None:
    linked = claude.home / "projects" / claude.slug(claude.linked) / "memory" / "MEMORY.md"
    with pytest.raises(UnsafePath):
        plan_forget(claude.home, linked)
    outside = tmp_path / "outside.md"
    outside.write_text("x\n", encoding="utf-8")
    link = claude.memory(claude.app) / "link.md"
    os.symlink(outside, link)
    with pytest.raises(UnsafePath):
        plan_forget(claude.home, link)
    with pytest.raises(UnsafePath):
        plan_redact(claude.home, link)
    assert outside.read_text(encoding="utf-8") == "x\n"


def test_redact_shows_a_diff_without_the_value(claude: ClaudeFixture) -> None:
    path = claude.memory(claude.secret) / "deploy.md"
    plan = plan_redact(claude.home, path)
    diff = plan.diff()
    assert GITHUB_TOKEN not in diff and "«github-pat»" in diff and "[REDACTED]" in diff
    assert GITHUB_TOKEN not in json.dumps(plan.to_json())
    apply_plan(plan, True)
    assert GITHUB_TOKEN not in path.read_text(encoding="utf-8")
    row = read_claude_home(claude.home, env={}, managed_dir=None).project(str(claude.secret))
    assert row is not None and row.secrets == ()
    with pytest.raises(AgentNotFound):
        plan_redact(claude.home, path)


def test_fix_index_drops_broken_links_and_adds_unlisted_files(claude: ClaudeFixture) -> None:
    memory = claude.memory(claude.app)
    apply_plan(plan_fix_index(claude.home, memory), True)
    row = read_claude_home(claude.home, env={}, managed_dir=None).project(str(claude.app))
    assert row is not None and row.index is not None
    assert row.index.dangling == () and row.index.outside == () and row.index.unindexed == ()
    assert "[Orphan](orphan.md) — not in the index" in (memory / "MEMORY.md").read_text(
        encoding="utf-8")
    assert plan_fix_index(claude.home, memory).changes == ()  # nothing left to repair


def test_fix_index_shortens_hooks_to_fit_the_byte_limit(claude: ClaudeFixture) -> None:
    memory = claude.memory(claude.big)
    plan = plan_fix_index(claude.home, memory)
    assert any("still fall past" in note for note in plan.notes)  # 250 lines > 200
    apply_plan(plan, True)
    text = (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 25_000 and text.count("\n") == 250


def test_promote_moves_a_project_memory_to_the_user_tier(claude: ClaudeFixture) -> None:
    memory = claude.memory(claude.app)
    apply_plan(plan_promote_claude(claude.home, memory / "build.md"), True)
    user = (claude.home / "CLAUDE.md").read_text(encoding="utf-8")
    assert "## Promoted from project memory" in user and "Use `make build`." in user
    assert user.startswith("# My instructions")  # the rest kept
    assert not (memory / "build.md").exists()


def test_switch_keeps_every_other_key(claude: ClaudeFixture) -> None:
    settings = claude.home / "settings.json"
    apply_plan(plan_switch(settings, claude.home, CLAUDE_SWITCH, False), True)
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["autoMemoryEnabled"] is False and data["someFutureSetting"] == {"nested": [1, 2]}
    assert data["permissions"] == {"allow": ["Bash(ls)"]}
    with pytest.raises(AgentInputError):
        plan_switch(settings, claude.home, CLAUDE_SWITCH, False)  # already off
    settings.write_text("{ not json", encoding="utf-8")
    with pytest.raises(AgentInputError, match="not valid JSON"):
        plan_switch(settings, claude.home, CLAUDE_SWITCH, True)


def test_gemini_switch_refuses_comments_and_creates_a_missing_file(
        gemini: GeminiFixture) -> None:
    settings = gemini.home / "settings.json"
    with pytest.raises(AgentInputError, match="comments"):
        plan_switch(settings, gemini.home, GEMINI_SWITCH, False)
    settings.unlink()
    apply_plan(plan_switch(settings, gemini.home, GEMINI_SWITCH, True), True)
    assert json.loads(settings.read_text(encoding="utf-8")) == {
        "experimental": {"autoMemory": True}}


def test_gemini_inbox_apply_and_dismiss(gemini: GeminiFixture) -> None:
    inbox = gemini.memory("app") / ".inbox"
    plan = plan_apply_patch(gemini.home, "app:private/0001-ci.patch")
    apply_plan(plan, True)
    assert "The CI runs on every push" in (gemini.memory("app") / "MEMORY.md").read_text(
        encoding="utf-8")
    assert not (inbox / "private" / "0001-ci.patch").exists()
    apply_plan(plan_apply_patch(gemini.home, "global/0001-tz.patch"), True)
    assert "- The user's timezone is Europe/Berlin." in (gemini.home / "GEMINI.md").read_text(
        encoding="utf-8")
    assert read_gemini_home(gemini.home, env={}).added_memories[-1].endswith("Berlin.")
    before = file_bytes(gemini.home)
    with pytest.raises(AgentInputError, match="does not apply"):
        plan_apply_patch(gemini.home, "private/0002-stale.patch")
    with pytest.raises(AgentInputError, match="malformed"):
        plan_apply_patch(gemini.home, "private/0003-broken.patch")
    assert file_bytes(gemini.home) == before
    apply_plan(plan_dismiss_patch(gemini.home, "private/0003-broken.patch"), True)
    assert [patch.id for patch in list_gemini_inbox(gemini.home)] == [
        "private/0002-stale.patch"]
    with pytest.raises(AgentNotFound):
        plan_dismiss_patch(gemini.home, "private/nope.patch")


def test_gemini_forget_and_promote(gemini: GeminiFixture) -> None:
    apply_plan(plan_forget_fact(gemini.home, "tabs in Go"), True)
    assert read_gemini_home(gemini.home, env={}).added_memories == ()
    with pytest.raises(AgentNotFound):
        plan_forget_fact(gemini.home, "tabs in Go")
    memory = gemini.memory("app")
    apply_plan(plan_promote_gemini(gemini.home, memory / "conventions.md"), True)
    assert "- Files are kebab-case." in (gemini.home / "GEMINI.md").read_text(encoding="utf-8")
    assert "conventions.md" not in (memory / "MEMORY.md").read_text(encoding="utf-8")
    apply_plan(plan_forget(gemini.home, memory / "unlisted.md"), True)
    assert not (memory / "unlisted.md").exists()


BOM = b"\xef\xbb\xbf"


def _bom_crlf(path: Path) -> bytes:
    """Rewrite ``path`` with a BOM and CRLF lines, as a Windows editor saves it; its bytes."""
    data = BOM + path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    path.write_bytes(data)
    return data


def test_redact_and_promote_keep_the_bom_and_crlf_lines(claude: ClaudeFixture) -> None:
    deploy = claude.memory(claude.secret) / "deploy.md"
    _bom_crlf(deploy)
    apply_plan(plan_redact(claude.home, deploy), True)
    data = deploy.read_bytes()
    assert data.startswith(BOM + b"---\r\n") and b"[REDACTED]" in data
    assert data.count(b"\n") == data.count(b"\r\n")

    user = claude.home / "CLAUDE.md"
    before = _bom_crlf(user)
    apply_plan(plan_promote_claude(claude.home, claude.memory(claude.app) / "build.md"), True)
    data = user.read_bytes()
    assert data.startswith(before.rstrip(b"\r\n")) and b"Use `make build`." in data
    assert data.count(b"\n") == data.count(b"\r\n")
