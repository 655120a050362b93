"""``memtui mcp`` through the real protocol: the server runs as a subprocess and the MCP SDK's
own stdio client talks to it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from memtui.engine.api import Engine
from memtui.store.database import open_store
from memtui.store.models import Memory

TOOL_NAMES = {"memory_recall", "memory_context", "memory_add", "memory_correct",
              "memory_forget", "task_record"}
CLIENT = "test-agent"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    """A store where ann owns project app (root: a folder), bob has a private project and a
    user memory of his own."""
    db = tmp_path / "memtui.db"
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    store = open_store(db)
    ann, bob = Engine(store, "ann"), Engine(store, "bob")
    ann.identity.create_project("app", root=str(root))
    bob.identity.create_project("secret-proj")
    ann_memory = ann.identity.add_memory("ann writes tests with pytest", "preference")
    project_memory = ann.identity.add_memory("the app uses sqlite in WAL mode", "fact", "app")
    bob_memory = bob.identity.add_memory("bob's private note about his salary", "fact")
    store.close()
    return {"db": db, "root": root, "ann_memory": ann_memory.id,
            "project_memory": project_memory.id, "bob_memory": bob_memory.id}


@asynccontextmanager
async def connect(db: Path, user: str, cwd: Path) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session to ``memtui mcp`` started as a subprocess."""
    env = {"PYTHONPATH": os.pathsep.join(sys.path), "HOME": str(cwd)}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memtui", "--db", str(db), "--user", user, "mcp"],
                                   cwd=str(cwd), env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
            async with ClientSession(streams[0], streams[1], client_info=types.Implementation(
                    name=CLIENT, version="1.0")) as session:
                await session.initialize()
                yield session


