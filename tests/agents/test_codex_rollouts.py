"""Codex session rollouts read as finished tasks: goals, results, external context."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import codex_fixture as fx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.engine.codex import rollouts
from memtui.engine.codex.errors import FileProblemError
from memtui.engine.codex.rollouts import (
    is_injected_context,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return fx.build_codex_home(tmp_path)


def line(kind: str, payload: object, timestamp: str = "2026-10-01T10:00:00.000Z") -> bytes:
    return json.dumps({"timestamp": timestamp, "type": kind, "payload": payload}).encode()


def user(text: str) -> bytes:
    return line("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": text}]})


META = line("session_meta", {"id": "thread-1", "cwd": "/w", "timestamp": "2026-10-01T09:59:00Z"})


def test_fixture_rollouts_become_tasks(home: Path) -> None:
    scan = fx.read_rollouts(home)
    assert scan.problems == ()
    tasks = {task.thread_id: task for task in scan.tasks}
    assert set(tasks) == set(fx.ROLLOUT_STARTS)
    normal = tasks[fx.THREAD_V7]
    assert normal.goal == fx.GOALS[fx.THREAD_V7]
    assert normal.result == fx.RESULTS[fx.THREAD_V7]
    assert normal.cwd == fx.PROJECT_CWD
    assert normal.started_at == "2026-10-02T03:29:31.000Z"
    assert normal.finished_at == "2026-10-02T03:31:31.000Z"
    assert not normal.used_external_context and normal.problems == ()
    mcp = tasks[fx.THREAD_MCP]
    assert mcp.used_mcp and not mcp.used_web_search and mcp.used_external_context
    assert mcp.mcp_tools == ("mcp__github__list_issues",)
    web = tasks[fx.THREAD_WEB]
    assert web.used_web_search and not web.used_mcp
    unknown = tasks[fx.THREAD_UNKNOWN]
    assert unknown.problems == () and unknown.result == fx.RESULTS[fx.THREAD_UNKNOWN]


def test_truncated_last_line_is_a_problem_with_its_number(home: Path) -> None:
    task = fx.read_rollout_file(fx.rollout_file(home, fx.THREAD_TRUNCATED), home)
    [problem] = task.problems
    assert problem.line == len(fx._rollout_lines(fx.THREAD_TRUNCATED, fx.NOW))
    assert "not valid JSON" in problem.reason
    assert task.goal == fx.GOALS[fx.THREAD_TRUNCATED]
    assert task.result == fx.RESULTS[fx.THREAD_TRUNCATED]


def test_json_shape_of_a_task(home: Path) -> None:
    task = fx.read_rollout_file(fx.rollout_file(home, fx.THREAD_MCP), home)
    data = json.loads(json.dumps(task.to_json()))
    assert data["used_mcp"] is True and data["mcp_tools"] == ["mcp__github__list_issues"]
    assert data["thread_id"] == fx.THREAD_MCP


@pytest.mark.parametrize("text", [
    "<environment_context>\n<cwd>/x</cwd>\n</environment_context>",
    "  <user_instructions>be nice</user_instructions>",
    "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>x</INSTRUCTIONS>",
    "<permissions instructions>sandbox</permissions instructions>",
])
def test_injected_context_is_not_the_goal(text: str) -> None:
    assert is_injected_context(text)
    task = fx.parse_rollout_lines([META, user(text), user("the real ask")])
    assert task.goal == "the real ask"


def test_goal_from_event_when_no_response_item() -> None:
    event = line("event_msg", {"type": "user_message", "message": "do it"})
    injected = line("event_msg", {"type": "user_message", "message": "<environment_context>"})
    agent = line("event_msg", {"type": "agent_message", "message": "done"})
    task = fx.parse_rollout_lines([META, injected, event, agent])
    assert task.goal == "do it" and task.result == "done"


def test_mixed_content_keeps_only_real_text() -> None:
    mixed = line("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>x</environment_context>"},
        {"type": "input_image", "image_url": "data:"},
        {"type": "input_text", "text": "fix the bug"}]})
    assert fx.parse_rollout_lines([META, mixed]).goal == "fix the bug"


def test_mcp_by_name_without_namespace_and_by_events() -> None:
    call = line("response_item", {"type": "function_call", "name": "mcp__jira__search",
                                  "arguments": "{}", "call_id": "c"})
    assert fx.parse_rollout_lines([META, call]).mcp_tools == ("mcp__jira__search",)
    begin = line("event_msg", {"type": "mcp_tool_call_begin", "invocation": "odd"})
    task = fx.parse_rollout_lines([META, begin])
    assert task.used_mcp and task.mcp_tools == ()
    shell = line("response_item", {"type": "function_call", "name": "shell", "arguments": "{}"})
    assert not fx.parse_rollout_lines([META, shell]).used_mcp


def test_web_search_by_event_only() -> None:
    end = line("event_msg", {"type": "web_search_end", "query": "x"})
    assert fx.parse_rollout_lines([META, end]).used_web_search


def test_bad_lines_are_problems_and_skipped() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    lines = [META, b"{not json", b"[1, 2]", b"\xff\xfe garbage", deep, b"",
             line("response_item", "not an object"), line("brand_new_kind", {"x": 1}),
             line("response_item", {"type": "new_payload_kind", "content": 7}),
             user("goal"), line("event_msg", {"type": "agent_message", "message": "ok"},
                                "2026-10-01T11:00:00.5Z")]
    task = fx.parse_rollout_lines(lines, "r.jsonl")
    assert [(p.line, p.reason.split(";")[0]) for p in task.problems] == [
        (2, "not valid JSON (truncated?)"), (3, "not a JSON object"), (4, "not valid UTF-8"),
        (5, "not valid JSON (truncated?)"), (7, "'response_item' record without an object payload")]
    assert task.goal == "goal" and task.result == "ok"
    assert task.started_at == "2026-10-01T09:59:00.000Z"
    assert task.finished_at == "2026-10-01T11:00:00.500Z"


def test_wrongly_typed_fields_are_ignored() -> None:
    odd = [line("event_msg", {"type": []}), line("response_item", {"type": {"a": 1}}),
           line("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": ["input_text"], "text": "x"}, 5]}),
           line("session_meta", {"id": 7, "cwd": [], "git": "main", "timestamp": 3}),
           line("event_msg", {"type": "user_message", "message": {"text": "x"}})]
    task = fx.parse_rollout_lines(odd)
    assert task.goal is None and task.thread_id is None and task.cwd is None


def test_no_session_meta_takes_the_id_from_the_file_name() -> None:
    name = f"rollout-2026-10-01T10-00-00-{fx.THREAD_API}.jsonl"
    task = fx.parse_rollout_lines([user("x")], f"/s/{name}")
    assert task.thread_id == fx.THREAD_API
    assert task.started_at == "2026-10-01T10:00:00.000Z"
    assert "no session_meta" in task.problems[0].reason


def test_many_bad_lines_are_capped() -> None:
    task = fx.parse_rollout_lines([META, *([b"{"] * 80)])
    assert len(task.problems) == rollouts.MAX_PROBLEMS_PER_FILE + 1
    assert "30 more bad line(s)" in task.problems[-1].reason


def test_overlong_lines_are_skipped(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = fx.rollout_file(home, fx.THREAD_V7)
    lines = path.read_bytes().splitlines(keepends=True)
    huge = user("z" * 5000)
    path.write_bytes(b"".join([*lines[:2], huge + b"\n", *lines[2:]]))
    monkeypatch.setattr(rollouts, "MAX_LINE_BYTES", 2048)
    task = fx.read_rollout_file(path, home)
    [problem] = task.problems
    assert problem.line == 3 and "longer than 2048 bytes" in problem.reason
    assert task.goal == fx.GOALS[fx.THREAD_V7] and task.result == fx.RESULTS[fx.THREAD_V7]
    assert fx.parse_rollout_lines([META, huge]).problems[0].line == 2


def test_binary_garbage_file(home: Path) -> None:
    path = fx.rollout_file(home, fx.THREAD_WEB)
    noise = random.Random(7).randbytes(4096).replace(b"\n", b"\x00")
    path.write_bytes(noise + b"\n\x00\x01\x02")
    task = fx.read_rollout_file(path, home)
    assert task.thread_id == fx.THREAD_WEB and task.goal is None and task.problems


def test_scan_skips_symlinks_outside_fifos_and_foreign_names(home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(META + b"\n" + user("SECRET GOAL") + b"\n")
    day = home / "sessions" / "2026" / "10" / "06"
    day.mkdir(parents=True)
    (day / f"rollout-2026-10-06T00-00-00-{fx.THREAD_ERRORED}.jsonl").symlink_to(outside)
    os.mkfifo(day / f"rollout-2026-10-06T00-00-01-{fx.THREAD_RETRYING}.jsonl")
    (day / "notes.txt").write_text("not a rollout", encoding="utf-8")
    (day / "rollout-bad-name.jsonl").write_text("{}", encoding="utf-8")
    scan = fx.read_rollouts(home)
    assert len(scan.tasks) == len(fx.ROLLOUT_STARTS)
    [problem] = scan.problems
    assert "outside the Codex home" in problem.reason
    assert "SECRET GOAL" not in json.dumps([task.to_json() for task in scan.tasks])
    assert len(list(fx.rollout_files(home))) == len(fx.ROLLOUT_STARTS)
    with pytest.raises(FileProblemError):
        fx.read_rollout_file(day / f"rollout-2026-10-06T00-00-00-{fx.THREAD_ERRORED}.jsonl", home)


def test_scan_limits_and_missing_sessions(home: Path, tmp_path: Path) -> None:
    assert len(list(fx.rollout_files(home, max_files=2))) == 2
    scan = fx.read_rollouts(home, max_files=2)
    assert len(scan.tasks) == 2 and "the rest were not read" in scan.problems[0].reason
    assert fx.read_rollouts(tmp_path / "empty").tasks == ()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "payload", "role", "content", "text", "name",
                                       "namespace", "message", "id", "cwd", "timestamp",
                                       "invocation", "server", "tool"]), children, max_size=5),
    max_leaves=20)
RECORD_TYPES = st.sampled_from(["session_meta", "response_item", "event_msg", "turn_context",
                                "compacted", "other"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_random_bytes_never_raise(lines: list[bytes]) -> None:
    task = fx.parse_rollout_lines(lines)
    json.dumps(task.to_json())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(RECORD_TYPES, JSON_VALUES, st.text(max_size=30)), max_size=15))
def test_random_records_never_raise(records: list[tuple[str, object, str]]) -> None:
    lines = [json.dumps({"timestamp": stamp, "type": kind, "payload": payload}).encode()
             for kind, payload, stamp in records]
    task = fx.parse_rollout_lines(lines)
    assert task.problems == () or all(p.line for p in task.problems if "session_meta" not in
                                      p.reason)
