"""A project's own ``.gemini/settings.json`` as Gemini CLI 0.61 merges it (over the user's,
in a trusted folder only): ``context.fileName`` there decides which context files Gemini CLI
reads in that project (GEMINI.md always among them), ``experimental.autoMemory`` there its
auto memory. One rule (``gemini_projects``) for the reader, the entries, the inbox and the
switch; memtui never writes a project's settings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agents_fixture import AGENT_ENV, GITHUB_TOKEN, GeminiFixture, write_file

from memtui.engine.agents import curation, gemini_projects
from memtui.engine.agents.entries import plan_entry, plan_row, row_entries
from memtui.engine.agents.errors import AgentInputError
from memtui.engine.agents.gemini import GeminiHome, read_gemini_home
from memtui.engine.agents.gemini_projects import home_context_names
from memtui.engine.agents.gemini_review import count_gemini_inbox, review_gemini_inbox
from memtui.engine.agents.gemini_trust import (
    RESTRICTED_ENV,
    TRUST_WORKSPACE_ENV,
    TRUSTED_FOLDERS_ENV,
)
from memtui.engine.agents.inbox import patch_target, plan_apply_patch
from memtui.engine.agents.models import AgentProject
from memtui.engine.agents.overview import agents_overview
from memtui.engine.agents.settings_json import context_names, read_settings
from memtui.errors import UnsafePath

AGENTS_FACT = "Gemini wrote this from the web project."


def strip_comments(text: str) -> str:
    """JSON text without its ``//`` line comments (the fixture's settings have one)."""
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


@pytest.fixture(autouse=True)
def _no_agent_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*AGENT_ENV, TRUSTED_FOLDERS_ENV, TRUST_WORKSPACE_ENV, RESTRICTED_ENV):
        monkeypatch.delenv(name, raising=False)


def _project(gemini: GeminiFixture, settings: object, *, trusted: bool = True) -> Path:
    """The web project with ``settings`` (text as is) in its own .gemini/settings.json and
    an AGENTS.md here, in a sub-folder and in the home; trusted unless told not to."""
    text = settings if isinstance(settings, str) else json.dumps(settings)
    path = write_file(gemini.web / ".gemini" / "settings.json", text)
    write_file(gemini.web / "AGENTS.md", "Web agents.\n")
    write_file(gemini.web / "docs" / "AGENTS.md", "Docs agents.\n")
    write_file(gemini.app / "AGENTS.md", "Not read in app.\n")
    write_file(gemini.home / "AGENTS.md", f"- {AGENTS_FACT}\n")
    write_file(gemini.home / "trustedFolders.json", json.dumps(
        {str(gemini.web): "TRUST_FOLDER" if trusted else "DO_NOT_TRUST",
         str(gemini.app): "TRUST_FOLDER"}))
    return path


def _read(gemini: GeminiFixture) -> GeminiHome:
    return read_gemini_home(gemini.home, env={})


def _instructions(read: GeminiHome, project: Path) -> set[str]:
    return {str(Path(item.path).relative_to(project)) for item in read.instructions
            if Path(item.path).is_relative_to(project)}


def _row(read: GeminiHome, key: str) -> AgentProject:
    (row,) = [row for row in read.projects if row.key == key]
    return row


def test_gemini_md_is_always_among_the_names_and_a_list_is_read_in_order() -> None:
    assert context_names(None) == ("GEMINI.md",)
    assert context_names({"context": {"fileName": "AGENTS.md"}}) == ("AGENTS.md", "GEMINI.md")
    assert context_names({"context": {"fileName": [" CTX.md ", 3, "", "./AGENTS.md",
                                                   "CTX.md", "GEMINI.md"]}}) == (
        "CTX.md", "AGENTS.md", "GEMINI.md")
    assert context_names({"context": {"fileName": {"a": 1}}}) == ("GEMINI.md",)


