"""Recall's full-text plan (``store.recall.RecallRepository._plan``) gives the same rows on
both backends: each query word's match count capped at ``RANK_BUDGET + 1``; the rarest words
that fit the budget together are ranked, else the newest rows holding every word are taken
(the first ``limit`` visible ones among the newest ``RECENT_SCAN_CAP`` matches).

Every test here checks the store against a model of that rule computed from the rows the
test wrote, on SQLite (FTS5) and PostgreSQL (``term_counts``, migration 7, and the newest
rows read first: ``PgRecallRepository``), through inserts, deletes and changed text. The
PostgreSQL-only tests check ``term_counts`` itself and that counting reads no memory row."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from memtui.engine.api import Engine
from memtui.store import recall as recall_data
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.models import Memory
from memtui.store.postgres.bench_data import copy_rows
from memtui.store.postgres.repositories import PgRecallRepository
from memtui.store.postgres.store import PostgresStore

BUDGET = 5
"""``RANK_BUDGET`` in the model tests: a word held by more rows than this is "common"."""
SCAN_CAP = 6
"""``RECENT_SCAN_CAP`` in the model tests."""
WORDS = ("apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron")
"""The vocabulary of the model tests: plain lowercase words, which FTS5 and PostgreSQL's
``simple`` configuration split and fold alike."""
STAMP = "2026-11-01T10:00:00.000Z"


@dataclass
class Row:
    """What the model knows of one memory: its words and whether alice may recall it."""

    id: str
    words: frozenset[str]
    visible: bool


def expected_related(rows: Sequence[Row], text: str, limit: int) -> tuple[str, list[str]]:
    """The recall rule on ``rows`` (oldest first): ("rank", every visible row holding a
    chosen word, sorted by id: bm25 and ts_rank order them differently, and ``limit`` keeps
    the best), ("recent", ids newest first), or ("none", [])."""
    words = list(dict.fromkeys(text.split()))
    counts = sorted((min(sum(word in row.words for row in rows), BUDGET + 1), word)
                    for word in words)
    counts = [(count, word) for count, word in counts if count]
    if not counts:
        return "none", []
    chosen, total = [], 0
    for count, word in counts:
        if total + count > BUDGET:
            break
        chosen.append(word)
        total += count
    if chosen:
        return "rank", sorted(row.id for row in rows
                              if row.visible and row.words & set(chosen))
    needed = {word for _count, word in counts}
    matches = [row for row in reversed(rows) if needed <= row.words][:SCAN_CAP]
    return "recent", [row.id for row in matches if row.visible][:limit]


@pytest.fixture
def model_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget and scan cap of the model, on both backends."""
    monkeypatch.setattr(recall_data, "RANK_BUDGET", BUDGET)
    monkeypatch.setattr(recall_data, "RECENT_SCAN_CAP", SCAN_CAP)


def _fill(store: StoreBackend, engine_for: Callable[[str], Engine], count: int,
          seed: int) -> list[Row]:
    """``count`` memories of 1-4 random words: alice's own and the ``web`` project's (alice
    may recall them), bob's own and superseded ones (she may not)."""
    alice, bob = engine_for("alice"), engine_for("bob")
    alice.identity.create_project("web")
    alice.identity.set_member("web", "bob", "member")
    rng = random.Random(seed)
    rows: list[Row] = []
    for _ in range(count):
        # a skewed choice: the first words are common, the last ones rare
        words = {WORDS[min(int(rng.expovariate(0.6)), len(WORDS) - 1)]
                 for _ in range(rng.randint(1, 4))}
        text = " ".join(sorted(words))
        kind = rng.randrange(4)
        if kind == 0:
            memory = alice.identity.add_memory(text, "fact")
        elif kind == 1:
            memory = bob.identity.add_memory(text, "fact", "web")
        elif kind == 2:
            memory = bob.identity.add_memory(text, "fact")
        else:
            memory = alice.identity.add_memory(text, "fact", "web")
            rows.append(Row(memory.id, frozenset(words), False))
            newer = alice.identity.supersede(memory.id, "zzz")
            rows.append(Row(newer.id, frozenset({"zzz"}), True))
            continue
        rows.append(Row(memory.id, frozenset(words), kind != 2))
    return rows


