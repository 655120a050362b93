"""The rules both the Agents pane and ``memtui claude|gemini …`` follow, each one engine
function: the file an auto-memory switch is written in (the one that decides it, as Claude
Code reads its settings), a redaction of several files as one plan, a row's inbox patch,
and Gemini CLI's global memory file (``context.fileName``, joined as Gemini CLI joins it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agents_fixture import AGENT_ENV, GITHUB_TOKEN, ClaudeFixture, GeminiFixture, write_file

from memtui.engine.agents import curation
from memtui.engine.agents.claude import read_claude_home
from memtui.engine.agents.claude import switch_file as claude_switch_file
from memtui.engine.agents.entries import plan_row, row_entries
from memtui.engine.agents.errors import AgentInputError, AgentNotFound
from memtui.engine.agents.overview import AgentRow, agents_overview
from memtui.engine.agents.plans import apply_plan
from memtui.engine.agents.switches import plan_auto_memory
from memtui.errors import UnsafePath

SWITCH = "autoMemoryEnabled"


@pytest.fixture(autouse=True)
def _no_agent_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)


def _row(claude: Path | None, gemini: Path | None, agent: str, key_end: str) -> AgentRow:
    rows = agents_overview(claude or "/nonexistent", gemini or "/nonexistent",
                           "/nonexistent", instructions=False).rows
    return next(row for row in rows if row.agent == agent and row.key.endswith(key_end))


def _settings(path: Path, value: object) -> Path:
    return write_file(path, json.dumps(value) if not isinstance(value, str) else value)


def test_the_claude_switch_is_written_in_the_file_that_decides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = tmp_path / ".claude", tmp_path / "app"
    shared = project / ".claude" / "settings.json"
    local = shared.with_name("settings.local.json")
    home.mkdir()
    assert claude_switch_file(home, True) == home / "settings.json"  # nothing set: the user's
    assert claude_switch_file(home, True, str(project)) == home / "settings.json"
    assert claude_switch_file(home, True, str(project), with_user=False) == shared
    _settings(home / "settings.json", {SWITCH: True, "theme": "dark"})
    assert claude_switch_file(home, True, str(project)) == home / "settings.json"
    assert claude_switch_file(home, True, str(project), with_user=False) == shared  # its own scope
    _settings(shared, {SWITCH: False})
    assert claude_switch_file(home, True, str(project)) == shared
    _settings(local, {SWITCH: "yes"})  # a yes/no word counts, as the reader reads it
    assert claude_switch_file(home, True, str(project)) == local
    assert claude_switch_file(home, True, str(project), with_user=False) == local
    assert claude_switch_file(home, True) == home / "settings.json"  # no project: the user's
    monkeypatch.chdir(tmp_path)  # a relative project is the folder's under the cwd
    assert claude_switch_file(home, True, "app", with_user=False) == local
    _settings(local, "{ nope")  # not JSON: it sets nothing, the shared file decides
    assert claude_switch_file(home, True, str(project)) == shared
    _settings(local, {"autoMemoryEnabled": [1]})  # not a switch value either
    assert claude_switch_file(home, True, str(project)) == shared


def test_the_claude_switch_file_is_read_as_the_reader_reads_it(tmp_path: Path) -> None:
    home, project = tmp_path / ".claude", tmp_path / "app"
    home.mkdir()
    kept = _settings(project / "config" / "local.json", {SWITCH: False})
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.symlink_to(Path("..") / "config" / "local.json")  # a link inside the project
    assert claude_switch_file(home, True, str(project)) == local
    local.unlink()
    local.mkdir()  # a file that may decide but cannot be read: nothing is guessed
    with pytest.raises(AgentInputError, match="may decide auto memory"):
        claude_switch_file(home, True, str(project))
    assert json.loads(kept.read_text()) == {SWITCH: False}
    local.rmdir()
    shared = _settings(project / ".claude" / "settings.json", {SWITCH: False})
    (home / "settings.json").mkdir()  # unreadable, but the project's file comes after it
    assert claude_switch_file(home, True, str(project)) == shared


def test_claude_code_never_reads_the_user_folders_settings_local(tmp_path: Path) -> None:
    home = tmp_path / ".claude"
    _settings(home / "settings.local.json", {SWITCH: False})
    assert claude_switch_file(home, True) == home / "settings.json"
    read = read_claude_home(home, instructions=False)  # the reader reads it so too
    assert read.auto_memory is True and read.switches == ()
    plan = plan_auto_memory("claude", home, True)
    assert [change.path for change in plan.changes] == [str(home / "settings.json")]


def test_a_switch_plan_writes_there_and_keeps_every_other_key(tmp_path: Path) -> None:
    home, project = tmp_path / ".claude", tmp_path / "app"
    home.mkdir()
    local = _settings(project / ".claude" / "settings.local.json", {SWITCH: False, "x": 1})
    plan = plan_auto_memory("claude", home, True, str(project))
    assert plan.root == str(local.parent) and plan.changes[0].path == str(local)
    apply_plan(plan, True)
    assert json.loads(local.read_text()) == {SWITCH: True, "x": 1}
    assert not (home / "settings.json").exists()
    _settings(home / "settings.json", "{ nope")  # the file to write is not JSON: refused
    with pytest.raises(AgentInputError, match="not valid JSON"):
        plan_auto_memory("claude", home, False)


def test_the_environment_beats_every_file_so_the_other_way_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / ".claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    with pytest.raises(AgentInputError, match=r"\$CLAUDE_CODE_DISABLE_AUTO_MEMORY=1"):
        plan_auto_memory("claude", home, True)
    assert plan_auto_memory("claude", home, False).changes[0].new_text == \
        '{\n  "autoMemoryEnabled": false\n}\n'  # the same way: written, it lasts
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")
    with pytest.raises(AgentInputError, match="environment"):
        plan_auto_memory("claude", home, False)


def test_the_gemini_switch_is_its_homes_settings(gemini: GeminiFixture) -> None:
    with pytest.raises(AgentInputError, match="comments a rewrite would lose"):
        plan_auto_memory("gemini", gemini.home, False, str(gemini.app))
    (gemini.home / "settings.json").unlink()
    plan = plan_auto_memory("gemini", gemini.home, True, str(gemini.app))
    assert [change.path for change in plan.changes] == [str(gemini.home / "settings.json")]
    assert json.loads(plan.changes[0].new_text) == {"experimental": {"autoMemory": True}}


def test_a_redaction_of_several_files_is_one_plan(claude: ClaudeFixture) -> None:
    folder = claude.memory(claude.secret)
    other = write_file(folder / "other.md", f"token {GITHUB_TOKEN} and {GITHUB_TOKEN}\n")
    one = curation.plan_redact(claude.home, folder / "deploy.md")
    assert one.summary == "redact 1 secret(s) (github-pat) in deploy.md"
    both = curation.plan_redact(claude.home, folder / "deploy.md", other)
    assert both.summary == "redact 3 secret(s) (github-pat) in 2 files"
    assert [change.path for change in both.changes] == [str(folder / "deploy.md"), str(other)]
    assert both.root == one.root
    with pytest.raises(AgentNotFound, match="no secret found"):
        curation.plan_redact(claude.home, folder / "deploy.md", folder / "MEMORY.md")
    with pytest.raises(AgentInputError, match="nothing to redact"):
        curation.plan_redact(claude.home)
    apply_plan(both, True)
    assert GITHUB_TOKEN not in other.read_text() + (folder / "deploy.md").read_text()


def test_a_rows_writes_are_planned_by_the_engine(claude: ClaudeFixture,
                                                 gemini: GeminiFixture) -> None:
    secret = _row(claude.home, None, "claude", "-src-secret")
    plan = plan_row("redact", secret, claude.home)
    assert plan == curation.plan_redact(claude.home, claude.memory(claude.secret) / "deploy.md")
    app = _row(claude.home, None, "claude", "-src-app")
    assert app.auto_memory is False  # its project's settings.json decides
    switch = plan_row("switch", app, claude.home)
    assert switch.changes[0].path == str(claude.app / ".claude" / "settings.json")
    with pytest.raises(AgentInputError, match="no memory index"):
        plan_row("fix", _row(None, gemini.home, "gemini", "global"), gemini.home)
    patch = plan_row("inbox", _row(None, gemini.home, "gemini", "app"), gemini.home, True)
    assert patch.summary.startswith("apply 0001-ci.patch to ")  # the row's first
    with pytest.raises(AgentInputError, match="no inbox patch"):
        plan_row("inbox", _row(None, gemini.home, "gemini", "web"), gemini.home)


@pytest.mark.parametrize(("name", "expected"), [
    (None, "GEMINI.md"), ("AGENTS.md", "AGENTS.md"), ([" NOTES.md ", "GEMINI.md"], "NOTES.md"),
    ([1, " "], "GEMINI.md"), ("docs/../CTX.md", "CTX.md"),
    ("/notes/CTX.md", "notes/CTX.md"),  # Gemini CLI's path.join keeps it under the home
])
def test_the_global_file_is_the_one_the_settings_name(gemini: GeminiFixture, name: object,
                                                      expected: str) -> None:
    settings = {} if name is None else {"context": {"fileName": name}}
    _settings(gemini.home / "settings.json", settings)
    assert curation.global_file(gemini.home) == gemini.home / expected
    plan = curation.plan_add_fact(gemini.home, "Reply in English.")  # no name given
    assert plan.changes[0].path == str(gemini.home / expected)


def test_a_bad_context_setting_is_refused_or_read_as_the_default(gemini: GeminiFixture
                                                                 ) -> None:
    _settings(gemini.home / "settings.json", '{"context": {"fileName": "AGENTS.md"')
    assert curation.global_file(gemini.home) == gemini.home / "GEMINI.md"  # not JSON
    for outside in ("../outside.md", "a/../../outside.md", "."):
        _settings(gemini.home / "settings.json", {"context": {"fileName": outside}})
        with pytest.raises(UnsafePath, match="leads outside"):
            curation.plan_add_fact(gemini.home, "Reply in English.")
        with pytest.raises(UnsafePath, match="leads outside"):
            curation.plan_promote_gemini(gemini.home, gemini.memory("app") / "conventions.md")
        read = row_entries("gemini", gemini.home, "global", str(gemini.home))
        assert {entry.name for entry in read.entries} == {"GEMINI.md"}
        assert "leads outside" in read.problems[0].reason
    assert not (gemini.root / "outside.md").exists()
