"""``Store.time_limit``: a read that runs too long stops with ``QueryTimedOut``, and the
connection is as good as before."""

from __future__ import annotations

import sqlite3
import time

import pytest

from memtui.errors import QueryTimedOut, StoreError
from memtui.store.database import Store

SLOW = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        "SELECT count(*) FROM n")


def test_a_slow_read_is_stopped_near_its_limit(store: Store) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryTimedOut, match="longer than 20 ms"), store.time_limit(0.02):
        store.execute(SLOW, (50_000_000,)).fetchone()
    assert time.perf_counter() - started < 1.0  # the full count would take seconds
    assert QueryTimedOut.code == "timed_out" and issubclass(QueryTimedOut, StoreError)


def test_the_connection_works_after_and_the_limit_is_gone(store: Store) -> None:
    with pytest.raises(QueryTimedOut), store.time_limit(0.0):
        store.execute(SLOW, (1_000_000,)).fetchone()
    assert store.execute(SLOW, (200_000,)).fetchone()[0] == 200_000  # no limit now
    with store.snapshot():
        assert store.execute("SELECT count(*) FROM memories").fetchone()[0] == 0


def test_a_quick_read_inside_the_limit_is_untouched(store: Store) -> None:
    with store.time_limit(5.0):
        assert store.execute(SLOW, (1_000,)).fetchone()[0] == 1_000


def test_other_errors_pass_through_unchanged(store: Store) -> None:
    with pytest.raises(sqlite3.OperationalError, match="syntax"), store.time_limit(5.0):
        store.execute("SELEC nothing")


def test_a_timeout_inside_a_snapshot_leaves_no_transaction_open(store: Store) -> None:
    with pytest.raises(QueryTimedOut), store.time_limit(0.0), store.snapshot():
        store.execute(SLOW, (1_000_000,)).fetchone()
    assert not store.conn.in_transaction
    with store.transaction():
        store.execute("SELECT 1")
