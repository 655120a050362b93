"""The PostgreSQL store's own rules: statements translated from SQLite's placeholders, the
password never shown, a newer schema or a foreign database refused in one line, change
messages for live refresh, task claiming, and what VACUUM FULL leaves in the files.

The store and engine suites run on PostgreSQL through the ``store`` fixture; these are the
things only PostgreSQL has."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pg_support
import pytest
from threaded import reading_in_thread

from memtui.engine.api import Engine
from memtui.errors import StoreError
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.postgres.adapter import is_postgres_url, redact_url, scrub, translate
from memtui.store.postgres.schema import PG_LATEST_VERSION
from memtui.store.schema import LATEST_VERSION

SECRET = "s3cr3t-Pa55"
"""A password that must never appear in anything memtui prints."""
TERMINATE_WAIT_MS = 30_000
"""How long ``pg_terminate_backend`` may wait for a session to end (it returns at once when
the session is gone)."""
CHANGE_WAIT_S = 30.0
"""Upper bound for a change message to arrive (it comes at the other store's commit)."""


# ---- no server needed ---------------------------------------------------------------------


def test_placeholders_are_translated_outside_literals_only() -> None:
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE '50%?' AND d = ?", False) == \
        "SELECT a FROM t WHERE b = %s AND c LIKE '50%%?' AND d = %s"
    assert translate('SELECT "we?ird" FROM t -- what?\nWHERE x = ?', False) == \
        'SELECT "we?ird" FROM t -- what?\nWHERE x = %s'
    assert translate("SELECT x::text FROM t WHERE u = :user OR v = :user", True) == \
        "SELECT x::text FROM t WHERE u = %(user)s OR v = %(user)s"
    assert translate("SELECT ':user' WHERE 5 % 2 = ?", True) == "SELECT ':user' WHERE 5 %% 2 = %s"
    assert translate("SELECT 'it''s ?' , ?", False) == "SELECT 'it''s ?' , %s"
    assert translate("CREATE FUNCTION f() AS $b$ SELECT '?' $b$; SELECT ?", False) == \
        "CREATE FUNCTION f() AS $b$ SELECT '?' $b$; SELECT %s"


def test_urls_are_told_apart_from_paths() -> None:
    assert is_postgres_url("postgresql://u@h/db") and is_postgres_url(" postgres://h/db")
    assert not is_postgres_url("/tmp/postgresql://x") and not is_postgres_url("memtui.db")
    assert not is_postgres_url(Path("postgresql:/x"))


def test_the_password_is_never_in_a_location_or_a_message() -> None:
    url = f"postgresql://alice:{SECRET}@db.example:5432/team?sslmode=require"
    assert redact_url(url) == "postgresql://alice@db.example:5432/team?sslmode=require"
    assert SECRET not in redact_url(f"postgresql://db/team?user=a&password={SECRET}")
    assert scrub(f"failed for {SECRET} and {SECRET}", url) == "failed for *** and ***"
    assert scrub("plain", "postgresql://db/team") == "plain"


def test_both_backends_have_the_same_schema_version() -> None:
    assert PG_LATEST_VERSION == LATEST_VERSION


# ---- a server ---------------------------------------------------------------------------------


@pytest.fixture
def store(pg_store_url: str) -> Iterator[StoreBackend]:
    """The store in a new database (``pg_store_url``), closed after the test (this module's
    tests are PostgreSQL's own: not the conftest's store on each backend)."""
    opened = open_store(pg_store_url)
    yield opened
    opened.close()


@pytest.mark.postgres
def test_an_unreachable_server_is_one_line_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://alice:{SECRET}@/team?host={tmp_path}&port=1&connect_timeout=2"
    with pytest.raises(StoreError) as raised:
        open_store(url)
    message = raised.value.message
    assert "\n" not in message and SECRET not in message
    assert message.startswith(f"postgresql://alice@/team?host={tmp_path}")
    assert "cannot connect" in message


@pytest.mark.postgres
def test_a_database_of_a_newer_schema_is_refused(pg_store_url: str) -> None:
    store = open_store(pg_store_url)
    with store.transaction():
        store.execute("INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)",
                      (LATEST_VERSION + 5, store.now()))
    store.close()
    with pytest.raises(StoreError, match="newer memtui") as raised:
        open_store(pg_store_url)
    assert "\n" not in raised.value.message


@pytest.mark.postgres
def test_a_database_of_another_application_is_refused(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(StoreError, match="not a memtui database"):
        open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # nothing was added to it
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (1,)


@pytest.mark.postgres
def test_an_empty_database_becomes_a_store_and_opens_again(pg_url: str) -> None:
    for _ in range(2):
        store = open_store(pg_url)
        try:
            assert store.schema_version() == LATEST_VERSION
            assert SECRET not in store.location
        finally:
            store.close()


@pytest.mark.postgres
def test_a_write_on_another_connection_changes_the_data_version(pg_store_url: str) -> None:
    watcher, writer = open_store(pg_store_url), open_store(pg_store_url)
    try:
        before = watcher.data_version()
        assert watcher.data_version() == before  # nothing written: nothing changes
        Engine(writer, "bob").identity.add_memory("written on another machine", "fact")
        assert watcher.wait_for_change(CHANGE_WAIT_S)
        assert watcher.data_version() != before
        settled = watcher.data_version()
        with writer.snapshot():  # a read sends nothing
            writer.memories.count_pending("bob")
        assert not watcher.wait_for_change(0.2)
        assert watcher.data_version() == settled
    finally:
        watcher.close()
        writer.close()


@pytest.mark.postgres
def test_a_claimed_task_is_skipped_by_another_transaction(store: StoreBackend) -> None:
    alice = Engine(store, "alice")
    alice.identity.create_project("web")
    ids = [alice.tasks.add_task("web", f"goal {i}", "p", "r", "2026-11-01T10:00:00Z",
                                "2026-11-01T10:10:00Z").id for i in range(3)]
    holding, release, seen = threading.Event(), threading.Event(), []

    def first() -> None:
        with store.transaction(shared=True):
            seen.append(store.tasks.claim(ids[:2]))
            holding.set()
            release.wait(CHANGE_WAIT_S)

    thread = threading.Thread(target=first)
    thread.start()
    assert holding.wait(CHANGE_WAIT_S)
    with store.transaction(shared=True):  # beside the first: shared
        seen.append(store.tasks.claim(list(reversed(ids))))
    release.set()
    thread.join(CHANGE_WAIT_S)
    assert seen == [ids[:2], [ids[2]]]
    with store.transaction(shared=True):  # released at the first one's end
        assert store.tasks.claim(ids) == ids


def _relation_files(store: object, relations: list[str]) -> list[Path]:
    """The files of the given tables and indexes (readable when the server is local)."""
    execute = store.execute  # type: ignore[attr-defined]
    root = Path(execute("SELECT current_setting('data_directory')").fetchone()[0])
    files: list[Path] = []
    for relation in relations:
        relative = execute("SELECT pg_relation_filepath(?)", (relation,)).fetchone()[0]
        files += sorted(root.glob(relative + "*"))
    return files


def _wait_for_older_transactions(store: object) -> None:
    """Wait until no transaction that began before now is still running anywhere on the
    server. VACUUM removes a deleted row only when no snapshot can still see it, and a
    snapshot's horizon counts every running transaction of the server, other databases' too
    (on a shared test server: other tests' CREATE or DROP DATABASE); until they end, the
    forgotten row is only "recently dead" and VACUUM FULL copies it into the new files."""
    execute = store.execute  # type: ignore[attr-defined]
    mark = int(execute("SELECT txid_current()").fetchone()[0])  # after the forget committed
    deadline = time.monotonic() + CHANGE_WAIT_S
    while int(execute("SELECT txid_snapshot_xmin(txid_current_snapshot())").fetchone()[0]) \
            <= mark:
        assert time.monotonic() < deadline, "a transaction older than the forget never ended"
        time.sleep(0.01)


@pytest.mark.postgres
def test_a_pooled_connection_the_server_ended_is_replaced(pg_store_url: str) -> None:
    """A server restart, or an administrator ending a session, breaks the pool's idle
    connections: each is checked before it is handed out, so the next call works."""
    import psycopg

    store = open_store(pg_store_url)
    try:
        alice = Engine(store, "alice")
        alice.identity.add_memory("before the restart", "fact")
        pooled = int(store.execute("SELECT pg_backend_pid()").fetchone()[0])
        with psycopg.connect(pg_store_url, autocommit=True) as admin:
            ended = admin.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, %s)) FROM "
                "pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()", (TERMINATE_WAIT_MS,)).fetchone()[0]
            assert ended >= 1
            assert admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                 (pooled,)).fetchone()[0] == 0
        # an unbound statement, a write transaction and a read snapshot, each on a pooled
        # connection the server had ended
        assert int(store.execute("SELECT pg_backend_pid()").fetchone()[0]) != pooled
        alice.identity.add_memory("after the restart", "fact")
        contents = {m.content for m in alice.recall.recall_memories("restart")}
        assert contents == {"before the restart", "after the restart"}
    finally:
        store.close()


