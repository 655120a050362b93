"""export writes what the acting user may read; --all (the whole store) is for the OS user
who owns the store file; a user's export imports back to the same view for that user."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.errors import PermissionDenied
from memtui.store.database import open_store

LIMIT = 10_000


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    store = build_demo_store(path)
    alice, bob = Engine(store, "alice"), Engine(store, "bob")
    alice.recall.remember_interaction("i-alice", "private question zq1?", "private answer.")
    alice.recall.record_consolidation("dedupe", "done", {"note": "alice only"})
    bob.identity.add_memory("bob's private memory zq2", "fact")
    bob.recall.put_document("schedule:nightly", "INDEX.md", "bob's schedule zq3", 0)
    alice.recall.put_document("project:webshop", "INDEX.md", "webshop notes", 0)
    store.close()
    return path


def _rows(lines: list[str]) -> dict[str, list[dict[str, Any]]]:
    tables: dict[str, list[dict[str, Any]]] = {}
    for line in lines[1:]:
        record = json.loads(line)
        tables.setdefault(record["table"], []).append(record["row"])
    return tables


def _view(engine: Engine) -> dict[str, Any]:
    """Everything the user sees through the engine."""
    identity = engine.identity
    projects = sorted(project.id for project, _role in identity.list_projects())
    return {
        "projects": [(p.to_json() if hasattr(p, "to_json") else repr(p), role)
                     for p, role in identity.list_projects()],
        "profile": identity.profile().to_json(),
        "user memories": [m.to_json() for m in identity.list_memories(status="all",
                                                                      limit=LIMIT)],
        "project memories": {p: [m.to_json() for m in identity.list_memories(
            p, status="all", limit=LIMIT)] for p in projects},
        "tasks": [t.to_json() for t in engine.tasks.list_tasks(limit=LIMIT)],
        "settings": engine.settings.get(),
        "audit": [repr(entry) for entry in identity.audit(limit=LIMIT)],
        "log": [repr(entry) for entry in engine.extraction.log(limit=LIMIT)],
        "consolidations": [repr(c) for c in engine.recall.consolidations()],
        "bundles": [repr(b) for b in engine.recall.list_bundles()],
        "recall": engine.recall.recall("private", limit=50).to_json(),
    }


def test_a_reader_exports_only_what_they_may_read(demo: Path) -> None:
    carol = Engine(open_store(demo), "carol")
    lines = list(carol.maintenance.export_lines())
    carol.store.close()
    header, tables = json.loads(lines[0]), _rows(lines)
    assert header["scope"] == "user" and header["user"] == "carol"
    assert {p["id"] for p in tables["projects"]} == {"webshop"}
    assert {m["project"] for m in tables["memories"]} <= {"webshop", None}
    assert all(m["owner"] == "carol" for m in tables["memories"] if m["scope"] == "user")
    assert {p["user_id"] for p in tables["profiles"]} == {"carol"}
    assert {t["project_id"] for t in tables.get("tasks", [])} <= {"webshop"}
    for table in ("audit", "user_settings", "quotas", "interactions", "consolidations",
                  "forgotten_sources", "extraction_log", "model_usage", "extraction_details"):
        owners = {row.get("actor") or row.get("user_id") or row.get("forgotten_by")
                  for row in tables.get(table, [])}
        assert owners <= {"carol"}, table
    text = "\n".join(lines)
    for private in ("zq1", "zq2", "zq3", "alice only", "Nightly feature extraction"):
        assert private not in text


def test_cli_export_honours_user(cli, tmp_path: Path) -> None:
    assert cli("--user", "alice", "memory", "add", "alice secret plan zq9", "--kind",
               "fact").code == 0
    assert cli("--user", "bob", "memory", "add", "bob's own note", "--kind", "fact").code == 0
    target = tmp_path / "bob.jsonl"
    result = cli("--user", "bob", "--json", "export", "--jsonl", str(target))
    assert result.code == 0 and result.json["rows"]["memories"] == 1
    assert "zq9" not in target.read_text()
    stdout = cli("--user", "bob", "export", "--jsonl", "-")
    assert stdout.code == 0 and "zq9" not in stdout.out and "bob's own note" in stdout.out


@pytest.mark.usefixtures("open_umask")
def test_an_export_file_is_owner_only(cli, tmp_path: Path) -> None:
    assert cli("--user", "bob", "memory", "add", "bob's own note", "--kind", "fact").code == 0
    target = tmp_path / "bob.jsonl"
    target.write_text("an older export\n")
    target.chmod(0o644)
    refused = cli("--user", "bob", "export", "--jsonl", str(target))
    assert refused.code == 5 and "add --force" in refused.err
    assert target.read_text() == "an older export\n" and stat.S_IMODE(target.stat().st_mode) == 0o644
    fresh = tmp_path / "fresh.jsonl"
    for args in ([str(fresh)], [str(target), "--force"]):
        assert cli("--user", "bob", "export", "--jsonl", *args).code == 0
    for written in (fresh, target):  # a new file replaces an overwritten one: 0600 too
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert "bob's own note" in written.read_text()
    missing = cli("--user", "bob", "export", "--jsonl", str(tmp_path / "nope" / "x.jsonl"))
    assert missing.code == 1 and "cannot write" in missing.err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bob.jsonl", "fresh.jsonl", "memtui.db"])


@pytest.mark.parametrize("user", ["alice", "bob", "carol"])
def test_a_users_export_imports_back_to_the_same_view(demo: Path, tmp_path: Path,
                                                      user: str) -> None:
    source = Engine(open_store(demo), user)
    buffer = io.StringIO()
    source.maintenance.export_to(buffer)
    before = _view(source)
    source.store.close()
    copy = Engine(open_store(tmp_path / "copy.db"), user)
    copy.maintenance.import_lines(io.StringIO(buffer.getvalue()))
    assert copy.maintenance.doctor().healthy, copy.maintenance.check()
    assert _view(copy) == before
    again = copy.maintenance.import_lines(io.StringIO(buffer.getvalue()), merge=True)
    assert not again.loaded
    copy.store.close()


def test_all_is_the_whole_store_for_the_file_owner(cli, db_path: Path, tmp_path: Path) -> None:
    assert cli("--user", "alice", "memory", "add", "alice's", "--kind", "fact").code == 0
    assert cli("--user", "bob", "memory", "add", "bob's", "--kind", "fact").code == 0
    target = tmp_path / "all.jsonl"
    result = cli("--user", "carol", "--json", "export", "--all", "--jsonl", str(target))
    assert result.code == 0 and result.json["rows"]["memories"] == 2
    assert json.loads(target.read_text().splitlines()[0])["scope"] == "all"


def test_all_is_refused_to_anyone_else(cli, db_path: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("--user", "alice", "memory", "add", "alice's", "--kind", "fact").code == 0
    owner = db_path.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    target = tmp_path / "all.jsonl"
    for args in (["export", "--all", "--jsonl", str(target)],
                 ["export", "--all", "--jsonl", "-"]):
        result = cli("--user", "alice", *args)
        assert result.code == 4 and result.err.count("\n") == 1
        assert "owns the store file" in result.err and result.out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [db_path.name] or not target.exists()
    assert not target.exists() and not list(tmp_path.glob(f".{target.name}.*"))
    engine = Engine(open_store(db_path), "alice")
    with pytest.raises(PermissionDenied):
        list(engine.maintenance.export_lines(everything=True))
    assert cli("--user", "alice", "export", "--jsonl", str(target)).code == 0
    engine.store.close()


def test_all_on_a_missing_store_file_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    """``--all`` checks the store file's owner before opening it: a --db path naming no file
    (a typo) is a one-line error, and no new empty store is made and exported."""
    from memtui.cli.main import main as run_main

    missing = tmp_path / "typo.db"
    target = tmp_path / "all.jsonl"
    code = run_main(["--db", str(missing), "--user", "alice", "export", "--all", "--jsonl",
                     str(target)])
    assert code == 1
    assert not missing.exists() and not target.exists()
