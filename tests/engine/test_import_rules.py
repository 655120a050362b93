"""Import goes through the write paths' rules (one set, memtui.engine.rows); doctor applies the
same rules to a store's rows and repairs only what is safe."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main
from memtui.engine.api import Engine
from memtui.errors import InvalidInput
from memtui.store.database import open_store

T = "2026-01-01T00:00:00.000Z"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
HEADER = {"format": "memtui-export", "version": 1, "schema_version": 2}


def _memory(**changes: Any) -> dict[str, Any]:
    row = {"seq": 1, "id": "mem_1", "scope": "user", "owner": "alice", "project": None,
           "kind": "fact", "content": "plain text", "status": "active", "superseded_by": None,
           "source": "import", "source_thread_id": None, "goal_key": None, "created_at": T,
           "updated_at": T, "usage_count": 0, "last_used_at": None}
    row.update(changes)
    return row


def _usage(**changes: Any) -> dict[str, Any]:
    return {"seq": 1, "user_id": "alice", "phase": "extract", "round_id": "round_1",
            "task_id": "task_1", "project_id": "web", "model": "m", "tokens_in": 10,
            "tokens_out": 2, "outcome": "answered", "at": T, **changes}


def _details(**changes: Any) -> dict[str, Any]:
    return {"task_id": "task_1", "user_id": "alice", "external_tool": None, "detail": None,
            "attempts": 0, "retry_at": None, **changes}


def _lines(*records: tuple[str, dict[str, Any]], header: dict[str, Any] | None = None) -> list[str]:
    base = [("users", {"id": "alice", "display_name": "Alice", "created_at": T}),
            ("projects", {"id": "web", "name": "Web", "root_path": "/src/web", "summary": "",
                          "created_by": "alice", "created_at": T}),
            ("project_members", {"project_id": "web", "user_id": "alice", "role": "owner"})]
    return [json.dumps(header or HEADER)] + [json.dumps({"table": t, "row": r})
                                             for t, r in base + list(records)]


BAD_ROWS: dict[str, tuple[tuple[str, dict[str, Any]], str]] = {
    "secret preference key": (("profiles", {
        "user_id": "alice", "display_name": "A", "timezone": "UTC",
        "preferences": json.dumps({"editor": "vim", "db": {"Password": "hunter2"}}),
        "updated_at": T}), "line 5: profiles row: preferences: preference key 'db.Password'"),
    "NUL in content": (("memories", _memory(content="a\x00b")),
                       "line 5: memories row: content: content contains a NUL byte"),
    "empty content": (("memories", _memory(content="   ")), "content: content is empty"),
    "content over the limit": (("memories", _memory(content="x" * (64 * 1024 + 1))),
                               "content: content is too long"),
    "2 MiB content": (("memories", _memory(content="y" * (2 * 1024 * 1024))),
                      "content: content is too long"),
    "number where text belongs": (("memories", _memory(content=42)),
                                  "content: content must be text"),
    "yesterday": (("memories", _memory(created_at="yesterday")),
                  "line 5: memories row: created_at: not an ISO-8601 time: 'yesterday'"),
    "year 1": (("memories", _memory(created_at="0001-01-01T00:00:00+14:00")),
               "created_at: time '0001-01-01T00:00:00+14:00' is out of range"),
    "hostile owner id": (("memories", _memory(owner="../../etc\x1b[31m")),
                         "line 5: memories row: owner: owner '../../etc\\x1b[31m' is not a valid"),
    "hostile memory id": (("memories", _memory(id="../../etc\x1b[31m")), "id: id '../../etc"),
    "hostile user id": (("users", {"id": "../../etc\x1b[31m", "display_name": "x",
                                   "created_at": T}), "line 5: users row: id:"),
    "bool as count": (("memories", _memory(usage_count=True)), "usage_count: usage_count must"),
    "unknown kind": (("memories", _memory(kind="gossip")), "kind: unknown kind 'gossip'"),
    "huge kind": (("memories", _memory(kind="k" * 100_000)), "kind: unknown kind 'kkk"),
    "huge time zone": (("profiles", {"user_id": "alice", "display_name": "A",
                                     "timezone": "Z" * 100_000, "preferences": "{}",
                                     "updated_at": T}), "timezone: unknown time zone"),
    "user memory naming a project": (("memories", _memory(project="web")),
                                     "a user memory none"),
    "audit detail not an object": (("audit", {"seq": 1, "at": T, "actor": "alice",
                                              "action": "x", "target": None,
                                              "detail": "[1, 2]"}), "audit row: detail:"),
    "audit detail not JSON": (("audit", {"seq": 1, "at": T, "actor": "alice", "action": "x",
                                         "target": None, "detail": "{oops"}),
                              "audit row: detail: detail is not valid JSON"),
    "audit detail too deep": (("audit", {"seq": 1, "at": T, "actor": "alice", "action": "x",
                                         "target": None,
                                         "detail": '{"a": ' * 40 + "1" + "}" * 40}),
                              "detail: detail must be a JSON object at most 32 deep"),
    "audit detail with NUL": (("audit", {"seq": 1, "at": T, "actor": "alice", "action": "x",
                                         "target": None, "detail": '{"a": "\\u0000"}'}),
                              "detail: detail contains a NUL byte"),
    "consolidation detail as an object": (("consolidations", {
        "seq": 1, "id": "cons_1", "user_id": "alice", "kind": "dedupe", "outcome": "done",
        "detail": {"a": 1}, "at": T}), "detail: detail must be JSON text"),
    "interaction source too long": (("interactions", {
        "seq": 1, "id": "i1", "user_id": "alice", "project_id": None, "question": "q?",
        "answer": "a.", "source": "s" * 65, "created_at": T}), "source: source is too long"),
    "project name on two lines": (("projects", {
        "id": "p2", "name": "a\nb", "root_path": None, "summary": "", "created_by": "alice",
        "created_at": T}), "name: project name must be one line"),
    "unknown setting": (("user_settings", {"user_id": "alice",
                                           "settings": '{"turbo": 1}', "updated_at": T}),
                        "settings: unknown setting 'turbo'"),
    "bundle state.json that is not JSON": (("bundle_documents", {
        "bundle_id": "project:web", "path": "state.json", "revision": 1, "content": "{oops",
        "updated_at": T, "updated_by": "alice"}), "content: state.json is not valid JSON"),
    "bundle document path escaping": (("bundle_documents", {
        "bundle_id": "project:web", "path": "../../etc/passwd", "revision": 1, "content": "x",
        "updated_at": T, "updated_by": "alice"}), "path: path '../../etc/passwd' is not"),
    "negative cost": (("quotas", {"user_id": "alice", "limit_usd": -1, "updated_at": T}),
                      "limit_usd:"),
    "model call of an unknown phase": (("model_usage", _usage(phase="gossip")),
                                       "model_usage row: phase: phase 'gossip' is not one of"),
    "negative tokens": (("model_usage", _usage(tokens_in=-5)), "tokens_in: tokens_in must"),
    "tool name on two lines": (("extraction_details", _details(external_tool="a\nb")),
                               "external_tool: external_tool must be one line"),
    "attempts as text": (("extraction_details", _details(attempts="2")), "attempts: attempts"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_import_refuses_the_whole_file_naming_the_first_bad_row(tmp_path: Path, case: str) -> None:
    record, message = BAD_ROWS[case]
    engine = Engine(open_store(tmp_path / "s.db"), "alice")
    lines = _lines(record, ("memories", _memory(id="mem_ok", seq=9)))
    with pytest.raises(InvalidInput) as caught:
        engine.maintenance.import_lines(lines)
    assert message in caught.value.message
    assert "\n" not in caught.value.message and "\x1b" not in caught.value.message
    assert len(caught.value.message) < 400
    assert engine.store.is_empty()
    engine.store.close()


@pytest.mark.parametrize("version", ["3", True, None, 2.5, [2]])
def test_import_header_with_a_schema_version_that_is_not_a_number(tmp_path: Path,
                                                                  version: object) -> None:
    engine = Engine(open_store(tmp_path / "s.db"), "alice")
    with pytest.raises(InvalidInput, match="line 1: schema_version must be a whole number"):
        engine.maintenance.import_lines(_lines(header={**HEADER, "schema_version": version}))
    engine.store.close()


def test_import_redacts_every_free_text_column(tmp_path: Path) -> None:
    secret = f"key {TOKEN}"
    lines = [json.dumps(HEADER)] + [json.dumps({"table": t, "row": r}) for t, r in [
        ("users", {"id": "alice", "display_name": secret, "created_at": T}),
        ("projects", {"id": "web", "name": secret, "root_path": f"/src/{TOKEN}",
                      "summary": secret, "created_by": "alice", "created_at": T}),
        ("project_members", {"project_id": "web", "user_id": "alice", "role": "owner"}),
        ("profiles", {"user_id": "alice", "display_name": secret, "timezone": "UTC",
                      "preferences": json.dumps({"motto": secret, TOKEN: 1}), "updated_at": T}),
        ("memories", _memory(content=secret)),
        ("audit", {"seq": 1, "at": T, "actor": "alice", "action": "memory_created",
                   "target": "mem_1", "detail": json.dumps({"note": secret})}),
        ("user_settings", {"user_id": "alice", "settings": json.dumps({"extract_model": TOKEN}),
                           "updated_at": T}),
        ("interactions", {"seq": 1, "id": "i1", "user_id": "alice", "project_id": None,
                          "question": secret, "answer": secret, "source": TOKEN,
                          "created_at": T}),
        ("consolidations", {"seq": 1, "id": "cons_1", "user_id": "alice", "kind": "dedupe",
                            "outcome": "done", "detail": json.dumps({"why": secret}), "at": T}),
        ("model_usage", _usage(model=TOKEN)),
        ("extraction_details", _details(external_tool=TOKEN, detail=secret)),
    ]]
    db = tmp_path / "s.db"
    engine = Engine(open_store(db), "alice")
    engine.maintenance.import_lines(lines)
    assert engine.identity.profile().display_name == "key [REDACTED]"
    assert engine.maintenance.doctor().problems == ["extraction details for missing task task_1"]
    engine.store.close()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.db"))
    assert TOKEN.encode() not in data


def test_cli_import_of_a_bad_file_is_one_line_and_leaves_no_store_file(tmp_path: Path) -> None:
    backup = tmp_path / "bad.jsonl"
    backup.write_text("\n".join(_lines(("memories", _memory(content="a\x00b")))) + "\n")
    target = tmp_path / "new.db"
    out, err = io.StringIO(), io.StringIO()
    code = main(["--db", str(target), "--user", "alice", "import", "--jsonl", str(backup)],
                stdout=out, stderr=err)
    assert code == 5
    assert err.getvalue().count("\n") == 1 and "line 5" in err.getvalue()
    assert "content" in err.getvalue()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_cli_refused_merge_keeps_an_existing_store(cli, db_path: Path, tmp_path: Path) -> None:
    assert cli("--user", "alice", "memory", "add", "kept", "--kind", "fact").code == 0
    backup = tmp_path / "bad.jsonl"
    backup.write_text("\n".join(_lines(("memories", _memory(created_at="yesterday")))) + "\n")
    assert cli("--user", "alice", "import", "--merge", "--jsonl", str(backup)).code == 5
    assert db_path.exists()
    assert [m["content"] for m in cli("--user", "alice", "--json", "memory", "list").json[
        "items"]] == ["kept"]


# ---- doctor on rows already in a store ---------------------------------------------------

def _planted_store(path: Path) -> None:
    """A store whose rows were written around the engine (as an old import could have)."""
    engine = Engine(open_store(path), "alice")
    engine.identity.create_project("web")
    engine.identity.add_memory("ordinary memory", "fact")
    engine.store.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE profiles SET preferences = ? WHERE user_id = 'alice'",
                     (json.dumps({"editor": "vim", "password": "hunter2"}),))
        conn.execute("UPDATE projects SET summary = ? WHERE id = 'web'", (f"token {TOKEN}",))
        conn.execute("UPDATE memories SET content = ? WHERE content = 'ordinary memory'",
                     (f"ordinary memory {TOKEN}",))
        conn.execute("UPDATE memories SET created_at = '2026-01-01T00:00:00Z'")
        conn.execute("INSERT INTO users(id, display_name, created_at) VALUES (?, 'x', ?)",
                     ("../../etc\x1b[31m", T))
        conn.execute("INSERT INTO memories(id, scope, owner, kind, content, source, created_at,"
                     " updated_at) VALUES ('mem_nul', 'user', 'alice', 'fact', ?, 'import', ?, ?)",
                     ("a\x00b", T, T))
        conn.execute("INSERT INTO memories(id, scope, owner, kind, content, source, created_at,"
                     " updated_at) VALUES ('mem_when', 'user', 'alice', 'fact', 'x', 'import', "
                     "'yesterday', ?)", (T,))
    conn.close()


def test_doctor_flags_rows_that_break_the_write_rules(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _planted_store(db)
    engine = Engine(open_store(db), "alice")
    problems = "\n".join(engine.maintenance.check())
    assert "profiles row alice: preferences: preference key 'password'" in problems
    assert "projects row web: summary: holds a secret that was stored unredacted" in problems
    assert "content: holds a secret that was stored unredacted" in problems
    assert "created_at: time '2026-01-01T00:00:00Z' is not in the stored form" in problems
    assert "users row #" in problems and "is not a valid id" in problems
    assert "\x1b" not in problems
    assert "memories row mem_nul: content: content contains a NUL byte" in problems
    assert "memories row mem_when: created_at: not an ISO-8601 time: 'yesterday'" in problems
    engine.store.close()


def test_doctor_repair_fixes_only_what_is_safe(tmp_path: Path, cli) -> None:
    db = tmp_path / "s.db"
    _planted_store(db)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--db", str(db), "--json", "doctor", "--repair"], stdout=out, stderr=err)
    report = json.loads(out.getvalue())
    assert code == 1 and report["repaired"]
    left = "\n".join(report["problems"])
    assert "preference key" not in left and "unredacted" not in left
    assert "stored form" not in left
    assert "is not a valid id" in left and "NUL byte" in left and "'yesterday'" in left
    engine = Engine(open_store(db), "alice")
    assert engine.identity.profile().preferences == {"editor": "vim"}
    assert engine.identity.get_project("web").summary == "token [REDACTED]"
    assert [m.content for m in engine.identity.list_memories(search="ordinary")] == [
        "ordinary memory [REDACTED]"]
    assert engine.maintenance.check() == report["problems"]
    engine.store.checkpoint()
    engine.store.close()
    assert TOKEN.encode() not in db.read_bytes()