@pytest.mark.postgres
def test_vacuum_full_leaves_no_forgotten_text_in_the_files(store: StoreBackend) -> None:
    alice = Engine(store, "alice")
    phrase = "Quokka-Marmalade-Protocol launches at dawn"
    memory = alice.identity.add_memory(phrase, "fact")
    alice.identity.supersede(memory.id, phrase + " and dusk")
    for index in range(20):
        alice.identity.add_memory(f"something else {index}", "fact")
    assert alice.identity.forget(memory.id).purged
    # and the common words recall remembers (migration 7)
    relations = ["memories", "memories_fts", "memories_pkey", "memories_id_key",
                 "common_terms", "common_terms_pkey"]
    try:
        files = _relation_files(store, relations)
        readable = files and all(path.read_bytes() is not None for path in files)
    except (OSError, StoreError):
        readable = False
    if not readable:
        pytest.skip("the server's data folder is not readable from here")
    _wait_for_older_transactions(store)
    result = store.vacuum(full=True)
    assert result.full and result.done
    files = _relation_files(store, relations)  # VACUUM FULL wrote new files
    assert files
    for path in files:
        data = path.read_bytes()
        assert b"Quokka-Marmalade-Protocol" not in data, path
        assert b"quokka" not in data, path  # the full-text index's lexeme


