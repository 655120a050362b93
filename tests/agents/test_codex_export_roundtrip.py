"""Export memtui's store as a Codex folder and read it back, then re-import it."""

from __future__ import annotations

from pathlib import Path

import codex_fixture as fx
import pytest

from memtui.engine.api import Engine
from memtui.engine.codex.errors import CodexInputError
from memtui.engine.codex.naming import is_valid_note_name
from memtui.engine.codex.reader import read_codex_home
from memtui.engine.demo import build_demo_store
from memtui.store.database import Store
from memtui.store.models import Memory


@pytest.fixture
def demo(tmp_path: Path) -> Store:
    store = build_demo_store(tmp_path / "demo.db")
    yield store
    store.close()


def _active(engine: Engine, project: str | None) -> list[Memory]:
    memories = engine.identity.list_memories(project, limit=1000)
    return sorted(memories, key=lambda m: (m.created_at, m.id))


def _is_thread(memory: Memory) -> bool:
    return memory.source in ("auto", "import") and bool(memory.source_thread_id)


def _first_line(text: str) -> str:
    return " ".join(text.strip().splitlines()[0].split())


def _bullet(text: str) -> str:
    return "\n".join(line.strip() for line in text.strip().splitlines() if line.strip())


def test_demo_store_round_trip(demo: Store, tmp_path: Path) -> None:
    alice = Engine(demo, "alice")
    home = alice.codex.write_plan(alice.codex.plan_export(), tmp_path / "export", home_layout=True)
    codex = read_codex_home(home)
    assert [p.path.endswith("memories_1.sqlite") for p in codex.problems] == [True]
    assert (home / "memories" / "memory_summary.md").read_text().splitlines()[0] == "v1"
    assert codex.summary is not None and codex.summary.valid_v1

    projects = sorted(alice.identity.list_projects(), key=lambda pair: pair[0].id)
    assert [g.cwd for g in codex.task_groups] == [p.root_path for p, _ in projects]
    thread_ids: set[str] = set()
    for group, (project, _role) in zip(codex.task_groups, projects, strict=True):
        memories = _active(alice, project.id)
        threads = [m for m in memories if _is_thread(m)]
        assert group.name == f"{project.name} ({project.id})"
        assert group.scope == project.summary
        assert [t.title for t in group.tasks] == [_first_line(m.content) for m in threads]
        assert [link.thread_id for t in group.tasks for link in t.rollout_summary_files] == \
            [m.source_thread_id for m in threads]
        others = [m for m in memories if not _is_thread(m)]
        assert group.preferences == tuple(_bullet(m.content) for m in others
                                          if m.kind == "preference")
        assert group.knowledge == tuple(_bullet(m.content) for m in others
                                        if m.kind != "preference")
        thread_ids.update(m.source_thread_id for m in threads)
        for task in group.tasks:
            [link] = task.rollout_summary_files
            assert (home / "memories" / link.path).is_file()
    assert len(thread_ids) == 5
    assert {r.thread_id for r in codex.raw_memories} == thread_ids
    assert {s.thread_id for s in codex.rollout_summaries} == thread_ids
    by_thread = {m.source_thread_id: m for p, _ in projects for m in _active(alice, p.id)}
    for summary in codex.rollout_summaries:
        assert summary.body == by_thread[summary.thread_id].content

    user = _active(alice, None)
    notes = [m.content for m in user if m.source == "note"]
    assert [n.text.rstrip("\n") for n in codex.notes] == notes
    assert all(is_valid_note_name(n.file_name) for n in codex.notes)
    preferences = codex.summary.section("User preferences") or ""
    assert all(m.content in preferences for m in user if m.kind == "preference")
    assert "Alice Chen" in (codex.summary.section("User Profile") or "")


def test_export_shows_only_what_the_actor_can_read(demo: Store, tmp_path: Path) -> None:
    carol = Engine(demo, "carol")
    plan = carol.codex.plan_export()
    assert plan.groups == 1 and plan.notes == 0
    text = "\n".join(plan.files.values())
    assert "Webshop (webshop)" in text and "ml-pipeline" not in text
    assert "1Password" not in text and "Bob prefers Go" not in text  # others' user memories


def test_export_then_import_into_a_new_store(demo: Store, tmp_path: Path,
                                             engine_for) -> None:
    alice = Engine(demo, "alice")
    first = alice.codex.plan_export()
    home = alice.codex.write_plan(first, tmp_path / "export", home_layout=True)
    fresh = engine_for("alice")
    report = fresh.codex.import_memories(home)
    assert report.imported == 6 and report.errors == 0  # 5 threads, 1 note
    assert sorted(report.created_projects) == ["ml-pipeline", "webshop"]
    again = fresh.codex.import_memories(home)
    assert again.imported == 0

    second = read_codex_home(fresh.codex.write_plan(fresh.codex.plan_export(),
                                                    tmp_path / "second", home_layout=True))
    original = read_codex_home(home)
    titles = {g.cwd: [t.title for t in g.tasks] for g in original.task_groups if g.tasks}
    assert {g.cwd: [t.title for t in g.tasks] for g in second.task_groups} == titles
    assert {r.thread_id for r in second.raw_memories} == \
        {r.thread_id for r in original.raw_memories}
    assert [n.file_name for n in second.notes] == [n.file_name for n in original.notes]


def test_export_refuses_existing_folders(demo: Store, tmp_path: Path) -> None:
    importer = Engine(demo, "alice").codex
    codex_home = fx.build_codex_home(tmp_path)
    memory_md = (codex_home / "memories" / "MEMORY.md").read_text()
    with pytest.raises(CodexInputError, match="not empty"):
        importer.write_plan(importer.plan_export(), codex_home / "memories")
    assert (codex_home / "memories" / "MEMORY.md").read_text() == memory_md
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(CodexInputError, match="not a folder"):
        importer.write_plan(importer.plan_export(), afile)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "empty-target", target_is_directory=True)
    with pytest.raises(CodexInputError, match="symlink"):
        importer.write_plan(importer.plan_export(), link)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (importer.write_plan(importer.plan_export(), empty) / "memory_summary.md").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") and p != codex_home]
