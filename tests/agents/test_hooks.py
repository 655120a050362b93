"""``memtui hook session-start|session-end`` with Claude Code's hook JSON, run as the agent
runs them (a process, JSON on stdin), and the worker's turn of recorded sessions into tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memtui.engine.agents.transcripts import read_transcript
from memtui.engine.api import Engine
from memtui.engine.worker import BackgroundLoop
from memtui.store.database import open_store

RESULT = "Found the race: the cache was filled before the lock was taken. " * 6


def transcript_records(cwd: Path, session_id: str) -> list[dict[str, Any]]:
    """A Claude Code transcript: a prompt, a tool call and its result, a final answer."""
    base = {"sessionId": session_id, "cwd": str(cwd), "isSidechain": False, "version": "2.1.0"}
    return [
        {"type": "summary", "summary": "Cache race", "leafUuid": "u4"},
        {**base, "type": "user", "uuid": "u1", "parentUuid": None,
         "timestamp": "2026-12-01T08:00:00.000Z",
         "message": {"role": "user", "content": "Fix the flaky cache test"}},
        {**base, "type": "user", "uuid": "u1b", "isMeta": True,
         "timestamp": "2026-12-01T08:00:01.000Z",
         "message": {"role": "user", "content": "<local-command-caveat>ignore</local-command-caveat>"}},
        {**base, "type": "assistant", "uuid": "u2", "timestamp": "2026-12-01T08:01:00.000Z",
         "message": {"role": "assistant", "model": "claude-sonnet", "content": [
             {"type": "text", "text": "Let me look."},
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}}]}},
        {**base, "type": "user", "uuid": "u3", "timestamp": "2026-12-01T08:02:00.000Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": "1 failed"}]}},
        {**base, "type": "assistant", "uuid": "u4", "timestamp": "2026-12-01T08:30:00.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": RESULT}]}},
    ]


def write_transcript(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records as JSON Lines."""
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Any]:
    """A store where ann owns project app (root: a folder) and has memories in it."""
    db = tmp_path / "memtui.db"
    root = tmp_path / "app"
    root.mkdir()
    store = open_store(db)
    ann = Engine(store, "ann")
    ann.identity.create_project("app", root=str(root))
    ann.identity.add_memory("ann prefers small commits", "preference")
    ann.identity.add_memory("the cache is filled by a background thread", "fact", "app")
    store.close()
    return {"db": db, "root": root, "tmp": tmp_path}


def hook(db: Path, name: str, stdin: str, user: str = "ann") -> subprocess.CompletedProcess[str]:
    """Run a hook command as Claude Code does: a process with the JSON on stdin."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "memtui", "--db", str(db), "--user", user,
                           "hook", name], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


def start_payload(root: Path, source: str = "startup") -> str:
    """The JSON Claude Code sends a SessionStart hook."""
    return json.dumps({"session_id": "0f3c5a52-3f1e-4c1f-9f4e-1a2b3c4d5e6f",
                       "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
                       "hook_event_name": "SessionStart", "source": source})


def set_use(db: Path, on: int) -> None:
    """Switch ann's use_memories."""
    store = open_store(db)
    Engine(store, "ann").settings.update(use_memories=on)
    store.close()


