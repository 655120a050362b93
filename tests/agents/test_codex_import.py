"""Importing a Codex home: memories, notes, rollouts as tasks, gate 4, bad input."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import codex_fixture as fx
import pytest

from memtui.engine.api import Engine
from memtui.engine.codex.curation import forget_thread
from memtui.engine.codex.import_memories import note_kind
from memtui.engine.codex.import_report import (
    IMPORT_SOURCE,
    NOTE_THREAD_PREFIX,
    ROLLOUT_TASK_SOURCE,
    bound_text,
)
from memtui.engine.codex.reader import read_codex_home
from memtui.engine.project_picker import project_id_from_folder, usable_cwd
from memtui.engine.validation import MAX_CONTENT_BYTES
from memtui.store.timeutil import FixedClock

FAST_TIMEOUT_S = 0.1
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fx.build_codex_home(tmp_path)


@pytest.fixture
def alice(engine_for: Callable[[str], Engine]) -> Engine:
    return engine_for("alice")


def _memories(engine: Engine, project: str | None) -> list:
    return engine.identity.list_memories(project, status="all", limit=1000)


def _outcomes(report) -> dict[str, tuple[str, str | None]]:
    return {item.ref: (item.outcome, item.reason) for item in report.items}


@pytest.fixture
def locked_db(tmp_path: Path) -> Iterator[Path]:
    """A Codex home (rollback journal) whose database another process holds locked."""
    home = fx.build_codex_home(tmp_path, wal=False)
    with fx.locked_by_another_process(home / "memories_1.sqlite"):
        yield home


# --- memories ---------------------------------------------------------------------------------


def test_imports_threads_and_notes_into_projects_from_cwd(home: Path, alice: Engine) -> None:
    report = alice.codex.import_memories(home)
    # the polluted thread is what Codex itself no longer uses: skipped, with the reason
    assert report.imported == 5 and report.errors == 0 and report.skipped == {"memory_mode": 1}
    assert report.created_projects == ("ninfer", "handbook")
    assert [str(p) for p in report.problems if fx.BAD_NOTE in p.path] != []
    ninfer = alice.identity.get_project("ninfer")
    assert ninfer.root_path == fx.PROJECT_CWD and alice.identity.role("ninfer") == "owner"

    threads = {m.source_thread_id: m for m in _memories(alice, "ninfer")}
    assert set(threads) == {fx.THREAD_V7, fx.THREAD_API}
    v7 = threads[fx.THREAD_V7]
    assert v7.source == IMPORT_SOURCE and v7.kind == "fact" and v7.scope == "project"
    assert v7.content.startswith("fixed the flaky prefill/decode cache test\n")
    assert "a temp dir per test fixed it" in v7.content and "Rollout summary:" in v7.content
    assert "description:" not in v7.content  # front matter became the title line
    [docs] = _memories(alice, "handbook")
    assert docs.source_thread_id == fx.THREAD_DOCS

    notes = {m.source_thread_id: m for m in _memories(alice, None)}
    prefer = notes[f"{NOTE_THREAD_PREFIX}{fx.GOOD_NOTES[0]}"]
    assert prefer.kind == "preference" and prefer.scope == "user"
    assert notes[f"{NOTE_THREAD_PREFIX}{fx.GOOD_NOTES[1]}"].kind == "fact"
    actions = [entry.action for entry in alice.identity.audit(100)]
    assert "codex_memories_imported" in actions and actions.count("memory_created") == 5


def test_importing_twice_adds_nothing(home: Path, alice: Engine) -> None:
    importer = alice.codex
    first = importer.import_memories(home)
    again = importer.import_memories(home)
    assert again.imported == 0 and again.skipped == {"already_imported": 5,
                                                    "memory_mode": 1}
    assert {item.target_id for item in again.items} == {item.target_id for item in first.items}
    assert again.created_projects == ()
    assert len(_memories(alice, "ninfer")) == 2 and len(_memories(alice, None)) == 2


def test_superseded_import_still_counts_as_imported(home: Path, alice: Engine) -> None:
    importer = alice.codex
    importer.import_memories(home)
    [memory] = [m for m in _memories(alice, "handbook")]
    alice.identity.supersede(memory.id, "Handbook headings are sentence case.")
    assert importer.import_memories(home).imported == 0


def test_forgotten_in_memtui_is_not_imported_again(home: Path, alice: Engine) -> None:
    importer = alice.codex
    importer.import_memories(home)
    [docs] = _memories(alice, "handbook")
    alice.identity.forget(docs.id)
    note = next(m for m in _memories(alice, None) if m.kind == "preference")
    alice.identity.forget(note.id)
    again = importer.import_memories(home)
    outcomes = _outcomes(again)
    assert outcomes[fx.THREAD_DOCS] == ("skipped", "forgotten")
    assert outcomes[f"{NOTE_THREAD_PREFIX}{fx.GOOD_NOTES[0]}"] == ("skipped", "forgotten")
    assert again.imported == 0 and _memories(alice, "handbook") == []


def test_existing_writable_project_deepest_root_wins(home: Path,
                                                     engine_for: Callable[[str], Engine]
                                                     ) -> None:
    alice, bob = engine_for("alice"), engine_for("bob")
    alice.identity.create_project("dev", root="/home/dev")
    alice.identity.create_project("projects", root="/home/dev/projects")
    bob.identity.create_project("ninfer-bob", root=fx.PROJECT_CWD)
    bob.identity.set_member("ninfer-bob", "alice", "reader")
    alice.identity.accept_project("ninfer-bob")
    report = alice.codex.import_memories(home)
    assert report.created_projects == ()
    # the deepest root (IdentityApi.project_for_path) is bob's, which alice may only read:
    # nothing goes into it and no second project is made for the same folder; those
    # threads become alice's own memories
    projects = {item.ref: item.project for item in report.items
                if item.kind == "thread" and item.outcome == "imported"}
    assert projects == {fx.THREAD_V7: None, fx.THREAD_API: None, fx.THREAD_DOCS: "projects"}
    assert _memories(bob, "ninfer-bob") == []


def test_created_project_ids_are_unique(home: Path, engine_for: Callable[[str], Engine]) -> None:
    engine_for("bob").identity.create_project("ninfer", root="/srv/elsewhere")
    alice = engine_for("alice")
    report = alice.codex.import_memories(home)
    assert report.created_projects == ("ninfer-2", "handbook")
    assert alice.identity.get_project("ninfer-2").root_path == fx.PROJECT_CWD


def test_another_user_imports_their_own_copy(home: Path,
                                             engine_for: Callable[[str], Engine]) -> None:
    engine_for("alice").codex.import_memories(home)
    bob = engine_for("bob")
    report = bob.codex.import_memories(home)
    assert report.imported == 5  # alice's memories are invisible to bob: no leak, no skip
    assert report.created_projects == ("ninfer-2", "handbook-2")


def test_thread_without_cwd_and_redaction(tmp_path: Path, alice: Engine) -> None:
    home = tmp_path / "codex"
    summaries = home / "memories" / "rollout_summaries"
    summaries.mkdir(parents=True)
    (summaries / "2026-10-01T00-00-00-abcd.md").write_text(
        f"thread_id: t-no-cwd\nupdated_at: 2026-10-01T00:00:00+00:00\n\nUsed token {SECRET}\n",
        encoding="utf-8")
    report = alice.codex.import_memories(home)
    assert _outcomes(report) == {"t-no-cwd": ("imported", None)}
    [memory] = _memories(alice, None)
    assert memory.scope == "user" and SECRET not in memory.content
    assert "[REDACTED]" in memory.content
    assert memory.content.startswith("Codex thread t-no-cwd\n")


def test_codex_database_is_authoritative_for_threads(home: Path, alice: Engine) -> None:
    # a row gone from the database (raw_memories.md still lists it: Codex owns that file)
    conn = sqlite3.connect(home / "memories_1.sqlite")
    conn.execute("DELETE FROM stage1_outputs WHERE thread_id = ?", (fx.THREAD_V7,))
    conn.commit()
    conn.close()
    report = alice.codex.import_memories(home)
    assert _outcomes(report)[fx.THREAD_V7] == ("skipped", "not_in_database")
    assert report.imported == 4
    # Codex's own forget marks the thread polluted: then that is the reason
    forget_thread(home, fx.THREAD_API, True)
    assert _outcomes(alice.codex.import_memories(home))[fx.THREAD_API] == (
        "skipped", "memory_mode")


def test_long_content_is_cut_with_a_marker(home: Path, alice: Engine) -> None:
    name = "2026-10-06T00-00-00-long-note.md"
    notes = home / "memories" / "extensions" / "ad_hoc" / "notes"
    (notes / name).write_text("é" * (MAX_CONTENT_BYTES), encoding="utf-8")
    report = alice.codex.import_memories(home)
    assert report.truncated == (f"{NOTE_THREAD_PREFIX}{name}",)
    memory = next(m for m in _memories(alice, None)
                  if m.source_thread_id == f"{NOTE_THREAD_PREFIX}{name}")
    assert len(memory.content.encode("utf-8")) <= MAX_CONTENT_BYTES
    assert "cut by memtui's Codex import" in memory.content


def test_bad_input_is_reported_per_item_and_the_rest_imported(home: Path, tmp_path: Path,
                                                              alice: Engine) -> None:
    memories = home / "memories"
    notes = memories / "extensions" / "ad_hoc" / "notes"
    (memories / "memory_summary.md").write_text("## User Profile\n\nno version\n")
    (memories / "MEMORY.md").write_text("# Not a task group\n\nrandom\n\n"
                                        + fx.MEMORY_MD, encoding="utf-8")
    (notes / "2026-10-06T01-00-00-binary.md").write_bytes(b"\x00\x01\x02garbage\xff")
    (notes / "2026-10-06T02-00-00-latin.md").write_bytes(b"caf\xe9\n")
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside the home\n")
    (notes / "2026-10-06T03-00-00-link.md").symlink_to(outside)
    (memories / "raw_memories.md").unlink()
    report = alice.codex.import_memories(home)
    problems = "\n".join(str(p) for p in report.problems)
    for fragment in ("memory_summary.md", "MEMORY.md:1: heading is not", "binary", "UTF-8",
                     "outside the Codex home", "raw_memories.md: file not found", fx.BAD_NOTE):
        assert fragment in problems, fragment
    assert report.imported == 5 and report.errors == 0
    assert all("outside" not in m.content for m in _memories(alice, None))


def test_locked_database_skips_threads_but_imports_notes(locked_db: Path, alice: Engine) -> None:
    report = alice.codex.import_memories(locked_db, db_busy_timeout_s=FAST_TIMEOUT_S)
    assert report.database_locked and "locked by another process" in report.database_error
    assert report.skipped == {"database_unreadable": 3} and report.imported == 2
    assert alice.identity.list_projects() == []


def test_missing_home_is_one_problem(tmp_path: Path, alice: Engine) -> None:
    report = alice.codex.import_memories(tmp_path / "nowhere")
    assert report.items == () and report.imported == 0
    assert any("Codex home not found" in p.reason for p in report.problems)


# --- rollouts ---------------------------------------------------------------------------------


def _rollout(home: Path, name: str, lines: list[dict | str]) -> Path:
    path = home / "sessions" / "2026" / "10" / "07" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line)
                              for line in lines) + "\n", encoding="utf-8")
    return path


UUID_NO_RESULT = "0199a5c4-0000-7000-8000-000000000001"
UUID_NO_TIMES = "0199a5c4-0000-7000-8000-000000000002"
UUID_GARBAGE = "0199a5c4-0000-7000-8000-000000000003"
UUID_LINK = "0199a5c4-0000-7000-8000-000000000004"


def _add_bad_rollouts(home: Path, tmp_path: Path) -> None:
    meta = {"timestamp": "2026-10-07T09:00:00.000Z", "type": "session_meta",
            "payload": {"id": UUID_NO_RESULT, "timestamp": "2026-10-07T09:00:00.000Z",
                        "cwd": fx.PROJECT_CWD}}
    ask = {"timestamp": "2026-10-07T09:00:05.000Z", "type": "event_msg",
           "payload": {"type": "user_message", "message": "Still working on this"}}
    _rollout(home, f"rollout-2026-10-07T09-00-00-{UUID_NO_RESULT}.jsonl",
             [meta, ask, "{not json", '{"truncated": '])
    _rollout(home, f"rollout-2026-10-07T10-00-00-{UUID_NO_TIMES}.jsonl", [
        {"type": "session_meta", "payload": {"id": UUID_NO_TIMES, "cwd": fx.PROJECT_CWD}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "Do it"}},
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "Done"}}])
    garbage = home / "sessions" / "2026" / "10" / "07" / \
        f"rollout-2026-10-07T11-00-00-{UUID_GARBAGE}.jsonl"
    garbage.write_bytes(b"\x00\xff\xfe binary garbage \x89PNG\r\n\x1a\n")
    outside = tmp_path / "outside.jsonl"
    outside.write_text("{}\n")
    (home / "sessions" / "2026" / "10" / "07" /
     f"rollout-2026-10-07T12-00-00-{UUID_LINK}.jsonl").symlink_to(outside)


def test_rollouts_become_completed_tasks_once(home: Path, tmp_path: Path, alice: Engine) -> None:
    _add_bad_rollouts(home, tmp_path)
    importer = alice.codex
    report = importer.import_rollouts(home)
    outcomes = _outcomes(report)
    assert report.imported == 5 and report.created_projects == ("ninfer",)
    assert outcomes[UUID_NO_RESULT] == ("skipped", "missing_result")
    assert outcomes[UUID_NO_TIMES] == ("skipped", "missing_times")
    assert outcomes[UUID_GARBAGE] == ("skipped", "no_goal")
    problems = "\n".join(str(p) for p in report.problems)
    assert "outside the Codex home" in problems and UUID_LINK in problems
    assert "not valid JSON" in problems and "not valid UTF-8" in problems

    task = alice.tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, fx.THREAD_V7)
    assert task is not None and task.status == "completed" and task.project == "ninfer"
    assert task.goal == fx.GOALS[fx.THREAD_V7] and task.result == fx.RESULTS[fx.THREAD_V7]
    assert task.started_at == "2026-10-02T03:29:31.000Z" and not task.external_context
    external = {thread: alice.tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, thread)
                .external_context for thread in fx.ROLLOUT_STARTS}
    assert external == {fx.THREAD_V7: False, fx.THREAD_MCP: True, fx.THREAD_WEB: True,
                        fx.THREAD_TRUNCATED: False, fx.THREAD_UNKNOWN: False}

    again = importer.import_rollouts(home)  # unchanged files are not even opened
    assert again.imported == 0 and again.items == () and again.unchanged == 8
    assert len(alice.tasks.list_tasks(limit=100)) == 5


def test_gate_four_skips_rollouts_that_used_mcp_or_web_search(home: Path, alice: Engine,
                                                             clock: FixedClock) -> None:
    alice.codex.import_rollouts(home)
    alice.settings.update(generate_memories=1)
    summary = alice.extraction.run_round(force=True)
    assert summary.skipped == {"external_context": 2} and summary.extracted == 3
    ids = {alice.tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, thread).id: thread
           for thread in fx.ROLLOUT_STARTS}
    reasons = {ids[entry.task_id]: entry.reason for entry in alice.extraction.log(100)}
    assert reasons[fx.THREAD_MCP] == "external_context"
    assert reasons[fx.THREAD_WEB] == "external_context"
    assert reasons[fx.THREAD_V7] is None


def test_rollout_without_cwd_needs_a_project(tmp_path: Path, alice: Engine) -> None:
    home = tmp_path / "codex"
    uuid = "0199a5c4-0000-7000-8000-00000000000a"
    _rollout(home, f"rollout-2026-10-07T09-00-00-{uuid}.jsonl", [
        {"timestamp": "2026-10-07T09:00:00Z", "type": "session_meta", "payload": {"id": uuid}},
        {"timestamp": "2026-10-07T09:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "Hi"}},
        {"timestamp": "2026-10-07T09:09:01Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": "Hello"}}])
    report = alice.codex.import_rollouts(home)
    assert _outcomes(report) == {uuid: ("skipped", "no_project")}


# --- helpers ----------------------------------------------------------------------------------


def test_helpers() -> None:
    assert project_id_from_folder("My Project!") == "my-project"
    assert project_id_from_folder("…") == "codex-project"
    assert project_id_from_folder("x" * 300) == "x" * 64
    assert usable_cwd("/") is None and usable_cwd("relative/path") is None
    assert usable_cwd(None) is None and usable_cwd("/a/b/") == "/a/b"
    assert note_kind("2026-10-05T10-00-00-prefer-uv.md", "Use uv") == "preference"
    assert note_kind("2026-10-05T10-00-00-x.md", "I prefer tabs") == "preference"
    assert note_kind("2026-10-05T10-00-00-x.md", "The DB is read-only") == "fact"
    text, cut = bound_text("ab" * 100, 50)
    assert cut and text == "ab" * 25
    text, cut = bound_text("é" * 1000, 1001)
    assert cut and len(text.encode()) <= 1001 and text.endswith("more bytes not kept]")
    kept, _, marker = text.partition("\n\n[")
    omitted = int(marker.split("memtui's Codex import: ")[1].split()[0])
    assert len(kept.encode()) + omitted == 2000
    assert bound_text("short", 50) == ("short", False)


def test_import_reads_nothing_it_should_not_write(home: Path, alice: Engine) -> None:
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    alice.codex.import_memories(home)
    alice.codex.import_rollouts(home)
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*")
             if p.is_file() and not p.name.endswith(("-shm", "-wal"))}
    assert after == before
    assert read_codex_home(home).database_read
    assert sqlite3.connect(home / "memories_1.sqlite").execute(
        "SELECT count(*) FROM stage1_outputs").fetchone() == (4,)
    assert os.path.exists(home / "memories" / "raw_memories.md")


def test_a_thread_imported_as_memory_is_not_extracted_again(home: Path, alice: Engine) -> None:
    importer = alice.codex
    importer.import_memories(home)
    importer.import_rollouts(home)
    alice.settings.update(generate_memories=1)
    alice.extraction.run_round(force=True)
    task = alice.tasks.find_by_source_ref(ROLLOUT_TASK_SOURCE, fx.THREAD_V7)
    [entry] = [e for e in alice.extraction.log(100) if e.task_id == task.id]
    assert entry.reason == "already_extracted"
    assert [m.source for m in _memories(alice, "ninfer")
            if m.source_thread_id == fx.THREAD_V7] == [IMPORT_SOURCE]


def test_with_review_on_imports_wait_and_a_rejected_one_is_not_imported_again(
        home: Path, alice: Engine) -> None:
    alice.settings.update(review_new_memories=1)
    importer = alice.codex
    first = importer.import_memories(home)
    assert first.imported > 0
    assert alice.identity.list_memories("handbook") == []  # nothing active: all wait
    items = alice.review.items(source="import")
    assert len(items) == first.imported and {i.memory.status for i in items} == {"pending"}
    docs = next(i for i in items if i.memory.source_thread_id == fx.THREAD_DOCS)
    alice.review.reject(docs.id)
    again = importer.import_memories(home)
    assert again.imported == 0  # the pending ones count as imported; the rejected one is gone
    assert _outcomes(again)[fx.THREAD_DOCS] == ("skipped", "forgotten")
    for memory_id in alice.review.actionable_ids("import"):
        alice.review.approve(memory_id)
    assert alice.review.count() == 0 and alice.identity.list_memories("handbook") == []
