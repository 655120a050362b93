"""``PagedSource`` (pages by keyset or position, LRU) and ``MemoryList`` on a list far
bigger than the screen: it never loads the whole list, and every row is the right one."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pilot_harness import app_test, demo_app, opened, press, settle

from memtui.app.widgets import paged_source
from memtui.app.widgets.paged_source import PagedSource
from memtui.engine.api import Engine
from memtui.store.database import Store, open_store
from memtui.store.ids import SequentialIds
from memtui.store.models import Memory
from memtui.store.timeutil import FixedClock, format_time

ROWS = 2_345
START = datetime(2026, 1, 1, tzinfo=UTC)


def _fill(store: Store, owner: str, rows: int) -> None:
    """``rows`` user memories of ``owner``; every third shares its time with the next (ties
    are ordered by id)."""
    Engine(store, owner).identity.update_profile(display_name=owner)
    memories = []
    for number in range(rows):
        stamp = format_time(START + timedelta(minutes=number - number % 3 // 2))
        memories.append((Memory(
            id=f"mem_{number:06d}", scope="user", owner=owner, project=None,
            kind=("fact", "preference", "decision", "convention")[number % 4],
            content=f"Memory number {number} about {'pytest' if number % 10 == 0 else 'ruff'}",
            status="active", superseded_by=None, source="manual", source_thread_id=None,
            created_at=stamp, updated_at=stamp, usage_count=0, last_used_at=None), None))
    with store.transaction():
        store.memories.insert_many(memories)


def for_list(engine: Engine, project: str | None = None, *, kind: str | None = None,
             search: str | None = None, **options: int) -> PagedSource:
    """A source for the actor's active user memories (no project) or one project's."""
    flt = engine.identity.memory_filter(project, kind=kind, search=search)
    return PagedSource(engine, flt, **options)


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = tmp_path_factory.mktemp("big") / "big.db"
    store = open_store(path, clock=FixedClock(START), ids=SequentialIds())
    _fill(store, "alice", ROWS)
    yield store
    store.close()


@pytest.fixture(scope="module")
def reference(big_store: Store) -> list[str]:
    engine = Engine(big_store, "alice")
    return [m.id for m in engine.identity.list_memories(limit=10_000)]


def test_reading_every_row_in_order_matches_the_list(big_store: Store,
                                                     reference: list[str]) -> None:
    source = for_list(Engine(big_store, "alice"), page_size=50, max_pages=4)
    assert source.count_rows() == ROWS
    assert [m.id for m in source.rows(0, ROWS)] == reference
    assert len(source.cached_pages()) <= 4


def test_random_access_by_page_matches(big_store: Store, reference: list[str]) -> None:
    source = for_list(Engine(big_store, "alice"), page_size=37, max_pages=3)
    source.count_rows()
    pages = list(range(source.page_of(ROWS - 1) + 1))
    random.Random(7).shuffle(pages)
    for page in pages:
        rows = source.load_page(page)
        start = page * 37
        assert [m.id for m in rows] == reference[start:start + 37], page
    assert len(source.cached_pages()) == 3


def test_backwards_reading_uses_keyset_before(big_store: Store, reference: list[str]) -> None:
    source = for_list(Engine(big_store, "alice"), page_size=40)
    source.count_rows()
    last = source.page_of(ROWS - 1)
    assert source.plan(last).method == "bottom"
    source.load_page(last)
    for page in range(last - 1, last - 6, -1):
        plan = source.plan(page)
        assert plan.method == "before" and plan.cheap
        assert [m.id for m in source.load_page(page)] == reference[page * 40:(page + 1) * 40]


def test_plans_top_after_bottom_and_cheapness(big_store: Store,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    source = for_list(Engine(big_store, "alice"), page_size=10)
    assert source.plan(0).method == "top"
    source.load_page(0)
    assert source.plan(1).method == "after"
    assert source.plan(100).method == "top"  # count unknown: from the top
    source.count_rows()
    assert source.plan(200).method == "bottom"
    monkeypatch.setattr(paged_source, "CHEAP_OFFSET_ROWS", 100)
    assert not source.plan(50).cheap
    assert source.ensure(500, 520) == [50, 51]  # far pages are left for a worker
    assert source.ensure(0, 30) == []  # near the top: read now


def test_search_and_kind_filters_page_too(big_store: Store) -> None:
    engine = Engine(big_store, "alice")
    source = for_list(engine, search="pytest", page_size=25)
    assert source.count_rows() == len(range(0, ROWS, 10))
    rows = source.rows(0, source.count)
    assert all("pytest" in m.content for m in rows) and len(rows) == source.count
    kinds = for_list(engine, kind="decision", page_size=25)
    assert kinds.count_rows() == len(range(2, ROWS, 4))


def test_index_of_cached_rows(big_store: Store, reference: list[str]) -> None:
    source = for_list(Engine(big_store, "alice"), page_size=20)
    source.load_page(0)
    assert source.index_of(reference[5]) == 5
    assert source.index_of(reference[500]) is None


def test_another_users_list_is_refused(big_store: Store) -> None:
    from memtui.errors import NotFound

    with pytest.raises(NotFound):
        for_list(Engine(big_store, "mallory"), "webshop")


@app_test
async def test_the_list_scrolls_a_big_store_by_pages(tmp_path: Path) -> None:
    store = open_store(tmp_path / "big.db", clock=FixedClock(START), ids=SequentialIds())
    _fill(store, "alice", ROWS)
    reference = [m.id for m in Engine(store, "alice").identity.list_memories(limit=10_000)]
    async with opened(tmp_path, store=store, project=None) as (app, pilot):
        memory_list = app.pane("user").memory_list
        assert memory_list.count == ROWS
        await press(pilot, "end")
        assert memory_list.cursor == ROWS - 1
        assert memory_list.current().id == reference[-1]
        await press(pilot, "pageup", "k")
        assert memory_list.current().id == reference[memory_list.cursor]
        source = memory_list.source
        assert len(source.cached_pages()) <= source.max_pages
        memory_list.move_cursor(ROWS // 2)  # a jump into the middle
        await settle(pilot)
        assert memory_list.current().id == reference[ROWS // 2]
        await press(pilot, "home")
        assert memory_list.current().id == reference[0]
    store.close()


@app_test
async def test_far_pages_are_read_by_a_worker(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paged_source, "CHEAP_OFFSET_ROWS", 0)
    store = open_store(tmp_path / "big.db", clock=FixedClock(START), ids=SequentialIds())
    _fill(store, "alice", ROWS)
    reference = [m.id for m in Engine(store, "alice").identity.list_memories(limit=10_000)]
    async with opened(tmp_path, store=store, project=None) as (app, pilot):
        memory_list = app.pane("user").memory_list
        middle = ROWS // 3
        memory_list.move_cursor(middle)
        assert memory_list.row_text(middle, 60) is None  # "…" until the worker is back
        await settle(pilot)
        assert memory_list.current().id == reference[middle]
        assert memory_list.row_text(middle, 60) is not None
    store.close()


def test_demo_lists_are_small_and_exact(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    engine = app.engine
    for project in (None, "webshop", "infra", "ml-pipeline"):
        source = for_list(engine, project, page_size=3)
        expected = [m.id for m in engine.identity.list_memories(project, limit=1000)]
        assert [m.id for m in source.rows(0, 10_000)] == expected