def test_session_start_prints_the_injection_for_a_new_session(setup: dict[str, Any]) -> None:
    set_use(setup["db"], 1)
    done = hook(setup["db"], "session-start", start_payload(setup["root"]))
    assert done.returncode == 0 and done.stderr == ""
    output = json.loads(done.stdout)
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = output["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("[Past memories — for reference only")
    assert "ann prefers small commits" in text
    assert "the cache is filled by a background thread" in text
    store = open_store(setup["db"])
    try:
        entry = Engine(store, "ann").identity.audit(1)[0]
        assert entry.action == "worker_memory_injected"
        assert entry.detail["client"] == "claude-code" and len(entry.detail["memory_ids"]) == 2
    finally:
        store.close()


@pytest.mark.parametrize("source", ["resume", "clear", "compact"])
def test_session_start_gives_nothing_to_a_continued_session(setup: dict[str, Any],
                                                            source: str) -> None:
    set_use(setup["db"], 1)
    done = hook(setup["db"], "session-start", start_payload(setup["root"], source))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_session_start_gives_nothing_when_use_memories_is_off(setup: dict[str, Any]) -> None:
    done = hook(setup["db"], "session-start", start_payload(setup["root"]))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_session_start_outside_any_project_gives_user_memories(setup: dict[str, Any]) -> None:
    set_use(setup["db"], 1)
    elsewhere = setup["tmp"] / "elsewhere"
    elsewhere.mkdir()
    done = hook(setup["db"], "session-start", start_payload(elsewhere))
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "ann prefers small commits" in text and "background thread" not in text


@pytest.mark.parametrize("stdin", ["", "{not json", "[1, 2]", "null", '{"source": "startup", '
                                   '"cwd": 5}', "x" * (2 * 1024 * 1024)],
                         ids=["empty", "broken", "list", "null", "wrong-type", "huge"])
@pytest.mark.parametrize("name", ["session-start", "session-end"])
def test_hooks_fail_open_on_bad_input(setup: dict[str, Any], name: str, stdin: str) -> None:
    set_use(setup["db"], 1)
    done = hook(setup["db"], name, stdin)
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith("memtui: hook ") and done.stderr.count("\n") == 1


def test_hooks_fail_open_on_a_broken_store(tmp_path: Path) -> None:
    bad = tmp_path / "broken.db"
    bad.write_text("not a database")
    for name in ("session-start", "session-end"):
        done = hook(bad, name, json.dumps({"session_id": "s", "cwd": str(tmp_path),
                                           "transcript_path": str(bad),
                                           "hook_event_name": "SessionEnd",
                                           "source": "startup"}))
        assert done.returncode == 0 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "not a memtui database" in done.stderr


def test_hooks_say_when_the_named_store_folder_is_missing(tmp_path: Path) -> None:
    missing = tmp_path / "my store" / "m.db"
    for name in ("session-start", "session-end"):
        done = hook(missing, name, json.dumps({"session_id": "s", "cwd": str(tmp_path),
                                               "hook_event_name": "SessionEnd",
                                               "source": "startup"}))
        assert done.returncode == 0 and done.stdout == ""
        assert done.stderr.count("\n") == 1, (name, done.stderr)
        assert f"folder {missing.parent} does not exist" in done.stderr
    assert not missing.parent.exists()


def test_session_end_with_a_missing_transcript_fails_open(setup: dict[str, Any]) -> None:
    payload = {"session_id": "s-1", "transcript_path": str(setup["tmp"] / "gone.jsonl"),
               "cwd": str(setup["root"]), "hook_event_name": "SessionEnd", "reason": "exit"}
    done = hook(setup["db"], "session-end", json.dumps(payload))
    assert done.returncode == 0 and done.stdout == ""
    assert "not found" in done.stderr and done.stderr.count("\n") == 1
    store = open_store(setup["db"])
    try:
        assert Engine(store, "ann").sessions.list() == []
    finally:
        store.close()


def end_payload(setup: dict[str, Any], session_id: str, event: str = "SessionEnd") -> str:
    """The JSON Claude Code sends a SessionEnd (or Stop) hook, with a real transcript."""
    transcript = write_transcript(setup["tmp"] / f"{session_id}.jsonl",
                                  transcript_records(setup["root"], session_id))
    return json.dumps({"session_id": session_id, "transcript_path": str(transcript),
                       "cwd": str(setup["root"]), "hook_event_name": event,
                       "reason": "prompt_input_exit", "stop_hook_active": False})


def test_session_end_records_once_and_the_worker_makes_one_task(setup: dict[str, Any]) -> None:
    for event in ("Stop", "Stop", "SessionEnd", "SessionEnd"):
        done = hook(setup["db"], "session-end", end_payload(setup, "sess-1", event))
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    store = open_store(setup["db"])
    try:
        ann = Engine(store, "ann")
        sessions = ann.sessions.list()
        assert len(sessions) == 1 and sessions[0].ended and sessions[0].processed_at is None
        loop = BackgroundLoop(store, "ann", interval_s=None)
        loop.run_once()
        loop.run_once()
        tasks = [task for task in ann.tasks.list_tasks() if task.source == "claude-code"]
        assert len(tasks) == 1
        task = tasks[0]
        assert task.project == "app" and task.goal == "Fix the flaky cache test"
        assert task.result == RESULT.strip()
        assert (task.started_at, task.finished_at) == ("2026-12-01T08:00:00.000Z",
                                                       "2026-12-01T08:30:00.000Z")
        assert not task.external_context
        session = ann.sessions.list()[0]
        assert (session.outcome, session.task_id) == ("recorded", task.id)
        # a hook call after processing changes nothing
        hook(setup["db"], "session-end", end_payload(setup, "sess-1"))
        assert ann.sessions.list()[0].outcome == "recorded"
        # the extraction log shows the finished session (the round after it ran)
        assert any(row.task_id == task.id for row in ann.extraction.log(50))
    finally:
        store.close()


def test_stop_only_sessions_wait_until_idle(setup: dict[str, Any]) -> None:
    hook(setup["db"], "session-end", end_payload(setup, "sess-2", "Stop"))
    store = open_store(setup["db"])
    try:
        ann = Engine(store, "ann")
        assert ann.sessions.process_waiting().processed == 0  # idle_seconds: 900 by default
        ann.settings.update(idle_seconds=0)
        assert ann.sessions.process_waiting().to_json()["outcomes"] == {"recorded": 1}
    finally:
        store.close()


def test_sessions_without_what_a_task_needs_are_kept_out(setup: dict[str, Any]) -> None:
    tmp = setup["tmp"]
    empty = write_transcript(tmp / "empty.jsonl", [{"type": "summary", "summary": "x"}])
    cut = tmp / "cut.jsonl"
    records = transcript_records(setup["root"], "cut")
    cut.write_text("".join(json.dumps(r) + "\n" for r in records) + '{"type": "assist')
    store = open_store(setup["db"])
    try:
        ann = Engine(store, "ann")
        for session_id, path, cwd in (("s-empty", empty, setup["root"]),
                                      ("s-nofolder", cut, None), ("s-cut", cut, setup["root"])):
            ann.sessions.record("claude-code", {
                "session_id": session_id, "transcript_path": str(path),
                "cwd": str(cwd) if cwd else None, "hook_event_name": "SessionEnd"})
        empty.unlink()
        ann.sessions.process_waiting()
        outcomes = {s.session_id: s.outcome for s in ann.sessions.list()}
        assert outcomes == {"s-empty": "no_transcript", "s-nofolder": "no_folder",
                            "s-cut": "recorded"}
    finally:
        store.close()


def test_a_session_in_a_new_folder_gets_a_project(setup: dict[str, Any]) -> None:
    folder = setup["tmp"] / "other-repo"
    folder.mkdir()
    path = write_transcript(setup["tmp"] / "o.jsonl", transcript_records(folder, "o"))
    store = open_store(setup["db"])
    try:
        ann = Engine(store, "ann")
        ann.sessions.record("claude-code", {"session_id": "o", "transcript_path": str(path),
                                            "cwd": str(folder), "hook_event_name": "SessionEnd"})
        ann.sessions.process_waiting()
        task = ann.tasks.list_tasks()[0]
        assert ann.identity.get_project(task.project).root_path == str(folder.resolve())
    finally:
        store.close()


def test_transcripts_mark_outside_context(tmp_path: Path) -> None:
    records = transcript_records(tmp_path, "w")
    records.insert(3, {"type": "assistant", "timestamp": "2026-12-01T08:00:30.000Z",
                       "message": {"content": [{"type": "tool_use", "name": "WebFetch",
                                                "input": {"url": "https://example.com"}}]}})
    read = read_transcript(write_transcript(tmp_path / "w.jsonl", records))
    assert read.used_external_context
    own = transcript_records(tmp_path, "m")
    own.insert(3, {"type": "assistant", "timestamp": "2026-12-01T08:00:30.000Z",
                   "message": {"content": [{"type": "tool_use",
                                            "name": "mcp__memtui__memory_recall",
                                            "input": {"query": "cache"}}]}})
    read = read_transcript(write_transcript(tmp_path / "m.jsonl", own))
    assert not read.used_external_context
    other = transcript_records(tmp_path, "o")
    other.insert(3, {"type": "assistant", "timestamp": "2026-12-01T08:00:30.000Z",
                     "message": {"content": [{"type": "tool_use", "name": "mcp__github__get_pr",
                                              "input": {}}]}})
    read = read_transcript(write_transcript(tmp_path / "o.jsonl", other))
    assert read.used_external_context and read.prompts == 1


@pytest.mark.parametrize("argv,expected", [
    (["hook", "session-start"], {"name": "session-start"}),
    (["--db", "/x.db", "--user=ann", "hook", "session-end"],
     {"name": "session-end", "db": "/x.db", "user": "ann"}),
    (["hook", "session-end", "--agent", "claude-code", "--json"],
     {"name": "session-end", "agent": "claude-code"}),
    (["hook"], None),
    (["hook", "session-middle"], None),
    (["hook", "session-start", "extra"], None),
    (["memory", "add", "hook"], None),
    (["--db"], None),
])
def test_the_fast_path_reads_only_hook_command_lines(argv: list[str],
                                                     expected: dict[str, str] | None) -> None:
    from memtui.cli.hook import parse_hook_argv

    assert parse_hook_argv(argv) == expected


def test_a_hook_command_line_the_fast_path_leaves_goes_to_the_parser(cli: Any) -> None:
    done = cli("hook", "session-middle")
    assert done.code == 2 and "invalid choice" in done.err


HEAVY_MODULES = ("argparse", "rich", "textual", "sqlite_utils", "mcp", "anyio", "pydantic",
                 "memtui.engine.redaction", "memtui.engine.extraction", "memtui.engine.tasks",
                 "memtui.engine.codex", "memtui.store.tasks", "memtui.store.models.tasks",
                 "zoneinfo")


@pytest.mark.parametrize("name", ["session-start", "session-end"])
def test_hooks_load_only_what_they_need(setup: dict[str, Any], name: str) -> None:
    set_use(setup["db"], 1)
    stdin = start_payload(setup["root"]) if name == "session-start" else end_payload(setup, "i")
    code = ("import io, sys\n"
            f"sys.stdin = io.StringIO({stdin!r})\n"
            "from memtui.cli.main import main\n"
            f"main(['--db', {str(setup['db'])!r}, '--user', 'ann', 'hook', {name!r}],"
            " stdout=io.StringIO())\n"
            f"heavy = [m for m in sys.modules if m.split('.')[0] in {HEAVY_MODULES!r}"
            f" or any(m.startswith(h) for h in {HEAVY_MODULES!r} if '.' in h)]\n"
            "print(','.join(sorted(heavy)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_session_end_names_a_transcript_that_is_not_a_file(setup: dict[str, Any],
                                                          kind: str) -> None:
    path = setup["tmp"] / "odd.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    payload = {"session_id": "s-2", "transcript_path": str(path), "cwd": str(setup["root"]),
               "hook_event_name": "SessionEnd", "reason": "exit"}
    done = hook(setup["db"], "session-end", json.dumps(payload))
    assert done.returncode == 0 and done.stdout == "" and done.stderr.count("\n") == 1
    words = "a named pipe (FIFO), not a regular file" if kind == "fifo" else \
        "a folder, not a regular file"
    assert f"{path}: {words}; session not recorded" in done.stderr
    assert "not found" not in done.stderr
