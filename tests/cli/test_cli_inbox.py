"""``memtui inbox list | approve | reject``: JSON shapes, --all, --source,
--edit, exit codes for every refusal."""

from __future__ import annotations

import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import CliResult

from memtui.engine.api import Engine
from memtui.store.database import open_store

Cli = Callable[..., CliResult]


def _as(user: str) -> Callable[..., tuple[str, ...]]:
    return lambda *args: ("--user", user, *args)


@pytest.fixture
def team(cli: Cli) -> Cli:
    """alice owns web (bob member, carol reader), review on; run commands as ``user``."""
    alice = _as("alice")
    assert cli(*alice("project", "add", "web")).code == 0
    assert cli(*alice("project", "member", "web", "bob", "--role", "member")).code == 0
    assert cli(*alice("project", "member", "web", "carol", "--role", "reader")).code == 0
    assert cli(*alice("settings", "set", "review_new_memories=on")).code == 0
    return cli


Agent = Callable[..., str]


@pytest.fixture
def agent(db_path: Path) -> Agent:
    """Write as alice's agent (as MCP or an import would, through the engine): a new memory,
    or with ``corrects`` a correction; returns the pending memory's id."""

    def write(text: str, project: str | None = "web", source: str = "mcp",
              corrects: str | None = None) -> str:
        store = open_store(db_path)
        try:
            identity = Engine(store, "alice").identity
            if corrects is not None:
                return identity.supersede(corrects, text, source=source).id
            return identity.add_memory(text, "fact", project, source=source).id
        finally:
            store.close()

    return write


def test_list_json_has_the_memory_shape_and_the_diff(team: Cli, agent: Agent) -> None:
    added = team("--user", "alice", "--json", "memory", "add", "Redis 6 is the cache",
                 "--kind", "fact", "--project", "web").json
    pending_id = agent("Redis 7 is the cache", corrects=added["id"])
    result = team("--user", "alice", "--json", "inbox", "list")
    assert result.code == 0
    body = result.json
    assert body["count"] == 1
    [item] = body["items"]
    assert item["id"] == pending_id and item["status"] == "pending"
    assert {"id", "scope", "owner", "project", "kind", "content", "status", "superseded_by",
            "source", "source_thread_id", "created_at", "updated_at", "usage_count",
            "last_used_at", "replaces", "target", "diff", "version", "can_act"} <= set(item)
    assert item["replaces"] == added["id"] and item["target"]["content"] == "Redis 6 is the cache"
    assert {"op": "removed", "text": "6"} in item["diff"]
    human = team("--user", "alice", "inbox", "list")
    assert human.code == 0 and "1 waiting for review" in human.out
    assert [line for line in human.out.splitlines() if pending_id in line] == [
        next(line for line in human.out.splitlines() if "web: " in line)]  # one line
    shown = team("--user", "alice", "inbox", "show", pending_id)
    assert shown.code == 0 and f"corrects {added['id']}" in shown.out
    assert "[-6-]" in shown.out and "{+7+}" in shown.out
    assert team("--user", "alice", "--json", "inbox", "show", pending_id).json["items"][0][
        "diff"] == item["diff"]
    assert team("--user", "alice", "inbox", "show", "mem_nope").code == 3


def test_empty_inbox_says_how_to_turn_review_on(cli: Cli) -> None:
    result = cli("--user", "zoe", "inbox", "list")
    assert result.code == 0 and "review_new_memories=on" in result.out
    assert cli("--user", "zoe", "--json", "inbox", "list").json == {"items": [], "count": 0}


def test_approve_and_reject_by_id(team: Cli, agent: Agent) -> None:
    first, second = agent("first"), agent("second")
    approved = team("--user", "alice", "--json", "inbox", "approve", first)
    assert approved.code == 0
    assert approved.json["items"][0]["status"] == "active" and approved.json["errors"] == []
    rejected = team("--user", "alice", "inbox", "reject", second)
    assert rejected.code == 0 and f"rejected {second}" in rejected.out
    assert team("--user", "alice", "memory", "show", second).code == 3
    again = team("--user", "alice", "--json", "inbox", "approve", first)
    assert again.code == 1 and again.json["errors"][0]["code"] == "conflict"
    assert "already approved" in again.err


