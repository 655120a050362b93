"""Reading a Codex home: the fixture, every kind of bad input, the database."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from datetime import timedelta
from pathlib import Path

import codex_fixture as fx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unprivileged import child_command

from memtui.engine.codex.diagnosis import diagnose_jobs
from memtui.engine.codex.models import Job
from memtui.engine.codex.parsers import (
    parse_memory_md,
    parse_memory_summary,
    parse_raw_memories,
    parse_rollout_summary,
)
from memtui.engine.codex.paths import (
    MEMORIES_DIR,
    NOTES_DIR_PARTS,
    ROLLOUT_SUMMARIES_DIR,
    SKILL_FILE,
    SKILLS_DIR,
    resolve_codex_home,
    resolve_codex_sqlite_home,
)
from memtui.engine.codex.reader import read_codex_home
from memtui.store.codex_db import (
    CodexDbLocked,
    CodexDbMissing,
    CodexDbNotADatabase,
    CodexDbSchemaError,
    detect_layout,
    read_codex_db,
)
from memtui.store.codex_models import CodexDbRead, JobRow

FAST_TIMEOUT_S = 0.1


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fx.build_codex_home(tmp_path)


def memories(home: Path) -> Path:
    return home / "memories"


def read_db(path: Path, busy_timeout_s: float = 2.0) -> CodexDbRead:
    """The memory tables of one file (``read_codex_db``) beside its folder's layout."""
    layout = detect_layout(path.parent, busy_timeout_s)
    return read_codex_db(path, CodexDbRead(layout), busy_timeout_s=busy_timeout_s)


def reasons(codex, fragment: str) -> list[str]:
    return [str(problem) for problem in codex.problems if fragment in str(problem)]


# --- the fixture, read whole -------------------------------------------------------------


def test_reads_every_part_of_a_realistic_home(home: Path) -> None:
    codex = read_codex_home(home, fx.NOW)
    assert [str(p) for p in codex.problems] == reasons(codex, fx.BAD_NOTE)
    assert len(codex.problems) == 1

    assert codex.summary is not None and codex.summary.valid_v1
    assert [s.title for s in codex.summary.sections] == [
        "User Profile", "User preferences", "General Tips", "What's in Memory"]
    assert [t.topic for t in codex.summary.topics] == ["cache prefill", "api retries",
                                                       "style pass"]
    assert codex.summary.topics[0].learnings == "the test raced on a shared cache dir"
    assert codex.summary.older_topics == ("initial repo setup: uv, pre-commit",)

    ninfer, handbook = codex.task_groups
    assert ninfer.name == "ninfer cache and API client"
    assert ninfer.cwd == fx.PROJECT_CWD and handbook.cwd == fx.DOCS_CWD
    assert ninfer.reuse_rule == "safe for any checkout of ninfer on main"
    assert [t.number for t in ninfer.tasks] == [1, 2]
    assert ninfer.tasks[0].keywords[-1] == "NINFER_CACHE_DIR"
    assert ninfer.tasks[0].rollout_summary_files[0].thread_id == fx.THREAD_V7
    assert ninfer.tasks[0].rollout_summary_files[0].path.endswith(fx.SUMMARY_FILES[fx.THREAD_V7])
    assert len(ninfer.preferences) == 1 and len(ninfer.knowledge) == 2
    assert ninfer.failures == ("retrying on 4xx made things worse; retry only 429 and 5xx "
                               "[Task 2]",)
    assert handbook.tasks[0].rollout_summary_files[0].thread_id == fx.THREAD_DOCS

    assert [r.thread_id for r in codex.raw_memories] == sorted(fx.MEMORY_THREADS)
    raw = {r.thread_id: r for r in codex.raw_memories}[fx.THREAD_V7]
    assert raw.updated_at == "2026-10-02T03:29:31.000Z"
    assert raw.cwd == fx.PROJECT_CWD
    assert raw.rollout_summary_file == fx.SUMMARY_FILES[fx.THREAD_V7]
    assert raw.front_matter["task_outcome"] == "success"
    assert raw.body.startswith("---\ndescription:")

    summaries = {s.thread_id: s for s in codex.rollout_summaries}
    assert set(summaries) == set(fx.MEMORY_THREADS)
    assert summaries[fx.THREAD_V7].git_branch == "main"
    assert summaries[fx.THREAD_DOCS].git_branch is None
    assert summaries[fx.THREAD_API].body.startswith("## Task 1")

    assert [n.file_name for n in codex.notes] == list(fx.GOOD_NOTES)
    assert codex.notes[0].created_at == "2026-10-05T10:00:00.000Z"
    assert codex.instructions and codex.instructions.startswith("Write one note")
    assert codex.skills == ("run-tests",)

    assert codex.database_read
    stage1 = {s.thread_id: s for s in codex.stage1_outputs}
    assert stage1[fx.THREAD_V7].usage_count == 11 and stage1[fx.THREAD_DOCS].usage_count == 21
    assert stage1[fx.THREAD_API].last_usage is None
    assert stage1[fx.THREAD_DOCS].cwd == fx.DOCS_CWD
    assert stage1[fx.THREAD_V7].selected_for_phase2 is True
    assert codex.consolidation_max_thread_count is None  # Codex has no such table
    expected = tuple(sorted((*fx.MEMORY_THREADS, fx.THREAD_POLLUTED)))
    assert tuple(codex.memory_by_thread()) == expected


