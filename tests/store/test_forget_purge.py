"""Forget that really forgets: with a reader holding a read transaction, a forget cannot
erase the text from the write-ahead log at once. It says so (``purged`` false with the
reason, in the API, the CLI text and its JSON), ``doctor`` reports it, and the background
worker (or ``doctor --repair``) erases it as soon as the reader lets go."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_support import CliResult

from memtui.engine import purge
from memtui.engine import worker as worker_mod
from memtui.engine.api import Engine
from memtui.engine.worker import BackgroundLoop, LoopEvent
from memtui.store.database import Store

pytestmark = pytest.mark.sqlite_only  # the write-ahead log and the file's bytes

PHRASE = "Vermilion-Okapi-Cipher rendezvous at pier nine"
MARKER = b"Vermilion-Okapi-Cipher"
OTHER_MEMORIES = 60
"""Memories around the forgotten one (the index then has several segments)."""
EVENT_WAIT_S = 30.0
"""How long a test waits for the worker's event (generous: it comes within a poll)."""


def _file_bytes(db: Path) -> bytes:
    return b"".join(Path(str(db) + suffix).read_bytes() for suffix in ("", "-wal")
                    if Path(str(db) + suffix).exists())


class Reader:
    """A second connection to the store holding a read transaction (as a long-lived
    ``memtui serve`` or agent would) until ``release``."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(str(db), isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN")
        self.conn.execute("SELECT count(*) FROM memories").fetchone()

    def release(self) -> None:
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def reader(db_path: Path, store: Store) -> Iterator[Callable[[], Reader]]:
    opened: list[Reader] = []

    def make() -> Reader:
        opened.append(Reader(db_path))
        return opened[-1]

    yield make
    for one in opened:
        one.close()


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short waits: the reader in these tests never lets go by itself."""
    monkeypatch.setattr(purge, "FORGET_PURGE_WAIT_S", 0.3)
    monkeypatch.setattr(purge, "PURGE_RETRY_WAIT_S", 0.1)
    monkeypatch.setattr(worker_mod, "PURGE_POLL_S", 0.05)


def test_forget_without_readers_is_purged_at_once(store: Store, db_path: Path) -> None:
    """The text and its words (the full-text index's terms) leave the files."""
    alice = Engine(store, "alice")
    for i in range(OTHER_MEMORIES):
        alice.identity.add_memory(f"ordinary note {i} about the deploy", "fact", None)
    memory = alice.identity.add_memory(PHRASE, "fact", None)
    for i in range(OTHER_MEMORIES):
        alice.identity.add_memory(f"later note {i} about the tests", "fact", None)
    assert b"vermilion" in _file_bytes(db_path).lower()
    result = alice.identity.forget(memory.id)
    assert result.purged and result.purge_reason is None
    data = _file_bytes(db_path)
    assert MARKER not in data
    for word in (b"vermilion", b"okapi", b"rendezvous"):
        assert word not in data.lower(), word
    assert purge.pending(store).purged


def test_a_reader_keeps_the_text_and_the_worker_erases_it_when_it_lets_go(
        store: Store, db_path: Path, reader: Callable[[], Reader], quick: None) -> None:
    alice = Engine(store, "alice")
    memory = alice.identity.add_memory(PHRASE, "fact", None)
    holder = reader()
    result = alice.identity.forget(memory.id)
    assert result.removed_ids == (memory.id,)
    assert result.purged is False
    assert result.purge_reason is not None and "memtui.db-wal" in result.purge_reason
    assert MARKER in _file_bytes(db_path)  # what the forget honestly reports
    problems = alice.maintenance.check()
    assert any("forgotten text" in p and "memtui.db-wal" in p for p in problems), problems

    events: list[LoopEvent] = []
    purged = threading.Event()

    def on_event(event: LoopEvent) -> None:
        events.append(event)
        if event.kind == "purged":
            purged.set()

    loop = BackgroundLoop(store, "alice", interval_s=None, on_event=on_event)
    loop.start()
    try:
        assert not purged.wait(0.5)  # still held: the worker keeps retrying, nothing lost
        assert loop.state.purge_pending == 1
        assert MARKER in _file_bytes(db_path)
        holder.release()
        assert purged.wait(EVENT_WAIT_S), [e.kind for e in events]
    finally:
        loop.stop()
    assert MARKER not in _file_bytes(db_path)
    assert purge.pending(store).purged
    assert alice.maintenance.check() == []
    assert [e for e in events if e.kind == "purged"][0].done == 1


def test_a_reader_that_lets_go_within_the_bound_is_waited_for(
        store: Store, db_path: Path, reader: Callable[[], Reader],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(purge, "FORGET_PURGE_WAIT_S", 60.0)
    alice = Engine(store, "alice")
    first = alice.identity.add_memory(PHRASE, "fact", None)
    second = alice.identity.add_memory(PHRASE + " (copy)", "fact", None)
    holder = reader()
    releaser = threading.Timer(0.2, holder.release)
    releaser.start()
    try:
        results = alice.identity.forget_many([first.id, second.id])
    finally:
        releaser.join()
    assert [r.purged for r in results] == [True, True]
    assert MARKER not in _file_bytes(db_path)


def test_cli_forget_says_the_text_is_not_yet_erased_and_doctor_repair_finishes(
        cli: Callable[..., CliResult], db_path: Path, store: Store,
        reader: Callable[[], Reader], quick: None) -> None:
    added = cli("--user", "alice", "--json", "memory", "add", PHRASE, "--kind", "fact")
    first = added.json["id"]
    second = cli("--user", "alice", "--json", "memory", "add", PHRASE + " again", "--kind",
                 "fact").json["id"]
    holder = reader()
    out = cli("--user", "alice", "--json", "memory", "forget", first, "--yes")
    assert out.code == 0, out.err
    assert out.json["purged"] is False and out.json["forgotten"] == [first]
    assert "memtui.db-wal" in out.json["purge_reason"]
    human = cli("--user", "alice", "memory", "forget", second, "--yes")
    assert human.code == 0 and "deleted for good" not in human.out
    assert "not yet from its files" in " ".join(human.out.split())
    assert MARKER in _file_bytes(db_path)
    doctor = cli("--user", "alice", "--json", "doctor")
    assert doctor.code == 1
    assert any("forgotten text of 2 forget(s)" in p for p in doctor.json["problems"])
    still = cli("--user", "alice", "--json", "doctor", "--repair")
    assert still.code == 1 and still.json["repaired"] == []  # the reader still holds it
    holder.release()
    repaired = cli("--user", "alice", "--json", "doctor", "--repair")
    assert repaired.code == 0, repaired.json
    assert any("2 forget(s)" in line for line in repaired.json["repaired"])
    assert MARKER not in _file_bytes(db_path)
    purged = cli("--user", "alice", "--json", "memory", "forget",
                 cli("--user", "alice", "--json", "memory", "add", "plain", "--kind",
                     "fact").json["id"], "--yes")
    assert purged.json["purged"] is True and purged.json["purge_reason"] is None


def test_a_forget_left_pending_is_finished_by_the_next_forget(
        store: Store, db_path: Path, reader: Callable[[], Reader], quick: None) -> None:
    alice = Engine(store, "alice")
    doomed = alice.identity.add_memory(PHRASE, "fact", None)
    other = alice.identity.add_memory("something else", "fact", None)
    holder = reader()
    assert alice.identity.forget(doomed.id).purged is False
    holder.release()
    assert alice.identity.forget(other.id).purged is True
    assert MARKER not in _file_bytes(db_path)
    assert purge.pending(store).purged
