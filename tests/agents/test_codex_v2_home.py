"""Codex 0.169's v2 layout, on the homes the real programs wrote (tests/data/agent_homes/
codex-0.169.1 and codex-0.171.0, made by tests/interop/scenarios/codex.py): browse, the diagnosis of its
consolidation job in ``error``, import, forget, notes and export; and bad input -- a corrupt
``memories_v2_1.sqlite``, a missing table, a newer layout memtui does not know.

Each test works on a copy; the thread's ``cwd`` (absolute to the throwaway home the fixture
came from) is rewritten to a folder of the test where a test needs a real project root.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import CliResult

from memtui.engine.api import Engine
from memtui.engine.codex.browse import codex_threads
from memtui.engine.codex.curation import forget_thread, plan_forget_thread
from memtui.engine.codex.diagnosis import reason_words
from memtui.engine.codex.errors import CodexError, CodexInputError, CodexWriteRefused
from memtui.engine.codex.notes import write_note
from memtui.engine.codex.reader import read_codex_home

HOMES = Path(__file__).parents[1] / "data" / "agent_homes"
RELEASES = ("codex-0.169.1", "codex-0.171.0")
"""The homes the real releases left (every test runs on each)."""
SUMMARY = "The shop project tests with pytest, never unittest."
"""What the fake model answered as the first thread's rollout summary."""
V2_DB = "memories_v2_1.sqlite"


def _one(db: Path, sql: str, *args: object) -> tuple:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(sql, args).fetchone()
    finally:
        conn.close()
    assert row is not None
    return tuple(row)


def _all(db: Path, sql: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(row) for row in conn.execute(sql, args)]
    finally:
        conn.close()


