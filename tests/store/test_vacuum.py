"""``memtui doctor --vacuum [--full]`` and ``Store.vacuum``: the space of deleted rows comes
back, deleted words leave the full-text index, a reader that keeps the write-ahead log is
named, and a damaged or read-only store is never rewritten."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from backends import damage_memories

from memtui.engine.api import Engine
from memtui.errors import StoreError
from memtui.store import maintenance as store_maintenance
from memtui.store.database import Store, open_store

KEPT, FORGOTTEN = 20, 200
FILLER = "the staging database is rebuilt every night from the production snapshot " * 8
UNIQUE_WORD = b"zebraquokka"


def _fill(engine: Engine, count: int, text: str = FILLER) -> list[str]:
    return [engine.identity.add_memory(f"{number}: {text}", "fact", None).id
            for number in range(count)]


def _on_disk(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_vacuum_gives_back_the_space_of_forgotten_memories(store: Store,
                                                            db_path: Path) -> None:
    engine = Engine(store, "alice")
    kept = _fill(engine, KEPT)
    engine.identity.forget_many(_fill(engine, FORGOTTEN))
    assert store.checkpoint()
    file_before = db_path.stat().st_size
    on_disk_before = file_before + store.purge_backlog_bytes()

    result = engine.maintenance.vacuum()

    assert result.bytes_before == on_disk_before
    assert result.pending is None and not result.full
    assert store.purge_backlog_bytes() == 0 and result.bytes_after == db_path.stat().st_size
    # 200 of 220 long memories are gone: the file shrinks to well under half
    assert result.bytes_after * 2 < file_before
    assert sorted(m.id for m in engine.identity.list_memories(limit=1000)) == sorted(kept)
    assert engine.maintenance.check() == []


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_vacuum_removes_the_words_of_deleted_rows_from_the_full_text_index(
        store: Store, db_path: Path) -> None:
    engine = Engine(store, "alice")
    _fill(engine, 50)
    doomed = engine.identity.add_memory(f"the {UNIQUE_WORD.decode()} plan", "fact", None)
    # A delete whose index merge has not reached the word (a big index, a bounded merge):
    # the row's text is gone, its word is still in an older full-text segment.
    with store.transaction():
        store.execute("DELETE FROM memories WHERE id = ?", (doomed.id,))
    store.execute("VACUUM")  # a plain VACUUM does not drop the word ...
    assert store.purge_deleted(1.0)
    assert UNIQUE_WORD in _on_disk(db_path)

    engine.maintenance.vacuum()  # ... doctor --vacuum's does

    assert UNIQUE_WORD not in _on_disk(db_path)
    assert engine.maintenance.check() == []


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_a_reader_that_keeps_the_write_ahead_log_is_named(
        store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_maintenance, "VACUUM_WAL_WAIT_S", 0.05)
    engine = Engine(store, "alice")
    engine.identity.forget_many(_fill(engine, 40))
    reader = open_store(db_path)
    try:
        with reader.snapshot():
            reader.execute("SELECT count(*) FROM memories").fetchone()
            result = engine.maintenance.vacuum()
    finally:
        reader.close()
    assert result.pending is not None and "read transaction" in result.pending
    assert "truncated the write-ahead log" not in result.done


def test_vacuum_is_refused_inside_a_transaction(store: Store) -> None:
    with store.transaction(), pytest.raises(StoreError, match="inside a transaction"):
        store.vacuum()


def test_vacuum_is_refused_on_a_read_only_store(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    open_store(path).close()
    os.chmod(path, 0o444)
    try:
        store = open_store(path, allow_read_only=True)
        try:
            before = _digest(path)
            with pytest.raises(StoreError, match="read-only"):
                store.vacuum()
            assert _digest(path) == before
        finally:
            store.close()
    finally:
        os.chmod(path, 0o644)


def test_doctor_vacuum_json(cli: Callable[..., object], store: Store) -> None:
    engine = Engine(store, "alice")
    engine.identity.forget_many(_fill(engine, 60))

    plain = cli("--json", "doctor")
    assert plain.code == 0 and "vacuum" not in plain.json

    result = cli("--json", "doctor", "--vacuum")
    assert result.code == 0, result.err
    out = result.json
    assert out["healthy"] is True and out["problems"] == []
    vacuum = out["vacuum"]
    assert set(vacuum) == {"full", "bytes_before", "bytes_after", "done", "pending"}
    assert vacuum["full"] is False and vacuum["pending"] is None
    assert vacuum["bytes_after"] < vacuum["bytes_before"]
    assert any("VACUUM" in step for step in vacuum["done"])

    full = cli("--json", "doctor", "--vacuum", "--full")
    assert full.code == 0 and full.json["vacuum"]["full"] is True


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_doctor_vacuum_human_output(cli: Callable[..., object], store: Store,
                                    terminal_80: None) -> None:
    _fill(Engine(store, "alice"), 5)
    result = cli("doctor", "--vacuum")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "memtui.db: healthy" in result.out.replace("\n", "")  # a long path wraps
    assert "vacuum: rebuilt the database file (VACUUM)" in lines
    assert any(line.startswith("vacuum: ") and " before, " in line and line.endswith(" after")
               for line in lines)


def test_full_without_vacuum_is_a_usage_error(cli: Callable[..., object]) -> None:
    result = cli("--json", "doctor", "--full")
    assert result.code == 2
    assert "--full goes with --vacuum" in result.err
    assert result.json["error"]["code"] == "usage"


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_doctor_vacuum_finishes_a_forget_that_waited_for_a_reader(
        cli: Callable[..., object], store: Store, db_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine import purge

    monkeypatch.setattr(purge, "FORGET_PURGE_WAIT_S", 0.05)
    engine = Engine(store, "alice")
    memory_id = _fill(engine, 3)[0]
    reader = open_store(db_path)
    try:
        with reader.snapshot():
            reader.execute("SELECT count(*) FROM memories").fetchone()
            engine.identity.forget(memory_id)
    finally:
        reader.close()
    assert cli("doctor").code == 1  # the forgotten text may still be in the WAL

    result = cli("--json", "doctor", "--vacuum")

    assert result.code == 0, result.out
    assert result.json["problems"] == []
    assert purge.pending(store).purged


def test_a_damaged_store_is_not_vacuumed(cli: Callable[..., object], db_path: Path) -> None:
    store = open_store(db_path)
    _fill(Engine(store, "alice"), 100)
    assert store.checkpoint()
    store.close()
    damage_memories(db_path)
    before = _digest(db_path)

    result = cli("--json", "doctor", "--vacuum")

    assert result.code == 1
    assert result.json["healthy"] is False
    assert "damaged" in result.json["vacuum"]["skipped"]
    assert _digest(db_path) == before


@pytest.mark.sqlite_only  # SQLite's file, full-text segments and write-ahead log
def test_vacuum_builds_the_new_file_on_disk_not_in_memory(store: Store) -> None:
    _fill(Engine(store, "alice"), 5)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        store.vacuum()
    finally:
        store.conn.set_trace_callback(None)
    vacuum_at = statements.index("VACUUM")
    assert "PRAGMA temp_store = FILE" in statements[:vacuum_at]
    # the connection's own setting (temporary tables in memory) is back afterwards
    assert store.execute("PRAGMA temp_store").fetchone()[0] == 2
