"""The command line's identity commands: names, JSON shapes and exit codes of the CLI contract."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from backends import plant_legacy_text

MEMORY_KEYS = {"id", "scope", "owner", "project", "kind", "content", "status", "superseded_by",
               "source", "source_thread_id", "created_at", "updated_at", "usage_count",
               "last_used_at"}


@pytest.fixture
def web(cli) -> None:
    assert cli("--user", "alice", "project", "add", "web", "--name", "Web").code == 0
    assert cli("--user", "alice", "project", "member", "web", "carol", "--role", "reader").code == 0


def test_project_accept_and_the_accepted_column(cli, web, tmp_path: Path, terminal_80) -> None:
    root = tmp_path / "web"
    assert cli("--user", "bob", "project", "add", "tools", "--root", str(root)).code == 0
    added = cli("--user", "bob", "project", "member", "tools", "alice", "--role", "member")
    assert added.code == 0 and \
        "once they accept: memtui project accept tools" in " ".join(added.out.split())
    myself = cli("--user", "alice", "project", "member", "web", "alice", "--role", "owner")
    assert myself.out.strip() == "alice is now owner of web"
    listed = cli("--user", "alice", "--json", "project", "list").json["items"]
    assert [(p["id"], p["role"], p["accepted"]) for p in listed] == [
        ("tools", "member", False), ("web", "owner", True)]
    assert "│ no " in cli("--user", "alice", "project", "list").out
    accepted = cli("--user", "alice", "--json", "project", "accept", "tools")
    assert (accepted.code, accepted.json) == (0, {"project": "tools", "accepted": True,
                                                   "changed": True})
    again = cli("--user", "alice", "project", "accept", "tools")
    assert again.code == 0 and again.out.startswith("already accepted tools")
    assert str(root.resolve()) in again.out.replace("\n", "")
    listed = cli("--user", "alice", "--json", "project", "list").json["items"]
    assert [p["accepted"] for p in listed] == [True, True]
    for user, args, code in (("alice", ["missing"], 3), ("alice", [], 2), ("dave", ["web"], 3)):
        assert cli("--user", user, "project", "accept", *args).code == code


def test_memory_add_list_show_json(cli, web) -> None:
    added = cli("--user", "alice", "--json", "memory", "add", "Uses ruff", "--kind", "convention")
    assert added.code == 0
    memory = added.json
    assert set(memory) == MEMORY_KEYS and memory["scope"] == "user"
    listed = cli("memory", "list", "--user", "alice", "--json")
    assert listed.json["count"] == 1 and listed.json["items"][0] == memory
    shown = cli("memory", "show", memory["id"], "--json", "--user", "alice")
    assert shown.json == memory
    project = cli("--user", "alice", "--json", "memory", "add", "Postgres", "--kind", "decision",
                  "--project", "web").json
    assert project["scope"] == "project" and project["project"] == "web"
    assert cli("--user", "alice", "--json", "memory", "list", "--scope", "user").json["count"] == 1


def test_other_users_memory_answers_like_a_missing_one(cli, web) -> None:
    memory = cli("--user", "alice", "--json", "memory", "add", "private", "--kind", "fact").json
    hidden = cli("--user", "bob", "--json", "memory", "show", memory["id"])
    missing = cli("--user", "bob", "--json", "memory", "show", "mem_0000000000000000")
    assert hidden.code == missing.code == 3
    assert hidden.json["error"]["code"] == missing.json["error"]["code"] == "not_found"
    assert (hidden.json["error"]["message"].replace(memory["id"], "ID")
            == missing.json["error"]["message"].replace("mem_0000000000000000", "ID"))
    assert hidden.err.count("\n") == 1


def test_reader_can_list_but_not_add(cli, web) -> None:
    cli("--user", "alice", "memory", "add", "shared fact", "--kind", "fact", "--project", "web")
    listed = cli("--user", "carol", "--json", "memory", "list", "--project", "web")
    assert listed.code == 0 and listed.json["count"] == 1
    denied = cli("--user", "carol", "--json", "memory", "add", "x", "--kind", "fact",
                 "--project", "web")
    assert denied.code == 4 and denied.json["error"]["code"] == "permission_denied"
    assert cli("--user", "dave", "memory", "list", "--project", "web").code == 3


def test_supersede_history_forget(cli, web) -> None:
    first = cli("--user", "alice", "--json", "memory", "add", "v1", "--kind", "fact").json
    second = cli("--user", "alice", "--json", "memory", "supersede", first["id"], "v2").json
    assert second["content"] == "v2"
    again = cli("--user", "alice", "--json", "memory", "supersede", first["id"], "v3")
    assert again.code == 5 and second["id"] in again.json["error"]["message"]
    history = cli("--user", "alice", "--json", "memory", "history", second["id"]).json
    assert [m["id"] for m in history["items"]] == [first["id"], second["id"]]
    refused = cli("--user", "alice", "memory", "forget", second["id"])
    assert refused.code == 5 and "2 version" in refused.err
    gone = cli("--user", "alice", "--json", "memory", "forget", second["id"], "--yes")
    assert gone.code == 0 and gone.json["count"] == 2
    assert cli("--user", "alice", "memory", "show", first["id"]).code == 3


@pytest.mark.parametrize("args, code", [
    (["memory", "add", "", "--kind", "fact"], 5),
    (["memory", "add", "   ", "--kind", "fact"], 5),
    (["memory", "add", "x" * 70000, "--kind", "fact"], 5),
    (["memory", "add", "x", "--kind", "opinion"], 5),
    (["memory", "add", "x", "--kind", "fact", "--project", "nope"], 3),
    (["memory", "list", "--status", "gone"], 5),
    (["profile", "set", "--timezone", "Nowhere/City"], 5),
    (["profile", "set", "--preferences", "[1, 2]"], 5),
    (["profile", "set", "--preferences", "{not json"], 5),
    (["profile", "set", "--pref", "db.password=\"x\""], 5),
    (["profile", "set", "--pref", "nested={\"OAuth_Token\": 1}"], 5),
    (["memory", "frobnicate"], 2),
    (["memory", "list", "--limit", "0"], 2),
    (["project", "member", "web", "bob", "--role", "admin"], 5),
    (["project", "add", "bad id!"], 5),
])
def test_bad_input_gets_one_line_and_the_right_code(cli, web, args, code) -> None:
    result = cli("--user", "alice", "--json", *args)
    assert result.code == code, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("memtui: error:")
    assert "error" in result.json
    assert cli("--user", "alice", "--json", "memory", "list", "--status", "all").json[
        "count"] == 0


def test_profile_show_and_set(cli) -> None:
    result = cli("--user", "alice", "--json", "profile", "set", "--name", "Alice",
                 "--timezone", "Asia/Tokyo", "--pref", "editor=\"helix\"", "--pref", "width=100")
    assert result.code == 0
    assert result.json["preferences"] == {"editor": "helix", "width": 100}
    shown = cli("--user", "alice", "--json", "profile", "show").json
    assert shown["timezone"] == "Asia/Tokyo" and shown["display_name"] == "Alice"


def test_context_and_audit_json(cli, web) -> None:
    cli("--user", "alice", "note", "remember the milk", "--project", "web")
    context = cli("--user", "alice", "--json", "context", "--project", "web").json
    assert set(context) == {"profile", "user_memories", "project_memories", "text",
                            "project_summary"}
    assert context["project_memories"][0]["source"] == "note"
    audit = cli("--user", "alice", "--json", "audit", "--limit", "2").json
    assert audit["count"] == 2 and audit["items"][0]["action"] == "memory_created"


@pytest.mark.parametrize("bad_db", ["dir", "text", "missing-folder"])
def test_bad_db_paths_exit_nonzero_with_one_line(tmp_path: Path, bad_db: str) -> None:
    import io

    from memtui.cli.main import main

    target = {"dir": tmp_path, "text": tmp_path / "t.txt",
              "missing-folder": tmp_path / "no" / "x.db"}[bad_db]
    if bad_db == "text":
        target.write_text("just text")
    out, err = io.StringIO(), io.StringIO()
    code = main(["--db", str(target), "--user", "a", "memory", "list"], stdout=out, stderr=err)
    assert code == 1 and err.getvalue().count("\n") == 1 and str(target) in err.getvalue()


def test_human_output_is_literal_and_fits_80_columns(cli, web, terminal_80, db_path) -> None:
    cli("--user", "alice", "memory", "add", "hostile-mark", "--kind", "fact")
    plant_legacy_text(db_path, "hostile-mark",
                      "[bold red]x[/] [@click=app.quit] \x1b[2J\x1b]52;c;aGk=\x07")
    listed = cli("--user", "alice", "memory", "list")
    assert "[bold red]x[/]" in listed.out and "[@click=app.quit]" in listed.out
    assert "\x1b" not in listed.out and "\\x1b[2J" in listed.out
    assert max(len(line) for line in listed.out.splitlines()) <= 80


def test_env_overrides_db_and_user(tmp_path: Path, monkeypatch) -> None:
    import io

    from memtui.cli.main import main

    monkeypatch.setenv("MEMTUI_DB", str(tmp_path / "env.db"))
    monkeypatch.setenv("MEMTUI_USER", "erin")
    out = io.StringIO()
    assert main(["--json", "memory", "add", "hi", "--kind", "fact"], stdout=out) == 0
    assert (tmp_path / "env.db").exists() and '"owner": "erin"' in out.getvalue()
    assert os.environ["MEMTUI_USER"] == "erin"