def test_hidden_entries_are_passed_over_without_a_problem(home: Path) -> None:
    before = read_codex_home(home, fx.NOW)
    (home.joinpath(MEMORIES_DIR, *NOTES_DIR_PARTS) / ".DS_Store").write_bytes(b"\x00\x01")
    (home / MEMORIES_DIR / ROLLOUT_SUMMARIES_DIR / ".draft.md").write_text("no header line\n")
    (home / MEMORIES_DIR / SKILLS_DIR / ".hidden-skill").mkdir(parents=True)
    (home / MEMORIES_DIR / SKILLS_DIR / ".hidden-skill" / SKILL_FILE).write_text("x\n")
    after = read_codex_home(home, fx.NOW)
    assert [str(p) for p in after.problems] == [str(p) for p in before.problems]
    assert after.notes == before.notes and after.skills == before.skills
    assert after.rollout_summaries == before.rollout_summaries


def test_jobs_show_why_consolidation_is_stuck(home: Path) -> None:
    codex = read_codex_home(home, fx.NOW)
    jobs = {(j.kind, j.job_key): j for j in codex.jobs}
    stuck = jobs[("memory_consolidate_global", "global")]
    assert stuck.running_past_lease and not stuck.lease_held and stuck.is_consolidation
    errored = jobs[("memory_stage1", fx.THREAD_ERRORED)]
    assert errored.retries_exhausted and errored.last_error == fx.STAGE1_ERROR
    retrying = jobs[("memory_stage1", fx.THREAD_RETRYING)]
    assert retrying.retry_pending and not retrying.retries_exhausted
    text = "\n".join(codex.diagnosis)
    assert "lease expired" in text and "worker-c" in text
    assert fx.STAGE1_ERROR in text and "will retry after 13:00 UTC (in 1 h)" in text
    assert "no retries left" in text and fx.THREAD_ERRORED in text
    # Earlier, while the lease was still valid, nothing about the global job is stuck.
    earlier = [j.at(fx.NOW - timedelta(hours=3)) for j in codex.jobs]
    assert earlier[0].lease_held or any(j.lease_held for j in earlier)
    [global_line, *_rest] = diagnose_jobs(earlier, fx.NOW - timedelta(hours=3))
    assert "waiting for the lease held by worker worker-c until 10:00 UTC (in 1 h)" in \
        global_line


def _job(status: str, *, retry_remaining: int, error: str | None = None,
         retry_at: int | None = None, lease_until: int | None = None) -> Job:
    row = JobRow("memory_consolidate_global", "global", status, "w", None, 0, None,
                 lease_until, retry_at, retry_remaining, error, None, None)
    return Job.from_row(row, fx.NOW)


def test_diagnosis_of_global_failures() -> None:
    now_unix = int(fx.NOW.timestamp())
    # Codex never counts the global job's retries: zero left still runs at the next start
    exhausted = _job("error", retry_remaining=0, error="context window\nexceeded")
    [line] = diagnose_jobs([exhausted], fx.NOW)
    assert "failed (context window exceeded)" in line and "next Codex start runs it" in line
    assert not exhausted.retries_exhausted
    pending = _job("error", retry_remaining=2, error="boom", retry_at=now_unix + 600)
    [line] = diagnose_jobs([pending], fx.NOW)
    assert "will retry after 12:10 UTC (in 10 min)" in line
    healthy = _job("running", retry_remaining=3, lease_until=now_unix + 60)
    [waiting] = diagnose_jobs([healthy], fx.NOW)
    assert "waiting for the lease held by worker w until 12:01 UTC (in 1 min)" in waiting
    assert diagnose_jobs([_job("done", retry_remaining=3)], fx.NOW) == []


