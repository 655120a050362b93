"""Lists and search at scale: a generated store of 100,000 memories (built once per run).

Every page the store returns is checked against the plain SQL it stands for (OFFSET queries,
the whole ordered list, ``ORDER BY rank``). Nothing here measures time: the benchmark
(``python -m memtui.bench``) does; these tests check the answers are right at size, and that
the app's list reads the store by page.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_config, app_test, opened, settle, type_text
from shared_build import built_once

from memtui.bench.generate import BENCH_PROJECT, BENCH_USER, generate_store
from memtui.store import bench_data, search_pages
from memtui.store.database import Store, open_store
from memtui.store.memories import MEMORY_COLUMNS
from memtui.store.models import Memory, MemoryFilter, PageCursor
from memtui.store.search_terms import fts_query

SIZE = 100_000

USER_LIST = MemoryFilter(scope="user", owner=BENCH_USER)
PROJECT_ALL = MemoryFilter(scope="project", project=BENCH_PROJECT, status=None)
SMALL_PROJECT = MemoryFilter(scope="project", project="billing")
LISTS = {"user": USER_LIST, "project-all": PROJECT_ALL, "small-project": SMALL_PROJECT}
SEARCHES = ("m", "mi", "mig", "migr", "migrate", "migrate inv", "the", "pytest",
            "staging cluster", "sec 5437", "zzzz", "prefers s", "decided to use")
"""From a one-letter prefix (matches most rows) to words that match nothing."""


@pytest.fixture(scope="session")
def big_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated store of SIZE memories, made once per test run (shared by the workers)."""
    return built_once(tmp_path_factory, f"scale-{SIZE}-11.db",
                      lambda path: generate_store(path, SIZE, seed=11))


@pytest.fixture
def big(big_db: Path) -> Store:
    """The big store, opened for one test."""
    store = open_store(big_db)
    yield store
    store.close()


# ---- the reference: the plain SQL every page stands for -----------------------------------


def _where(store: Store, flt: MemoryFilter) -> tuple[str, list[Any]]:
    clauses, params = store.memories._where(flt)
    if flt.search:
        clauses.append("m.seq IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?)")
        params.append(fts_query(flt.search))
    return " AND ".join(clauses), params


def reference_ids(store: Store, flt: MemoryFilter, *, limit: int = -1, offset: int = 0,
                  ascending: bool = False, extra: str = "", extra_params: tuple = ()) -> list[str]:
    """Ids of the list (newest first) by plain SQL with LIMIT/OFFSET."""
    where, params = _where(store, flt)
    order = "ASC" if ascending else "DESC"
    rows = store.execute(
        f"SELECT m.id FROM memories m WHERE {where} {extra} "
        f"ORDER BY m.created_at {order}, m.id {order} LIMIT ? OFFSET ?",
        (*params, *extra_params, limit, offset)).fetchall()
    return [row[0] for row in rows]


def ids(memories: list[Memory]) -> list[str]:
    """The ids of some memories, in order."""
    return [memory.id for memory in memories]


def edge(memory: Memory) -> PageCursor:
    """A memory's keyset position."""
    return PageCursor(memory.created_at, memory.id)


# ---- the generated store -------------------------------------------------------------------


def test_the_generated_store_is_big_and_realistic(big: Store) -> None:
    counts = bench_data.table_counts(big)
    assert counts["memories"] == SIZE
    assert counts["users"] >= 5 and counts["projects"] >= 5
    assert counts["tasks"] > 0 and counts["extraction_log"] == counts["tasks"]
    assert big.memories.count(USER_LIST) > SIZE // 3  # the lists that matter are long
    assert big.memories.count(MemoryFilter(scope="project", project=BENCH_PROJECT)) > SIZE // 5
    superseded = big.memories.count(MemoryFilter(scope="user", owner=BENCH_USER,
                                                 status="superseded"))
    assert superseded > 0
    chained = big.memories.page(MemoryFilter(scope="user", owner=BENCH_USER,
                                             status="superseded"), 1)[0]
    assert len(big.memories.chain_ids(chained.id)) >= 2
    assert bench_data.fulltext_consistent(big)


def test_the_full_text_triggers_are_back_after_the_bulk_load(tmp_path: Path) -> None:
    path = tmp_path / "small.db"
    generate_store(path, 2_000, seed=3)
    store = open_store(path)
    try:
        template = store.memories.page(USER_LIST, 1)[0]
        fresh = Memory(**{**template.__dict__, "id": "mem_zz_fresh",
                          "content": "quokka sightings are logged"})
        with store.transaction():
            store.memories.insert(fresh)
        found = store.memories.page(MemoryFilter(scope="user", owner=BENCH_USER,
                                                 search="quokka"), 10)
        assert ids(found) == ["mem_zz_fresh"]
        assert bench_data.fulltext_consistent(store)
    finally:
        store.close()