def run(db: Path, user: str, cwd: Path,
        body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Run ``body`` against a fresh server process."""

    async def main() -> Any:
        async with connect(db, user, cwd) as session:
            return await body(session)

    return anyio.run(main)


def payload(result: types.CallToolResult) -> dict[str, Any]:
    """A successful tool result's JSON."""
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def error_text(result: types.CallToolResult) -> str:
    """A tool error result's one-line message."""
    assert result.is_error, result.content
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text


def engine(db: Path, user: str = "ann") -> Engine:
    """An engine on the test store (the caller closes ``engine.store``)."""
    return Engine(open_store(db), user)


def test_initialize_lists_described_tools_and_resources(world: dict[str, Any]) -> None:
    async def body(session: ClientSession) -> Any:
        return (await session.list_tools(), await session.list_resources(),
                await session.list_resource_templates())

    tools, resources, templates = run(world["db"], "ann", world["root"], body)
    assert {tool.name for tool in tools.tools} == TOOL_NAMES
    for tool in tools.tools:
        assert len(tool.description or "") > 120, tool.name  # written for a model to use
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for name in schema.get("required", []):
            assert schema["properties"][name].get("description") or name == "id"
    uris = {str(resource.uri) for resource in resources.resources}
    assert uris == {"memtui://memories/user", "memtui://memories/project/app"}
    assert [t.uri_template for t in templates.resource_templates] == [
        "memtui://memories/project/{id}"]


def test_every_tool_acts_through_the_engine(world: dict[str, Any]) -> None:
    db, root = world["db"], world["root"]
    store = open_store(db)
    Engine(store, "ann").settings.update(use_memories=1)
    store.close()

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["add"] = payload(await session.call_tool("memory_add", {
            "content": "deploys go through the staging branch first", "kind": "convention"}))
        out["user_add"] = payload(await session.call_tool("memory_add", {
            "content": "ann likes short answers", "kind": "preference", "scope": "user"}))
        out["recall"] = payload(await session.call_tool("memory_recall",
                                                        {"query": "staging deploys"}))
        out["recent"] = payload(await session.call_tool("memory_recall",
                                                        {"query": "", "limit": 2}))
        out["correct"] = payload(await session.call_tool("memory_correct", {
            "id": out["add"]["memory"]["id"],
            "content": "deploys go through the staging branch, then canary"}))
        out["context"] = payload(await session.call_tool("memory_context", {}))
        out["task"] = payload(await session.call_tool("task_record", {
            "goal": "Speed up the test suite", "result": "Parallelised the slow tests. " * 20,
            "started_at": "2026-12-01T09:00:00Z", "finished_at": "2026-12-01T09:40:00Z",
            "external_context": False}))
        out["forget_refused"] = await session.call_tool("memory_forget",
                                                        {"id": world["ann_memory"]})
        return out

    out = run(db, "ann", root / "src", body)
    added = out["add"]["memory"]
    assert out["add"]["status"] == "active"
    assert added["scope"] == "project" and added["project"] == "app"  # from the working folder
    assert added["source"] == "mcp" and added["kind"] == "convention"
    assert out["user_add"]["memory"]["scope"] == "user"
    assert out["recall"]["memories"][0]["id"] == added["id"]
    assert out["recall"]["project"] == "app"
    assert out["recent"]["count"] == 2
    new = out["correct"]["memory"]
    assert out["correct"]["replaces"] == added["id"] and new["source"] == "mcp"
    context = out["context"]
    assert context["injected"] is True
    assert context["text"].startswith("[Past memories")
    assert "then canary" in context["text"] and "ann likes short answers" in context["text"]
    assert out["task"]["task"]["project"] == "app"
    assert "agents_may_forget" in error_text(out["forget_refused"])

    check = engine(db)
    try:
        history = check.identity.history(new["id"])
        assert [m.status for m in history] == ["superseded", "active"]
        assert check.tasks.get_task(out["task"]["task"]["id"]).source == "mcp"
        check.identity.get_memory(world["ann_memory"])  # the refused forget removed nothing
        audit = check.identity.audit(50)
        clients = {entry.action: entry.detail.get("client") for entry in reversed(audit)}
        assert clients["memory_created"] == f"mcp:{CLIENT}"
        assert clients["memory_superseded"] == f"mcp:{CLIENT}"
        assert clients["task_recorded"] == f"mcp:{CLIENT}"
        assert clients["worker_memory_injected"] == f"mcp:{CLIENT}"
    finally:
        check.store.close()


def test_forget_works_once_the_user_allows_it(world: dict[str, Any]) -> None:
    store = open_store(world["db"])
    Engine(store, "ann").settings.update(agents_may_forget=1)
    store.close()

    async def body(session: ClientSession) -> dict[str, Any]:
        return payload(await session.call_tool("memory_forget", {"id": world["ann_memory"]}))

    assert run(world["db"], "ann", world["root"], body)["removed_ids"] == [world["ann_memory"]]
    check = engine(world["db"])
    try:
        assert check.identity.list_memories() == []
    finally:
        check.store.close()


def test_context_says_why_it_is_empty(world: dict[str, Any]) -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        return payload(await session.call_tool("memory_context", {"project": "app"}))

    off = run(world["db"], "ann", world["root"], body)
    assert off == {"project": "app", "injected": False, "reason": "use_off", "text": "",
                   "memory_ids": []}


def test_resources_are_markdown_of_active_memories(world: dict[str, Any]) -> None:
    async def body(session: ClientSession) -> Any:
        user = await session.read_resource("memtui://memories/user")
        project = await session.read_resource("memtui://memories/project/app")
        errors = []
        for uri in ("memtui://memories/project/secret-proj", "memtui://memories/project/none",
                    "memtui://elsewhere"):
            try:
                await session.read_resource(uri)
            except MCPError as error:
                errors.append(str(error))
        return user, project, errors

    user, project, errors = run(world["db"], "ann", world["root"], body)
    assert "ann writes tests with pytest" in user.contents[0].text
    assert "salary" not in user.contents[0].text
    assert "sqlite in WAL mode" in project.contents[0].text
    assert user.contents[0].mime_type == "text/markdown"
    assert len(errors) == 3
    # bob's project answers exactly like one that does not exist
    assert errors[0].replace("secret-proj", "X") == errors[1].replace("none", "X")


def test_bad_arguments_unknown_ids_and_other_users_memories(world: dict[str, Any]) -> None:
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("memory_recall", {}, "needs the argument 'query'"),
        ("memory_recall", {"query": 3}, "must be a string, got a number"),
        ("memory_recall", {"query": "x", "limit": 0}, "between 1 and 50"),
        ("memory_recall", {"query": "x", "limit": True}, "must be a whole number, got a boolean"),
        ("memory_recall", {"query": "x", "limit": 2.5}, "must be a whole number, got a number"),
        ("task_record", {"goal": "g", "result": "r", "started_at": "2026-12-01T10:00:00Z",
                         "finished_at": "2026-12-01T11:00:00Z", "external_context": "yes"},
         "must be true or false"),
        ("memory_recall", {"query": "x", "colour": "red"}, "unknown argument 'colour'"),
        ("memory_recall", {"query": "x", "project": "nowhere"}, "not found"),
        ("memory_add", {"content": ""}, "content"),
        ("memory_add", {"content": "x", "kind": "gossip"}, "must be one of"),
        ("memory_add", {"content": "x", "scope": "user", "project": "app"}, "no project"),
        ("memory_add", {"content": "x", "project": "secret-proj"}, "not found"),
        ("memory_correct", {"id": "mem_missing", "content": "x"}, "not found"),
        ("memory_correct", {"id": world["bob_memory"], "content": "x"}, "not found"),
        ("task_record", {"goal": "g", "result": "r", "started_at": "yesterday",
                         "finished_at": "2026-12-01T10:00:00Z"}, "time"),
        ("task_record", {"goal": "g", "result": "r", "started_at": "2026-12-01T11:00:00Z",
                         "finished_at": "2026-12-01T10:00:00Z"}, "before it started"),
        ("no_such_tool", {}, "unknown tool"),
    ]

    async def body(session: ClientSession) -> list[types.CallToolResult]:
        return [await session.call_tool(name, args) for name, args, _ in calls]

    results = run(world["db"], "ann", world["root"], body)
    for (name, args, expected), result in zip(calls, results, strict=True):
        assert expected in error_text(result), (name, args, result.content)
    missing = error_text(results[12]).replace("mem_missing", "ID")
    others = error_text(results[13]).replace(world["bob_memory"], "ID")
    assert missing == others  # 404, never 403: another user's memory is a missing one
    check = engine(world["db"], "bob")
    try:
        assert check.identity.get_memory(world["bob_memory"]).status == "active"
    finally:
        check.store.close()


