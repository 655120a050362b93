"""Access rules on every command-line path, table-driven: owner, reader, non-member, other user.

Another user's user memory must be indistinguishable from a missing one (exit 3, same message
shape); a project the actor cannot read answers exactly like a missing project.
"""

from __future__ import annotations

import re

import pytest

OWNER, READER, STRANGER, MEMBER = "alice", "carol", "erin", "bob"


@pytest.fixture
def world(cli) -> dict[str, str]:
    """alice owns project web (bob member, carol reader); ids of a user and a project memory."""
    run = lambda *a: cli("--user", OWNER, "--json", *a)  # noqa: E731
    assert run("project", "add", "web").code == 0
    assert run("project", "member", "web", MEMBER, "--role", "member").code == 0
    assert run("project", "member", "web", READER, "--role", "reader").code == 0
    user_memory = run("memory", "add", "alice private", "--kind", "fact").json["id"]
    project_memory = run("memory", "add", "web shared", "--kind", "fact", "--project",
                         "web").json["id"]
    task = run("task", "add", "--project", "web", "--goal", "g", "--prompt", "p", "--result",
               "r" * 300, "--started", "2026-11-01T10:00:00Z", "--finished",
               "2026-11-01T10:10:00Z").json["id"]
    return {"user": user_memory, "project": project_memory, "task": task}


