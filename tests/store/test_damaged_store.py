"""A damaged database never gives a traceback: every command answers one line naming doctor,
doctor reports the damage, and nothing is written into a store that reads as damaged."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from backends import damage_memories, is_postgres

from memtui.cli.main import main
from memtui.engine.api import Engine
from memtui.errors import StoreError
from memtui.store import maintenance as store_maintenance
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store

MEMORIES = 300


def _healthy_store(path: Path) -> None:
    engine = Engine(open_store(path), "alice")
    engine.identity.create_project("web")
    for number in range(MEMORIES):
        engine.identity.add_memory(f"memory {number} about the staging database " * 3, "fact",
                                   "web" if number % 2 else None)
    engine.tasks.add_task("web", "goal", "prompt", "result", "2026-11-01T10:00:00Z",
                          "2026-11-01T10:10:00Z")
    engine.store.checkpoint()
    engine.store.close()


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("healthy") / "healthy.db"
    _healthy_store(path)
    return path


def _malformed(healthy: Path, target: Path) -> Path:
    """A copy whose memory pages (table, indexes, full-text index) are overwritten: the
    schema still reads, the memories do not."""
    shutil.copy(healthy, target)
    return damage_memories(target, fulltext=True)


def _bad_utf8(healthy: Path, target: Path) -> Path:
    """A copy with text that is not UTF-8 in a memory and in the profile, written directly."""
    shutil.copy(healthy, target)
    conn = sqlite3.connect(target)
    with conn:
        conn.execute("UPDATE memories SET content = CAST(x'41fffe42' AS TEXT) "
                     "WHERE seq = (SELECT max(seq) FROM memories WHERE scope = 'user')")
        conn.execute("UPDATE profiles SET display_name = CAST(x'c3' AS TEXT)")
    conn.close()
    return target


DAMAGES: dict[str, Callable[[Path, Path], Path]] = {"malformed": _malformed,
                                                     "bad utf-8": _bad_utf8}
COMMANDS = {
    "malformed": [["memory", "list"], ["memory", "list", "--project", "web"],
                  ["memory", "list", "--search", "staging"], ["context", "--project", "web"],
                  ["memory", "show", "mem_missing"], ["export", "--jsonl", "-"]],
    "bad utf-8": [["memory", "list"], ["context"], ["profile", "show"],
                  ["export", "--jsonl", "-"]],
}
"""Commands that read the damaged part of each damaged store."""


def _run(db: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--db", str(db), "--user", "alice", *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("damage", "command"),
                         [(d, c) for d, commands in COMMANDS.items() for c in commands],
                         ids=[f"{d}: {' '.join(c)}" for d, cs in COMMANDS.items() for c in cs])
def test_commands_on_a_damaged_store_answer_one_line_naming_doctor(
        healthy: Path, tmp_path: Path, damage: str, command: list[str]) -> None:
    db = DAMAGES[damage](healthy, tmp_path / "bad.db")
    code, _out, err = _run(db, *command)
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("memtui: error: ")
    assert "memtui doctor" in err and "Traceback" not in err
    assert "\ufffd" not in err and "A\x00" not in err  # the undecodable text is never shown


def test_json_error_object_for_a_damaged_store(healthy: Path, tmp_path: Path) -> None:
    db = _malformed(healthy, tmp_path / "bad.db")
    code, out, _err = _run(db, "--json", "memory", "list")
    assert code == 1 and json.loads(out)["error"]["code"] == "store_error"


def test_memory_add_refuses_to_write_into_a_malformed_store(healthy: Path,
                                                            tmp_path: Path) -> None:
    db = _malformed(healthy, tmp_path / "bad.db")
    before = db.read_bytes()
    code, _out, err = _run(db, "memory", "add", "a note worth keeping zq7", "--kind", "fact")
    assert code == 1 and "memtui doctor" in err and err.count("\n") == 1
    written = db.read_bytes() + (Path(str(db) + "-wal").read_bytes()
                                 if Path(str(db) + "-wal").exists() else b"")
    assert b"zq7" not in written
    assert db.read_bytes() == before


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_doctor_reports_damage_instead_of_crashing(healthy: Path, tmp_path: Path,
                                                   damage: str) -> None:
    db = DAMAGES[damage](healthy, tmp_path / "bad.db")
    for repair in ([], ["--repair"]):
        code, out, err = _run(db, "--json", "doctor", *repair)
        report = json.loads(out)
        assert code == 1 and not report["healthy"] and err == ""
        if damage == "malformed":
            assert any(p.startswith("sqlite: ") for p in report["problems"])
        else:
            assert "memories row" in "\n".join(report["problems"])
            assert any("profiles row alice: display_name: text is not valid UTF-8" == p
                       for p in report["problems"])
        assert all("\n" not in p for p in report["problems"])


@pytest.mark.parametrize("content", [b"SQLite format 3\x00" + b"\x00" * 84, b"garbage" * 100])
def test_doctor_on_a_file_it_cannot_open_reports_it(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(content)
    code, out, err = _run(db, "doctor")
    assert code == 1 and err == "" and out.startswith("problem: sqlite: ")


def test_a_healthy_copy_is_healthy(healthy: Path, tmp_path: Path) -> None:
    db = tmp_path / "copy.db"
    shutil.copy(healthy, db)
    code, out, _err = _run(db, "doctor")
    assert code == 0, out


def test_a_store_that_fails_its_checks_is_named_by_its_backend(
        store: StoreBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check the database cannot answer is a problem labelled with the backend actually
    used (``postgresql: ...`` for a team store, never ``sqlite: ...``), and nothing is
    repaired or vacuumed after it."""
    engine = Engine(store, "alice")
    engine.identity.add_memory("a memory", "fact")
    label = "postgresql" if is_postgres(store) else "sqlite"

    def failing(_store: StoreBackend) -> list[str]:
        raise StoreError(f"{store.location}: the server went away")

    monkeypatch.setattr(store_maintenance, "chain_problems", failing)
    report = engine.maintenance.doctor(repair=True, vacuum=True)
    assert len(report.problems) == 1, report.problems
    assert report.problems[0].startswith(f"{label}: could not check the database (")
    assert "the server went away" in report.problems[0]
    assert report.repaired == [] and report.vacuum is None and report.vacuum_skipped
