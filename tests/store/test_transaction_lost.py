"""A write transaction that SQLite ended early is never continued nor committed in part.

SQLite rolls a whole transaction back by itself when some statements fail: an interrupted
write, a full disk, an I/O error, a damaged full-text index, a trigger's ``RAISE(ROLLBACK)``.
A caller that catches that error (a per-item error handler, a savepoint) used to go on
writing in autocommit mode -- each later statement committed on its own -- and only the
final COMMIT failed ("cannot commit - no transaction is active"): half of the block was kept.
Now every statement after the loss, and the block's end, raise ``TransactionLost`` and
nothing of the block is kept. These tests provoke the loss on purpose.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.errors import StoreError, TransactionLost
from memtui.store.database import Store, open_store

DOOMED_USER = "doomed"
"""Inserting this user makes SQLite roll back the whole transaction (a test trigger)."""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A SQLite store whose connection (this thread's) rolls back the whole transaction
    when the user ``DOOMED_USER`` is inserted."""
    opened = open_store(tmp_path / "s.db")
    opened.execute(
        "CREATE TEMP TRIGGER doom AFTER INSERT ON main.users WHEN new.id = "
        f"'{DOOMED_USER}' BEGIN SELECT RAISE(ROLLBACK, 'provoked rollback'); END")
    yield opened
    opened.close()


def _user_ids(db: Path) -> list[str]:
    """The users in the file, read on a connection of its own."""
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM users ORDER BY id")]


def test_statements_after_the_loss_raise_and_nothing_is_kept(store: Store) -> None:
    with pytest.raises(TransactionLost, match="rolled the transaction back"):
        with store.transaction():
            store.identity.ensure_user("before")
            with pytest.raises(sqlite3.IntegrityError, match="provoked"):
                store.identity.ensure_user(DOOMED_USER)  # the caller swallows the error
            store.identity.ensure_user("after")  # would have committed on its own
    assert _user_ids(store.path) == []
    store.identity.ensure_user("later")  # the connection is usable again
    assert _user_ids(store.path) == ["later"]


def test_the_block_end_raises_when_nothing_ran_after_the_loss(store: Store) -> None:
    with pytest.raises(TransactionLost) as raised:
        with store.transaction():
            store.identity.ensure_user("before")
            try:
                store.identity.ensure_user(DOOMED_USER)
            except sqlite3.IntegrityError:
                pass
    assert "could not commit" not in raised.value.message
    assert _user_ids(store.path) == []


def test_a_nested_block_after_the_loss_raises(store: Store) -> None:
    with pytest.raises(TransactionLost), store.transaction():
        with pytest.raises(sqlite3.IntegrityError):
            store.identity.ensure_user(DOOMED_USER)
        with store.transaction():
            store.identity.ensure_user("inner")
    assert _user_ids(store.path) == []


def test_a_savepoint_does_not_hide_the_loss(store: Store) -> None:
    """The per-item savepoint (extraction) used to fail with "no such savepoint", which
    the item's error handler logged before the batch went on in autocommit mode."""
    with pytest.raises(TransactionLost) as raised, store.transaction():
        store.identity.ensure_user("first")
        with store.tasks.savepoint():
            store.identity.ensure_user(DOOMED_USER)
    assert isinstance(raised.value.__context__, sqlite3.IntegrityError)
    assert isinstance(raised.value, StoreError)  # front ends say it in one line
    assert _user_ids(store.path) == []


def test_a_savepoint_still_undoes_only_its_own_work(store: Store) -> None:
    with store.transaction():
        store.identity.ensure_user("kept")
        with pytest.raises(RuntimeError), store.tasks.savepoint():
            store.identity.ensure_user("undone")
            raise RuntimeError("one item fails")
        store.identity.ensure_user("also kept")
    assert _user_ids(store.path) == ["also kept", "kept"]


def test_an_interrupted_write_loses_the_transaction(store: Store) -> None:
    """SQLite rolls the whole transaction back when a write statement is interrupted (as
    ``sqlite3_interrupt`` or a progress handler does)."""
    with pytest.raises(TransactionLost), store.transaction() as conn:
        store.identity.ensure_user("before")
        conn.set_progress_handler(lambda: 1, 1)
        try:
            with pytest.raises(sqlite3.OperationalError, match="interrupted"):
                store.identity.ensure_user("interrupted")
        finally:
            conn.set_progress_handler(None, 0)
        store.identity.ensure_user("after")
    assert _user_ids(store.path) == []


def test_a_read_snapshot_ended_early_raises_too(store: Store) -> None:
    with pytest.raises(TransactionLost), store.snapshot() as conn:
        store.execute("SELECT id FROM users")
        conn.execute("ROLLBACK")  # something ended the read transaction
        store.execute("SELECT id FROM users")
