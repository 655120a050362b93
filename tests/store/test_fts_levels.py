"""The full-text index survives any number of forgets (``memtui.store.fts_levels``).

Each forget runs FTS5's bounded negative 'merge'. On the SQLite of Debian 12 (3.40) every
such merge added two levels to the index's structure record and none ever went; after about
a thousand forgets FTS5 read its own structure as corrupt: every later memory write failed
with "database disk image is malformed", every search too, and ``doctor`` could not rebuild
it ("vtable constructor failed"). The store now rebuilds the index before that.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.engine.api import Engine
from memtui.store import fts_levels
from memtui.store.database import Store, open_store
from memtui.store.fts_levels import (
    COOKIE_BYTES,
    FTS5_LEVEL_LIMIT,
    MAX_LEVELS,
    V2_MARKER,
    index_levels,
    structure_levels,
)

BASE_MEMORIES = 200
"""Memories around the forgotten ones (with fewer, merges leave the level count alone)."""
FORGETS = FTS5_LEVEL_LIMIT // 2 + 50
"""Enough forgets to pass FTS5's limit at two levels each (what SQLite 3.40 adds)."""
COOKIE = b"\x00\x00\x00\x07"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A SQLite store."""
    opened = open_store(tmp_path / "s.db")
    yield opened
    opened.close()


def _fts_problems(store: Store) -> list[str]:
    try:
        store.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as error:
        return [str(error)]
    return []


def _search(store: Store, word: str) -> int:
    return int(store.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                             (word,)).fetchone()[0])


def test_a_thousand_forgets_leave_the_index_readable(store: Store) -> None:
    alice = Engine(store, "alice")
    rng = random.Random(7)
    alive = [alice.identity.add_memory(f"note {i} about widgets", "fact", None).id
             for i in range(BASE_MEMORIES)]
    highest = 0
    for i in range(FORGETS):
        alive.append(alice.identity.add_memory(f"later {i} about gadgets", "fact", None).id)
        alice.identity.forget(alive.pop(rng.randrange(len(alive))))
        highest = max(highest, index_levels(store, "memories_fts") or 0)
    assert highest <= MAX_LEVELS
    assert _fts_problems(store) == []
    kept = alice.identity.add_memory("a zeppelin after all that", "fact", None)
    assert _search(store, "zeppelin") == 1
    assert _search(store, "widgets") + _search(store, "gadgets") == len(alive)
    assert kept.id in {m.id for m in alice.identity.list_memories(search="zeppelin")}


def test_past_the_bound_the_index_is_rebuilt_without_the_forgotten_words(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any SQLite adds levels on such merges (a newer one up to 64): with a low bound the
    rebuild runs here too, and leaves one level and only the words still stored."""
    monkeypatch.setattr(fts_levels, "MAX_LEVELS", 3)
    alice = Engine(store, "alice")
    ids = [alice.identity.add_memory(f"note {i} about widgets", "fact", None).id
           for i in range(BASE_MEMORIES)]
    alice.identity.add_memory("the okapi", "fact", None)
    for victim in ids[:3]:
        alice.identity.add_memory(f"replacing {victim}", "fact", None)
        alice.identity.forget(victim)
        assert (index_levels(store, "memories_fts") or 0) <= 3
    forgotten = alice.identity.add_memory("a vermilion rendezvous", "fact", None)
    alice.identity.forget(forgotten.id)
    assert _fts_problems(store) == []
    assert _search(store, "vermilion") == 0 and _search(store, "okapi") == 1
    terms = {row[0] for row in store.execute("SELECT term FROM memories_fts_idx")}
    data = b"".join(row[0] for row in store.execute("SELECT block FROM memories_fts_data"))
    assert b"vermilion" not in data and not any("vermilion" in str(t) for t in terms)


def test_vacuum_keeps_every_index_under_the_bound(store: Store,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fts_levels, "MAX_LEVELS", 1)
    alice = Engine(store, "alice")
    for i in range(BASE_MEMORIES):
        alice.identity.add_memory(f"note {i} about widgets", "fact", None)
    for _ in range(3):
        store.vacuum()
        assert (index_levels(store, "memories_fts") or 0) <= 1
    assert _fts_problems(store) == [] and _search(store, "widgets") == BASE_MEMORIES


@pytest.mark.parametrize(("record", "levels"), [
    (COOKIE + b"\x03\x05\x09", 3),                       # the first format
    (COOKIE + V2_MARKER + b"\x03\x05\x09", 3),           # the second (contentless_delete)
    (COOKIE + b"\x8f\x52\x01", 2002),                    # two-byte varint: past the limit
    (COOKIE + b"\x81\x80\x80\x80\x80\x80\x80\x80\x01", 2 ** 57 + 1),  # nine bytes
    (COOKIE + b"\x8f", None),                            # cut inside the varint
    (COOKIE, None),                                      # no level count at all
    (b"", None),
])
def test_structure_record_level_count(record: bytes, levels: int | None) -> None:
    assert record[:COOKIE_BYTES] in (COOKIE, b"")
    assert structure_levels(record) == levels


def test_no_structure_record_yet_is_no_level(store: Store) -> None:
    store.execute("DELETE FROM memories_fts_data WHERE id = ?", (fts_levels.STRUCTURE_ROWID,))
    assert index_levels(store, "memories_fts") is None
    assert fts_levels.keep_levels_bounded(store, "memories_fts") is False
