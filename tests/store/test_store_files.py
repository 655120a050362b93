"""Opening the store: new files, migrations, and every kind of bad file (nothing written)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from memtui.errors import StoreError
from memtui.store.database import open_store
from memtui.store.schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refused_untouched(path: Path, match: str) -> StoreError:
    """Opening ``path`` is refused (the message matches ``match``) and changes no byte."""
    before = _digest(path)
    with pytest.raises(StoreError, match=match) as info:
        open_store(path)
    assert _digest(path) == before
    return info.value


def _sqlite(path: Path, statement: str) -> None:
    """Run one statement on the SQLite file ``path`` directly, committed."""
    conn = sqlite3.connect(path)
    conn.execute(statement)
    conn.commit()
    conn.close()


def test_new_store_is_wal_with_migrations_recorded(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    conn = store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert versions == [version for version, _script in MIGRATIONS]  # numbers may have gaps
    store.close()


def test_reopening_does_not_migrate_again(tmp_path: Path) -> None:
    open_store(tmp_path / "s.db").close()
    store = open_store(tmp_path / "s.db")
    assert store.schema_version() == LATEST_VERSION
    assert store.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    store.close()


def test_zero_byte_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    open_store(path).close()
    assert path.stat().st_size > 0


@pytest.mark.parametrize("content", [b"hello, this is a text file\n", b"\x00\xff" * 300,
                                     b"SQLite format 3"])
def test_non_database_file_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    error = _refused_untouched(path, r"not a memtui database \(not an SQLite file\)")
    assert str(path) in error.message and "\n" not in error.message
    assert not Path(str(path) + "-wal").exists()


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    _sqlite(path, "CREATE TABLE t(x)")
    _refused_untouched(path, "not a memtui database")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    open_store(path).close()
    _sqlite(path, f"PRAGMA user_version = {LATEST_VERSION + 5}")
    _refused_untouched(path, "newer memtui")


def test_truncated_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    store = open_store(path)
    store.execute("INSERT INTO users VALUES ('a', 'A', 'x')")
    store.checkpoint()
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    _refused_untouched(path, "truncated")


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        open_store(tmp_path)


def test_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_store(tmp_path / "nope" / "s.db")
    assert not (tmp_path / "nope").exists()


def test_missing_folder_is_created_for_the_default_location(tmp_path: Path) -> None:
    open_store(tmp_path / "data" / "memtui" / "s.db", create_folder=True).close()
    assert (tmp_path / "data" / "memtui" / "s.db").exists()


def test_read_only_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    open_store(path).close()
    before = _digest(path)
    os.chmod(path, 0o444)
    try:
        with pytest.raises(StoreError, match="read-only"):
            open_store(path)
        assert _digest(path) == before
    finally:
        os.chmod(path, 0o644)


def test_transaction_rolls_back_everything_on_error(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.identity.ensure_user("a")
            with store.transaction():  # nested joins the outer one
                store.identity.ensure_user("b")
            raise RuntimeError("boom")
    assert store.execute("SELECT id FROM users").fetchall() == []
    store.close()


_KILLED_FIRST_WRITE = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = DELETE")
conn.execute("PRAGMA cache_size = 1")  # spill pages into the file before the commit
conn.execute("BEGIN IMMEDIATE")
conn.execute("CREATE TABLE t(x)")
for _ in range(20000):
    conn.execute("INSERT INTO t VALUES (?)", ("x" * 100,))
print("ready", flush=True)
time.sleep(60)
"""


def _kill_in_first_write(path: Path) -> None:
    import signal
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", _KILLED_FIRST_WRITE, str(path)],
                             stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)


def test_a_store_killed_in_its_first_write_opens_as_a_new_store(tmp_path: Path) -> None:
    db = tmp_path / "memtui.db"
    _kill_in_first_write(db)
    journal = tmp_path / "memtui.db-journal"
    assert journal.stat().st_size > 0 and db.stat().st_size > 0
    with db.open("rb") as handle:  # half-written: the first page is not there yet
        assert not handle.read(16).startswith(b"SQLite format 3")
    store = open_store(db)  # SQLite rolls the journal back; the file is empty: a new store
    assert store.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert not journal.exists()
    store.close()