def test_a_trusted_project_s_file_name_decides_what_is_read_there(gemini: GeminiFixture
                                                                   ) -> None:
    settings = _project(gemini, {"context": {"fileName": "AGENTS.md"}})
    before = settings.read_bytes()
    read = _read(gemini)
    assert _instructions(read, gemini.web) == {"AGENTS.md", "GEMINI.md", "docs/AGENTS.md",
                                               "docs/GEMINI.md"}
    assert _instructions(read, gemini.app) == set()  # app reads GEMINI.md (it has none)
    web = _row(read, "web")
    assert ("context.fileName", ["AGENTS.md", "GEMINI.md"], str(settings)) in [
        (s.name, s.value, s.where) for s in web.switches]
    assert read.context_files == ("GEMINI.md", "AGENTS.md")
    assert AGENTS_FACT in read.global_memories  # Gemini CLI keeps web's global facts there
    names, _own, by_slug = home_context_names(gemini.home)
    assert names == read.context_files and by_slug["web"] == ("AGENTS.md", "GEMINI.md")
    facts = row_entries("gemini", gemini.home, "global", str(gemini.home)).entries
    assert ("AGENTS.md", AGENTS_FACT) in [(entry.name, entry.fact) for entry in facts]
    target = gemini.home / "AGENTS.md"
    assert patch_target(gemini.home, gemini.memory("web"), "global", target) == target
    assert curation.global_file(gemini.home) == gemini.home / "GEMINI.md"  # every project's
    assert settings.read_bytes() == before


@pytest.mark.parametrize(("inbox", "name"), [
    ("tmp/app/memory", "AGENTS.md"),  # web's global file, not app's
    ("tmp/web/memory", "trustedFolders.json"),  # among web's names, not its first
    ("tmp/web/memory", "GEMINI.md"),
    ("memory", "AGENTS.md"),  # the home's own inbox: the home's first name only
])
def test_a_global_patch_changes_only_its_own_session_s_global_file(
        gemini: GeminiFixture, inbox: str, name: str) -> None:
    _project(gemini, {"context": {"fileName": ["AGENTS.md", "trustedFolders.json"]}})
    target = gemini.home / name
    before = target.read_bytes()
    patch = write_file(gemini.home / inbox / ".inbox" / "global" / "x.patch",
                       f"--- {target}\n+++ {target}\n@@ -0,0 +1,1 @@\n+{{}}\n")
    with pytest.raises(UnsafePath, match="outside what a global patch may change"):
        plan_apply_patch(gemini.home, str(patch))
    assert target.read_bytes() == before and patch.exists()


def test_gemini_s_own_files_are_shown_as_context_but_never_written(gemini: GeminiFixture
                                                                    ) -> None:
    _project(gemini, {"context": {"fileName": ["AGENTS.md", "oauth_creds.json"]}})
    creds = write_file(gemini.home / "oauth_creds.json", f"- login {GITHUB_TOKEN}\n")
    write_file(gemini.home / "settings.json", '{"context": {"fileName": "settings.json"}}')
    settings = (gemini.home / "settings.json").read_bytes()
    overview = agents_overview(gemini.root / "no-claude", gemini.home, gemini.root / "no-codex",
                               env={})
    (row,) = [row for row in overview.rows if row.agent == "gemini" and row.key == "global"]
    assert str(creds) in {finding.path for finding in row.secrets}  # still flagged
    entries = row_entries("gemini", gemini.home, "global", str(gemini.home)).entries
    (fact,) = [entry for entry in entries if entry.path == str(creds)]
    topic = gemini.memory("app") / "conventions.md"
    attempts = [lambda: plan_row("redact", row, gemini.home),
                lambda: plan_entry("forget", "gemini", gemini.home, fact),
                lambda: plan_entry("edit", "gemini", gemini.home, fact, text="x"),
                lambda: curation.plan_promote_gemini(gemini.home, topic),
                lambda: curation.plan_add_fact(gemini.home, "a fact")]
    for attempt in attempts:
        with pytest.raises(UnsafePath, match="Gemini CLI's own"):
            attempt()
    patch = write_file(gemini.home / "memory" / ".inbox" / "global" / "x.patch",
                       f"--- /dev/null\n+++ {gemini.home}/settings.json\n@@ -0,0 +1,1 @@\n+x\n")
    with pytest.raises(UnsafePath, match="Gemini CLI's own"):
        plan_apply_patch(gemini.home, str(patch))
    assert creds.read_text(encoding="utf-8") == f"- login {GITHUB_TOKEN}\n"
    assert (gemini.home / "settings.json").read_bytes() == settings and topic.exists()


