"""``memtui store copy --from SRC --to DST``: a whole store into an empty one, between any two
backends, checked by comparing exports; bad input is refused with one line and nothing is
written. The PostgreSQL cases run when ``$MEMTUI_TEST_PG`` names a server (tests/pg_support.py)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import damage_memories
from cli_support import CliResult, run_main
from pg_support import BACKENDS, store_location
from unprivileged import child_command

from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.engine.paths import is_database_url
from memtui.engine.store_copy import copy_store, shown_location
from memtui.store.database import open_store

USER = "alice"
"""The demo store's main user (any user may copy: the copy is a whole-store export)."""
UNICODE_NOTE = "deploys über Ünïcödé 🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 (astral plane)"
PAIRS = [
    pytest.param("sqlite", "sqlite", id="sqlite-to-sqlite"),
    pytest.param("sqlite", "postgresql", id="sqlite-to-postgresql", marks=pytest.mark.postgres),
    pytest.param("postgresql", "sqlite", id="postgresql-to-sqlite", marks=pytest.mark.postgres),
    pytest.param("postgresql", "postgresql", id="postgresql-to-postgresql",
                 marks=pytest.mark.postgres),
]


def memtui(*args: str) -> CliResult:
    """``memtui --user alice ARGS`` in-process."""
    return run_main("--user", USER, *args)


def copy(source: str, destination: str) -> CliResult:
    """``memtui --json store copy --from SOURCE --to DESTINATION``."""
    return memtui("--json", "store", "copy", "--from", source, "--to", destination)


def _demo_sqlite(path: Path) -> Path:
    store = build_demo_store(path)
    try:
        Engine(store, USER).identity.add_memory(UNICODE_NOTE, "fact", None)
    finally:
        store.close()
    return path


