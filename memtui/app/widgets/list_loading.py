"""``ListLoading``: how one memory list's loads go, with no Textual. ``run_load``, in the
loader thread, reads the first page, waits for the frame showing it, then counts (a search
capped, once typing pauses, then exactly)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from memtui.app.widgets.load_mailbox import LoadMailbox
from memtui.app.widgets.paged_source import FirstRowsSource, PagedSource
from memtui.errors import MemtuiError, QueryInterrupted
from memtui.store.models import MemoryFilter

if TYPE_CHECKING:
    from memtui.engine.api import Engine
    from memtui.store.backend import Lane as QueryLane

SEARCH_COUNT_CAP = 10_000
"""A search is first counted no further than this ("10,000+")."""
EXACT_COUNT_DELAY_SECONDS = 0.3
"""A capped search count is made exact once no newer keystroke came for this long."""
SEARCH_COUNT_PAUSE_SECONDS = 0.15
"""A search is counted once typing has paused this long (a count between two keys only
delays the next key's page)."""
COUNT_AFTER_PAINT_WAIT_SECONDS = 0.5
"""A load's worker counts once the frame showing its first page is painted, or after this
long at most."""


@dataclass(frozen=True)
class Anchor:
    """Where the cursor and the view were when a reload started."""

    index: int
    memory_id: str | None
    scroll_y: int


class LoadState(Enum):
    """Where a list's newest load stands: ``READING`` its rows; ``AHEAD``, the rows shown
    were worked out ahead of its query; ``COUNTING`` (rows shown); ``DONE``; ``FAILED``;
    ``NOTHING``, no list is shown."""

    READING = "reading"
    AHEAD = "ahead"
    COUNTING = "counting"
    DONE = "done"
    FAILED = "failed"
    NOTHING = "nothing"


@dataclass(frozen=True)
class LoadRequest:
    """One load for the loader thread: read ``flt`` on ``lane`` under ``ticket`` (with
    ``anchor``: around the cursor, ``margin`` rows either side; with ``loaded``: only
    count)."""

    generation: int
    lane: QueryLane
    ticket: int
    engine: Engine
    flt: MemoryFilter
    anchor: Anchor | None
    margin: int
    loaded: PagedSource | None = None


class LoadReports(Protocol):
    """Where the loader thread reports a load's results (the list posts them as messages)."""

    def report_loaded(self, generation: int, source: PagedSource,
                      anchor: Anchor | None) -> threading.Event:
        """A load's source is read; the event is set once the frame showing it is painted."""

    def report_counted(self, generation: int, count: int, capped: bool = False) -> None:
        """A load's count (``capped``: at least ``count``; the exact count may follow)."""

    def report_failed(self, generation: int, error: str) -> None:
        """A load failed; ``error`` says why in words."""


class ListLoading:
    """The loading of one memory list (UI thread): the newest load and the query lane."""

    def __init__(self) -> None:
        self.state = LoadState.READING
        self.generation = 0
        self.at_least: int | None = None
        """While a search's exact count is not known: at least this many rows."""
        self._outdated = False
        """The rows on screen were read before a change in the store: no key narrows them."""
        self._lane: QueryLane | None = None
        self._lane_engine: Engine | None = None

    def begin(self, engine: Engine, flt: MemoryFilter, anchor: Anchor | None,
              margin: int) -> LoadRequest:
        """A new load of ``flt`` (with ``anchor``: read again after a change in the store);
        an older load's read is interrupted."""
        if self._lane is None or self._lane_engine is None \
                or self._lane_engine.store is not engine.store:
            self._lane, self._lane_engine = engine.query_lane(), engine
        ticket = self._lane.begin()
        self.generation += 1
        self.state = LoadState.READING
        self._outdated = self._outdated or anchor is not None
        return LoadRequest(self.generation, self._lane, ticket, engine, flt, anchor, margin)

    def ahead(self, request: LoadRequest, shown: PagedSource | None,
              height: int) -> FirstRowsSource | None:
        """The new search's first rows worked out from ``shown`` when it narrows their search
        and they fill ``height`` or are the whole list (state ``AHEAD``), else None."""
        flt = request.flt
        if shown is None or not flt.search or request.anchor is not None or self._outdated:
            return None
        first = shown.first_rows()
        narrowed = request.engine.identity.narrowed_rows(shown.filter, flt, first,
                                                         whole=shown.count == len(first))
        if narrowed is None or not (narrowed.whole or len(narrowed.rows) > height):
            return None
        self.state = LoadState.AHEAD
        return FirstRowsSource.holding(request.engine, flt, list(narrowed.rows),
                                       sizes_of=shown, whole=narrowed.whole)

    def accepts(self, generation: int) -> bool:
        """Whether a result is the newest load's (any other is stale: dropped)."""
        return generation == self.generation

    def loaded(self, source: PagedSource) -> bool:
        """The load's rows are shown; True when they take over rows worked out ahead."""
        ahead = self.state is LoadState.AHEAD
        self.state = LoadState.DONE if source.count is not None else LoadState.COUNTING
        self.at_least = None
        self._outdated = False
        return ahead

    def counted(self, count: int, capped: bool) -> None:
        """The load's count came (``capped``: at least ``count``)."""
        self.at_least = count if capped else None
        if not capped:
            self.state = LoadState.DONE

    def failed(self) -> None:
        """The load failed."""
        self.state = LoadState.FAILED
        self._outdated = False

    def nothing(self) -> None:
        """No list is shown: every result still coming is stale."""
        self.generation += 1
        self.state = LoadState.NOTHING
        self.at_least = None
        self._outdated = False

    def close(self) -> None:
        """The list is gone: a read still running is stopped."""
        if self._lane is not None:
            self._lane.begin()


def first_page(source: PagedSource) -> PagedSource:
    """``source`` with its first page read (and its count, when that page is short)."""
    first = source.load_page(0)
    if len(first) < source.page_size:
        source.count = len(first)
    return source


def run_load(request: LoadRequest, mailbox: LoadMailbox[LoadRequest],
             reports: LoadReports) -> None:
    """Run one load in the loader thread and report what it read."""
    generation, lane, ticket = request.generation, request.lane, request.ticket
    engine, flt, anchor = request.engine, request.flt, request.anchor
    try:
        if anchor is None or anchor.index == 0:
            source = request.loaded
            if source is None:
                with lane.reading(ticket):
                    source = first_page(PagedSource(engine, flt))
                painted = reports.report_loaded(generation, source, anchor)
                if not mailbox.quiet_for(COUNT_AFTER_PAINT_WAIT_SECONDS, painted.is_set) \
                        or not lane.is_current(ticket):
                    return
            if source.count is None:
                if flt.search and not _capped_count(request, mailbox, reports):
                    return
                with lane.reading(ticket):
                    count = engine.identity.count_memories(flt)
                reports.report_counted(generation, count)
            return
        source = PagedSource(engine, flt)
        with lane.reading(ticket):
            source.count_rows()
            source.ensure(max(0, anchor.scroll_y - request.margin),
                          anchor.index + request.margin, cheap_only=False)
        reports.report_loaded(generation, source, anchor)
    except QueryInterrupted:
        return  # a newer load took over; it reports for itself
    except MemtuiError as error:
        reports.report_failed(generation, error.message)
    except Exception as error:  # never let the loader take the app down
        reports.report_failed(generation, f"{error.__class__.__name__}: {error}")


def _capped_count(request: LoadRequest, mailbox: LoadMailbox[LoadRequest],
                  reports: LoadReports) -> bool:
    """Report a search's count, capped, once typing has paused; True when an exact count is
    still wanted."""
    lane, ticket = request.lane, request.ticket
    if not mailbox.quiet_for(SEARCH_COUNT_PAUSE_SECONDS) or not lane.is_current(ticket):
        return False
    with lane.reading(ticket):
        count = request.engine.identity.count_memories_at_most(request.flt,
                                                               SEARCH_COUNT_CAP + 1)
    if count <= SEARCH_COUNT_CAP:
        reports.report_counted(request.generation, count)
        return False
    reports.report_counted(request.generation, SEARCH_COUNT_CAP, capped=True)
    return mailbox.quiet_for(EXACT_COUNT_DELAY_SECONDS) and lane.is_current(ticket)
