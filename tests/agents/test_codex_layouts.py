"""Codex homes as they really are (issue 15): layouts, threads, Codex's forget, claim-rule
diagnosis, rollouts as Codex writes them, incremental import, Codex's naming rule."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import codex_fixture as fx
import pytest
import zstandard

from memtui.engine.api import Engine
from memtui.engine.codex import import_rollouts as import_rollouts_module
from memtui.engine.codex.browse import codex_threads
from memtui.engine.codex.curation import forget_thread
from memtui.engine.codex.diagnosis import diagnose_jobs
from memtui.engine.codex.errors import CodexError
from memtui.engine.codex.models import Job
from memtui.engine.codex.naming import rollout_summary_file_stem
from memtui.engine.codex.reader import read_codex_home

READABLE = (fx.LAYOUT_MEMORIES_DB, fx.LAYOUT_STATE_DB)


@pytest.fixture
def alice(engine_for: Callable[[str], Engine]) -> Engine:
    return engine_for("alice")


def _db(home: Path, layout: str) -> Path:
    return home / ("memories_1.sqlite" if layout == fx.LAYOUT_MEMORIES_DB else "state_5.sqlite")


def _rows(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# ---- layouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", READABLE)
def test_both_readable_layouts_show_memories_threads_and_versions(tmp_path: Path,
                                                                   layout: str) -> None:
    home = fx.build_codex_home(tmp_path, layout=layout)
    codex = read_codex_home(home, fx.NOW)
    assert codex.layout is not None and codex.layout.name == layout and codex.layout.supported
    assert codex.database_read and len(codex.stage1_outputs) == 4
    expected_state = 40 if layout == fx.LAYOUT_MEMORIES_DB else 34
    assert codex.layout.state_version == expected_state
    assert codex.layout.memories_version == (1 if layout == fx.LAYOUT_MEMORIES_DB else None)
    threads = {thread.thread_id: thread for thread in codex_threads(codex)}
    polluted = threads[fx.THREAD_POLLUTED]
    assert polluted.memory_mode == "polluted" and polluted.cwd == fx.PROJECT_CWD
    assert threads[fx.THREAD_V7].git_branch == "main" and threads[fx.THREAD_V7].source == "cli"
    assert threads[fx.THREAD_V7].rollout_path and threads[fx.THREAD_V7].rollout_path.endswith(
        f"{fx.THREAD_V7}.jsonl")


def test_oldest_layout_is_named_not_shown_as_empty(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path, layout=fx.LAYOUT_OLD)
    codex = read_codex_home(home, fx.NOW)
    assert codex.layout is not None and codex.layout.name == fx.LAYOUT_OLD
    assert not codex.layout.supported and "older than Codex 2026-02" in codex.layout.description
    assert any("not supported" in problem.reason for problem in codex.problems)
    with pytest.raises(CodexError, match="older than Codex 2026-02"):
        forget_thread(home, fx.THREAD_V7, True)


def test_sqlite_home_in_config_wins_over_the_environment(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home = fx.build_codex_home(tmp_path)
    elsewhere = tmp_path / "dbs"
    elsewhere.mkdir()
    for name in ("state_5.sqlite", "memories_1.sqlite"):
        for suffix in ("", "-wal", "-shm"):
            if (home / f"{name}{suffix}").exists():
                (home / f"{name}{suffix}").rename(elsewhere / f"{name}{suffix}")
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(tmp_path / "wrong"))
    with (home / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write(f'\nsqlite_home = "{elsewhere}"\n')
    text = (home / "config.toml").read_text(encoding="utf-8")
    (home / "config.toml").write_text(f'sqlite_home = "{elsewhere}"\n' + text.replace(
        f'\nsqlite_home = "{elsewhere}"\n', "\n"), encoding="utf-8")
    codex = read_codex_home(home, fx.NOW)
    assert codex.database_read and codex.sqlite_home == str(elsewhere)


# ---- import --------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", READABLE)
def test_import_skips_what_codex_would_not_use_and_matches_cwd(tmp_path: Path, alice: Engine,
                                                                layout: str) -> None:
    home = fx.build_codex_home(tmp_path, layout=layout)
    report = alice.codex.import_memories(home)
    items = {item.ref: item for item in report.items}
    skipped = items[fx.THREAD_POLLUTED]
    assert skipped.outcome == "skipped" and skipped.reason == "memory_mode"
    assert "polluted" in (skipped.detail or "")
    assert items[fx.THREAD_V7].outcome == "imported"
    assert items[fx.THREAD_DOCS].project != items[fx.THREAD_V7].project


# ---- forget ----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", READABLE)
def test_forget_is_codex_s_forget_on_both_layouts(tmp_path: Path, layout: str) -> None:
    home = fx.build_codex_home(tmp_path, layout=layout)
    result = forget_thread(home, fx.THREAD_V7, True, now=fx.NOW)
    assert result.marked_polluted and result.stage1_rows == 1 and result.job_rows == 1
    assert result.consolidation_enqueued and result.layout == layout
    state = home / "state_5.sqlite"
    assert _rows(state, "SELECT memory_mode FROM threads WHERE id = ?", fx.THREAD_V7) == [
        ("polluted",)]
    db = _db(home, layout)
    assert _rows(db, "SELECT count(*) FROM stage1_outputs WHERE thread_id = ?",
                 fx.THREAD_V7) == [(0,)]
    assert _rows(db, "SELECT count(*) FROM jobs WHERE job_key = ?", fx.THREAD_V7) == [(0,)]
    [(status, retry_at, remaining, watermark)] = _rows(
        db, "SELECT status, retry_at, retry_remaining, input_watermark FROM jobs "
            "WHERE kind = 'memory_consolidate_global'")
    assert status == "running" and remaining == 3  # a running job stays running
    assert watermark == int(fx.NOW.timestamp())
    names = {Path(path).name for path in result.still_in}
    assert {"MEMORY.md", "raw_memories.md", "memory_summary.md"} <= names


def test_forget_of_an_unselected_row_enqueues_nothing(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    db = home / "memories_1.sqlite"
    _rows(db, "DELETE FROM jobs WHERE kind = 'memory_consolidate_global'")
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM jobs WHERE kind = 'memory_consolidate_global'")
    conn.commit()
    conn.close()
    result = forget_thread(home, fx.THREAD_API, True, now=fx.NOW)  # selected_for_phase2 = 0
    assert not result.consolidation_enqueued and result.stage1_rows == 1
    assert _rows(db, "SELECT count(*) FROM jobs WHERE kind = 'memory_consolidate_global'") \
        == [(0,)]


def test_forget_enqueue_resets_a_failed_global_job(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    db = home / "memories_1.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE jobs SET status = 'error', retry_at = 99999999999, retry_remaining = 0,"
                 " input_watermark = 5 WHERE kind = 'memory_consolidate_global'")
    conn.commit()
    conn.close()
    forget_thread(home, fx.THREAD_V7, True, now=datetime(2026, 10, 6, tzinfo=UTC))
    [(status, retry_at, remaining)] = _rows(
        db, "SELECT status, retry_at, retry_remaining FROM jobs "
            "WHERE kind = 'memory_consolidate_global'")
    assert (status, retry_at, remaining) == ("pending", None, 3)


@pytest.mark.parametrize("locked", ["state_5.sqlite", "memories_1.sqlite"])
def test_forget_waits_on_either_lock_then_fails_having_changed_nothing(
        tmp_path: Path, locked: str) -> None:
    home = fx.build_codex_home(tmp_path)
    before = (_rows(home / "state_5.sqlite", "SELECT id, memory_mode FROM threads ORDER BY id"),
              _rows(home / "memories_1.sqlite", "SELECT * FROM stage1_outputs ORDER BY 1"),
              _rows(home / "memories_1.sqlite", "SELECT * FROM jobs ORDER BY 1, 2"))
    with fx.locked_by_another_process(home / locked, "BEGIN IMMEDIATE"), \
            pytest.raises(CodexError, match="locked.*nothing was changed"):
        forget_thread(home, fx.THREAD_V7, True, busy_timeout_s=0.2)
    after = (_rows(home / "state_5.sqlite", "SELECT id, memory_mode FROM threads ORDER BY id"),
             _rows(home / "memories_1.sqlite", "SELECT * FROM stage1_outputs ORDER BY 1"),
             _rows(home / "memories_1.sqlite", "SELECT * FROM jobs ORDER BY 1, 2"))
    assert after == before
    assert any(Path(p).name.endswith(".md") for p in
               (str(q) for q in (home / "memories" / "rollout_summaries").iterdir()))


# ---- diagnosis -------------------------------------------------------------------------------


def _global(**fields: object) -> Job:
    base: dict[str, object] = dict(
        kind="memory_consolidate_global", job_key="global", status="done", worker_id="w-1",
        ownership_token=None, started_at=None, finished_at=None, lease_until=None,
        retry_at=None, retry_remaining=0, last_error=None, input_watermark=None,
        last_success_watermark=None)
    base.update(fields)
    return Job(**base).at(fx.NOW)  # type: ignore[arg-type]


def test_diagnosis_follows_codex_claim_rules_with_times() -> None:
    later = (fx.NOW + timedelta(hours=2, minutes=5)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    earlier = (fx.NOW - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    [retry] = diagnose_jobs([_global(status="error", last_error="boom", retry_at=later)],
                            fx.NOW)
    assert "will retry after 14:05 UTC (in 2 h 5 min)" in retry and "not checked" in retry
    [lease] = diagnose_jobs([_global(status="running", lease_until=later)], fx.NOW)
    assert "waiting for the lease held by worker w-1 until 14:05 UTC" in lease
    [cool] = diagnose_jobs([_global(status="done", finished_at=earlier)], fx.NOW)
    assert "succeeded 2 h ago" in cool and "not before 16:00 UTC (in 4 h)" in cool
    assert diagnose_jobs([_global(status="done", finished_at="2026-10-05T00:00:00.000Z")],
                         fx.NOW) == []
    # the global job's retry count is never "exhausted": Codex does not check it
    [due] = diagnose_jobs([_global(status="error", last_error="x", retry_remaining=0)], fx.NOW)
    assert "runs it again" in due


# ---- rollouts ------------------------------------------------------------------------------


def _line(kind: str, payload: dict[str, object], stamp: str = "2026-10-01T10:00:00.000Z"
          ) -> bytes:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload},
                      separators=(",", ":")).encode()


def _meta(thread: str, **extra: object) -> bytes:
    return _line("session_meta", {"id": thread, "timestamp": "2026-10-01T10:00:00Z",
                                  "cwd": "/w/p", "source": "cli", **extra})


def test_request_skips_every_injected_marker_and_cuts_at_the_ide_marker() -> None:
    injected = ["<environment_context>x</environment_context>",
                "# AGENTS.md instructions for /w\n<INSTRUCTIONS>x</INSTRUCTIONS>",
                "<user_shell_command>ls</user_shell_command>", "<skill>x</skill>",
                "<turn_aborted>x</turn_aborted>", "<subagent_notification>{}</subagent_notification>",
                "<recommended_plugins>x</recommended_plugins>", "<model_switch>x</model_switch>",
                "<personality_spec>x</personality_spec>", '<hook_prompt hook_run_id="1">x</hook_prompt>']
    lines = [_meta("t1")]
    lines += [_line("event_msg", {"type": "user_message", "message": text}) for text in injected]
    lines.append(_line("event_msg", {"type": "user_message", "message":
                                     "# Context from my IDE setup:\n## Active file: a.py\n\n"
                                     "## My request for Codex:\nFix the parser"}))
    lines.append(_line("event_msg", {"type": "agent_message", "message": "done"},
                       "2026-10-01T10:05:00.000Z"))
    task = fx.parse_rollout_lines(lines)
    assert task.goal == "Fix the parser" and task.result == "done"


def test_paginated_history_and_new_record_types() -> None:
    lines = [_meta("t2"),
             _line("world_state", {"x": 1}), _line("inter_agent_communication", {"y": 2}),
             _line("inter_agent_communication_metadata", {}),
             _line("compacted", {"message": "m", "replacement_history": []}),
             _line("event_msg", {"type": "item_completed", "thread_id": "t2", "turn_id": "u",
                                 "item": {"type": "UserMessage", "id": "i",
                                          "content": [{"type": "text", "text": "Add a flag",
                                                       "text_elements": []}]}}),
             _line("event_msg", {"type": "item_completed", "thread_id": "t2", "turn_id": "u",
                                 "item": {"type": "McpToolCall", "id": "m", "server": "github",
                                          "tool": "list", "arguments": {},
                                          "status": "completed"}}),
             _line("event_msg", {"type": "item_completed", "thread_id": "t2", "turn_id": "u",
                                 "item": {"type": "AgentMessage", "id": "a",
                                          "content": [{"type": "Text", "text": "Added"}]}},
                   "2026-10-01T10:09:00.000Z")]
    task = fx.parse_rollout_lines(lines)
    assert (task.goal, task.result, task.used_mcp) == ("Add a flag", "Added", True)
    assert task.problems == () and task.finished_at == "2026-10-01T10:09:00.000Z"


def test_external_context_namespaces_and_tool_search() -> None:
    base = [_meta("t3"), _line("event_msg", {"type": "user_message", "message": "go"}),
            _line("event_msg", {"type": "agent_message", "message": "ok"})]
    call = _line("response_item", {"type": "function_call", "namespace": "github",
                                   "name": "list_issues", "arguments": "{}", "call_id": "c"})
    assert fx.parse_rollout_lines([*base, call], mcp_servers=["github"]).used_mcp
    assert not fx.parse_rollout_lines([*base, call]).used_external_context
    search = _line("response_item", {"type": "tool_search_call", "call_id": "s"})
    assert fx.parse_rollout_lines([*base, search]).used_external_context


def _write_rollout(folder: Path, thread: str, lines: list[bytes], *, zst: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = b"\n".join(lines) + b"\n"
    name = f"rollout-2026-10-01T10-00-00-{thread}.jsonl"
    if zst:
        path = folder / f"{name}.zst"
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    else:
        path = folder / name
        path.write_bytes(data)
    return path


THREADS = ["0199a5c4-0000-7000-8000-00000000000" + str(i) for i in range(6)]


def _task_lines(thread: str, **meta: object) -> list[bytes]:
    return [_meta(thread, **meta), _line("event_msg", {"type": "user_message",
                                                       "message": f"request {thread}"}),
            _line("event_msg", {"type": "agent_message", "message": "answer"},
                  "2026-10-01T10:03:00.000Z")]


def test_archived_compressed_sources_and_memory_mode(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    _write_rollout(home / "sessions" / "2026" / "10" / "01", THREADS[0], _task_lines(THREADS[0]))
    _write_rollout(home / "archived_sessions", THREADS[1], _task_lines(THREADS[1]), zst=True)
    _write_rollout(home / "sessions" / "2026" / "10" / "01", THREADS[2],
                   _task_lines(THREADS[2], source="exec"))
    _write_rollout(home / "sessions" / "2026" / "10" / "01", THREADS[3],
                   _task_lines(THREADS[3], memory_mode="disabled"), zst=True)
    (home / "archived_sessions" / "rollout-2026-10-01T10-00-00-"
     f"{THREADS[4]}.jsonl.zst").write_bytes(b"not zstd at all")
    scan = fx.read_rollouts(home)
    assert {task.thread_id for task in scan.tasks} == set(THREADS[:4])
    assert any("zstd" in problem.reason for problem in scan.problems)


def test_import_rollouts_is_incremental(tmp_path: Path, alice: Engine,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / ".codex"
    day = home / "sessions" / "2026" / "10" / "01"
    _write_rollout(day, THREADS[0], _task_lines(THREADS[0]))
    _write_rollout(home / "archived_sessions", THREADS[1], _task_lines(THREADS[1]), zst=True)
    _write_rollout(day, THREADS[2], _task_lines(THREADS[2], source="exec"))
    running = _write_rollout(day, THREADS[3], _task_lines(THREADS[3])[:2])
    opened: list[str] = []
    real = import_rollouts_module.read_rollout_from

    def counting(path: Path, *args: object, **kwargs: object) -> object:
        opened.append(path.name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(import_rollouts_module, "read_rollout_from", counting)
    first = alice.codex.import_rollouts(home)
    assert first.imported == 2 and first.skipped == {"missing_result": 1,
                                                     "not_interactive": 1}
    assert len(opened) == 4
    opened.clear()
    second = alice.codex.import_rollouts(home)
    assert opened == [] and second.unchanged == 4 and second.items == ()
    with running.open("ab") as handle:  # the running session finishes
        handle.write(_task_lines(THREADS[3])[2] + b"\n")
    third = alice.codex.import_rollouts(home)
    assert opened == [running.name] and third.imported == 1 and third.unchanged == 3


# ---- naming ---------------------------------------------------------------------------------


def test_codex_naming_test_vectors() -> None:
    moment = datetime.fromtimestamp(123, UTC)
    thread = "0194f5a6-89ab-7cde-8123-456789abcdef"
    assert rollout_summary_file_stem(thread, moment, None) == "2025-02-11T15-35-19-jqmb"
    assert rollout_summary_file_stem(thread, moment, "") == "2025-02-11T15-35-19-jqmb"
    slug = rollout_summary_file_stem(
        thread, moment,
        "Unsafe Slug/With Spaces & Symbols + EXTRA_LONG_12345_67890_ABCDE_fghij_klmno")
    assert slug == ("2025-02-11T15-35-19-jqmb-"
                    "unsafe_slug_with_spaces___symbols___extra_long_12345_67890_a")
    # not a UUID: the row's time and the byte seed (seed = seed * 31 + b, wrapping u32)
    seed = 0
    for byte in b"thread-x":
        seed = (seed * 31 + byte) & 0xFFFFFFFF
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    value, code = seed % 14_776_336, ""
    for _ in range(4):
        code = alphabet[value % 62] + code
        value //= 62
    assert rollout_summary_file_stem("thread-x", moment, "__") == \
        f"1970-01-01T00-02-03-{code}"


def test_a_broken_state_database_is_a_problem_and_forget_changes_nothing(tmp_path: Path) -> None:
    home = fx.build_codex_home(tmp_path)
    for suffix in ("-wal", "-shm"):
        (home / f"state_5.sqlite{suffix}").unlink(missing_ok=True)
    (home / "state_5.sqlite").write_bytes(b"garbage" * 200)
    codex = read_codex_home(home, fx.NOW)
    assert codex.database_read and len(codex.stage1_outputs) == 4 and codex.threads == ()
    assert any(problem.path.endswith("state_5.sqlite") for problem in codex.problems)
    before = _rows(home / "memories_1.sqlite", "SELECT * FROM stage1_outputs ORDER BY 1")
    with pytest.raises(CodexError, match="state_5.sqlite.*nothing was changed"):
        forget_thread(home, fx.THREAD_V7, True)
    assert _rows(home / "memories_1.sqlite", "SELECT * FROM stage1_outputs ORDER BY 1") == before


@pytest.mark.parametrize("layout", READABLE)
def test_fixture_rollouts_of_newer_codex_on_each_layout(tmp_path: Path, alice: Engine,
                                                        layout: str) -> None:
    home = fx.build_codex_home(tmp_path, layout=layout)
    fx.write_modern_rollouts(home)
    report = alice.codex.import_rollouts(home)
    items = {item.ref: item for item in report.items}
    assert items[fx.THREAD_PAGINATED].outcome == "imported"
    assert items[fx.THREAD_EXEC].reason == "not_interactive"
    # the rollout itself says nothing; state_5.sqlite's threads row disables it
    assert items[fx.THREAD_DISABLED].reason == "memory_mode"
    task = alice.tasks.find_by_source_ref("codex", fx.THREAD_PAGINATED)
    assert task is not None and task.goal == fx.MODERN_GOAL and task.result == fx.MODERN_RESULT
    assert not any(problem.path.endswith(".zst") for problem in report.problems)