def test_all_with_source_takes_only_that_source(team: Cli, agent: Agent) -> None:
    mcp = agent("from mcp")
    imported = agent("imported", None, "import")
    result = team("--user", "alice", "--json", "inbox", "approve", "--all", "--source", "import")
    assert [item["id"] for item in result.json["items"]] == [imported]
    left = team("--user", "alice", "--json", "inbox", "list").json
    assert [item["id"] for item in left["items"]] == [mcp]
    assert team("--user", "alice", "--json", "inbox", "reject", "--all").json["count"] == 1
    assert team("--user", "alice", "--json", "inbox", "list").json["count"] == 0
    nothing = team("--user", "alice", "inbox", "approve", "--all")
    assert nothing.code == 0 and "Nothing to approve" in nothing.out


@pytest.mark.parametrize(("args", "code"), [
    (("inbox", "approve"), 5),
    (("inbox", "reject", "--source", "mcp", "mem_x"), 5),
    (("inbox", "approve", "--all", "mem_x"), 5),
    (("inbox", "list", "--source", "telepathy"), 5),
    (("inbox", "approve", "mem_missing"), 3),
    (("inbox", "frobnicate"), 2),
])
def test_bad_usage_and_missing_ids(team: Cli, args: tuple[str, ...], code: int) -> None:
    result = team("--user", "alice", "--json", *args)
    assert result.code == code
    assert result.err.startswith("memtui: error:") or "usage" in result.err.lower()


def test_a_reader_is_refused_and_all_skips_what_they_may_not_decide(team: Cli, agent: Agent) -> None:
    pending = agent("web, from MCP")
    refused = team("--user", "carol", "--json", "inbox", "approve", pending)
    assert refused.code == 4 and refused.json["errors"][0]["code"] == "permission_denied"
    listed = team("--user", "carol", "--json", "inbox", "list").json
    assert listed["items"][0]["can_act"] is False
    assert team("--user", "carol", "--json", "inbox", "reject", "--all").json["count"] == 0
    assert team("--user", "alice", "--json", "inbox", "list").json["count"] == 1


def test_partial_failure_reports_each_and_exits_with_the_first_code(team: Cli, agent: Agent) -> None:
    good = agent("good")
    result = team("--user", "alice", "--json", "inbox", "approve", "mem_gone", good)
    assert result.code == 3
    assert [item["id"] for item in result.json["items"]] == [good]
    assert "mem_gone" in result.err and result.err.count("\n") == 1


def test_text_approves_edited_and_redacted(team: Cli, agent: Agent) -> None:
    pending = agent("draft")
    result = team("--user", "alice", "--json", "inbox", "approve", pending, "--text",
                  "The key is api_key=sk-live-abcdefghijklmnop1234", "--kind", "decision")
    assert result.code == 0
    [item] = result.json["items"]
    assert item["edited"] and item["kind"] == "decision" and "sk-live" not in item["content"]
    empty = team("--user", "alice", "--json", "inbox", "approve", agent("x"),
                 "--text", "  ")
    assert empty.code == 5


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An $EDITOR that replaces the file's text with 'edited in the editor'."""
    script = tmp_path / "fake-editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('edited in the editor\\n')\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    return script


def test_edit_opens_the_editor_for_each(team: Cli, agent: Agent, editor: Path) -> None:
    ids = [agent("one"), agent("two")]
    result = team("--user", "alice", "--json", "inbox", "approve", *ids, "--edit")
    assert result.code == 0
    assert [item["content"] for item in result.json["items"]] == ["edited in the editor"] * 2


def test_edit_with_a_failing_editor_approves_nothing(team: Cli, agent: Agent,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pending = agent("kept pending")
    monkeypatch.setenv("EDITOR", f"{sys.executable} -c 'raise SystemExit(3)'")
    monkeypatch.delenv("VISUAL", raising=False)
    result = team("--user", "alice", "--json", "inbox", "approve", pending, "--edit")
    assert result.code == 5 and "exited with 3" in result.err
    assert team("--user", "alice", "--json", "inbox", "list").json["count"] == 1


def test_a_memory_changed_while_in_the_editor_is_not_approved(
        team: Cli, agent: Agent, db_path: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    pending = agent("first draft")
    script = tmp_path / "racing-editor.py"
    script.write_text(
        "import sys\n"
        "from memtui.engine.api import Engine\n"
        "from memtui.store.database import open_store\n"
        f"store = open_store({str(db_path)!r})\n"
        f"Engine(store, 'alice').identity.supersede({pending!r}, 'second draft', source='mcp')\n"
        "store.close()\n"
        "open(sys.argv[1], 'w').write('my edit of the first draft\\n')\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    result = team("--user", "alice", "--json", "inbox", "approve", pending, "--edit")
    assert result.code == 1 and "changed since it was shown" in result.err
    [item] = team("--user", "alice", "--json", "inbox", "list").json["items"]
    assert (item["id"], item["status"], item["content"]) == (pending, "pending", "second draft")
