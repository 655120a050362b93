"""Export to Codex's folder format: renderers, names, and the read-back round trip."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.engine.codex.errors import CodexError
from memtui.engine.codex.export_format import (
    ExportGroup,
    ExportSummary,
    ExportTask,
    ExportThread,
    one_line,
    render_export,
    render_memory_md,
    render_memory_summary,
    render_raw_memories,
    render_raw_memory,
    render_rollout_summary,
    write_export,
)
from memtui.engine.codex.models import SummaryTopic
from memtui.engine.codex.naming import (
    NOTE_NAME_RE,
    is_valid_note_name,
    note_slug,
    rollout_summary_file_stem,
    stem_slug,
)
from memtui.engine.codex.parsers import parse_memory_md, parse_memory_summary, parse_raw_memories
from memtui.engine.codex.reader import read_codex_home
from memtui.errors import UnsafePath

WHEN = datetime(2026, 11, 2, 9, 30, 15, tzinfo=UTC)

THREAD_A = ExportThread(
    thread_id="0199b000-0000-7000-8000-00000000000a", updated_at=WHEN,
    cwd="/home/dev/projects/ninfer", rollout_path="memtui:task/T-1",
    raw_memory=render_raw_memory(
        {"description": "fixed the cache test", "task": "cache test",
         "task_group": "ninfer", "task_outcome": "success", "cwd": "/home/dev/projects/ninfer",
         "keywords": "cache, test"},
        "### Task 1: cache test\n\n- use a temp dir per test\n## Thread `sneaky`\n---"),
    rollout_summary="## Task 1\n\nthread_id: looks like a header but is body\n\n- done",
    slug="Cache Test: Fix!")
THREAD_B = ExportThread(
    thread_id="0199b000-0000-7000-8000-00000000000b", updated_at=WHEN.replace(hour=10),
    cwd="/home/dev/projects/handbook", rollout_path="memtui:task/T-2",
    raw_memory="### Task 1: headings\n\n- sentence case", rollout_summary="Handbook style.")
GROUPS = (
    ExportGroup(
        name="ninfer", scope="memories of project ninfer",
        cwd="/home/dev/projects/ninfer", reuse_rule="safe within this project",
        tasks=(ExportTask("fix the cache test", ("cache", "test, flaky"), (THREAD_A,)),
               ExportTask("no threads yet", ())),
        preferences=("prefers uv\nover pip",), knowledge=("cache dir is shared",)),
    ExportGroup(name="handbook", scope="memories of project handbook",
                cwd="/home/dev/projects/handbook", reuse_rule="style only",
                tasks=(ExportTask("headings", ("markdown",), (THREAD_B,)),)),
)
SUMMARY = ExportSummary(
    user_profile="Backend developer.\n## not a section",
    preferences=("prefers uv",), general_tips=("run tests first",),
    topics=(SummaryTopic("/home/dev/projects/ninfer", "2026-11-02", "cache: tests",
                        ("cache", "test")),
            SummaryTopic("/home/dev/projects/ninfer", "2026-11-02", "api", ("retry",)),
            SummaryTopic("/home/dev/projects/handbook", "2026-11-01", "style", ("markdown",))))


def test_memory_summary_starts_with_v1_and_parses_back() -> None:
    text = render_memory_summary(SUMMARY)
    assert text.splitlines()[0] == "v1"
    for heading in ("## User Profile", "## User preferences", "## General Tips",
                    "## What's in Memory", "### Older Memory Topics"):
        assert f"\n{heading}\n" in text
    summary, problems = parse_memory_summary(text)
    assert problems == [] and summary.valid_v1
    assert [s.title for s in summary.sections] == ["User Profile", "User preferences",
                                                   "General Tips", "What's in Memory"]
    assert [(t.scope, t.day, t.topic, t.keywords) for t in summary.topics] == [
        ("/home/dev/projects/ninfer", "2026-11-02", "cache - tests", ("cache", "test")),
        ("/home/dev/projects/ninfer", "2026-11-02", "api", ("retry",)),
        ("/home/dev/projects/handbook", "2026-11-01", "style", ("markdown",))]
    assert summary.older_topics == ()
    assert render_memory_summary(ExportSummary()).startswith("v1\n")


def test_memory_md_shape() -> None:
    text = render_memory_md(GROUPS)
    assert text.startswith("# Task Group: ninfer\n\nscope: memories of project ninfer\n"
                           "applies_to: cwd=/home/dev/projects/ninfer; "
                           "reuse_rule=safe within this project\n")
    assert "**" not in text and "\n* " not in text
    link = f"- rollout_summaries/{THREAD_A.summary_file_name} (cwd=/home/dev/projects/ninfer, "
    assert link in text
    assert "- cache, test  flaky" not in text and "- cache, test flaky" in text
    assert render_memory_md([]) == ""


def test_raw_memories_empty_and_ordered() -> None:
    assert render_raw_memories([]) == "# Raw Memories\n\nNo raw memories yet.\n"
    text = render_raw_memories([THREAD_B, THREAD_A])
    assert text.index(THREAD_A.thread_id) < text.index(THREAD_B.thread_id)
    assert "updated_at: 2026-11-02T09:30:15+00:00" in text
    threads, problems = parse_raw_memories(text)
    assert problems == [] and [t.thread_id for t in threads] == [THREAD_A.thread_id,
                                                                  THREAD_B.thread_id]
    assert threads[0].front_matter["task_outcome"] == "success"


def test_rollout_summary_header() -> None:
    text = render_rollout_summary(THREAD_A)
    assert text.splitlines()[:6] == [
        f"thread_id: {THREAD_A.thread_id}", "updated_at: 2026-11-02T09:30:15+00:00",
        "rollout_path: memtui:task/T-1", "cwd: /home/dev/projects/ninfer", "",
        "## Task 1"]


ROLLOUT_SUMMARY_NAME_RE = re.compile(
    r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9A-Za-z]{4})(?:-(.+))?\.md$", re.ASCII)
"""A rollout summary name: ``<YYYY-MM-DDTHH-MM-SS>-<4 base62 chars>[-<slug>].md``."""


def test_rollout_summary_names_and_slugs() -> None:
    name = THREAD_A.summary_file_name
    match = ROLLOUT_SUMMARY_NAME_RE.match(name)
    # Codex's rule: a UUID thread id names the file by its own embedded time and low bits
    assert name == rollout_summary_file_stem(THREAD_A.thread_id, THREAD_A.updated_at,
                                             THREAD_A.slug) + ".md"
    assert match and match.group(3) == "cache_test__fix"  # trailing "_" trimmed
    assert name == THREAD_A.summary_file_name  # stable


@given(st.text(max_size=200))
def test_slug_rules_hold_for_any_text(text: str) -> None:
    slug = stem_slug(text)
    assert len(slug) <= 60 and re.fullmatch(r"[a-z0-9_]*", slug)
    note = note_slug(text)
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]{0,79}", note)
    name = f"2026-11-02T09-30-15-{note}.md"
    assert is_valid_note_name(name) and NOTE_NAME_RE.match(name)


def test_round_trip_through_the_reader(tmp_path: Path) -> None:
    home = tmp_path / "export-home"
    home.mkdir()
    write_export(home / "memories", render_export(SUMMARY, GROUPS, [THREAD_A, THREAD_B]))
    codex = read_codex_home(home)
    assert [p.path.endswith("memories_1.sqlite") for p in codex.problems] == [True]
    assert codex.summary is not None and codex.summary.valid_v1
    assert len(codex.summary.topics) == 3

    ninfer, handbook = codex.task_groups
    for read, written in ((ninfer, GROUPS[0]), (handbook, GROUPS[1])):
        assert (read.name, read.scope, read.cwd, read.reuse_rule) == (
            written.name, written.scope, written.cwd, written.reuse_rule)
        assert [t.title for t in read.tasks] == [t.title for t in written.tasks]
        assert read.preferences == written.preferences
        assert read.knowledge == written.knowledge and read.failures == ()
    assert ninfer.tasks[0].keywords == ("cache", "test flaky")
    [link] = ninfer.tasks[0].rollout_summary_files
    assert link.thread_id == THREAD_A.thread_id
    assert link.path == f"rollout_summaries/{THREAD_A.summary_file_name}"
    assert ninfer.tasks[1].rollout_summary_files == () and ninfer.tasks[1].keywords == ()

    raw = {r.thread_id: r for r in codex.raw_memories}
    summaries = {s.thread_id: s for s in codex.rollout_summaries}
    for thread in (THREAD_A, THREAD_B):
        assert raw[thread.thread_id].updated_at == summaries[thread.thread_id].updated_at
        assert raw[thread.thread_id].updated_at == thread.updated_at.strftime(
            "%Y-%m-%dT%H:%M:%S.000Z")
        assert raw[thread.thread_id].cwd == thread.cwd
        assert raw[thread.thread_id].rollout_summary_file == thread.summary_file_name
        assert summaries[thread.thread_id].file == thread.summary_file_name
        assert summaries[thread.thread_id].body == thread.rollout_summary
        assert summaries[thread.thread_id].rollout_path == thread.rollout_path
    assert raw[THREAD_A.thread_id].body.startswith("---\ndescription: fixed the cache test")
    assert "\n ## Thread `sneaky`" in raw[THREAD_A.thread_id].body
    assert raw[THREAD_B.thread_id].body == THREAD_B.raw_memory


def test_export_never_lands_over_an_existing_folder(tmp_path: Path) -> None:
    target = tmp_path / "memories"
    target.mkdir()
    (target / "MEMORY.md").write_text("Codex's own\n", encoding="utf-8")
    with pytest.raises(CodexError, match="not an empty folder"):
        write_export(target, {"MEMORY.md": "ours"})
    assert (target / "MEMORY.md").read_text(encoding="utf-8") == "Codex's own\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (write_export(empty, {"a/b.md": "x"}) / "a" / "b.md").read_text() == "x"
    with pytest.raises(UnsafePath):
        write_export(tmp_path / "new", {"../escape.md": "x"})
    assert not (tmp_path / "escape.md").exists() and not (tmp_path / "new").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    link = tmp_path / "link"
    link.symlink_to(empty, target_is_directory=True)
    with pytest.raises(UnsafePath):
        write_export(link, {"x.md": "x"})


NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=30).filter(lambda value: one_line(value) != "")
BULLETS = st.lists(NAMES, max_size=3).map(tuple)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(NAMES, NAMES, NAMES, BULLETS, BULLETS), min_size=1, max_size=3))
def test_memory_md_round_trip_property(groups: list[tuple]) -> None:
    exported = [ExportGroup(name=name, scope=scope, cwd=f"/p/{index}", reuse_rule="r",
                            tasks=(ExportTask(title, ("k",)),), preferences=prefs,
                            knowledge=knowledge)
                for index, (name, scope, title, prefs, knowledge) in enumerate(groups)]
    read, problems = parse_memory_md(render_memory_md(exported))
    assert problems == []
    assert [g.name for g in read] == [one_line(g.name) for g in exported]
    assert [g.scope for g in read] == [one_line(g.scope) for g in exported]
    assert [g.tasks[0].title for g in read] == [one_line(g.tasks[0].title) for g in exported]
    assert [g.preferences for g in read] == [
        tuple("\n".join(line.strip() for line in item.strip().splitlines() if line.strip())
              for item in g.preferences) for g in exported]
