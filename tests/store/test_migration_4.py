"""Migration 4 (the review inbox's schema) runs in place: stores of schema 2 and 3, a store
that ran every migration but 4, a new store, and a store upgraded by the migration's first
form (a copy of the memories table, kept here as it shipped) all end with the same memories
table -- the same columns, constraints, indexes, triggers and foreign keys, and the same
answer to every write, good or bad. The in-place upgrade writes a small part of the file (the
copy rewrote all of it), and a table whose SQL it does not recognise is refused, unchanged."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memtui.store.database as database
from memtui.engine.api import Engine
from memtui.errors import StoreError
from memtui.store.database import Store, open_store
from memtui.store.ids import SequentialIds
from memtui.store.schema import MIGRATIONS

COPY_FORM = """
-- The review inbox: a memory may be 'pending' (written by an agent source while
-- the user reviews new memories; never injected, recalled or exported as active), agents
-- write through MCP and the service ('mcp', 'service'), and a pending correction names the
-- memory it would supersede once approved ('replaces'). SQLite cannot change a CHECK
-- constraint in place, so the table is rebuilt: the old one is renamed (its triggers and
-- indexes go with it), the rows are copied with their seq, so the full-text index (keyed by
-- seq) stays valid, and the old table is dropped.
ALTER TABLE memories RENAME TO memories_before_v4;
CREATE TABLE memories (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL CHECK (scope IN ('user', 'project')),
    owner TEXT NOT NULL REFERENCES users(id),
    project TEXT REFERENCES projects(id),
    kind TEXT NOT NULL CHECK (kind IN ('fact', 'preference', 'decision', 'convention')),
    content TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'pending')),
    superseded_by TEXT REFERENCES memories(id) DEFERRABLE INITIALLY DEFERRED,
    source TEXT NOT NULL CHECK (source IN ('manual', 'note', 'auto', 'import', 'service', 'mcp')),
    source_thread_id TEXT,
    goal_key TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    usage_count INTEGER NOT NULL DEFAULT 0,
    last_used_at TEXT,
    replaces TEXT,
    CHECK ((scope = 'project') = (project IS NOT NULL)),
    CHECK (replaces IS NULL OR status = 'pending')
);
INSERT INTO memories(seq, id, scope, owner, project, kind, content, status, superseded_by,
                     source, source_thread_id, goal_key, created_at, updated_at, usage_count,
                     last_used_at)
    SELECT seq, id, scope, owner, project, kind, content, status, superseded_by, source,
           source_thread_id, goal_key, created_at, updated_at, usage_count, last_used_at
    FROM memories_before_v4 ORDER BY seq;
DROP TABLE memories_before_v4;
CREATE INDEX memories_user_list ON memories(owner, scope, status, created_at, id);
CREATE INDEX memories_user_all ON memories(owner, scope, created_at, id);
CREATE INDEX memories_project_list ON memories(project, status, created_at, id);
CREATE INDEX memories_project_all ON memories(project, created_at, id);
CREATE INDEX memories_superseded_by ON memories(superseded_by);
CREATE INDEX memories_thread ON memories(source_thread_id) WHERE source_thread_id IS NOT NULL;
CREATE INDEX memories_goal ON memories(project, goal_key) WHERE goal_key IS NOT NULL;
CREATE INDEX memories_pending ON memories(created_at, id) WHERE status = 'pending';
CREATE INDEX memories_replaces ON memories(replaces) WHERE replaces IS NOT NULL;
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;
"""
"""The first form of migration 4, as it shipped: stores it upgraded keep its table."""

AT = "2026-12-01T09:00:00.000Z"
ROWS = [("m1", "project", "alice", "web", "fact", "Deploys use the blue pipeline.",
         "superseded", "m2", "manual", AT, AT),
        ("m2", "project", "alice", "web", "fact", "Deploys use the green pipeline.",
         "active", None, "manual", AT, AT),
        ("m3", "user", "alice", None, "fact", "a note of mine", "active", None, "note", AT, AT)]
"""Rows as the code before review wrote them (its INSERT had no ``replaces``)."""
COLUMNS = ("id, scope, owner, project, kind, content, status, superseded_by, source, "
           "created_at, updated_at")
FORMS = ("new store", "schema 2", "schema 3", "every migration but 4", "copied")
"""How a store got its schema: all migrations at once; upgraded from schema 2 or 3; a store
made while number 4 was reserved (5 and 6 ran first); upgraded by the copy form."""
BIG_ROWS = 400
BIG_TEXT = 4000
"""Enough text that the memories table is most of the file."""


def _migrations(form: str) -> tuple[tuple[int, str], ...]:
    if form == "schema 2":
        return tuple(m for m in MIGRATIONS if m[0] <= 2)
    if form == "schema 3":
        return tuple(m for m in MIGRATIONS if m[0] <= 3)
    if form == "every migration but 4":
        return tuple(m for m in MIGRATIONS if m[0] != 4)
    if form == "copied":
        return tuple((number, COPY_FORM if number == 4 else script)
                     for number, script in MIGRATIONS)
    return MIGRATIONS


def _insert(store: Store, rows: list[tuple[Any, ...]]) -> None:
    with store.transaction():
        for row in rows:
            store.execute(f"INSERT INTO memories({COLUMNS}) VALUES "
                          "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)


def _made(path: Path, form: str, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A store of ``form`` holding ``ROWS``, opened (and so upgraded) by this code."""
    with monkeypatch.context() as patch:
        older = _migrations(form)
        patch.setattr(database, "MIGRATIONS", older)
        patch.setattr(database, "LATEST_VERSION", max(number for number, _ in older))
        store = open_store(path, ids=SequentialIds())
        Engine(store, "alice").identity.create_project("web")
        _insert(store, ROWS)
        store.close()
    return open_store(path, ids=SequentialIds())