@pytest.mark.postgres
def test_a_member_role_with_row_grants_only_uses_the_store(pg_server_url: str) -> None:
    """The least-privilege setup of docs/team-postgres.md: the owner role migrates; a member role with
    only row grants writes, reads, forgets and claims; VACUUM is refused to it in one line."""
    import psycopg
    from psycopg import sql

    tag = uuid.uuid4().hex[:10]
    owner, member, database = f"memtui_o_{tag}", f"memtui_m_{tag}", f"memtui_t_lp_{tag}"
    admin = psycopg.connect(pg_server_url, autocommit=True)
    try:
        for statement in (f"CREATE ROLE {owner} LOGIN", f"CREATE ROLE {member} LOGIN",
                          f"CREATE DATABASE {database} OWNER {owner}",
                          f"REVOKE ALL ON DATABASE {database} FROM PUBLIC",
                          f"GRANT CONNECT ON DATABASE {database} TO {member}"):
            admin.execute(sql.SQL(statement))  # type: ignore[arg-type]
        server = pg_support.database_url(pg_server_url, database)
        with psycopg.connect(server, autocommit=True) as conn:
            for statement in (
                    "REVOKE ALL ON SCHEMA public FROM PUBLIC",
                    f"GRANT USAGE ON SCHEMA public TO {member}",
                    f"GRANT ALL ON SCHEMA public TO {owner}",
                    f"ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public GRANT "
                    f"SELECT, INSERT, UPDATE, DELETE ON TABLES TO {member}",
                    f"ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public GRANT "
                    f"USAGE, SELECT ON SEQUENCES TO {member}"):
                conn.execute(sql.SQL(statement))  # type: ignore[arg-type]
        as_owner = _as_role(server, owner)
        try:
            open_store(as_owner).close()  # the owner makes the schema
        except StoreError as error:
            if "password" in error.message or "authentication" in error.message:
                pytest.skip("the test server does not let new roles log in without a password")
            raise
        store = open_store(_as_role(server, member))
        try:
            alice = Engine(store, "alice")
            alice.identity.create_project("web")
            kept = alice.identity.add_memory("members write rows only", "fact", "web")
            gone = alice.identity.add_memory("forget me", "fact", "web")
            assert alice.identity.forget(gone.id).purged
            assert [m.id for m in alice.identity.list_memories("web", search="rows")] == \
                [kept.id]
            with store.transaction(shared=True):
                assert store.tasks.claim([]) == []
            with pytest.raises(StoreError, match=f"run it as {owner}") as raised:
                store.vacuum()
            assert "\n" not in raised.value.message
        finally:
            store.close()
    finally:
        admin.execute(sql.SQL(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"))  # type: ignore[arg-type]
        for role in (member, owner):
            admin.execute(sql.SQL(f"DROP ROLE IF EXISTS {role}"))  # type: ignore[arg-type]
        admin.close()


def _as_role(url: str, role: str) -> str:
    """``url`` logging in as ``role`` (the test server trusts its socket's users)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{role}@{host}", parts.path, parts.query, parts.fragment))


@pytest.mark.postgres
def test_an_obsolete_read_sent_after_a_dropped_cancel_is_still_stopped(
        store: StoreBackend) -> None:
    from memtui.errors import QueryInterrupted

    endless = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
               "WHERE x < 2000000000) SELECT count(*) FROM c")
    go = threading.Event()

    def then(lane: Any) -> None:
        go.wait(timeout=60)
        # the ticket was current when checked; begin() came (and its cancel
        # found the connection idle) before this statement went out
        lane._conn.execute(endless).fetchone()

    lane, thread, outcome = reading_in_thread(store, then)
    newer = lane.begin()  # the connection is idle: this cancel is dropped
    go.set()
    thread.join(timeout=120)  # minutes of work unless the watchdog cancels it
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], QueryInterrupted)
    with lane.reading(newer):  # the newer reader is never cancelled
        assert store.execute("SELECT 2").fetchone() == (2,)