def make_source(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A demo store (every table filled) of kind ``backend``."""
    demo = _demo_sqlite(tmp_path / "demo.db")
    if backend == "sqlite":
        return str(demo)
    location = store_location(backend, request, tmp_path, "source.db")
    copy_store(str(demo), location, USER)
    return location


def export_rows(location: str) -> dict[str, list[str]]:
    """The whole store's export, each table's rows as sorted canonical JSON."""
    store = open_store(location)
    try:
        tables: dict[str, list[str]] = {}
        for line in list(Engine(store, USER).maintenance.export_lines(everything=True))[1:]:
            record = json.loads(line)
            tables.setdefault(record["table"], []).append(
                json.dumps(record["row"], sort_keys=True, ensure_ascii=False))
        return {table: sorted(rows) for table, rows in tables.items()}
    finally:
        store.close()


def _one_line_error(run: CliResult) -> str:
    assert run.err.count("\n") == 1 and run.err.startswith("memtui: error: "), run.err
    assert "Traceback" not in run.err
    return run.err


def _left_behind(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.glob(path.name + "*"))


@pytest.mark.parametrize(("source_kind", "destination_kind"), PAIRS)
def test_copy_makes_a_store_whose_export_equals_the_source(
        source_kind: str, destination_kind: str, request: pytest.FixtureRequest,
        tmp_path: Path) -> None:
    source = make_source(source_kind, request, tmp_path)
    destination = store_location(destination_kind, request, tmp_path, "copy.db")

    result = copy(source, destination)

    assert result.code == 0, result.err
    report = result.json
    assert set(report) == {"from", "to", "rows", "total", "created", "verified"}
    assert report["verified"] is True
    assert report["created"] is (destination_kind == "sqlite")
    original, copied = export_rows(source), export_rows(destination)
    assert copied == original
    assert report["rows"] == {table: len(rows) for table, rows in original.items()}
    assert report["total"] == sum(len(rows) for rows in original.values()) > 100
    assert any(UNICODE_NOTE in row for row in copied["memories"])
    # the copy is a working store: its search index and rules answer as the source's do
    for location in (source, destination):
        store = open_store(location)
        try:
            engine = Engine(store, USER)
            assert engine.maintenance.check() == []
            found = [m.content for m in engine.identity.list_memories(search="Ünïcödé")]
            assert found == [UNICODE_NOTE]
        finally:
            store.close()


def test_human_output_says_what_was_copied_and_checked(request: pytest.FixtureRequest,
                                                       tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    result = memtui("store", "copy", "--from", source, "--to", str(tmp_path / "copy.db"))
    assert result.code == 0, result.err
    assert result.out.startswith("copied ") and "its export equals the source's" in result.out
    assert result.out.count("\n") == 1


def test_an_existing_empty_store_may_be_the_destination(request: pytest.FixtureRequest,
                                                        tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    destination = tmp_path / "empty.db"
    open_store(destination).close()
    result = copy(source, str(destination))
    assert result.code == 0, result.err
    assert result.json["created"] is False
    assert export_rows(str(destination)) == export_rows(source)


def test_a_missing_source_is_not_found_and_nothing_is_created(tmp_path: Path) -> None:
    destination = tmp_path / "copy.db"
    result = copy(str(tmp_path / "nope.db"), str(destination))
    assert result.code == 3
    assert "nope.db: no such store" in _one_line_error(result)
    assert result.json["error"]["code"] == "not_found"
    assert _left_behind(destination) == []


def test_an_empty_file_is_not_a_source(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    result = copy(str(empty), str(tmp_path / "copy.db"))
    assert result.code == 3
    assert "not a memtui store" in _one_line_error(result)
    assert empty.stat().st_size == 0  # not made into a store
    assert _left_behind(tmp_path / "copy.db") == []


@pytest.mark.parametrize("content", [b"just some text, not a database\n" * 10,
                                     b"SQLite format 3\x00" + b"\x00" * 40])
def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "notes.db"
    source.write_bytes(content)
    result = copy(str(source), str(tmp_path / "copy.db"))
    assert result.code == 1
    assert "notes.db" in _one_line_error(result)
    assert source.read_bytes() == content
    assert _left_behind(tmp_path / "copy.db") == []


@pytest.mark.parametrize("destination_kind", BACKENDS)
def test_a_damaged_source_is_named_and_nothing_is_copied(
        destination_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _demo_sqlite(tmp_path / "damaged.db")
    store = open_store(source)
    engine = Engine(store, USER)
    for number in range(300):  # enough pages that the damage reaches past the schema
        engine.identity.add_memory(f"memory {number} about the staging database " * 3,
                                   "fact", None)
    store.close()
    damage_memories(source, checkpoint=True)
    destination = store_location(destination_kind, request, tmp_path, "copy.db")

    result = copy(str(source), destination)

    assert result.code == 1
    line = _one_line_error(result)
    assert "damaged.db: cannot read the source store" in line and "doctor" in line
    if destination_kind == "sqlite":
        assert _left_behind(Path(destination)) == []
    else:
        assert export_rows(destination) == {}


@pytest.mark.parametrize("destination_kind", BACKENDS)
def test_a_destination_that_holds_data_is_refused_and_left_alone(
        destination_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    destination = store_location(destination_kind, request, tmp_path, "team.db")
    store = open_store(destination)
    try:
        Engine(store, "bob").identity.add_memory("bob's own memory", "fact", None)
    finally:
        store.close()
    before = export_rows(destination)

    result = copy(source, destination)

    assert result.code == 5
    line = _one_line_error(result)
    assert "holds memtui data" in line and "import --merge" in line
    assert result.json["error"]["code"] == "invalid_input"
    assert export_rows(destination) == before


@pytest.mark.parametrize("destination_kind", BACKENDS)
def test_a_copy_that_would_differ_from_its_source_is_rolled_back(
        destination_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _demo_sqlite(tmp_path / "legacy.db")
    # a row written before redaction knew this secret: import would store it redacted
    conn = sqlite3.connect(source)
    conn.execute("UPDATE memories SET content = content || ' password=hunter2hunter2' "
                 "WHERE rowid = (SELECT min(rowid) FROM memories)")
    conn.commit()
    conn.close()
    destination = store_location(destination_kind, request, tmp_path, "copy.db")

    result = copy(str(source), destination)

    assert result.code == 1
    line = _one_line_error(result)
    assert "would differ from" in line and "memories" in line and "nothing was copied" in line
    assert "hunter2" not in result.err + result.out
    if destination_kind == "sqlite":
        assert _left_behind(Path(destination)) == []
    else:
        assert export_rows(destination) == {}


def test_a_source_with_rows_that_refer_to_missing_rows_is_refused(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = _demo_sqlite(tmp_path / "dangling.db")
    conn = sqlite3.connect(source)  # foreign keys are off on a plain connection
    conn.execute("INSERT INTO project_members(project_id, user_id, role) "
                 "SELECT id, 'ghost', 'reader' FROM projects LIMIT 1")  # no user 'ghost'
    conn.commit()
    conn.close()
    destination = tmp_path / "copy.db"

    result = copy(str(source), str(destination))

    assert result.code == 5
    assert "refer to rows it does not hold" in _one_line_error(result)
    assert _left_behind(destination) == []


def test_the_same_store_twice_is_refused(request: pytest.FixtureRequest,
                                         tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    (tmp_path / "sub").mkdir()
    other_spelling = str(tmp_path / "sub" / ".." / Path(source).name)
    before = export_rows(source)
    result = copy(source, other_spelling)
    assert result.code == 5
    assert "name the same store" in _one_line_error(result)
    assert export_rows(source) == before


def test_a_password_in_a_url_is_never_printed() -> None:
    url = "postgresql://alice:hunter2-secret@db.example:5432/team?sslmode=require"
    assert is_database_url(url) and not is_database_url("/srv/memtui.db")
    assert not is_database_url("postgresql.db")
    assert shown_location(url) == "postgresql://alice:***@db.example:5432/team?sslmode=require"
    assert shown_location("postgresql://alice@db/team") == "postgresql://alice@db/team"
    result = copy(url, url)
    assert result.code == 5
    assert "hunter2" not in result.err + result.out
    assert "alice:***@db.example" in result.err


def test_a_read_only_destination_file_is_refused_and_unchanged(
        request: pytest.FixtureRequest, tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    destination = tmp_path / "locked.db"
    open_store(destination).close()
    before = destination.read_bytes()
    destination.chmod(0o444)
    try:
        result = copy(source, str(destination))
    finally:
        destination.chmod(0o644)
    assert result.code == 1
    assert "locked.db: the file is read-only" in _one_line_error(result)
    assert destination.read_bytes() == before


def test_a_destination_folder_that_does_not_exist_is_refused(request: pytest.FixtureRequest,
                                                             tmp_path: Path) -> None:
    source = make_source("sqlite", request, tmp_path)
    result = copy(source, str(tmp_path / "missing" / "copy.db"))
    assert result.code == 1
    assert "does not exist" in _one_line_error(result)
    assert not (tmp_path / "missing").exists()


def test_the_whole_store_is_only_for_the_owner_of_the_source_file(
        request: pytest.FixtureRequest, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    source = make_source("sqlite", request, tmp_path)
    real_uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: real_uid + 1)
    destination = tmp_path / "copy.db"
    result = copy(source, str(destination))
    assert result.code == 4
    assert "only for the OS user who owns the store file" in _one_line_error(result)
    assert _left_behind(destination) == []


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A world-readable folder outside the test's private temp folder (an unprivileged
    child must reach it), removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="memtui-copy-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        for item in [base, *base.rglob("*")]:
            if not item.is_symlink():
                item.chmod(0o755 if item.is_dir() else 0o644)
        shutil.rmtree(base)


def test_a_destination_folder_this_user_cannot_write_is_refused(shared_folder: Path) -> None:
    open_area = shared_folder / "open"
    open_area.mkdir()
    open_area.chmod(0o777)
    source = _demo_sqlite(open_area / "source.db")
    source.chmod(0o666)
    locked = shared_folder / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    python, env = child_command(shared_folder)

    child = subprocess.run(
        [*python, "-m", "memtui", "--json", "--user", USER, "store", "copy", "--from",
         str(source), "--to", str(locked / "copy.db")],
        capture_output=True, text=True, env=env, timeout=120, check=False,
        cwd=str(shared_folder))

    assert child.returncode == 1, child.stderr
    assert child.stderr.count("\n") == 1 and "copy.db" in child.stderr
    assert json.loads(child.stdout)["error"]["code"] == "store_error"
    assert list(locked.iterdir()) == []