@pytest.fixture(params=FORMS)
def upgraded(request: pytest.FixtureRequest, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    store = _made(tmp_path / "store.db", request.param, monkeypatch)
    yield store
    store.close()


@pytest.fixture
def reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """A new store made by every migration of this code, with the same rows."""
    store = _made(tmp_path / "reference.db", "new store", monkeypatch)
    yield store
    store.close()


def _rows(store: Store, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in store.execute(sql, params).fetchall()]


def _shape(store: Store) -> dict[str, Any]:
    """Everything about the memories table that decides how it behaves (not its SQL text)."""
    indexes = {row[1]: (row[2], row[3], row[4])
               for row in _rows(store, "PRAGMA index_list(memories)")}
    return {
        "columns": _rows(store, "PRAGMA table_xinfo(memories)"),
        "indexes": {name: (info, _rows(store, f"PRAGMA index_xinfo('{name}')"),
                           _rows(store, "SELECT sql FROM sqlite_master WHERE name = ?", (name,)))
                    for name, info in indexes.items()},
        "triggers": _rows(store, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                                 "AND tbl_name = 'memories' ORDER BY name"),
        "foreign keys": _rows(store, "PRAGMA foreign_key_list(memories)"),
        "version": store.schema_version(),
        "recorded": _rows(store, "SELECT version FROM schema_migrations ORDER BY version"),
    }


PROBES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("a pending correction", f"INSERT INTO memories({COLUMNS}, replaces) VALUES "
     "('p1', 'project', 'alice', 'web', 'fact', 't', 'pending', NULL, 'mcp', ?, ?, 'm2')",
     (AT, AT)),
    ("an active row that replaces", f"INSERT INTO memories({COLUMNS}, replaces) VALUES "
     "('p2', 'project', 'alice', 'web', 'fact', 't', 'active', NULL, 'mcp', ?, ?, 'm2')",
     (AT, AT)),
    ("an unknown status", f"INSERT INTO memories({COLUMNS}) VALUES "
     "('p3', 'user', 'alice', NULL, 'fact', 't', 'draft', NULL, 'manual', ?, ?)", (AT, AT)),
    ("from the service", f"INSERT INTO memories({COLUMNS}) VALUES "
     "('p4', 'user', 'alice', NULL, 'fact', 't', 'active', NULL, 'service', ?, ?)", (AT, AT)),
    ("an unknown source", f"INSERT INTO memories({COLUMNS}) VALUES "
     "('p5', 'user', 'alice', NULL, 'fact', 't', 'active', NULL, 'gossip', ?, ?)", (AT, AT)),
    ("a project row without a project", f"INSERT INTO memories({COLUMNS}) VALUES "
     "('p6', 'project', 'alice', NULL, 'fact', 't', 'active', NULL, 'manual', ?, ?)",
     (AT, AT)),
    ("superseded by nothing", f"INSERT INTO memories({COLUMNS}) VALUES "
     "('p7', 'user', 'alice', NULL, 'fact', 't', 'superseded', 'nope', 'manual', ?, ?)",
     (AT, AT)),
    ("an old row made pending", "UPDATE memories SET status = 'pending' WHERE id = 'm3'", ()),
    ("an active row that replaces, by update",
     "UPDATE memories SET replaces = 'm1' WHERE id = 'm2'", ()),
    ("a kind that does not exist", "UPDATE memories SET kind = 'gossip' WHERE id = 'm3'", ()),
]