def test_a_secret_in_memory_add_is_redacted_in_the_store(world: dict[str, Any]) -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        return payload(await session.call_tool("memory_add", {
            "content": f"the CI token is {SECRET} (rotate monthly)", "scope": "user"}))

    added = run(world["db"], "ann", world["root"], body)
    assert SECRET not in json.dumps(added) and "[REDACTED]" in added["memory"]["content"]
    raw = sqlite3.connect(world["db"])
    try:
        stored = [row[0] for row in raw.execute("SELECT content FROM memories")]
    finally:
        raw.close()
    assert not any(SECRET in text for text in stored)


def test_no_project_for_the_folder_is_a_clear_error(world: dict[str, Any],
                                                    tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def body(session: ClientSession) -> Any:
        return (await session.call_tool("memory_add", {"content": "x", "scope": "project"}),
                payload(await session.call_tool("memory_add", {"content": "a user fact"})))

    refused, user_level = run(world["db"], "ann", elsewhere, body)
    assert "no memtui project holds" in error_text(refused)
    assert user_level["memory"]["scope"] == "user"


def test_a_store_that_cannot_be_opened_is_a_tool_error(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-store.db"
    bad.write_text("this is not sqlite")

    async def body(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool("memory_recall", {"query": "x"})

    assert "not a memtui database" in error_text(run(bad, "ann", tmp_path, body))


def _hold_write_lock(db: Path, seconds: float, started: threading.Event) -> None:
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO audit(at, actor, action, target, detail) "
                     "VALUES ('2026-12-01T00:00:00.000Z', 'ann', 'long_writer', NULL, '{}')")
        started.set()
        time.sleep(seconds)
        conn.execute("COMMIT")
    finally:
        conn.close()


def test_a_store_locked_by_a_long_writer_makes_writes_wait(world: dict[str, Any]) -> None:
    started = threading.Event()

    async def body(session: ClientSession) -> Any:
        holder = threading.Thread(target=_hold_write_lock, args=(world["db"], 1.5, started))
        holder.start()
        started.wait(30)
        recalled = await session.call_tool("memory_recall", {"query": "pytest"})  # WAL: reads go on
        added = await session.call_tool("memory_add", {"content": "written after the lock",
                                                       "scope": "user"})
        holder.join()
        return recalled, added

    recalled, added = run(world["db"], "ann", world["root"], body)
    assert payload(recalled)["count"] == 1
    assert payload(added)["status"] == "active"
    check = engine(world["db"])
    try:
        contents = [m.content for m in check.identity.list_memories()]
        assert "written after the lock" in contents
    finally:
        check.store.close()


def _send(process: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def test_a_client_that_disconnects_mid_call_leaves_a_clean_exit(world: dict[str, Any]) -> None:
    """The client sends a write while a long writer holds the store, then closes the pipe:
    the server finishes or drops the call, exits by itself with status 0 and no traceback,
    and the store is consistent."""
    started = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(world["db"], 1.5, started))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "memtui", "--db", str(world["db"]), "--user", "ann", "mcp"],
        cwd=world["root"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "quitter", "version": "0"}}})
        assert process.stdout is not None
        first = json.loads(process.stdout.readline())
        assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "memtui"
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        holder.start()
        started.wait(30)
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_add", "arguments": {"content": "half-way write", "scope": "user"}}})
        process.stdin.close()  # the client goes away mid-call
        process.wait(timeout=120)
        assert process.stderr is not None
        err = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        holder.join()
    assert process.returncode == 0
    assert "Traceback" not in err
    raw = sqlite3.connect(world["db"])
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = raw.execute("SELECT count(*) FROM memories WHERE content = 'half-way write'"
                           ).fetchone()[0]
        audits = raw.execute("SELECT count(*) FROM audit WHERE action = 'memory_created' "
                             "AND detail LIKE '%quitter%'").fetchone()[0]
    finally:
        raw.close()
    assert rows == audits <= 1  # all of the write or none of it