# (name, args with placeholders, expected exit code per actor)
CASES = [
    ("show user memory", ["memory", "show", "{user}"], {OWNER: 0, MEMBER: 3, READER: 3, STRANGER: 3}),
    ("history user memory", ["memory", "history", "{user}"], {OWNER: 0, MEMBER: 3, READER: 3, STRANGER: 3}),
    ("supersede user memory", ["memory", "supersede", "{user}", "x"], {OWNER: 0, MEMBER: 3, READER: 3, STRANGER: 3}),
    ("forget user memory", ["memory", "forget", "{user}", "--yes"], {OWNER: 0, MEMBER: 3, READER: 3, STRANGER: 3}),
    ("show project memory", ["memory", "show", "{project}"], {OWNER: 0, MEMBER: 0, READER: 0, STRANGER: 3}),
    ("history project memory", ["memory", "history", "{project}"], {OWNER: 0, MEMBER: 0, READER: 0, STRANGER: 3}),
    ("list project", ["memory", "list", "--project", "web"], {OWNER: 0, MEMBER: 0, READER: 0, STRANGER: 3}),
    ("add project memory", ["memory", "add", "x", "--kind", "fact", "--project", "web"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
    ("note in project", ["note", "x", "--project", "web"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
    ("supersede project memory", ["memory", "supersede", "{project}", "x"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
    ("forget project memory", ["memory", "forget", "{project}", "--yes"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
    ("context of project", ["context", "--project", "web"], {OWNER: 0, MEMBER: 0, READER: 0, STRANGER: 3}),
    ("set a member", ["project", "member", "web", "zed", "--role", "reader"], {OWNER: 0, MEMBER: 4, READER: 4, STRANGER: 3}),
    ("accept a membership", ["project", "accept", "web"], {OWNER: 0, MEMBER: 0, READER: 0, STRANGER: 3}),
    ("add a task", ["task", "add", "--project", "web", "--goal", "g", "--prompt", "p", "--result", "r", "--started", "2026-11-01T10:00:00Z", "--finished", "2026-11-01T10:10:00Z"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
    ("set task flags", ["task", "flags", "{task}", "--use", "on"], {OWNER: 0, MEMBER: 0, READER: 4, STRANGER: 3}),
]


@pytest.mark.parametrize("actor", [OWNER, MEMBER, READER, STRANGER])
@pytest.mark.parametrize("name, template, expected", CASES, ids=[c[0] for c in CASES])
def test_access_rule(cli, world, actor, name, template, expected) -> None:
    args = [part.format(**world) for part in template]
    result = cli("--user", actor, "--json", *args)
    assert result.code == expected[actor], (name, actor, result.err)
    if result.code == 3:
        error = result.json["error"]
        assert error["code"] == "not_found"
        words = re.sub(r"'[^']*'", "''", error["message"])  # not the id: it may hold "may"
        assert "permission" not in words and "may" not in words


def test_hidden_and_missing_answers_are_identical(cli, world) -> None:
    for template in (["memory", "show", "{id}"], ["memory", "history", "{id}"],
                     ["memory", "supersede", "{id}", "x"], ["memory", "forget", "{id}", "--yes"]):
        hidden = cli("--user", STRANGER, "--json", *[p.format(id=world["user"]) for p in template])
        missing = cli("--user", STRANGER, "--json", *[p.format(id="mem_nope") for p in template])
        assert hidden.code == missing.code == 3
        assert (hidden.json["error"]["message"].replace(world["user"], "ID")
                == missing.json["error"]["message"].replace("mem_nope", "ID"))
    hidden = cli("--user", STRANGER, "--json", "memory", "list", "--project", "web")
    missing = cli("--user", STRANGER, "--json", "memory", "list", "--project", "nowhere")
    assert (hidden.json["error"]["message"].replace("web", "P")
            == missing.json["error"]["message"].replace("nowhere", "P"))


def test_lists_never_show_other_users_memories(cli, world) -> None:
    for actor in (MEMBER, READER, STRANGER):
        listed = cli("--user", actor, "--json", "memory", "list", "--status", "all").json
        assert world["user"] not in [m["id"] for m in listed["items"]]
        searched = cli("--user", actor, "--json", "memory", "list", "--search", "private").json
        assert searched["count"] == 0


# ---- the same rules through the service (each actor runs their own service) ---------------

SERVICE_CASES = [
    ("recall in project", "memory.recall", {"query": "shared", "project": "web"},
     {OWNER: "ok", MEMBER: "ok", READER: "ok", STRANGER: "not_found"}),
    ("context in project", "context.prepare", {"project": "web", "prompt": "p"},
     {OWNER: "ok", MEMBER: "ok", READER: "ok", STRANGER: "not_found"}),
    ("complete a task", "task.complete", {"project": "web", "goal": "g", "result": "r" * 300,
                                          "started_at": "2026-11-01T10:00:00Z",
                                          "finished_at": "2026-11-01T10:10:00Z"},
     {OWNER: "ok", MEMBER: "ok", READER: "permission_denied", STRANGER: "not_found"}),
    ("read the project bundle", "bundle.get", {"bundle": "project:web"},
     {OWNER: "ok", MEMBER: "ok", READER: "ok", STRANGER: "not_found"}),
    ("write the project bundle", "bundle.document.put",
     {"bundle": "project:web", "path": "lessons.md", "content": "x", "expected_revision": 0},
     {OWNER: "ok", MEMBER: "ok", READER: "permission_denied", STRANGER: "not_found"}),
]


@pytest.mark.parametrize("actor", [OWNER, MEMBER, READER, STRANGER])
def test_access_rules_through_the_service(world, db_path, actor) -> None:
    import tempfile
    from pathlib import Path

    from memtui.service.client import call
    from memtui.service.server import MemoryService

    socket_path = Path(tempfile.mkdtemp(prefix="mta-")) / "s.sock"
    service = MemoryService(db_path, actor, socket_path)
    with service.running():
        for name, method, params, expected in SERVICE_CASES:
            response = call(method, dict(params), socket_path, timeout=10)
            outcome = "ok" if response["ok"] else response["error"]["code"]
            assert outcome == expected[actor], (name, actor, response)
        recall = call("memory.recall", {"query": "private"}, socket_path, timeout=10)
        found = [m["id"] for m in recall["result"]["related_memories"]
                 + recall["result"]["recent_memories"]]
        assert (world["user"] in found) == (actor == OWNER)
