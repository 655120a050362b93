"""``ListLoading`` without Pilot: where a list's load stands, rows worked out ahead only for a
key that narrows the search on rows that are up to date, one query per load, stale results
dropped, a search's count capped and then exact."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from memtui.app.widgets import list_loading
from memtui.app.widgets.list_loading import Anchor, ListLoading, LoadState
from memtui.app.widgets.load_mailbox import LoadMailbox
from memtui.app.widgets.paged_source import PAGE_SIZE, PagedSource, PagePlan
from memtui.engine.api import Engine
from memtui.errors import StoreError
from memtui.store.models import Memory

MARGIN = 40
HEIGHT = 20
RUFF_ROWS = PAGE_SIZE + 30


class Reports:
    """What the loader thread reports, in order (as the list would post it); every frame is
    painted at once."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def report_loaded(self, generation: int, source: PagedSource,
                      anchor: Anchor | None) -> threading.Event:
        self.events.append(("loaded", generation, source))
        painted = threading.Event()
        painted.set()
        return painted

    def report_counted(self, generation: int, count: int, capped: bool = False) -> None:
        self.events.append(("counted", generation, count, capped))

    def report_failed(self, generation: int, error: str) -> None:
        self.events.append(("failed", generation, error))


@pytest.fixture
def alice(engine_for: Callable[[str], Engine], monkeypatch: pytest.MonkeyPatch) -> Engine:
    """alice with a few notes, then more "ruff rule" memories than a page holds (newest);
    a search is counted without waiting for typing to pause."""
    monkeypatch.setattr(list_loading, "SEARCH_COUNT_PAUSE_SECONDS", 0.0)
    monkeypatch.setattr(list_loading, "EXACT_COUNT_DELAY_SECONDS", 0.0)
    engine = engine_for("alice")
    for number in range(10):
        engine.identity.add_memory(f"alpha note {number}", "fact")
    for number in range(RUFF_ROWS):
        engine.identity.add_memory(f"ruff rule {number} {'even' if number % 2 else 'odd'}",
                                   "fact")
    return engine


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The search of every page query from now on."""
    reads: list[str | None] = []
    fetch = PagedSource.fetch

    def recorded(source: PagedSource, plan: PagePlan) -> list[Memory]:
        reads.append(source.filter.search)
        return fetch(source, plan)

    monkeypatch.setattr(PagedSource, "fetch", recorded)
    return reads


def _run(request: list_loading.LoadRequest) -> list[tuple[Any, ...]]:
    reports = Reports()
    list_loading.run_load(request, LoadMailbox(), reports)
    return reports.events


def _shown(engine: Engine, search: str | None = None) -> PagedSource:
    """A list's first page, as on screen."""
    return list_loading.first_page(PagedSource(engine, engine.identity.memory_filter(search=search)))


