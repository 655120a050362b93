"""Pages of a newest-first list by keyset and by position (``memtui.store.paging``): the one
rule the memory lists (plain and searched) and the extraction log page with."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.engine.api import Engine
from memtui.store.database import open_store
from memtui.store.models import Memory, PageCursor
from memtui.store.paging import keyset_page, position_page

ROWS = 9


def test_the_clauses_and_orders() -> None:
    first = keyset_page("at", "id")
    assert (first.clauses, first.params, first.order, first.reversed) == (
        (), (), "at DESC, id DESC", False)
    older = keyset_page("at", "id", after=PageCursor("t5", "b"))
    assert older.clauses == ("(at, id) < (?, ?)",) and older.params == ("t5", "b")
    assert older.order == "at DESC, id DESC" and older.in_list_order([3, 2]) == [3, 2]
    newer = keyset_page("at", "id", before=PageCursor("t5", "b"))
    assert newer.clauses == ("(at, id) > (?, ?)",) and newer.order == "at ASC, id ASC"
    assert newer.in_list_order([6, 7]) == [7, 6]
    between = keyset_page("at", "id", PageCursor("t2", "a"), PageCursor("t8", "z"))
    assert len(between.clauses) == 2 and between.params == ("t2", "a", "t8", "z")
    assert position_page("at", "id", from_end=True).order == "at ASC, id ASC"
    assert position_page("at", "id", from_end=False).in_list_order([1, 2]) == [1, 2]


@pytest.fixture
def ann(tmp_path: Path) -> Iterator[Engine]:
    """ann with ROWS user memories that all hold the word "cache"."""
    store = open_store(tmp_path / "memtui.db")
    engine = Engine(store, "ann")
    for number in range(ROWS):
        engine.identity.add_memory(f"cache fact number {number}", "fact")
    try:
        yield engine
    finally:
        store.close()


def _cursor(memory: Memory) -> PageCursor:
    return PageCursor(memory.created_at, memory.id)


@pytest.mark.parametrize("search", [None, "cache"])
def test_memory_pages_agree_with_the_whole_list(ann: Engine, search: str | None) -> None:
    flt = ann.identity.memory_filter(search=search)
    whole = ann.identity.memory_page(flt, ROWS + 5)
    assert len(whole) == ROWS
    ids = [memory.id for memory in whole]

    def page(**cursors: PageCursor) -> list[str]:
        return [m.id for m in ann.identity.memory_page(flt, ROWS, **cursors)]  # type: ignore[arg-type]

    assert page(after=_cursor(whole[2])) == ids[3:]
    assert page(before=_cursor(whole[6])) == ids[:6]
    assert page(after=_cursor(whole[1]), before=_cursor(whole[5])) == ids[2:5]
    assert [m.id for m in ann.identity.memories_at(flt, 2, 3)] == ids[2:5]
    assert [m.id for m in ann.identity.memories_at(flt, 1, 3, from_end=True)] == ids[-4:-1]
