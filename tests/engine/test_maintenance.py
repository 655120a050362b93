"""doctor, export and import: lossless round trip, refusal of bad files, repair."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.errors import InvalidInput
from memtui.store import maintenance as sql
from memtui.store.database import open_store


def _dump(path: Path) -> dict[str, list[dict]]:
    store = open_store(path)
    try:
        return {table: list(sql.dump_rows(store, table)) for table in sql.EXPORT_TABLES}
    finally:
        store.close()


def test_demo_store_is_healthy(tmp_path: Path) -> None:
    store = build_demo_store(tmp_path / "demo.db")
    report = Engine(store, "alice").maintenance.doctor()
    assert report.healthy, report.problems
    store.close()


def test_export_import_round_trip_is_lossless(tmp_path: Path, cli) -> None:
    build_demo_store(tmp_path / "demo.db").close()
    source = Engine(open_store(tmp_path / "demo.db"), "alice")
    buffer = io.StringIO()
    source.maintenance.export_to(buffer, everything=True)
    source.store.close()
    target = Engine(open_store(tmp_path / "copy.db"), "alice")
    report = target.maintenance.import_lines(io.StringIO(buffer.getvalue()))
    assert sum(report.loaded.values()) > 50 and not report.skipped
    assert target.maintenance.doctor().healthy
    target.store.close()
    assert _dump(tmp_path / "demo.db") == _dump(tmp_path / "copy.db")
    copy = Engine(open_store(tmp_path / "copy.db"), "alice")
    assert copy.identity.list_memories("webshop", search="postgres")


def test_import_refuses_a_non_empty_store_and_merges_on_request(tmp_path: Path) -> None:
    build_demo_store(tmp_path / "demo.db").close()
    engine = Engine(open_store(tmp_path / "demo.db"), "alice")
    lines = list(engine.maintenance.export_lines(everything=True))
    with pytest.raises(InvalidInput, match="not empty"):
        engine.maintenance.import_lines(lines)
    report = engine.maintenance.import_lines(lines, merge=True)
    assert sum(report.loaded.get(t, 0) for t in ("memories", "users", "projects")) == 0
    assert engine.maintenance.doctor().healthy


@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ("not json\n", "line 1: not valid JSON"),
    ("[1, 2]\n", "line 1: not an export record"),
    ('{"format": "memtui-export", "schema_version": 1}\n' + '{"a": ' * 40 + "1" + "}" * 40
     + "\n", "line 2: not an export record"),
    ('{"format": "something-else"}\n', "not a memtui export"),
    ('{"format": "memtui-export", "schema_version": 1}\n{"table": "nope", "row": {}}\n',
     "unknown table"),
    ('{"format": "memtui-export", "schema_version": 1}\n'
     '{"table": "users", "row": {"id": "a", "display_name": "A", "created_at": "x", '
     '"evil": 1}}\n', "line 2: users row: created_at"),
    ('{"format": "memtui-export", "schema_version": 1}\n'
     '{"table": "users", "row": {"id": "a", "display_name": "A", '
     '"created_at": "2026-01-01T00:00:00.000Z", "evil": 1}}\n', "line 2: users row: unknown column"),
    ('{"format": "memtui-export", "schema_version": 1}\n' + "[" * 5000 + "]" * 5000 + "\n",
     "line 2"),
    ('{"format": "memtui-export", "schema_version": 999}\n', "newer"),
])
def test_bad_import_files_write_nothing(tmp_path: Path, content: str, message: str) -> None:
    engine = Engine(open_store(tmp_path / "s.db"), "alice")
    with pytest.raises(InvalidInput, match=message):
        engine.maintenance.import_lines(io.StringIO(content))
    assert engine.store.is_empty()


def test_import_with_a_dangling_reference_is_all_or_nothing(tmp_path: Path) -> None:
    engine = Engine(open_store(tmp_path / "s.db"), "alice")
    lines = [json.dumps({"format": "memtui-export", "schema_version": 1}),
             json.dumps({"table": "users", "row": {"id": "a", "display_name": "A",
                                                   "created_at": "2026-01-01T00:00:00.000Z"}}),
             json.dumps({"table": "project_members", "row": {"project_id": "ghost",
                                                             "user_id": "a", "role": "owner"}})]
    with pytest.raises(Exception, match="FOREIGN KEY"):
        engine.maintenance.import_lines(lines)
    assert engine.store.is_empty()


def test_import_redacts_planted_secrets(tmp_path: Path) -> None:
    engine = Engine(open_store(tmp_path / "s.db"), "alice")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    lines = [json.dumps({"format": "memtui-export", "schema_version": 1}),
             json.dumps({"table": "users", "row": {"id": "alice", "display_name": "A",
                                                   "created_at": "2026-01-01T00:00:00.000Z"}}),
             json.dumps({"table": "memories", "row": {
                 "id": "mem_1", "scope": "user", "owner": "alice", "project": None,
                 "kind": "fact", "content": f"the token is {token}", "status": "active",
                 "superseded_by": None, "source": "import", "source_thread_id": None,
                 "created_at": "2026-01-01T00:00:00.000Z",
                 "updated_at": "2026-01-01T00:00:00.000Z", "usage_count": 0,
                 "last_used_at": None}})]
    engine.maintenance.import_lines(lines)
    assert token not in engine.identity.get_memory("mem_1").content


def test_doctor_finds_and_repairs_a_broken_fulltext_index(tmp_path: Path) -> None:
    build_demo_store(tmp_path / "demo.db").close()
    store = open_store(tmp_path / "demo.db")
    engine = Engine(store, "alice")
    store.execute("INSERT INTO memories_fts(memories_fts, rowid, content) "
                  "VALUES ('delete', 1, (SELECT content FROM memories WHERE seq = 1))")
    report = engine.maintenance.doctor()
    assert not report.healthy and any("full-text" in p for p in report.problems)
    repaired = engine.maintenance.doctor(repair=True)
    assert repaired.healthy and repaired.repaired


def test_doctor_reports_half_chains(tmp_path: Path) -> None:
    build_demo_store(tmp_path / "demo.db").close()
    store = open_store(tmp_path / "demo.db")
    store.execute("PRAGMA foreign_keys = OFF")
    store.execute("UPDATE memories SET superseded_by = 'mem_gone', status = 'superseded' "
                  "WHERE id = (SELECT id FROM memories WHERE status = 'active' LIMIT 1)")
    problems = Engine(store, "alice").maintenance.check()
    assert any("half chain" in p or "foreign key" in p for p in problems)


def test_cli_doctor_export_import(cli, tmp_path: Path) -> None:
    cli("--user", "alice", "memory", "add", "hello", "--kind", "fact")
    assert cli("doctor").code == 0
    backup = tmp_path / "b.jsonl"
    assert cli("--user", "alice", "export", "--jsonl", str(backup)).code == 0
    assert cli("--user", "alice", "export", "--jsonl", str(backup)).code == 5  # no overwrite
    import io as _io

    from memtui.cli.main import main

    out, err = _io.StringIO(), _io.StringIO()
    code = main(["--db", str(tmp_path / "copy.db"), "--json", "import", "--jsonl", str(backup)],
                stdout=out, stderr=err)
    assert code == 0 and json.loads(out.getvalue())["loaded"]["memories"] == 1


def _linked(engine: Engine, count: int) -> list[str]:
    """``count`` memories, each (but the last) superseded by the next by hand (plain SQL, as
    a damaged store might hold them)."""
    ids = [engine.identity.add_memory(f"link {index}", "fact").id for index in range(count)]
    for older, newer in zip(ids, ids[1:], strict=False):
        engine.store.execute("UPDATE memories SET status = 'superseded', superseded_by = ? "
                             "WHERE id = ?", (newer, older))
    return ids


def test_doctor_names_every_memory_of_a_supersede_cycle_and_no_other(store) -> None:
    engine = Engine(store, "alice")
    before = _linked(engine, 2)  # chains into the loop, one made before it, one after:
    loop = _linked(engine, 3)  # neither is in it, whichever the walk meets first
    after = _linked(engine, 2)
    store.execute("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE id = ?",
                  (loop[0], loop[-1]))
    for tail in (before, after):
        store.execute("UPDATE memories SET status = 'superseded', superseded_by = ? "
                      "WHERE id = ?", (loop[1], tail[-1]))
    alone = engine.identity.add_memory("points at itself", "fact").id
    store.execute("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE id = ?",
                  (alone, alone))
    healthy = _linked(engine, 4)
    assert sql.supersede_cycles(store) == sorted([*loop, alone])
    problems = engine.maintenance.check()
    cycle_lines = sorted(p for p in problems if "supersede cycle" in p)
    assert cycle_lines == sorted(f"memory {memory_id} is in a supersede cycle"
                                 for memory_id in [*loop, alone])
    assert not any(memory_id in line for line in problems
                   for memory_id in [*before, *after, *healthy])


@pytest.mark.parametrize("order", ["heads first", "tails first"])
def test_cycle_members_of_every_shape(order: str) -> None:
    newer = {"a": "b", "b": "c", "c": "a",  # a loop
             "t1": "t2", "t2": "b", "u1": "c",  # chains running into it
             "s": "s",  # a memory superseding itself
             "h1": "h2", "h2": "h3",  # a chain that ends (h3 supersedes nothing)
             "d1": "gone"}  # a chain ending at a missing memory (a half chain, not a cycle)
    ordered = dict(sorted(newer.items(), reverse=order == "tails first"))
    assert sql.cycle_members(ordered) == ["a", "b", "c", "s"]
    assert sql.cycle_members({}) == []


class _CountingMap(dict[str, str]):
    """A mapping that counts how often an id is looked up."""

    lookups = 0

    def __contains__(self, key: object) -> bool:
        type(self).lookups += 1
        return super().__contains__(key)

    def __getitem__(self, key: str) -> str:
        type(self).lookups += 1
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        type(self).lookups += 1
        return super().get(key, default)


def test_the_cycle_walk_steps_on_each_memory_once() -> None:
    """A chain of 2,000 corrections (and a loop of 2,000): a few look-ups per memory, not
    one per memory per memory."""
    length = 2_000
    chain = {f"c{index}": f"c{index + 1}" for index in range(length)}
    loop = {f"l{index}": f"l{(index + 1) % length}" for index in range(length)}
    for newer, on_cycle in ((chain, 0), (loop, length)):
        _CountingMap.lookups = 0
        assert len(sql.cycle_members(_CountingMap(reversed(newer.items())))) == on_cycle
        assert length <= _CountingMap.lookups <= 3 * length, _CountingMap.lookups


@pytest.mark.sqlite_only
def test_the_cycle_check_reads_the_store_once_over(store) -> None:
    """The store's part grows with the memories, not with a chain's square (SQLite's own
    instruction count, the same measure at two lengths)."""
    engine = Engine(store, "alice")
    steps: list[int] = []
    for length in (300, 600):
        _linked(engine, length)
        steps.append(0)

        def count() -> int:
            steps[-1] += 1
            return 0

        store.conn.set_progress_handler(count, 10)
        try:
            assert sql.supersede_cycles(store) == []
        finally:
            store.conn.set_progress_handler(None, 10)
    # three times the memories (300, then 900 in all) and a chain twice as long: the
    # scan does three times the work; a walk from every memory to its chain's head (the
    # sum of both chains' squares) about five times
    assert steps[1] <= 3.5 * steps[0], steps