def test_a_load_reads_its_first_page_once_then_counts(alice: Engine,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _reads(monkeypatch)
    loading = ListLoading()
    flt = alice.identity.memory_filter()
    request = loading.begin(alice, flt, None, MARGIN)
    assert loading.state is LoadState.READING
    events = _run(request)
    assert reads == [None]  # one query
    (what, generation, source), counted = events
    assert (what, generation) == ("loaded", request.generation)
    assert source.first_rows() == alice.identity.memory_page(flt, PAGE_SIZE)
    assert counted == ("counted", request.generation, RUFF_ROWS + 10, False)
    assert not loading.loaded(source) and loading.state is LoadState.COUNTING
    loading.counted(RUFF_ROWS + 10, capped=False)
    assert loading.state is LoadState.DONE


def test_a_search_is_counted_capped_then_exactly(alice: Engine,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(list_loading, "SEARCH_COUNT_CAP", 50)
    loading = ListLoading()
    request = loading.begin(alice, alice.identity.memory_filter(search="ruff"), None, MARGIN)
    events = _run(request)
    assert [event[0] for event in events] == ["loaded", "counted", "counted"]
    assert events[1][2:] == (50, True) and events[2][2:] == (RUFF_ROWS, False)
    loading.loaded(events[0][2])
    loading.counted(50, capped=True)
    assert loading.state is LoadState.COUNTING and loading.at_least == 50
    loading.counted(RUFF_ROWS, capped=False)
    assert loading.state is LoadState.DONE and loading.at_least is None


@pytest.mark.sqlite_only
def test_a_narrowing_key_is_worked_out_ahead_and_its_query_takes_over(
        alice: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    loading = ListLoading()
    shown = _shown(alice, "ru")
    reads = _reads(monkeypatch)
    request = loading.begin(alice, alice.identity.memory_filter(search="ruff e"), None, MARGIN)
    ahead = loading.ahead(request, shown, HEIGHT)
    assert ahead is not None and loading.state is LoadState.AHEAD and reads == []
    worked_out = ahead.first_rows()
    assert len(worked_out) > HEIGHT and ahead.count is None
    assert all("ruff rule" in memory.content for memory in worked_out)
    (_loaded, _generation, source), *_counts = _run(request)
    assert reads == ["ruff e"]  # the key's query still runs, once
    assert source.first_rows()[:len(worked_out)] == worked_out  # the same rows on top
    assert loading.loaded(source)  # they take over the rows worked out ahead


@pytest.mark.sqlite_only
def test_rows_worked_out_of_the_whole_list_know_its_count(alice: Engine) -> None:
    loading = ListLoading()
    shown = _shown(alice, "alpha")
    assert shown.count == 10
    request = loading.begin(alice, alice.identity.memory_filter(search="alpha note"), None,
                            MARGIN)
    ahead = loading.ahead(request, shown, HEIGHT)  # fewer than fit, but every row
    assert ahead is not None and ahead.count == 10


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("shown_search", "typed"), [
    ("ru", "r"),  # widened: the rows on screen do not hold its rows
    ("ruff", "alpha"),  # another search
    (None, "alpha"),  # too few of the rows on screen, and not the whole list
])
def test_a_key_not_worked_out_from_the_rows_on_screen_waits_for_its_query(
        alice: Engine, shown_search: str | None, typed: str) -> None:
    loading = ListLoading()
    request = loading.begin(alice, alice.identity.memory_filter(search=typed), None, MARGIN)
    assert loading.ahead(request, _shown(alice, shown_search), HEIGHT) is None
    assert loading.state is LoadState.READING


@pytest.mark.sqlite_only
def test_no_key_narrows_rows_a_reload_is_replacing(alice: Engine) -> None:
    loading = ListLoading()
    shown = _shown(alice)
    flt = shown.filter
    reload = loading.begin(alice, flt, Anchor(0, None, 0), MARGIN)  # the store changed
    assert loading.ahead(reload, shown, HEIGHT) is None
    typed = loading.begin(alice, alice.identity.memory_filter(search="ruff"), None, MARGIN)
    assert loading.ahead(typed, shown, HEIGHT) is None  # the rows on screen are out of date
    loading.loaded(_shown(alice, "ruff"))  # (the key's rows came)
    again = loading.begin(alice, alice.identity.memory_filter(search="ruff"), None, MARGIN)
    assert loading.ahead(again, _shown(alice), HEIGHT) is not None


def test_a_result_of_an_older_load_is_stale(alice: Engine) -> None:
    loading = ListLoading()
    older = loading.begin(alice, alice.identity.memory_filter(search="ruff"), None, MARGIN)
    newer = loading.begin(alice, alice.identity.memory_filter(search="ruff r"), None, MARGIN)
    assert not loading.accepts(older.generation) and loading.accepts(newer.generation)
    assert _run(older) == []  # its read was made obsolete: interrupted, nothing reported
    loading.nothing()
    assert not loading.accepts(newer.generation) and loading.state is LoadState.NOTHING


def test_a_reload_reads_around_the_cursor_with_its_count(alice: Engine) -> None:
    loading = ListLoading()
    flt = alice.identity.memory_filter()
    memories = alice.identity.memory_page(flt, RUFF_ROWS)
    anchor = Anchor(PAGE_SIZE + 5, memories[PAGE_SIZE + 5].id, PAGE_SIZE - 10)
    ((what, _generation, source),) = _run(loading.begin(alice, flt, anchor, MARGIN))
    assert what == "loaded" and source.count == RUFF_ROWS + 10
    assert source.index_of(anchor.memory_id) == anchor.index
    assert not loading.loaded(source) and loading.state is LoadState.DONE


def test_a_failed_read_is_reported(alice: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> list[Memory]:
        raise StoreError("the disk went away")

    for read in ("memory_page", "memories_at"):
        monkeypatch.setattr(type(alice.identity), read, broken)
    loading = ListLoading()
    request = loading.begin(alice, alice.identity.memory_filter(), None, MARGIN)
    assert _run(request) == [("failed", request.generation, "the disk went away")]
    loading.failed()
    assert loading.state is LoadState.FAILED