def test_stdout_carries_only_protocol_messages(world: dict[str, Any]) -> None:
    """Whatever comes in (a bad argument, a line that is not JSON), stdout holds JSON-RPC
    messages only and the server goes on answering."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "memtui", "--db", str(world["db"]), "--user", "ann", "mcp"],
        cwd=world["root"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None
    messages: list[dict[str, Any]] = []
    try:
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        messages.append(json.loads(process.stdout.readline()))
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_recall", "arguments": {"query": ["not", "text"]}}})
        messages.append(json.loads(process.stdout.readline()))
        process.stdin.write("this is not json\n")
        process.stdin.flush()
        _send(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "memory_recall", "arguments": {"query": "pytest"}}})
        while not any(message.get("id") == 3 for message in messages):
            line = process.stdout.readline()
            assert line, "the server stopped answering"
            messages.append(json.loads(line))
        process.stdin.close()
        assert process.wait(timeout=120) == 0
        rest = process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    messages += [json.loads(line) for line in rest.splitlines()]
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    by_id = {message.get("id"): message for message in messages}
    assert by_id[2]["result"]["isError"] is True
    assert "pytest" in by_id[3]["result"]["content"][0]["text"]


DEMO_QUESTIONS = {
    "what linter do we use": "Uses ruff for linting and formatting; line length 100.",
    "which database do we use in production":
        "Postgres 16 is the primary database; SQLite only in unit tests.",
    "how should I write commit messages":
        "Wants commit messages in the imperative mood, under 72 characters.",
    "where does the checkout code live":
        "The checkout service lives in services/checkout and talks to Stripe.",
    "how do I indent python":
        "Prefers 4-space indentation in Python, 2 in TypeScript and YAML.",
}


def test_recall_answers_the_demo_stores_natural_questions(tmp_path: Path) -> None:
    from memtui.engine.demo import build_demo_store

    build_demo_store(tmp_path / "demo.db").close()

    async def body(session: ClientSession) -> dict[str, list[str]]:
        found = {}
        for question in DEMO_QUESTIONS:
            result = payload(await session.call_tool("memory_recall", {
                "query": question, "project": "webshop", "limit": 3}))
            found[question] = [memory["content"] for memory in result["memories"]]
        return found

    found = run(tmp_path / "demo.db", "alice", tmp_path, body)
    for question, answer in DEMO_QUESTIONS.items():
        assert found[question][0] == answer, (question, found[question])
    pending = "Postgres 17 is the primary database"  # a correction still in review
    assert not any(pending in text for texts in found.values() for text in texts)


def _ann_recalls(world: dict[str, Any], texts: list[str],
                 query: str) -> tuple[list[Memory], dict[str, dict[str, Any]]]:
    """ann's project memories ``texts``, and what ``memory_recall`` gives her for ``query``
    (by id)."""
    store = open_store(world["db"])
    ann = Engine(store, "ann")
    added = [ann.identity.add_memory(text, "fact", "app") for text in texts]
    store.close()

    async def body(session: ClientSession) -> dict[str, Any]:
        return payload(await session.call_tool("memory_recall", {"query": query}))

    return added, {m["id"]: m for m in run(world["db"], "ann", world["root"], body)["memories"]}


def test_recall_marks_memories_whose_cited_files_are_gone(world: dict[str, Any]) -> None:
    (world["root"] / "src" / "db.py").write_text("def connect():\n    pass\n")
    (kept, gone), found = _ann_recalls(world, ["The app connects in src/db.py via connect()",
                                               "The app migrates in src/migrate.py"], "app src")
    assert "stale" not in found[kept.id]
    assert found[gone.id]["stale"] == ["src/migrate.py not found"]


def test_a_recalled_memory_is_marked_used(world: dict[str, Any]) -> None:
    (asked, other), found = _ann_recalls(world, ["The app deploys on Fridays",
                                                 "Lunch is at noon"], "when does it deploy")
    assert list(found) == [asked.id]
    store = open_store(world["db"])
    try:
        ann = Engine(store, "ann")
        assert ann.identity.get_memory(asked.id).last_used_at is not None
        assert ann.identity.get_memory(other.id).last_used_at is None
        assert ann.identity.get_memory(asked.id).usage_count == 0  # not an injection
    finally:
        store.close()