def _answer(store: Store, sql: str, params: tuple[Any, ...]) -> str:
    """What the store says to a write (rolled back, never committed)."""
    conn = store.conn
    conn.execute("BEGIN")
    try:
        conn.execute(sql, params)
        answer = "ok"
        if conn.execute("PRAGMA foreign_key_check(memories)").fetchall():
            answer = "foreign key refused"
    except sqlite3.Error as error:
        answer = f"{type(error).__name__}: {error}"
    finally:
        conn.execute("ROLLBACK")
    return answer


def test_every_form_ends_with_the_same_table(upgraded: Store, reference: Store) -> None:
    assert _shape(upgraded) == _shape(reference)
    assert upgraded.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _rows(upgraded, "SELECT seq, id, status, superseded_by, replaces FROM memories "
                           "ORDER BY seq") == [
        (1, "m1", "superseded", "m2", None), (2, "m2", "active", None, None),
        (3, "m3", "active", None, None)]


def test_every_form_answers_every_write_alike(upgraded: Store, reference: Store) -> None:
    answers = {name: _answer(upgraded, sql, params) for name, sql, params in PROBES}
    assert answers == {name: _answer(reference, sql, params) for name, sql, params in PROBES}
    assert [name for name, answer in answers.items() if answer == "ok"] == [
        "a pending correction", "from the service", "an old row made pending"]
    assert answers["superseded by nothing"] == "foreign key refused"


def test_every_form_searches_and_reviews(upgraded: Store) -> None:
    alice = Engine(upgraded, "alice")
    assert [m.id for m in alice.identity.list_memories("web", search="green")] == ["m2"]
    alice.settings.update(review_new_memories=1)
    pending = alice.identity.supersede("m2", "Deploys use the red pipeline.", source="mcp")
    assert pending.status == "pending"
    assert alice.review.approve(pending.id).superseded == "m2"
    assert [m.id for m in alice.identity.list_memories("web", search="red")] == [pending.id]
    alice.identity.forget(pending.id)
    assert alice.identity.list_memories("web", search="pipeline") == []
    assert alice.maintenance.check() == []


@pytest.mark.parametrize("upgrade", ["in place", "copied"])
def test_the_upgrade_writes_a_small_part_of_the_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     upgrade: str) -> None:
    """Upgrading a schema-2 store in place writes a few pages (the column, two empty
    indexes, the schema); the copy form wrote the whole table again (kept here to show that
    the measure bites)."""
    path = tmp_path / "big.db"
    rows = [(f"b{number}", "user", "alice", None, "fact", f"{number} " + "x" * BIG_TEXT,
             "active", None, "manual", AT, AT) for number in range(BIG_ROWS)]
    with monkeypatch.context() as patch:
        patch.setattr(database, "MIGRATIONS", _migrations("schema 2"))
        patch.setattr(database, "LATEST_VERSION", 2)
        store = open_store(path, ids=SequentialIds())
        Engine(store, "alice").identity.create_project("web")
        _insert(store, rows)
        store.close()
    size = path.stat().st_size
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with monkeypatch.context() as patch:
        patch.setattr(database, "MIGRATIONS", _migrations(
            "copied" if upgrade == "copied" else "new store"))
        store = open_store(path, ids=SequentialIds())
        written = wal.stat().st_size
        assert store.schema_version() == MIGRATIONS[-1][0]
        assert store.execute("SELECT count(*) FROM memories").fetchone()[0] == BIG_ROWS
        store.close()
    if upgrade == "copied":
        assert written > size // 2
    else:
        assert 0 < written < size // 10


def test_a_table_it_does_not_recognise_is_refused_unchanged(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    path = tmp_path / "odd.db"
    with monkeypatch.context() as patch:
        patch.setattr(database, "MIGRATIONS", _migrations("schema 3"))
        patch.setattr(database, "LATEST_VERSION", 3)
        open_store(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript("BEGIN; PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = "
                       "replace(sql, '''active'', ''superseded''', '''active'',''superseded''')"
                       " WHERE name = 'memories'; PRAGMA writable_schema = RESET; COMMIT;")
    before = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'memories'").fetchone()
    conn.close()
    with pytest.raises(StoreError, match="migration 4 failed"):
        open_store(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'memories'"
                            ).fetchone() == before
        assert "replaces" not in [row[1] for row in conn.execute("PRAGMA table_info(memories)")]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