def _memory(memory_id: str, content: str, status: str = "active") -> Memory:
    """One of alice's user-level memories."""
    return Memory(id=memory_id, scope="user", owner="alice", project=None, kind="fact",
                  content=content, status=status, superseded_by=None, source="manual",
                  source_thread_id=None, created_at=STAMP, updated_at=STAMP, usage_count=0,
                  last_used_at=None)


def _check_related(store: StoreBackend, rows: Sequence[Row], text: str, limit: int) -> str:
    """The store's related memories for alice are the model's; returns the mode."""
    mode, expected = expected_related(rows, text, limit)
    found = [m.id for m, _ in store.recall.scored_memories(text, "alice", ["web"], limit)]
    if mode == "rank":  # the best ``limit`` of the chosen words' rows
        assert len(found) == min(limit, len(expected)) and set(found) <= set(expected), \
            (text, limit, found, expected)
    else:
        assert found == expected, (text, limit)
    plan = store.recall._plan("memories_fts", text)
    assert (plan[0] if plan else "none") == mode, text
    return mode


QUERIES = ("apple", "heron", "grove heron", "fjord grove heron", "apple birch",
           "birch cedar delta", "apple unknown", "unknown", "heron zzz", "ember fjord")


@pytest.mark.parametrize("window", [1, 3, 4000])
def test_related_memories_follow_the_rule_on_both_backends(
        store: StoreBackend, engine_for: Callable[[str], Engine], model_rule: None,
        monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    """``window``: on PostgreSQL, how many newest rows are read before the rest of the
    table (1 and 3 make the rest be read for most queries)."""
    monkeypatch.setattr(PgRecallRepository, "RECENT_WINDOW", window)
    rows = _fill(store, engine_for, 60, seed=window)
    modes = {_check_related(store, rows, text, limit)
             for text in QUERIES for limit in (1, 3, 50)}
    assert modes == {"rank", "recent", "none"}


def test_capped_counts_follow_deletes_and_changed_text(
        store: StoreBackend, engine_for: Callable[[str], Engine], model_rule: None) -> None:
    rows = _fill(store, engine_for, 40, seed=7)
    recall = store.recall

    def check() -> None:
        for word in (*WORDS, "zzz", "unknown"):
            expected = min(sum(word in row.words for row in rows), BUDGET + 1)
            terms = recall_data.recall_terms(word, store.dialect)
            assert recall._capped_counts("memories_fts", terms) == [expected], \
                word
        for text in QUERIES:
            _check_related(store, rows, text, 50)

    check()
    gone = [row for row in rows if "apple" in row.words][:-2]
    with store.transaction():
        store.memories.delete_many([row.id for row in gone])
    rows = [row for row in rows if row not in gone]
    check()
    # a pending memory's text revised, then approved with other text
    pending = _memory("pending-1", "heron heron", status="pending")
    with store.transaction():
        store.memories.insert(pending)
    rows.append(Row(pending.id, frozenset({"heron"}), False))
    check()
    with store.transaction():
        store.memories.revise_pending(pending.id, "grove ember", "fact", STAMP)
    rows[-1] = Row(pending.id, frozenset({"grove", "ember"}), False)
    check()
    with store.transaction():
        store.memories.activate(pending.id, "fjord apple", "fact", STAMP)
    rows[-1] = Row(pending.id, frozenset({"fjord", "apple"}), True)
    check()


def test_words_the_parser_splits_and_words_without_letters(store: StoreBackend,
                                                           engine_for: Callable[[str], Engine],
                                                           model_rule: None) -> None:
    """``snake_case`` is a phrase of two words on both backends; ``_`` matches nothing."""
    alice = engine_for("alice")
    for i in range(3):
        alice.identity.add_memory(f"call sync_layout now {i}", "fact")
    alice.identity.add_memory("sync the layout", "fact")  # both words, not as a phrase
    recall = store.recall
    terms = recall_data.recall_terms("sync_layout _ now", store.dialect)
    assert recall._capped_counts("memories_fts", terms) == \
        [3, 0, 3]
    found = recall.scored_memories("sync_layout", "alice", [], 10)
    assert sorted(m.content for m, _ in found) == [f"call sync_layout now {i}" for i in range(3)]


@pytest.mark.sqlite_only
def test_counts_are_kept_until_any_write_ends(store: StoreBackend, store_target: str,
                                              engine_for: Callable[[str], Engine],
                                              model_rule: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted once while nothing is written; inside a write transaction never kept (its own
    rows count); counted again after a write of this store (committed or rolled back) or of
    another connection."""
    rows = _fill(store, engine_for, 20, seed=3)
    recall = store.recall
    counted: list[str] = []
    real = store.execute

    def spy(sql: str, params: Sequence[Any] = ()) -> Any:
        if sql.startswith("SELECT count(*) FROM (SELECT rowid FROM memories_fts"):
            counted.append(params[0])
        return real(sql, params)

    monkeypatch.setattr(store, "execute", spy)
    word = next(word for word in reversed(WORDS)  # a rare word: one more row is seen
                if 0 < sum(word in row.words for row in rows) < BUDGET)
    terms = recall_data.recall_terms(word, store.dialect)
    expected = sum(word in row.words for row in rows)
    assert recall._capped_counts("memories_fts", terms) == [expected]
    assert recall._capped_counts("memories_fts", terms) == [expected] and len(counted) == 1
    with pytest.raises(RuntimeError), store.transaction():
        store.memories.insert(_memory("rolled-back", word))
        assert recall._capped_counts("memories_fts", terms) == [expected + 1]  # its own row
        store.memories.insert(_memory("rolled-back-2", word))
        assert recall._capped_counts("memories_fts", terms) == [expected + 2]  # nothing kept
        raise RuntimeError("rolled back")
    assert recall._capped_counts("memories_fts", terms) == [expected]
    other = open_store(store_target)
    try:
        with other.transaction():
            other.memories.delete_many([row.id for row in rows if word in row.words])
    finally:
        other.close()
    assert recall._capped_counts("memories_fts", terms) == [0]


# ---- PostgreSQL: the common words recall remembers ---------------------------------------

@pytest.fixture
def pg_store(pg_url: str) -> Iterator[PostgresStore]:
    """A new PostgreSQL store."""
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    yield store
    store.close()


def _memory_rows(start: int, count: int, text: str) -> Iterator[tuple[Any, ...]]:
    for i in range(start, start + count):
        yield (f"mem_{i:08d}", "user", "alice", None, "fact", text.format(i=i), "active", None,
               "manual", None, STAMP, STAMP, 0, None, None)


def _load(store: PostgresStore, rows: Iterator[tuple[Any, ...]]) -> None:
    """Memories in one COPY statement."""
    loader = store.connect()
    try:
        with loader.transaction():
            copy_rows(loader, "memories", rows)
    finally:
        loader.close()


def _remembered(store: PostgresStore, source: str = "memories") -> dict[str, int]:
    """The common words remembered for ``source`` at its current epoch (query: at least)."""
    rows = store.execute("SELECT c.query, c.at_least FROM common_terms c JOIN term_epochs e "
                         "ON e.source = c.source AND e.epoch = c.epoch WHERE c.source = ?",
                         (source,)).fetchall()
    return {row[0]: int(row[1]) for row in rows}


def _epoch(store: PostgresStore, source: str = "memories") -> int:
    return int(store.execute("SELECT epoch FROM term_epochs WHERE source = ?",
                             (source,)).fetchone()[0])


def _counts(store: StoreBackend, text: str) -> list[int]:
    return store.recall._capped_counts("memories_fts",
                                       recall_data.recall_terms(text, store.dialect))


@pytest.mark.postgres
def test_common_words_are_remembered_until_a_count_may_have_dropped(
        pg_store: PostgresStore, model_rule: None) -> None:
    store = pg_store
    alice = Engine(store, "alice")
    memories = [alice.identity.add_memory(f"alpha beta {i}", "fact") for i in range(8)]
    alice.identity.add_memory("gamma_delta here", "fact")
    assert _counts(store, "alpha beta gamma_delta unknown") == [BUDGET + 1, BUDGET + 1, 1, 0]
    assert _remembered(store) == {"'alpha'": BUDGET + 1, "'beta'": BUDGET + 1}
    # adding rows, superseding, bumping usage: counts only grow, the facts stay
    alice.identity.add_memory("alpha again", "fact")
    alice.identity.supersede(memories[0].id, "alpha corrected")
    store.memories.bump_usage([memories[1].id], STAMP)
    store.execute("DELETE FROM memories WHERE id = 'no such memory'")
    before = _epoch(store)
    assert _counts(store, "alpha") == [BUDGET + 1]
    assert _epoch(store) == before and "'alpha'" in _remembered(store)
    # a forget may lower a count: the epoch moves on and the word is counted again
    for memory in memories[1:6]:
        alice.identity.forget(memory.id)
    assert _epoch(store) > before and _remembered(store) == {}
    # left: "alpha beta" 0 (superseded), 6 and 7, "alpha again", "alpha corrected"
    assert _counts(store, "alpha beta") == [5, 3]
    assert _remembered(store) == {}
    # the facts of the older epoch go when a word is remembered next
    assert store.execute("SELECT count(*) FROM common_terms").fetchone()[0] == 2
    alice.identity.add_memory("alpha once more", "fact")
    assert _counts(store, "alpha beta") == [BUDGET + 1, 3]
    assert store.execute("SELECT query FROM common_terms").fetchall() == [("'alpha'",)]


@pytest.mark.postgres
def test_a_changed_text_or_a_truncate_moves_the_epoch_on(pg_store: PostgresStore) -> None:
    store = pg_store
    store.execute("INSERT INTO users(id, display_name, created_at) VALUES ('alice', 'a', ?)",
                  (STAMP,))
    with store.transaction():
        store.memories.insert(_memory("p-1", "heron", status="pending"))
    epoch = _epoch(store)
    with store.transaction():
        store.memories.activate("p-1", "heron", "fact", STAMP)  # the same text: no change
    assert _epoch(store) == epoch
    with store.transaction():
        store.memories.revise_pending("p-1", "ignored: not pending", "fact", STAMP)
        store.memories.activate("p-1", "still heron", "fact", STAMP)  # not pending any more
    assert _epoch(store) == epoch
    store.execute("UPDATE memories SET content = 'egret' WHERE id = 'p-1'")
    assert _epoch(store) == epoch + 1
    store.execute("TRUNCATE memories CASCADE")
    assert _epoch(store) == epoch + 2


@pytest.mark.postgres
def test_a_fact_is_not_used_by_an_older_snapshot(pg_url: str, model_rule: None) -> None:
    """A reader whose snapshot began before rows were added counts its own rows: a fact
    another reader remembered after those rows made a word common does not hold for it."""
    first, second = open_store(pg_url), open_store(pg_url)
    try:
        alice = Engine(second, "alice")
        for i in range(BUDGET):
            alice.identity.add_memory(f"zeta {i}", "fact")
        with first.snapshot():
            assert _counts(first, "zeta") == [BUDGET]
            alice.identity.add_memory("zeta again", "fact")
            assert _counts(second, "zeta") == [BUDGET + 1]  # remembered
            assert _remembered(second) == {"'zeta'": BUDGET + 1}
            assert _counts(first, "zeta") == [BUDGET]
        assert _counts(first, "zeta") == [BUDGET + 1]
    finally:
        first.close()
        second.close()


@pytest.mark.postgres
def test_tasks_and_interactions_words_are_remembered_apart(pg_store: PostgresStore,
                                                           model_rule: None) -> None:
    alice = Engine(pg_store, "alice")
    alice.identity.create_project("web")
    for i in range(BUDGET + 1):
        alice.tasks.add_task("web", f"Deploy the web app {i}", "p", "deployed",
                             "2026-11-30T10:00:00Z", "2026-11-30T10:20:00Z")
        alice.recall.remember_interaction(f"q-{i}", "how to deploy?", f"run it {i}")
    recall = pg_store.recall
    assert recall._capped_counts("tasks_fts", ["'deploy'"]) == [BUDGET + 1]
    assert recall._capped_counts("interactions_fts", ["'deploy'"]) == [BUDGET + 1]
    assert _remembered(pg_store) == {}
    assert _remembered(pg_store, "tasks") == {"'deploy'": BUDGET + 1}
    assert _remembered(pg_store, "interactions") == {"'deploy'": BUDGET + 1}


@pytest.mark.postgres
def test_a_remembered_common_word_reads_no_memory_row(
        pg_store: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bound by buffers, not time: once a word held by every memory was counted, its count
    and the newest rows holding it cost a few pages, whatever the size of the table (the
    GIN index reads every posting of the word and a thousand rows)."""
    store = pg_store
    Engine(store, "alice").identity.add_memory("first memory", "fact")
    _load(store, _memory_rows(0, 20_000, "common word {i} in every memory"))
    store.execute("ANALYZE memories")
    first = [m for m, _ in store.recall.scored_memories("common every", "alice", [], 8)]
    ran: list[tuple[str, Any]] = []
    real = PostgresStore._run_on

    def recording(self: PostgresStore, conn: Any, query: str, params: Any, many: bool) -> Any:
        ran.append((query, params))
        return real(self, conn, query, params, many)

    monkeypatch.setattr(PostgresStore, "_run_on", recording)
    found = [m for m, _ in store.recall.scored_memories("common every", "alice", [], 8)]
    monkeypatch.undo()
    assert [m.id for m in found] == [m.id for m in first] == \
        [f"mem_{i:08d}" for i in range(19_999, 19_991, -1)]
    assert len(ran) == 2, [q[:60] for q, _p in ran]  # the counts, the newest rows
    explain = store.connect()
    try:
        for query, params in ran:
            row = explain.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query,
                                  params).fetchone()
            assert row is not None
            plan = row[0][0]["Plan"]
            touched = int(plan.get("Shared Hit Blocks", 0)) + \
                int(plan.get("Shared Read Blocks", 0))
            assert touched < 50, (query[:80], json.dumps(plan)[:400])
    finally:
        explain.close()


@pytest.mark.postgres
def test_vacuum_removes_the_facts_of_older_epochs(pg_store: PostgresStore,
                                                  model_rule: None) -> None:
    alice = Engine(pg_store, "alice")
    memories = [alice.identity.add_memory(f"deploy note {i}", "fact") for i in range(8)]
    assert _counts(pg_store, "deploy note") == [BUDGET + 1, BUDGET + 1]
    with pg_store.transaction():  # a delete that leaves the facts behind (no recall since)
        pg_store.memories.delete_many([memories[0].id])
    assert pg_store.execute("SELECT count(*) FROM common_terms").fetchone()[0] == 2
    result = pg_store.vacuum()
    assert result.done[0].startswith("removed the word counts recall remembered")
    assert pg_store.execute("SELECT count(*) FROM common_terms").fetchone()[0] == 0
