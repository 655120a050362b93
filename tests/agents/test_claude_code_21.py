"""Claude Code 2.1 as the real program left its home (tests/data/agent_homes/claude-code-2.1.197
and -2.1.332,
written by tests/interop/scenarios/claude_code.py): topic files with nested front matter
(``metadata:`` / ``node_type`` / ``type`` / ``originSessionId``) and ``[[links]]`` between
memories. memtui reads each type, imports each with its kind, and every write it makes —
edit, redact, forget, promote, fix-index, the Agents pane's edit — changes only what it
means to: every other byte of every file stays as Claude Code wrote it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agents_fixture import AGENT_HOMES, copied_home

from memtui.engine.agents import curation
from memtui.engine.agents.claude import read_claude_home
from memtui.engine.agents.entries import entry_edit_source, row_entries
from memtui.engine.agents.errors import AgentInputError, ChangedSinceRead
from memtui.engine.agents.frontmatter import parse_front_matter, topic_type
from memtui.engine.agents.plans import apply_plan

RELEASES = ("claude-code-2.1.197", "claude-code-2.1.332")
"""The homes the real releases left (every test runs on each)."""
SLUG = "-home-alice-work-shop"
TYPES = {"testing-framework.md": "project", "ci-runner.md": "reference",
         "commit-style.md": "feedback", "user-role.md": "user"}
KINDS = {"user": "preference", "feedback": "convention", "project": "fact",
         "reference": "fact"}
LINKS = {"testing-framework.md": "[[ci-runner]]", "ci-runner.md": "[[testing-framework]]",
         "commit-style.md": "[[user-role]]"}


@pytest.fixture(params=RELEASES)
def release(request: pytest.FixtureRequest) -> str:
    """One of the homes the real releases left."""
    return str(request.param)


@pytest.fixture
def home(tmp_path: Path, release: str) -> Path:
    """A copy of the fixture home's ``.claude``."""
    return copied_home(tmp_path, release, ".claude")


def _memory(home: Path) -> Path:
    return home / "projects" / SLUG / "memory"