@pytest.mark.usefixtures("open_umask")
def test_a_journal_takes_the_private_mode_of_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "memtui.db"
    open_store(path).close()
    _kill_in_first_write(path)  # SQLite makes the journal with the store file's mode
    assert stat.S_IMODE(path.with_name(path.name + "-journal").stat().st_mode) == 0o600


def test_a_hot_journal_beside_a_text_file_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"plain text, not a database\n" * 10)
    (tmp_path / "notes.txt-journal").write_bytes(b"not a journal either" * 50)
    _refused_untouched(path, "not an SQLite file")


def test_a_store_of_schema_2_upgrades_to_accept_mcp_writes_and_sessions(tmp_path: Path) -> None:
    from memtui.engine.api import Engine
    from memtui.store.schema import MIGRATION_1, MIGRATION_2

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript("BEGIN;" + MIGRATION_1 + MIGRATION_2 +
                       "INSERT INTO schema_migrations VALUES (1, 'x'), (2, 'x');"
                       f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 2;"
                       "COMMIT;")
    conn.execute("INSERT INTO users VALUES ('ann', 'ann', 'x')")
    conn.close()
    store = open_store(path)
    try:
        assert store.schema_version() == LATEST_VERSION
        ann = Engine(store, "ann")
        assert ann.identity.add_memory("from an agent", source="mcp").source == "mcp"
        ann.sessions.record("claude-code", {"session_id": "s1", "hook_event_name": "Stop"})
        assert [s.session_id for s in ann.sessions.list()] == ["s1"]
        with pytest.raises(sqlite3.IntegrityError):  # the check still refuses unknown sources
            store.execute("INSERT INTO memories(id, scope, owner, kind, content, source, "
                          "created_at, updated_at) VALUES ('m', 'user', 'ann', 'fact', 't', "
                          "'gossip', 'x', 'x')")
        assert store.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()


def test_a_schema_2_store_upgrades_to_per_user_references(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A store made by the schema before migration 3 (tasks and a reference in it) opens,
    migrates in place, keeps its rows, and then takes the same reference from a second user;
    the pending-purge table exists."""
    from memtui.engine.api import Engine
    from memtui.errors import Conflict
    from memtui.store import database
    from memtui.store.schema import MIGRATIONS

    path = tmp_path / "old.db"
    before_3 = tuple(m for m in MIGRATIONS if m[0] < 3)
    with monkeypatch.context() as patch:
        patch.setattr(database, "MIGRATIONS", before_3)
        patch.setattr(database, "LATEST_VERSION", before_3[-1][0])
        old = open_store(path)
        alice = Engine(old, "alice")
        alice.identity.create_project("web")
        alice.identity.set_member("web", "bob", "member")
        first = alice.tasks.add_task("web", "g", "p", "r", "2026-11-01T10:00:00Z",
                                     "2026-11-01T10:05:00Z", source="codex", source_ref="t-1")
        index = old.execute("SELECT sql FROM sqlite_master WHERE name = 'tasks_source_ref'")
        assert "user_id" not in index.fetchone()[0]  # the old key: one reference store-wide
        assert old.schema_version() == 2
        old.close()
    store = open_store(path)
    try:
        assert store.schema_version() == LATEST_VERSION >= 3
        assert 3 in [r[0] for r in store.execute("SELECT version FROM schema_migrations")]
        alice, bob = Engine(store, "alice"), Engine(store, "bob")
        assert alice.tasks.find_by_source_ref("codex", "t-1") == first
        bobs = bob.tasks.add_task("web", "g", "p", "r", "2026-11-01T10:00:00Z",
                                  "2026-11-01T10:05:00Z", source="codex", source_ref="t-1")
        assert bobs.id != first.id
        with pytest.raises(Conflict):
            alice.tasks.add_task("web", "g", "p", "r", "2026-11-01T10:00:00Z",
                                 "2026-11-01T10:05:00Z", source="codex", source_ref="t-1")
        assert store.execute("SELECT count(*) FROM pending_purges").fetchone()[0] == 0
        assert store.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