def _execute(db: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(sql, args)
        conn.commit()
    finally:
        conn.close()


@pytest.fixture(params=RELEASES)
def home(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of a real home, its threads' ``cwd`` moved to ``<tmp>/work/shop``."""
    copy = tmp_path / "codex"
    shutil.copytree(HOMES / str(request.param) / ".codex", copy)
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    _execute(copy / "state_5.sqlite", "UPDATE threads SET cwd = ?", str(project))
    return copy


@pytest.fixture
def thread_id(home: Path) -> str:
    """The thread Codex extracted a stage-1 memory from."""
    return str(_one(home / V2_DB, "SELECT thread_id FROM stage1_outputs")[0])


@pytest.fixture
def failed_at(home: Path) -> datetime:
    """When Codex's consolidation failed (the job's ``finished_at``)."""
    stamp = _one(home / V2_DB, "SELECT finished_at FROM jobs WHERE kind = ?",
                 "memory_consolidate_global")[0]
    return datetime.fromtimestamp(int(stamp), UTC)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(home: Path) -> dict[str, str]:
    return {str(p.relative_to(home)): _digest(p) for p in sorted(home.rglob("*")) if p.is_file()}


# --- browse and diagnosis -------------------------------------------------------------------


def test_reads_the_v2_layout_codex_wrote(home: Path, thread_id: str, failed_at: datetime
                                         ) -> None:
    codex = read_codex_home(home, failed_at + timedelta(minutes=1))
    assert codex.layout is not None and codex.layout.name == "memories_v2_1"
    assert codex.layout.memory_db == str(home / V2_DB)
    assert codex.layout.memories_folder == "memories_v2"
    assert codex.memories_dir == str(home / "memories_v2")
    assert codex.database_read
    [row] = codex.stage1_outputs
    assert (row.thread_id, row.rollout_summary, row.raw_memory) == (thread_id, SUMMARY, "")
    assert row.rollout_slug == "shop-tests-pytest"
    assert row.cwd == str(home.parent / "work" / "shop")
    [summary] = codex.rollout_summaries
    assert summary.thread_id == thread_id and summary.body == SUMMARY
    assert codex.summary is None  # Codex writes memory_summary.md only after a success
    assert not [p for p in codex.problems if "memory_summary.md" in p.path
                or "MEMORY.md" in p.path or "raw_memories.md" in p.path], codex.problems
    threads = {thread.thread_id: thread for thread in codex_threads(codex)}
    assert threads[thread_id].in_database and threads[thread_id].description == SUMMARY
    assert threads[thread_id].job_status == "done"


def test_a_consolidation_in_error_is_stuck_with_codexs_reason_in_words(
        home: Path, failed_at: datetime) -> None:
    codex = read_codex_home(home, failed_at + timedelta(minutes=1))
    [job] = [job for job in codex.jobs if job.is_consolidation]
    assert (job.status, job.last_error) == ("error", "failed_invalid_artifacts")
    [reason] = codex.diagnosis
    assert reason.startswith("global consolidation failed (failed_invalid_artifacts: Codex's "
                             "consolidation agent finished without leaving a valid "
                             "memory_summary.md")
    assert "will retry after" in reason
    later = read_codex_home(home, failed_at + timedelta(hours=2))
    assert "its retry time has passed" in later.diagnosis[0]


def test_reason_words_keep_unknown_texts() -> None:
    assert reason_words("failed_spawn_agent").startswith("failed_spawn_agent: Codex could")
    assert reason_words("unknown field `raw_memory`") == "unknown field `raw_memory`"
    assert reason_words(None) == "no error recorded"


def test_codex_show_says_stuck_not_nothing_stuck(cli: Callable[..., CliResult], home: Path
                                                 ) -> None:
    shown = cli("codex", "show", "--codex-home", str(home))
    assert shown.code == 0, shown.err
    assert "Nothing stuck" not in shown.out and "failed_invalid_artifacts" in shown.out
    data = cli("--json", "codex", "show", "--codex-home", str(home)).json
    assert data["layout"]["name"] == "memories_v2_1" and data["consolidation_stuck"] is True
    # only the second thread (the session that ran the pipeline) has no stage-1 output
    assert sorted(thread["in_database"] for thread in data["threads"]) == [False, True]
    assert [row["rollout_summary"] for row in data["stage1_outputs"]] == [SUMMARY]


# --- import -----------------------------------------------------------------------------------


def test_import_brings_the_stage1_memory_into_its_project(
        engine_for: Callable[[str], Engine], home: Path, thread_id: str) -> None:
    alice = engine_for("alice")
    report = alice.codex.import_memories(home)
    assert [(item.ref, item.outcome) for item in report.items] == [(thread_id, "imported")]
    [memory] = alice.identity.list_memories("shop", status="all", limit=10)
    assert (memory.content, memory.kind, memory.source, memory.source_thread_id) == (
        SUMMARY, "fact", "import", thread_id)
    [(project, _role)] = alice.identity.list_projects()
    assert project.root_path == str(home.parent / "work" / "shop")
    again = alice.codex.import_memories(home)
    assert [item.reason for item in again.items] == ["already_imported"]


# --- forget -----------------------------------------------------------------------------------


def test_forget_removes_row_job_and_summary_in_the_v2_layout(home: Path, thread_id: str
                                                             ) -> None:
    before = _tree(home)
    plan = plan_forget_thread(home, thread_id)
    assert (plan.stage1_rows, plan.job_rows, len(plan.summary_files)) == (1, 1, 1)
    assert _tree(home) == before  # a plan writes nothing
    with pytest.raises(CodexWriteRefused):
        forget_thread(home, thread_id, write=False)
    assert _tree(home) == before
    result = forget_thread(home, thread_id, write=True)
    assert (result.stage1_rows, result.job_rows, result.marked_polluted) == (1, 1, True)
    assert result.layout == "memories_v2_1"
    assert result.summary_files == plan.summary_files
    assert plan.summary_files[0].startswith(str(home / "memories_v2" / "rollout_summaries"))
    assert not list((home / "memories_v2" / "rollout_summaries").iterdir())
    assert _all(home / V2_DB, "SELECT * FROM stage1_outputs") == []
    assert _all(home / V2_DB, "SELECT kind FROM jobs") == [("memory_consolidate_global",)]
    assert _one(home / "state_5.sqlite", "SELECT memory_mode FROM threads WHERE id = ?",
                thread_id) == ("polluted",)
    assert str(home / "memories_v2" / "phase2_workspace_diff.md") in result.still_in
    after = _tree(home)
    for name in ("memories_v2/phase2_workspace_diff.md",
                 "memories_v2/extensions/ad_hoc/instructions.md", "memories_1.sqlite",
                 "config.toml"):
        assert after[name] == before[name], name
    codex = read_codex_home(home)
    assert codex.stage1_outputs == () and codex.rollout_summaries == ()


# --- notes and export -------------------------------------------------------------------------


def test_a_note_goes_where_codex_0169_reads_it(home: Path) -> None:
    path = write_note(home, "prefer uv over pip", datetime(2026, 12, 1, tzinfo=UTC))
    assert path.parent == home / "memories_v2" / "extensions" / "ad_hoc" / "notes"
    assert [note.text for note in read_codex_home(home).notes] == ["prefer uv over pip\n"]


def test_export_as_a_v2_home_opens_as_one(engine_for: Callable[[str], Engine],
                                         tmp_path: Path) -> None:
    alice = engine_for("alice")
    alice.identity.add_memory("I prefer small commits", "preference", None)
    target = alice.codex.write_plan(alice.codex.plan_export(), tmp_path / "out",
                                    home_layout=True, folder="memories_v2")
    assert (target / "memories_v2" / "memory_summary.md").is_file()
    assert not (target / "memories").exists()
    codex = read_codex_home(target)
    assert codex.memories_dir == str(target / "memories_v2")
    assert codex.summary is not None and "small commits" in (
        codex.summary.section("User preferences") or "")


def test_export_refuses_an_unknown_folder(engine_for: Callable[[str], Engine],
                                          tmp_path: Path) -> None:
    alice = engine_for("alice")
    with pytest.raises(CodexInputError):
        alice.codex.write_plan(alice.codex.plan_export(), tmp_path / "out", home_layout=True,
                               folder="../memories")
    assert not (tmp_path / "out").exists()


# --- bad input --------------------------------------------------------------------------------


def test_a_corrupt_v2_database_is_named_not_read_as_empty(home: Path, thread_id: str) -> None:
    (home / V2_DB).write_bytes(b"this is not a database" * 100)
    codex = read_codex_home(home)
    assert codex.layout is not None and codex.layout.name == "memories_v2_1"
    assert not codex.database_read and codex.stage1_outputs == ()
    assert any(p.path == str(home / V2_DB) and "not an SQLite database" in p.reason
               for p in codex.problems)
    assert any("memories_v2_1.sqlite could not be read" in reason for reason in codex.diagnosis)
    before = _tree(home)
    with pytest.raises(CodexError):
        forget_thread(home, thread_id, write=True)
    assert _tree(home) == before  # neither the thread's mark nor its summary file


def test_a_missing_table_is_named(cli: Callable[..., CliResult], home: Path) -> None:
    _execute(home / V2_DB, "DROP TABLE jobs")
    codex = read_codex_home(home)
    assert not codex.database_read
    assert any("missing table(s): jobs" in p.reason for p in codex.problems)
    assert codex.diagnosis
    shown = cli("codex", "show", "--codex-home", str(home))
    assert "Nothing stuck" not in shown.out
    assert cli("--json", "codex", "show", "--codex-home", str(home)).json[
        "consolidation_stuck"] is None


def _newer_layout(home: Path) -> None:
    """What a newer Codex might leave: its memories moved to ``memories_v3_1.sqlite`` and
    ``memories_v3/``, the v2 ones left behind empty."""
    shutil.copyfile(home / V2_DB, home / "memories_v3_1.sqlite")
    shutil.copytree(home / "memories_v2", home / "memories_v3")
    _execute(home / V2_DB, "DELETE FROM stage1_outputs")
    _execute(home / V2_DB, "DELETE FROM jobs")
    shutil.rmtree(home / "memories_v2" / "rollout_summaries")


def test_a_newer_layout_is_named_read_where_known_and_never_written(
        cli: Callable[..., CliResult], home: Path, thread_id: str) -> None:
    _newer_layout(home)
    codex = read_codex_home(home)
    assert codex.layout is not None and codex.layout.name == "unknown"
    assert codex.layout.unknown_files == (str(home / "memories_v3_1.sqlite"),)
    assert "memories_v3_1.sqlite" in codex.layout.description
    assert codex.memories_dir == str(home / "memories_v3")
    assert [row.rollout_summary for row in codex.stage1_outputs] == [SUMMARY]
    assert codex.diagnosis[0].startswith("Codex keeps its memories in a layout memtui does "
                                         "not know (memories_v3_1.sqlite)")
    before = _tree(home)
    with pytest.raises(CodexError, match="does not know"):
        forget_thread(home, thread_id, write=True)
    with pytest.raises(CodexWriteRefused):
        write_note(home, "a note")
    assert _tree(home) == before
    plan = plan_forget_thread(home, thread_id)
    assert plan.stage1_rows == 1 and any("does not know" in p.reason for p in plan.problems)
    refused = cli("codex", "forget", thread_id, "--write", "--codex-home", str(home))
    assert refused.code != 0 and "does not know" in refused.err
    assert _tree(home) == before
    shown = cli("codex", "show", "--codex-home", str(home))
    assert "Nothing stuck" not in shown.out and "memories_v3_1.sqlite" in shown.out


def test_a_newer_file_without_known_tables_reads_the_known_ones(home: Path) -> None:
    _execute(home / "memories_v3_1.sqlite", "CREATE TABLE memory_items (id TEXT)")
    codex = read_codex_home(home)
    assert codex.layout is not None and codex.layout.name == "unknown"
    assert codex.layout.memory_db == str(home / V2_DB)
    assert [row.rollout_summary for row in codex.stage1_outputs] == [SUMMARY]
    assert "may be incomplete" in codex.diagnosis[0]


def test_a_newer_state_file_is_unknown_too(home: Path) -> None:
    shutil.copyfile(home / "state_5.sqlite", home / "state_6.sqlite")
    codex = read_codex_home(home)
    assert codex.layout is not None and codex.layout.name == "unknown"
    assert codex.layout.unknown_files == (str(home / "state_6.sqlite"),)
    assert codex.diagnosis and codex.stage1_outputs


def test_codexs_other_databases_are_not_a_new_layout(home: Path) -> None:
    for name in ("thread_history_1.sqlite", "goals_1.sqlite", "queue_1.sqlite"):
        assert (home / name).is_file()
    codex = read_codex_home(home)
    assert codex.layout is not None and codex.layout.unknown_files == ()


def test_a_read_only_database_is_one_line_exit_4_and_nothing_changed(
        home: Path, thread_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine.codex import curation
    from memtui.errors import AgentFileWriteFailed
    from memtui.store import codex_db

    mapped = codex_db._map_error(sqlite3.OperationalError("attempt to write a readonly "
                                                          "database"), home / V2_DB, 1.0)
    assert isinstance(mapped, codex_db.CodexDbReadOnly) and mapped.exit_code == 4

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise mapped

    before = _tree(home)
    monkeypatch.setattr(curation, "forget_thread_memory", refuse)
    with pytest.raises(AgentFileWriteFailed) as raised:
        forget_thread(home, thread_id, write=True)
    assert raised.value.exit_code == 4 and "\n" not in str(raised.value)
    assert str(raised.value).endswith("the database is read-only (attempt to write a readonly "
                                      "database); nothing was changed")
    assert _tree(home) == before