def _digest(path: Path) -> str:
    store = open_store(path)
    try:
        digest = hashlib.sha256()
        for row in store.execute(f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY seq"):
            digest.update(repr(row).encode())
        for row in store.execute("SELECT id, goal, result FROM tasks ORDER BY seq"):
            digest.update(repr(row).encode())
        return digest.hexdigest()
    finally:
        store.close()


def test_the_generator_is_reproducible(tmp_path: Path) -> None:
    generate_store(tmp_path / "a.db", 3_000, seed=5)
    generate_store(tmp_path / "b.db", 3_000, seed=5)
    generate_store(tmp_path / "c.db", 3_000, seed=6)
    assert _digest(tmp_path / "a.db") == _digest(tmp_path / "b.db")
    assert _digest(tmp_path / "a.db") != _digest(tmp_path / "c.db")


# ---- plain lists ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LISTS))
def test_counts_are_right(big: Store, name: str) -> None:
    flt = LISTS[name]
    total = len(reference_ids(big, flt))
    assert big.memories.count(flt) == total
    assert big.memories.count_at_most(flt, 1_000) == min(total, 1_000)
    assert big.memories.count_at_most(flt, total + 5) == total


def _paged_forward(big: Store, flt: MemoryFilter, size: int) -> list[str]:
    """The ids of the list ``flt``, read forward in keyset pages of ``size``."""
    found: list[str] = []
    page = big.memories.page(flt, size)
    while page:
        found += ids(page)
        page = big.memories.page(flt, size, after=edge(page[-1]))
    return found


@pytest.mark.parametrize("name", sorted(LISTS))
def test_keyset_pages_cover_the_list_exactly(big: Store, name: str) -> None:
    flt = LISTS[name]
    expected = reference_ids(big, flt)
    forward = _paged_forward(big, flt, 997)
    assert forward == expected
    assert len(set(forward)) == len(forward)
    backward: list[str] = []
    page = big.memories.list_at(flt, 0, 997, from_end=True)
    while page:
        backward = ids(page) + backward
        page = big.memories.page(flt, 997, before=edge(page[0]))
    assert backward == expected


@pytest.mark.parametrize("name", sorted(LISTS))
def test_a_page_deep_in_the_list_equals_the_offset_query(big: Store, name: str) -> None:
    flt = LISTS[name]
    total = big.memories.count(flt)
    for offset in (0, 1, 999, total // 2, total - 100, total - 1):
        assert ids(big.memories.list_at(flt, offset, 100)) == reference_ids(
            big, flt, limit=100, offset=offset)
        from_end = ids(big.memories.list_at(flt, offset, 100, from_end=True))
        assert from_end == list(reversed(reference_ids(big, flt, limit=100, offset=offset,
                                                       ascending=True)))


# ---- searched lists ------------------------------------------------------------------------


@pytest.fixture(params=["chosen", "few", "some", "dense", "estimated"])
def plan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a search test with the store's own choice of plan, then with each plan forced,
    then with every plan chosen from the walk's estimate (however small its sample)."""
    forced = request.param
    if forced == "estimated":
        monkeypatch.setattr(search_pages, "ESTIMATE_MIN_SEQS", 0)
        monkeypatch.setattr(search_pages, "ESTIMATE_MIN_MATCHES", 0)
        monkeypatch.setattr(search_pages, "ESTIMATE_FEW_MARGIN", 0)
    elif forced == "few":
        monkeypatch.setattr(search_pages, "FEW_MATCHES", 10 ** 9)
    elif forced == "some":
        monkeypatch.setattr(search_pages, "FEW_MATCHES", -1)
        monkeypatch.setattr(search_pages, "DENSE_MATCHES", 10 ** 9)
    elif forced == "dense":
        monkeypatch.setattr(search_pages, "FEW_MATCHES", -1)
        monkeypatch.setattr(search_pages, "DENSE_MATCHES", -1)
        monkeypatch.setattr(search_pages, "WALK_MAX_ROWS", 3_000)  # the give-up path too
    return forced


@pytest.mark.parametrize("name", sorted(LISTS))
def test_searched_pages_equal_the_plain_sql(big: Store, plan: str, name: str) -> None:
    for text in SEARCHES:
        flt = MemoryFilter(**{**LISTS[name].__dict__, "search": text})
        first = big.memories.page(flt, 100)
        assert ids(first) == reference_ids(big, flt, limit=100), (text, plan)
        total = len(reference_ids(big, flt))
        assert big.memories.count(flt) == total, (text, plan)
        assert big.memories.count_at_most(flt, 50) == min(50, total), (text, plan)
        if not first:
            assert big.memories.list_at(flt, 0, 100, from_end=True) == []
            continue
        cursor = edge(first[-1])
        assert ids(big.memories.page(flt, 100, after=cursor)) == reference_ids(
            big, flt, limit=100, extra="AND (m.created_at, m.id) < (?, ?)",
            extra_params=(cursor.created_at, cursor.id)), (text, plan)
        before = ids(big.memories.page(flt, 100, before=cursor))
        assert before == list(reversed(reference_ids(
            big, flt, limit=100, ascending=True, extra="AND (m.created_at, m.id) > (?, ?)",
            extra_params=(cursor.created_at, cursor.id)))), (text, plan)
        for offset in (0, 250):
            assert ids(big.memories.list_at(flt, offset, 100)) == reference_ids(
                big, flt, limit=100, offset=offset), (text, plan)
            assert ids(big.memories.list_at(flt, offset, 100, from_end=True)) == list(
                reversed(reference_ids(big, flt, limit=100, offset=offset, ascending=True)))


def test_searched_keyset_pages_cover_the_search_exactly(big: Store) -> None:
    for text in ("staging cluster", "the", "mig"):
        flt = MemoryFilter(scope="user", owner=BENCH_USER, search=text)
        expected = reference_ids(big, flt)
        assert _paged_forward(big, flt, 1_000) == expected, text
        assert big.memories.count_at_most(flt, 500) == min(500, len(expected))


# ---- the app's list on the big store -------------------------------------------------------


@app_test
async def test_the_app_scrolls_and_searches_the_big_list_by_page(big_db: Path) -> None:
    from memtui.app.main import create_app
    from memtui.app.panes.memories import MemoriesPane
    from memtui.app.widgets.paged_source import MAX_CACHED_PAGES, PagedSource

    fetched: list[int] = []
    original_fetch = PagedSource.fetch

    def counting_fetch(source: PagedSource, plan: Any) -> list[Memory]:
        rows = original_fetch(source, plan)
        fetched.append(len(rows))
        return rows

    PagedSource.fetch = counting_fetch  # type: ignore[method-assign]
    store = open_store(big_db)
    try:
        app = create_app(store, BENCH_USER, config=app_config())
        async with opened(app, size=(100, 30)) as (app, pilot):
            pane = app.current_pane()
            assert isinstance(pane, MemoriesPane)
            memory_list = pane.memory_list
            total = store.memories.count(USER_LIST)
            assert memory_list.count == total
            newest, oldest = reference_ids(store, USER_LIST, limit=1)[0], \
                reference_ids(store, USER_LIST, limit=1, ascending=True)[0]
            assert memory_list.current().id == newest

            for key in ["pagedown"] * 5 + ["end"]:
                await pilot.press(key)
                await settle(pilot)
            assert memory_list.cursor == total - 1
            assert memory_list.current().id == oldest
            for key in ["pageup"] * 5 + ["home"]:
                await pilot.press(key)
                await settle(pilot)
            assert memory_list.cursor == 0 and memory_list.current().id == newest
            source = memory_list.source
            assert len(source.cached_pages()) <= MAX_CACHED_PAGES
            assert sum(fetched) <= 40 * source.page_size  # a few pages, never the list

            await pilot.press("slash")
            await type_text(pilot, "staging c")
            flt = MemoryFilter(scope="user", owner=BENCH_USER, search="staging c")
            assert memory_list.filter.search == "staging c"
            assert memory_list.count == len(reference_ids(store, flt))
            assert memory_list.current().id == reference_ids(store, flt, limit=1)[0]
            pane.search_box.value = ""
            await settle(pilot)
            assert memory_list.count == total
            assert not app._exception
    finally:
        PagedSource.fetch = original_fetch  # type: ignore[method-assign]
        store.close()


def test_the_search_row_compares_each_key_with_its_own_store_query() -> None:
    from memtui.bench.runner import key_ratios

    keys = {"m": 6.0, "mi": 30.0, "mig": 9.0}
    in_store = {"m": 2.0, "mi": 24.0, "mig": 0.0}  # a key the store measured as 0 is left out
    assert key_ratios(keys, in_store) == {"m": 3.0, "mi": 1.25}


def test_the_reference_row_times_every_prefix_that_makes_a_query(big_db: Path) -> None:
    from memtui.bench.runner import bare_fts_times
    from memtui.bench.timing import best_prefix_times

    ran: list[str] = []
    times = best_prefix_times(("ab c",), lambda text: None if text.endswith(" ") else text,
                              ran.append, reps=3)
    assert ran == ["a"] * 3 + ["ab"] * 3 + ["ab c"] * 3  # "ab " makes no query
    assert len(times) == 3 and all(t >= 0 for t in times)
    assert len(bare_fts_times(big_db, ("migr", "a b"), reps=1)) == len(
        [text[:i] for text in ("migr", "a b") for i in range(1, len(text) + 1)
         if fts_query(text[:i]) is not None])


def test_a_walks_sample_picks_the_plan_without_counting(big: Store,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[str] = []
    count = search_pages.match_count_capped

    def watched(repo, query: str, cap: int) -> int:  # noqa: ANN001
        counted.append(query)
        return count(repo, query, cap)

    monkeypatch.setattr(search_pages, "match_count_capped", watched)
    monkeypatch.setattr(search_pages, "ESTIMATE_MIN_SEQS", 1)
    monkeypatch.setattr(search_pages, "ESTIMATE_MIN_MATCHES", 1)
    monkeypatch.setattr(search_pages, "FEW_MATCHES", 0)
    flt = MemoryFilter(scope="user", owner=BENCH_USER, search="the")
    assert ids(big.memories.page(flt, 300)) == reference_ids(big, flt, limit=300)
    assert counted == []  # the walk's own full-text answers were sample enough
