"""``QueryLane``: reads where each new request interrupts the older one (search as you type)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from threaded import in_thread, reading_in_thread

from memtui.errors import QueryInterrupted, StoreError
from memtui.store.database import Store

ENDLESS = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
           "WHERE x < 2000000000) SELECT count(*) FROM c")
"""A read that runs for minutes unless SQLite interrupts it."""



def test_a_read_runs_on_the_lanes_own_connection(store: Store) -> None:
    lane = store.lane()
    own = store.conn
    ticket = lane.begin()
    with lane.reading(ticket):
        inside = store.conn
        assert store.execute("SELECT 1").fetchone() == (1,)
    assert inside is not own  # the lane has a connection of its own ...
    assert store.conn is own  # ... and the thread gets its own back after the block
    with lane.reading(lane.begin()):
        assert store.conn is inside  # the same connection each time (a warm cache)


def test_a_newer_ticket_interrupts_a_running_read(store: Store) -> None:
    lane, thread, outcome = reading_in_thread(store,
                                              lambda _lane: store.execute(ENDLESS).fetchone())
    newer = lane.begin()
    thread.join(timeout=120)  # the endless read would take minutes: only the interrupt ends it
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], QueryInterrupted)
    assert lane.interrupted == 1
    with lane.reading(newer):  # the connection is fine afterwards
        assert store.execute("SELECT 2").fetchone() == (2,)


def test_an_obsolete_ticket_does_not_read_at_all(store: Store) -> None:
    lane = store.lane()
    old = lane.begin()
    lane.begin()
    ran: list[bool] = []
    with pytest.raises(QueryInterrupted), lane.reading(old):
        ran.append(True)
    assert ran == []


def test_other_errors_pass_through_unchanged(store: Store) -> None:
    lane = store.lane()
    with pytest.raises(Exception, match="(?i)syntax") as raised, lane.reading(lane.begin()):
        store.execute("SELEC nonsense")
    assert not isinstance(raised.value, QueryInterrupted)
    assert lane.interrupted == 0


def test_an_interrupted_snapshot_leaves_no_transaction_open(store: Store) -> None:
    lane = store.lane()
    ticket = lane.begin()
    conns: list[Any] = []

    def reader() -> None:
        with lane.reading(ticket), store.snapshot() as conn:
            conns.append(conn)
            lane.begin()  # a newer keystroke arrives while the snapshot is open
            store.execute(ENDLESS).fetchone()

    with pytest.raises(QueryInterrupted):
        reader()
    assert conns and not conns[0].in_transaction
    with lane.reading(lane.begin()):
        with store.snapshot():
            assert store.execute("SELECT 3").fetchone() == (3,)


def test_closing_the_store_closes_the_lane(store: Store) -> None:
    lane = store.lane()
    ticket = lane.begin()
    with lane.reading(ticket):
        conn = store.conn
    store.close()
    with pytest.raises(Exception, match="(?i)closed"):
        conn.execute("SELECT 1")
    with pytest.raises(StoreError, match="closed"), lane.reading(lane.begin()):
        pass


def test_no_statement_of_an_obsolete_read_starts(store: Store) -> None:
    lane = store.lane()
    ticket = lane.begin()
    between, newer_came = threading.Event(), threading.Event()
    ran: list[str] = []

    def reader() -> None:
        with lane.reading(ticket):
            ran.append(str(store.execute("SELECT 'first'").fetchone()[0]))
            between.set()  # between two statements: nothing runs for begin() to stop
            assert newer_came.wait(timeout=60)
            ran.append(str(store.execute("SELECT 'second'").fetchone()[0]))

    thread, outcome = in_thread(reader)
    assert between.wait(timeout=60)
    lane.begin()
    newer_came.set()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert ran == ["first"]  # the second statement never started
    assert len(outcome) == 1 and isinstance(outcome[0], QueryInterrupted)
    assert lane.interrupted == 1


def test_one_watchdog_thread_serves_every_lane(store: Store) -> None:
    lanes = [store.lane() for _ in range(3)]
    tickets = [lane.begin() for lane in lanes]
    started = threading.Semaphore(0)

    def reader(lane: Any, ticket: int) -> None:
        with lane.reading(ticket):
            started.release()
            store.execute(ENDLESS).fetchone()

    running = [in_thread(lambda pair=pair: reader(*pair))
               for pair in zip(lanes, tickets, strict=True)]
    threads = [thread for thread, _ in running]
    for _ in threads:
        assert started.acquire(timeout=60)
    for lane in lanes:
        lane.begin()
    watchdogs = [t for t in threading.enumerate() if t.name == "memtui-lane-stop"]
    for thread in threads:
        thread.join(timeout=120)  # each endless read ends only by its lane's stop
    assert not any(thread.is_alive() for thread in threads)
    outcomes = [outcome for _, outcomes in running for outcome in outcomes]
    assert len(outcomes) == 3 and all(isinstance(o, QueryInterrupted) for o in outcomes)
    assert len(watchdogs) <= 1  # begin() on the UI thread never starts a thread per key


def test_the_watchdog_stops_a_statement_started_after_the_stop(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    lane = store.lane()
    # the ticket is not asked before each statement here: only the watchdog can end it
    monkeypatch.setattr(lane, "_bound", lambda conn, ticket: store.bound_to(conn))
    ticket = lane.begin()
    between, newer_came = threading.Event(), threading.Event()

    def reader() -> None:
        with lane.reading(ticket):
            store.execute("SELECT 1").fetchone()
            between.set()  # nothing runs: begin()'s own stop finds no statement
            assert newer_came.wait(timeout=60)
            store.execute(ENDLESS).fetchone()

    thread, outcome = in_thread(reader)
    assert between.wait(timeout=60)
    lane.begin()
    newer_came.set()
    thread.join(timeout=120)  # minutes of work unless the watchdog stops it again
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], QueryInterrupted)


def test_a_store_closed_under_an_obsolete_read_leaves_the_watchdog_serving(
        tmp_path: Path) -> None:
    from memtui.store.database import open_store

    store, other = open_store(tmp_path / "a.db"), open_store(tmp_path / "b.db")
    closed = threading.Event()

    def then(_lane: object) -> None:
        assert closed.wait(timeout=60)

    lane, thread, outcome = reading_in_thread(store, then)
    lane.begin()  # the obsolete reader is watched ...
    store.close()  # ... and its connection closes under it
    closed.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and len(outcome) == 1
    second = other.lane()  # the watchdog still serves another lane
    first = second.begin()
    started = threading.Event()

    def endless() -> None:
        with second.reading(first):
            started.set()
            other.execute(ENDLESS).fetchone()

    thread, outcome = in_thread(endless)
    assert started.wait(timeout=60)
    second.begin()
    thread.join(timeout=120)
    assert not thread.is_alive() and isinstance(outcome[0], QueryInterrupted)
    assert len([t for t in threading.enumerate() if t.name == "memtui-lane-stop"]) == 1
    other.close()