def test_the_inbox_reads_project_settings_once_per_review_and_not_to_count(
        gemini: GeminiFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(gemini, {"context": {"fileName": "AGENTS.md"}})
    write_file(gemini.memory("web") / ".inbox" / "global" / "0001-x.patch",
               f"--- {gemini.home}/AGENTS.md\n+++ {gemini.home}/AGENTS.md\n"
               f"@@ -1,1 +1,2 @@\n - {AGENTS_FACT}\n+- x\n")
    read: list[Path] = []
    read_settings_ = gemini_projects.read_settings

    def counted(path: Path, *args: object) -> object:
        read.append(path)
        return read_settings_(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(gemini_projects, "read_settings", counted)
    own = gemini.web / ".gemini" / "settings.json"
    assert count_gemini_inbox(gemini.home, env={}) == 5 and own not in read
    review = review_gemini_inbox(gemini.home, env={})
    assert read.count(own) == 1
    row_entries("gemini", gemini.home, "app", str(gemini.memory("app")))
    assert read.count(own) == 1  # a row reads its own project's settings only
    assert {item.name: item.files for item in review if item.tier == "global"} == {
        "app:global/0001-tz.patch": ("GEMINI.md",), "web:global/0001-x.patch": ("AGENTS.md",)}


def test_a_review_judges_global_patches_with_its_own_env(gemini: GeminiFixture) -> None:
    _project(gemini, {"context": {"fileName": "AGENTS.md"}})
    write_file(gemini.memory("web") / ".inbox" / "global" / "0001-x.patch",
               f"--- {gemini.home}/AGENTS.md\n+++ {gemini.home}/AGENTS.md\n"
               f"@@ -1,1 +1,2 @@\n - {AGENTS_FACT}\n+- x\n")
    for env, applies in (({}, True), ({TRUST_WORKSPACE_ENV: "false"}, False)):
        review = review_gemini_inbox(gemini.home, env=env)
        (web,) = [item for item in review if item.project_slug == "web"]
        assert (web.apply is not None) is applies, web.problem


def test_an_untrusted_project_s_own_settings_are_not_merged(gemini: GeminiFixture) -> None:
    _project(gemini, {"context": {"fileName": "AGENTS.md"},
                      "experimental": {"autoMemory": False}}, trusted=False)
    read = _read(gemini)
    assert _instructions(read, gemini.web) == set()  # Gemini CLI loads none of its files
    assert read.context_files == ("GEMINI.md",)
    web = _row(read, "web")
    assert web.auto_memory is True
    assert {s.where for s in web.switches} == {str(gemini.home / "settings.json")}


@pytest.mark.parametrize(("settings", "names"), [
    ('{"context": {"fileName": "AGENTS.md"', ("GEMINI.md",)),  # not JSON: a problem
    ('// a comment\n{"context": {"fileName": ["AGENTS.md", 7]}}', ("AGENTS.md", "GEMINI.md")),
    ("[1, 2]", ("GEMINI.md",)),
    ("", ("GEMINI.md",)),  # empty: not JSON either (Gemini CLI stops)
    (" \n", ("GEMINI.md",)),
    ('{"context": {"fileName": ""}}', ("GEMINI.md",)),
])
def test_bad_project_settings_fall_back_to_the_home_s(gemini: GeminiFixture, settings: str,
                                                      names: tuple[str, ...]) -> None:
    _project(gemini, settings)
    read = _read(gemini)
    assert home_context_names(gemini.home).projects["web"] == names
    problems = _row(read, "web").problems
    assert bool(problems) == (settings.startswith("{") and not settings.endswith("}")
                              or settings.startswith("[") or not settings.strip())
    assert all("not valid JSON" in p.reason for p in problems)


def test_an_empty_home_settings_file_is_a_problem_for_gemini_only(gemini: GeminiFixture,
                                                                  tmp_path: Path) -> None:
    write_file(gemini.home / "settings.json", " \n")
    assert any(p.path == str(gemini.home / "settings.json") and "not valid JSON" in p.reason
               for p in _read(gemini).problems)
    claude = write_file(tmp_path / "claude" / "settings.json", "")
    assert read_settings(claude, tmp_path)[::2] == ({}, None)  # Claude Code reads {}


def test_a_name_leading_out_of_the_project_is_not_read(gemini: GeminiFixture) -> None:
    write_file(gemini.root / "src" / "outside.md", "Outside the project.\n")
    _project(gemini, {"context": {"fileName": ["../outside.md", "/docs/AGENTS.md"]}})
    read = _read(gemini)
    assert _instructions(read, gemini.web) == {"GEMINI.md", "docs/AGENTS.md",
                                               "docs/GEMINI.md"}
    assert not any(item.path.endswith("outside.md") for item in read.instructions)
    assert any("'../outside.md' leads outside the project" in p.reason for p in read.problems)
    global_problems = read.projects[0].problems
    assert any("leads outside" in p.reason for p in global_problems)


def test_a_project_s_own_auto_memory_decides_its_row_and_is_never_written(
        gemini: GeminiFixture) -> None:
    settings = _project(gemini, {"experimental": {"autoMemory": False}})
    write_file(gemini.home / "settings.json", '{"experimental": {"autoMemory": true}}')
    overview = agents_overview(gemini.root / "no-claude", gemini.home, gemini.root / "no-codex",
                               env={})
    rows = {row.key: row for row in overview.rows if row.agent == "gemini"}
    assert rows["web"].auto_memory is False and rows["app"].auto_memory is True
    with pytest.raises(AgentInputError, match="never writes a project's settings"):
        plan_row("switch", rows["web"], gemini.home)
    plan = plan_row("switch", rows["app"], gemini.home)
    assert [change.path for change in plan.changes] == [str(gemini.home / "settings.json")]
    assert json.loads(settings.read_text(encoding="utf-8")) == {
        "experimental": {"autoMemory": False}}


@pytest.mark.parametrize(("markers", "listed"), [
    (None, {"src/GEMINI.md": "parent", "src/web/GEMINI.md": "project"}),  # .git marks src
    (["package.json"], {"GEMINI.md": "parent", "src/GEMINI.md": "parent",
                        "src/web/GEMINI.md": "project"}),  # root/package.json marks root
    ([], {"src/web/GEMINI.md": "project"}),  # no markers: no folder above
    (["/abs", "../up"], {"src/web/GEMINI.md": "project"}),  # Gemini CLI skips such names
])
def test_context_files_above_a_project_up_to_its_boundary(
        gemini: GeminiFixture, markers: list[str] | None, listed: dict[str, str]) -> None:
    (gemini.root / "src" / ".git").mkdir()
    write_file(gemini.root / "package.json", "{}")
    write_file(gemini.root / "GEMINI.md", "Above the boundary unless package.json marks it.\n")
    write_file(gemini.root / "src" / "GEMINI.md", "The repository's context.\n")
    if markers is not None:
        settings = json.loads(strip_comments(
            (gemini.home / "settings.json").read_text(encoding="utf-8")))
        settings["context"]["memoryBoundaryMarkers"] = markers
        write_file(gemini.home / "settings.json", json.dumps(settings))
    read = _read(gemini)
    found = {str(Path(item.path).relative_to(gemini.root)): item.origin
             for item in read.instructions if item.origin in ("parent", "project")}
    assert found == listed
    if markers is not None:
        return
    for project in (gemini.web, gemini.app):  # each project its own root: nothing above
        write_file(project / ".git", "gitdir: elsewhere\n")
    assert {str(Path(item.path).relative_to(gemini.root)) for item in _read(gemini).instructions
            if item.origin == "parent"} == set()