def _bytes(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _head(data: bytes) -> bytes:
    """The front matter block as it is in the file, through its closing fence."""
    first = data.index(b"---\n")
    return data[:data.index(b"\n---\n", first + 4) + 5]


# ---- reading what 2.1 wrote -------------------------------------------------------------


def test_the_real_files_have_nested_front_matter(release: str) -> None:
    for name, kind in TYPES.items():
        text = (AGENT_HOMES / release / ".claude" / "projects" / SLUG / "memory" / name
                ).read_text("utf-8")
        fields = parse_front_matter(text).fields
        assert fields["metadata.type"] == kind and fields["metadata.node_type"] == "memory"
        assert topic_type(fields) == kind
        assert "name" in fields and "description" in fields


def test_the_home_reads_every_type_with_no_problem(home: Path) -> None:
    read = read_claude_home(home, env={})
    assert read.home_found and not read.problems
    (row,) = read.projects
    assert not row.problems
    by_name = {item.relative: item for item in row.files if item.role == "topic"}
    assert set(by_name) == set(TYPES)
    for name, kind in TYPES.items():
        assert by_name[name].type == kind
        assert by_name[name].front_matter["metadata.originSessionId"]
    assert row.index is not None and not row.index.unindexed and not row.index.dangling


def test_flat_front_matter_is_still_read() -> None:
    flat = "---\nname: x\ndescription: y\ntype: feedback\n---\n\nbody\n"
    assert topic_type(parse_front_matter(flat).fields) == "feedback"


def test_a_nested_type_that_is_not_claude_code_s_is_a_problem_named(home: Path) -> None:
    path = _memory(home) / "user-role.md"
    path.write_text(path.read_text("utf-8").replace("  type: user", "  type: hobby"), "utf-8")
    (row,) = read_claude_home(home, env={}).projects
    assert [(Path(p.path).name, p.reason) for p in row.problems] == [
        ("user-role.md", "front matter type 'hobby' is not one of user, feedback, project, "
         "reference")]


def test_import_keeps_each_type_as_its_kind_and_reads_nothing_else(home: Path,
                                                                  tmp_path: Path) -> None:
    before = _bytes(_memory(home))
    env = {"MEMTUI_DB": str(tmp_path / "m.db"), "MEMTUI_USER": "alice", "HOME": str(tmp_path),
           "MEMTUI_CONFIG": str(tmp_path / "c.toml"), "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> Any:
        done = subprocess.run([sys.executable, "-m", "memtui", "--json", "--claude-home",
                               str(home), *args], env=env, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    report = run("claude", "import")
    assert report["imported"] == len(TYPES), report
    (project,) = report["created_projects"]
    items = run("memory", "list", "--project", project, "--source", "import")["items"]
    assert sorted(item["kind"] for item in items) == sorted(KINDS[k] for k in TYPES.values())
    ci = next(item for item in items if "CI runs" in item["content"])
    assert "[[testing-framework]]" in ci["content"]  # a link is part of the memory's text
    assert run("claude", "import")["imported"] == 0
    assert _bytes(_memory(home)) == before


# ---- every write keeps what it does not change -----------------------------------------


def test_an_edit_changes_the_body_only(home: Path) -> None:
    folder = _memory(home)
    before = _bytes(folder)
    source = curation.edit_source(home, folder / "commit-style.md")
    assert "[[user-role]]" in source.text
    new_body = source.text.replace("Start commit", "Begin commit")
    apply_plan(curation.plan_edit(home, folder / "commit-style.md", new_body, source.stamp),
               write=True)
    after = _bytes(folder)
    assert _head(after["commit-style.md"]) == _head(before["commit-style.md"])
    assert after["commit-style.md"].endswith(b"see [[user-role]].\n")
    assert b"Begin commit messages" in after["commit-style.md"]
    assert {k: v for k, v in after.items() if k != "commit-style.md"} == {
        k: v for k, v in before.items() if k != "commit-style.md"}
    (row,) = read_claude_home(home, env={}).projects
    assert next(i for i in row.files if i.relative == "commit-style.md").type == "feedback"


def test_an_edit_with_the_same_text_leaves_the_file_byte_for_byte(home: Path) -> None:
    folder = _memory(home)
    before = _bytes(folder)
    for name in TYPES:
        source = curation.edit_source(home, folder / name)
        plan = curation.plan_edit(home, folder / name, source.text, source.stamp)
        (change,) = plan.changes
        assert change.new_text == change.old_text, name
    assert _bytes(folder) == before


def test_an_edit_of_a_crlf_file_keeps_its_line_endings(home: Path) -> None:
    path = _memory(home) / "ci-runner.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    head = path.read_bytes().split(b"\r\n---\r\n")[0]
    apply_plan(curation.plan_edit(home, path, "CI runs .ci/run.\nSee [[testing-framework]]."),
               write=True)
    data = path.read_bytes()
    assert data.startswith(head + b"\r\n---\r\n")
    assert data.endswith(b"CI runs .ci/run.\r\nSee [[testing-framework]].\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_redact_replaces_the_secret_and_nothing_else(home: Path) -> None:
    path = _memory(home) / "ci-runner.md"
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    original = path.read_bytes()
    path.write_bytes(original.rstrip(b"\n") + f"\nToken: {secret}\n".encode())
    others = {k: v for k, v in _bytes(_memory(home)).items() if k != "ci-runner.md"}
    apply_plan(curation.plan_redact(home, path), write=True)
    data = path.read_bytes()
    assert secret.encode() not in data
    assert data.startswith(original.rstrip(b"\n") + b"\nToken: ")
    assert {k: v for k, v in _bytes(_memory(home)).items() if k != "ci-runner.md"} == others


def test_forget_removes_the_file_and_only_its_index_line(home: Path) -> None:
    folder = _memory(home)
    before = _bytes(folder)
    apply_plan(curation.plan_forget(home, folder / "user-role.md"), write=True)
    after = _bytes(folder)
    assert "user-role.md" not in after
    lines = before["MEMORY.md"].split(b"\n")
    assert after["MEMORY.md"] == b"\n".join(line for line in lines if b"(user-role.md)" not in line)
    assert {k: after[k] for k in TYPES if k != "user-role.md"} == {
        k: before[k] for k in TYPES if k != "user-role.md"}
    # the links to it in other memories are the user's text: kept, and reported as such
    assert b"[[user-role]]" in after["commit-style.md"]


def test_promote_moves_the_body_to_claude_md_and_keeps_the_other_files(home: Path) -> None:
    folder = _memory(home)
    before = _bytes(folder)
    apply_plan(curation.plan_promote_claude(home, folder / "testing-framework.md"), write=True)
    promoted = (home / "CLAUDE.md").read_text("utf-8")
    assert "This project tests with pytest, never unittest." in promoted
    assert "node_type" not in promoted and "originSessionId" not in promoted
    after = _bytes(folder)
    assert "testing-framework.md" not in after
    assert {k: after[k] for k in TYPES if k != "testing-framework.md"} == {
        k: before[k] for k in TYPES if k != "testing-framework.md"}


def test_fix_index_on_the_real_home_has_nothing_to_do(home: Path) -> None:
    folder = _memory(home)
    before = _bytes(folder)
    plan = curation.plan_fix_index(home, folder)
    assert plan.changes == () and plan.summary.startswith("nothing to repair in ")
    assert apply_plan(plan, False).to_json()["written"] is False
    assert _bytes(folder) == before


def test_the_agents_pane_edit_source_keeps_the_front_matter(home: Path) -> None:
    folder = _memory(home)
    found = row_entries("claude", home, SLUG, str(folder))
    entry = next(entry for entry in found.entries if entry.kind == "topic"
                 and entry.name == "ci-runner.md")
    source = entry_edit_source(home, entry)
    assert "node_type" not in source.text and "[[testing-framework]]" in source.text
    before = (folder / "ci-runner.md").read_bytes()
    apply_plan(curation.plan_edit(home, folder / "ci-runner.md", source.text + "\nMore.",
                                  source.stamp), write=True)
    assert _head((folder / "ci-runner.md").read_bytes()) == _head(before)


def test_an_edit_from_a_stale_read_is_refused_and_writes_nothing(home: Path) -> None:
    path = _memory(home) / "user-role.md"
    source = curation.edit_source(home, path)
    path.write_bytes(path.read_bytes() + b"Claude Code added this.\n")
    after_agent = path.read_bytes()
    with pytest.raises(ChangedSinceRead):
        curation.plan_edit(home, path, "new text", source.stamp)
    assert path.read_bytes() == after_agent


@pytest.mark.parametrize("body", ["", "   \n", "a\x00b"])
def test_a_bad_edit_is_refused(home: Path, body: str) -> None:
    with pytest.raises(AgentInputError):
        curation.plan_edit(home, _memory(home) / "user-role.md", body)