def test_to_json_is_plain_json(home: Path) -> None:
    codex = read_codex_home(home, fx.NOW)
    data = json.loads(json.dumps(codex.to_json()))
    assert data["task_groups"][0]["tasks"][0]["keywords"][0] == "kv-cache"
    assert data["jobs"][0]["evaluated_at"] == "2026-10-06T12:00:00.000Z"
    assert data["problems"][0]["reason"].startswith("note name")


def test_paths_resolution(tmp_path: Path) -> None:
    env = {"CODEX_HOME": str(tmp_path / "env-home")}
    assert resolve_codex_home(tmp_path / "cli", env) == tmp_path / "cli"
    assert resolve_codex_home(None, env) == tmp_path / "env-home"
    assert resolve_codex_home(None, {}) == Path.home() / ".codex"
    assert resolve_codex_sqlite_home(tmp_path, {}) == tmp_path
    assert resolve_codex_sqlite_home(tmp_path, {"CODEX_SQLITE_HOME": "/x/db"}) == Path("/x/db")


def test_sqlite_home_elsewhere(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "state"
    elsewhere.mkdir()
    shutil.move(home / "memories_1.sqlite", elsewhere / "memories_1.sqlite")
    assert reasons(read_codex_home(home, fx.NOW), "memories_1.sqlite")
    codex = read_codex_home(home, fx.NOW, sqlite_home=elsewhere)
    assert codex.database_read and len(codex.stage1_outputs) == 4


def test_a_missing_home_is_said_once(tmp_path: Path) -> None:
    codex = read_codex_home(tmp_path / "nowhere", fx.NOW)
    assert [p.reason for p in codex.problems] == ["Codex home not found (or not a folder)"]


def test_a_missing_database_folder_is_named(home: Path, tmp_path: Path) -> None:
    codex = read_codex_home(home, fx.NOW, sqlite_home=tmp_path / "gone")
    assert reasons(codex, "Codex's database folder (sqlite_home) not found")
    assert not codex.database_read


# --- missing and malformed files ----------------------------------------------------------


def test_missing_files_are_problems_and_the_rest_is_read(home: Path) -> None:
    for name in ("MEMORY.md", "raw_memories.md", "memory_summary.md"):
        (memories(home) / name).unlink()
    (home / "memories_1.sqlite").unlink()
    codex = read_codex_home(home, fx.NOW)
    missing = reasons(codex, "file not found")
    assert len(missing) == 4
    assert codex.summary is None and codex.task_groups == () and not codex.database_read
    assert len(codex.rollout_summaries) == 3 and len(codex.notes) == 2


def test_missing_home_and_memories_folder(tmp_path: Path) -> None:
    codex = read_codex_home(tmp_path / "nope", fx.NOW)
    assert reasons(codex, "Codex home not found")
    bare = tmp_path / "bare"
    bare.mkdir()
    codex = read_codex_home(bare, fx.NOW)
    assert reasons(codex, "folder not found") and reasons(codex, "memories_1.sqlite")


def test_summary_without_v1(home: Path) -> None:
    path = memories(home) / "memory_summary.md"
    path.write_text("V1\n## User Profile\n\nsomeone\n", encoding="utf-8")
    codex = read_codex_home(home, fx.NOW)
    assert codex.summary is not None and not codex.summary.valid_v1
    assert codex.summary.section("user profile") == "someone"
    [problem] = reasons(codex, "not exactly 'v1'")
    assert ":1:" in problem


@pytest.mark.parametrize("first", ["", "v1 ", "v2", "# Memory summary"])
def test_summary_first_line_must_be_exactly_v1(first: str) -> None:
    summary, problems = parse_memory_summary(f"{first}\n## General Tips\n- x\n")
    assert not summary.valid_v1 and len(problems) == 1


def test_malformed_memory_md_block_is_skipped(home: Path) -> None:
    text = (memories(home) / "MEMORY.md").read_text(encoding="utf-8")
    broken = ("stray preamble line\n\n# Not a task group\n\nscope: x\n\n"
              "# Task Group: missing scope line\n\napplies_to: cwd=/x; reuse_rule=y\n\n"
              "# Task Group: no keywords\n\nscope: s\napplies_to: somewhere\n\n"
              "## Task 1: lonely task\n\n### rollout_summary_files\n\n- rollout_summaries/a.md\n\n")
    (memories(home) / "MEMORY.md").write_text(broken + text, encoding="utf-8")
    codex = read_codex_home(home, fx.NOW)
    names = [g.name for g in codex.task_groups]
    assert names == ["no keywords", "ninfer cache and API client", "team handbook"]
    assert codex.task_groups[0].cwd is None
    assert reasons(codex, "text before the first")
    assert reasons(codex, "heading is not '# Task Group: <name>'")
    assert reasons(codex, "'missing scope line' does not continue with")
    assert reasons(codex, "no '### keywords' section")
    assert reasons(codex, "applies_to is not")


def test_raw_memories_empty_and_duplicates() -> None:
    threads, problems = parse_raw_memories("# Raw Memories\n\nNo raw memories yet.\n")
    assert threads == [] and problems == []
    text = "# Raw Memories\n\n## Thread `a`\nupdated_at: nope\n\nbody\n\n## Thread `a`\n\nagain\n"
    threads, problems = parse_raw_memories(text)
    assert [t.body for t in threads] == ["body"] and threads[0].updated_at is None
    assert "repeated" in problems[0].reason
    _threads, problems = parse_raw_memories("garbage first line\n")
    assert "does not start with" in problems[0].reason


def test_rollout_summary_without_thread_id_is_skipped(home: Path) -> None:
    (memories(home) / "rollout_summaries" / "2026-10-05T00-00-00-abcd.md").write_text(
        "no header here\n\nbody\n", encoding="utf-8")
    codex = read_codex_home(home, fx.NOW)
    assert len(codex.rollout_summaries) == 3
    assert reasons(codex, "no 'thread_id:' header")
    summary, problems = parse_rollout_summary("thread_id: t\nupdated_at: 2026-10-02T03:29:31+00:00"
                                              "\n\nbody", "x/y.md")
    assert summary is not None and summary.file == "y.md" and problems == []
    assert summary.updated_at == "2026-10-02T03:29:31.000Z"


@pytest.mark.parametrize("name", [
    "note.md",
    "2026-10-05T10-00-00-Bad_Slug.md",
    "2026-10-05T10-00-00--starts-with-dash.md",
    "2026-13-05T10-00-00-bad-month.md",
    "2026-10-05 10-00-00-space.md",
    "2026-10-05T10-00-00-" + "a" * 81 + ".md",
    "2026-10-05T10-00-00-x.txt",
    "２０２６-10-05T10-00-00-fullwidth.md",
])
def test_bad_note_names_are_skipped(home: Path, name: str) -> None:
    notes = memories(home) / "extensions" / "ad_hoc" / "notes"
    (notes / fx.BAD_NOTE).unlink()
    (notes / name).write_text("text\n", encoding="utf-8")
    codex = read_codex_home(home, fx.NOW)
    assert [n.file_name for n in codex.notes] == list(fx.GOOD_NOTES)
    [problem] = codex.problems
    assert "note name does not follow" in problem.reason


# --- binary, invalid UTF-8, too large, not regular, symlinks -------------------------------


def test_binary_and_invalid_utf8_files(home: Path) -> None:
    (memories(home) / "MEMORY.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (memories(home) / "raw_memories.md").write_bytes(b"# Raw Memories\n\xff\xfe\xfa bad")
    note = memories(home) / "extensions" / "ad_hoc" / "notes" / fx.GOOD_NOTES[0]
    note.write_bytes(b"caf\xe9\n")
    codex = read_codex_home(home, fx.NOW)
    assert reasons(codex, "binary file")
    assert len(reasons(codex, "not valid UTF-8")) == 2
    assert codex.task_groups == () and codex.raw_memories == ()
    assert [n.file_name for n in codex.notes] == [fx.GOOD_NOTES[1]]
    assert codex.summary is not None and len(codex.rollout_summaries) == 3


def test_files_over_the_size_cap_are_reported(home: Path) -> None:
    big = memories(home) / "MEMORY.md"
    big.write_text(big.read_text(encoding="utf-8") + "x" * 5000, encoding="utf-8")
    codex = read_codex_home(home, fx.NOW, max_file_bytes=4096)
    assert reasons(codex, "too large")
    assert codex.task_groups == () and codex.summary is not None


def test_utf8_bom_and_crlf_are_accepted(home: Path) -> None:
    path = memories(home) / "memory_summary.md"
    path.write_bytes(b"\xef\xbb\xbfv1\r\n## User Profile\r\n\r\nsomeone\r\n")
    codex = read_codex_home(home, fx.NOW)
    assert codex.summary is not None and codex.summary.valid_v1
    assert codex.summary.section("User Profile") == "someone"


def test_fifo_and_folder_in_place_of_files_never_block(home: Path) -> None:
    (memories(home) / "MEMORY.md").unlink()
    (memories(home) / "MEMORY.md").mkdir()
    fifo = memories(home) / "extensions" / "ad_hoc" / "notes" / "2026-10-05T12-00-00-fifo.md"
    os.mkfifo(fifo)
    codex = read_codex_home(home, fx.NOW)
    assert len(reasons(codex, "not a regular file")) == 2
    assert len(codex.notes) == 2


def test_symlinks_pointing_outside_are_never_followed(home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text("thread_id: stolen\n\nTOP-SECRET-CONTENT\n", encoding="utf-8")
    summaries = memories(home) / "rollout_summaries"
    (summaries / "2026-10-06T00-00-00-evil.md").symlink_to(secret)
    notes = memories(home) / "extensions" / "ad_hoc" / "notes"
    (notes / "2026-10-06T00-00-00-evil.md").symlink_to(secret)
    (memories(home) / "raw_memories.md").unlink()
    (memories(home) / "raw_memories.md").symlink_to(secret)
    (memories(home) / "skills" / "evil").symlink_to(outside, target_is_directory=True)
    inside = notes / "2026-10-06T00-00-01-inside-link.md"
    inside.symlink_to(notes / fx.GOOD_NOTES[0])
    codex = read_codex_home(home, fx.NOW)
    assert len(reasons(codex, "points outside the Codex home")) == 4
    assert "TOP-SECRET-CONTENT" not in json.dumps(codex.to_json())
    assert "stolen" not in codex.memory_by_thread()
    assert len(codex.notes) == 3  # a link that stays inside the home is fine


def test_memories_folder_symlinked_outside(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path / "a")
    target = tmp_path / "elsewhere"
    shutil.move(home / "memories", target)
    (home / "memories").symlink_to(target, target_is_directory=True)
    codex = read_codex_home(home, fx.NOW)
    assert reasons(codex, "points outside") and codex.summary is None
    assert codex.database_read


def test_unreadable_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = memories(home) / "MEMORY.md"
    real_open = os.open

    def no_permission(target, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(target) == os.path.realpath(path):
            raise PermissionError(13, "Permission denied")
        return real_open(target, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_permission)  # root would read a chmod-000 file
    codex = read_codex_home(home, fx.NOW)
    assert reasons(codex, "permission denied") and len(codex.notes) == 2


# --- memories_1.sqlite -----------------------------------------------------------------------


def test_non_database_file(home: Path) -> None:
    (home / "memories_1.sqlite").write_bytes(b"this is not sqlite at all\n" * 200)
    codex = read_codex_home(home, fx.NOW)
    [problem] = reasons(codex, "memories_1.sqlite")
    assert "not an SQLite database" in problem and "\n" not in problem
    assert not codex.database_read and len(codex.task_groups) == 2
    with pytest.raises(CodexDbNotADatabase):
        read_db(home / "memories_1.sqlite")


def test_truncated_database(home: Path) -> None:
    db = home / "memories_1.sqlite"
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    codex = read_codex_home(home, fx.NOW)
    assert reasons(codex, "memories_1.sqlite") and not codex.database_read


def test_missing_tables_and_missing_file(tmp_path: Path) -> None:
    db = tmp_path / "memories_1.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE jobs (kind TEXT)")
    conn.close()
    with pytest.raises(CodexDbSchemaError, match="missing table"):
        read_db(db)
    with pytest.raises(CodexDbMissing):
        read_db(tmp_path / "absent.sqlite")


def test_older_schema_without_optional_columns(tmp_path: Path) -> None:
    db = tmp_path / "memories_1.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE stage1_outputs (thread_id TEXT PRIMARY KEY, raw_memory TEXT,
                                     source_updated_at TEXT);
        CREATE TABLE jobs (kind TEXT, job_key TEXT, status TEXT);
        INSERT INTO stage1_outputs VALUES ('t1', CAST(X'FF61' AS TEXT), '1700000000');
        INSERT INTO stage1_outputs VALUES (NULL, 'x', 1);
        INSERT INTO jobs VALUES ('memory_stage1', 't1', 'pending');
    """)
    conn.commit()
    conn.close()
    snapshot = read_db(db)
    [row] = snapshot.stage1_outputs
    assert row.raw_memory == "\ufffda" and row.source_updated_at == 1_700_000_000
    assert row.rollout_summary == "" and row.usage_count is None
    assert snapshot.jobs[0].retry_remaining is None and snapshot.max_thread_count is None
    assert len(snapshot.skipped_rows) == 1


def test_database_locked_by_another_process(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path, wal=False)
    holder = sqlite3.connect(home / "memories_1.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        codex = read_codex_home(home, fx.NOW, db_busy_timeout_s=FAST_TIMEOUT_S)
        with pytest.raises(CodexDbLocked, match="locked"):
            read_db(home / "memories_1.sqlite", FAST_TIMEOUT_S)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    [problem] = reasons(codex, "memories_1.sqlite")
    assert "locked by another process" in problem
    assert len(codex.task_groups) == 2 and len(codex.notes) == 2


def test_wal_database_is_readable_while_codex_writes(home: Path) -> None:
    writer = sqlite3.connect(home / "memories_1.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM stage1_outputs")
    try:
        codex = read_codex_home(home, fx.NOW, db_busy_timeout_s=FAST_TIMEOUT_S)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert codex.database_read and len(codex.stage1_outputs) == 4


def test_reading_writes_nothing(home: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    read_codex_home(home, fx.NOW)
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*")
             if p.is_file() and not p.name.endswith(("-shm", "-wal"))}
    assert after == before


READ_ONLY_SCRIPT = """
import json, sys
from pathlib import Path
from memtui.engine.codex.reader import read_codex_home
codex = read_codex_home(Path(sys.argv[1]))
print(json.dumps({"problems": [str(p) for p in codex.problems],
                  "db": codex.database_read, "groups": len(codex.task_groups),
                  "stage1": len(codex.stage1_outputs)}))
"""


def _make_read_only(path: Path) -> None:
    for item in sorted(path.rglob("*"), reverse=True):
        if not item.is_symlink():
            item.chmod(0o555 if item.is_dir() else 0o444)
    path.chmod(0o555)


def test_read_only_home(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="memtui-ro-"))
    try:
        base.chmod(0o755)
        home = fx.build_codex_home(base)
        _make_read_only(home)
        python, env = child_command(base)
        command = [*python, "-c", READ_ONLY_SCRIPT, str(home)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60,
                              check=False, cwd=str(base))
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result == {"problems": [p for p in result["problems"] if fx.BAD_NOTE in p],
                          "db": True, "groups": 2, "stage1": 4}
        assert not list(home.glob("memories_1.sqlite-*"))
    finally:
        for item in [base, *base.rglob("*")]:
            if not item.is_symlink():
                item.chmod(0o755)
        shutil.rmtree(base)


# --- property tests: parsers and the reader never raise -------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_markdown_parsers_never_raise(text: str) -> None:
    summary, _ = parse_memory_summary(text)
    assert isinstance(summary.valid_v1, bool)
    groups, _ = parse_memory_md(text)
    assert all(group.name for group in groups)
    parse_raw_memories(text)
    parse_rollout_summary(text, "f.md")


STRUCTURED_LINES = st.lists(st.sampled_from([
    "v1", "# Task Group: g", "scope: s", "applies_to: cwd=/x; reuse_rule=r", "## Task 1: t",
    "## Task x", "### rollout_summary_files", "### keywords", "- a, b",
    "- rollout_summaries/x.md (",
    "## User preferences", "- p", "  more", "## Thread `t`", "updated_at: 2026", "---",
    "cwd: /x", "### scope", "#### day", "- topic: k", "  - desc: d", "", "# ", "## ",
]), max_size=40).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(STRUCTURED_LINES)
def test_parsers_never_raise_on_structured_noise(text: str) -> None:
    parse_memory_summary(text)
    parse_memory_md(text)
    parse_raw_memories(text)
    parse_rollout_summary(text, "f.md")


HOME_FILES = ("memories/memory_summary.md", "memories/MEMORY.md", "memories/raw_memories.md",
              "memories/rollout_summaries/2026-10-02T03-29-31-abcd.md",
              "memories/extensions/ad_hoc/notes/2026-10-05T10-00-00-x.md", "memories_1.sqlite")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(HOME_FILES), st.binary(max_size=2048), st.booleans())
def test_random_bytes_in_any_file_become_problems(name: str, data: bytes, header: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        if header and name.endswith(".sqlite"):
            data = b"SQLite format 3\x00" + data
        (home / name).write_bytes(data)
        codex = read_codex_home(home, fx.NOW, db_busy_timeout_s=FAST_TIMEOUT_S)
        json.dumps(codex.to_json())
        assert codex.problems
