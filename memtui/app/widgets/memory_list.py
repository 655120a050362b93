"""``MemoryList``: a memory list of any size, drawn line by line, paged in from the store.

Data flow (worker -> message -> handler):

- ``show(engine, flt)`` takes a ticket from the list's ``QueryLane`` (which interrupts the
  read of any older load at once: SQLite stops its statement) and puts the load in the
  list's ``LoadMailbox``, where it replaces any load not started yet. The list's one loader,
  a long-lived thread worker (``_serve_loads``), wakes at once -- no worker to start per
  key -- reads the first page on the lane and posts ``Loaded`` (its rows and the
  keystroke's echo are painted at once, in one frame: ``PaintHold``), then counts and posts
  ``Counted`` (a search once typing has paused; a newer load ends every wait at once).
  Each load runs its queries once, always off the UI thread (a list's very first load,
  with no search, may read its first page at once: one index seek, so the first frame
  shows rows). The rows on screen stay until the new first page is there: typing never
  flashes the list empty.
- Most keys narrow the search (a letter added to the last word, a new word): the new
  search's newest rows are then the rows on screen that match it, in the same order. When
  the store can judge those rows in Python (``IdentityApi.narrowed_rows``: exact, for ASCII
  text on SQLite) and there are more than fit, they are shown in the key's own turn,
  before its query returns (``_narrowed``); the query still runs, once, and its first page
  takes over (the same rows on screen, so nothing moves; a cursor moved meanwhile stays on
  its memory).
- A key whose rows cannot be worked out so has its loader read a screenful first and post
  it (a provisional ``Loaded``), then the rest of the first page once that frame is painted
  (``_read_first_page``): a search's first screen costs up to half its page. The store is
  told how many of the list's first rows the new search matches, as far as the rows on
  screen say (``near_top``: it skips a walk of the newest rows that could not fill the
  screen). Each search keeps about what share of the list's first rows it holds
  (``PagedSource.top_share``), so a search narrowed several times says how thinly it holds
  the list, not only the rows on screen. Rows shown ahead, more than fit, keep the scroll
  bar until the page comes. After a search's first page is painted, its second page is
  read too (``_read_next_page``), so the next key narrows from both. Neither is done on a
  store that cannot narrow (PostgreSQL: ``narrows_in_hand``).
  A result that a newer load made stale is dropped by its generation number; of new rows,
  only those that look different are drawn again (``RowLook``).
- The list's owner hears of every change (new rows, a count, marks, an error) through the
  ``on_change`` callback, called in the same turn; the memories pane draws its title and
  the preview of the selected row in the frame right after the one that shows the rows
  (a key's rows come first).
- While drawing, rows come from the source's page cache. A missing page next to a cached
  one, or near either end, is read at once (an index seek); a page far from everything
  (after a jump into the middle of a huge list) is read by a worker and drawn as ``…``
  until ``PagesFetched`` arrives (``PagedLineList``, shared with the extraction log).
- ``show(..., keep_position=True)`` (data changed) reads the same filter again around the
  cursor and keeps the cursor on the same memory, and the scroll position, when it is
  still there.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple
from zoneinfo import ZoneInfo

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from memtui.app.textual_compat import component_styles
from memtui.app.widgets.line_list import ROW_LEAD_CELLS
from memtui.app.widgets.load_mailbox import LoadMailbox
from memtui.app.widgets.memory_row import (
    RowStyles,
    memory_row,
    memory_row_segments,
    shown_matches,
)
from memtui.app.widgets.paged_list import PREFETCH_SCREENS, PagedLineList
from memtui.app.widgets.paged_source import FirstRowsSource, PagedSource, PagePlan
from memtui.app.widgets.paint_hold import paint_hold
from memtui.errors import MemtuiError, QueryInterrupted
from memtui.store.models import Memory, MemoryFilter
from memtui.store.search_terms import search_terms

if TYPE_CHECKING:
    from memtui.engine.api import Engine
    from memtui.store.backend import Lane as QueryLane

__all__ = ["MemoryList", "PagedSource", "search_pattern"]

SEARCH_COUNT_CAP = 10_000
"""A search is first counted no further than this ("10,000+"): an exact count of a common
word at a million rows costs 80–170 ms, too much for every keystroke."""
EXACT_COUNT_DELAY_SECONDS = 0.3
"""A capped search count is made exact once no newer keystroke came for this long."""
SEARCH_COUNT_PAUSE_SECONDS = 0.15
"""A search is counted once typing has paused this long: a capped count of a selective
search still reads every match (75-85 ms at a million memories), and one started between
two keystrokes only delays the next key's page (it must be interrupted first) for a count
nobody reads."""
COUNT_AFTER_PAINT_WAIT_SECONDS = 0.5
"""A load's worker counts once the frame showing its first page is painted (so the count
never competes with that frame for the CPU), or after this long at most."""
NARROWED_SCREENS = 2
"""A key that narrows the search works out at most this many screens of rows from the rows
on screen (on the UI thread: a memory's text may be long); its query brings the rest."""
MIN_TOP_SHARE = 1e-9
"""The least share of the list a search is taken to hold (``PagedSource.top_share``): one
that keeps none of many rows, key after key, still divides the rows judged."""
ROW_PART_CLASSES = ("line-list--dim", "line-list--marked", "line-list--match")
"""The component classes a row's parts are drawn in (``RowStyles``)."""
LOADER_GROUP = "memory-list-loader"
"""The worker group of the lists' loaders (one long-lived worker per list)."""
LOADER_WAKE_SECONDS = 1.0
"""The loader, idle, looks this often whether its worker was cancelled (its list closes the
mailbox when it is removed, which wakes it at once; this is the fallback)."""


def search_pattern(search: str | None) -> re.Pattern[str] | None:
    """A case-insensitive pattern matching the words of a search (the last as a prefix),
    for highlighting matches in rows: the words the store searches for (``search_terms``)."""
    terms = search_terms(search)
    if terms is None:
        return None
    words = terms.words
    alternatives = "|".join(re.escape(word) for word in sorted(set(words), key=len,
                                                                reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE | re.UNICODE)


def worker_is_working(worker: Worker[Any]) -> bool:
    """Whether a worker still works: running, and for a list's long-lived loader (which
    runs as long as its list), loading. What waiting for an app to settle waits for."""
    if not worker.is_running:
        return False
    node = worker.node
    return not (worker.group == LOADER_GROUP and isinstance(node, MemoryList)
                and node.loader_idle)


@dataclass(frozen=True)
class RowLook:
    """What decides how one list row looks: its memory, mark and highlighting, or that it
    is blank (past the end) or still loading (``memory`` None)."""

    memory: Memory | None
    marked: bool = False
    pattern: re.Pattern[str] | None = None
    blank: bool = False

    def looks_like(self, other: RowLook, width: int, tz: ZoneInfo) -> bool:
        """Whether the two draw the same line at ``width``: equal, or the same memory and
        mark under another search that shows the same part of the text, highlighted in
        the same places (``shown_matches``)."""
        mine, theirs = self.memory, other.memory
        if mine is None or theirs is None:
            return mine is None and theirs is None and self.blank == other.blank
        if mine.id != theirs.id or self.marked != other.marked or mine != theirs:
            return False  # (the id first: most rows that change are another memory)
        return self.pattern == other.pattern or shown_matches(
            mine, width, tz, self.pattern) == shown_matches(mine, width, tz, other.pattern)


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """(start, length) of each run of True in ``flags``."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for index, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            runs.append((start, index - start))
            start = None
    return runs


@dataclass
class _Anchor:
    """Where the cursor and the view were when a reload started."""

    index: int
    memory_id: str | None
    scroll_y: int


@dataclass(frozen=True)
class _LoadRequest:
    """One load for the loader thread: read ``flt`` on ``lane`` under ``ticket`` (or, with
    ``loaded``, only count that source, whose first page is shown)."""

    generation: int
    lane: QueryLane
    ticket: int
    engine: Engine
    flt: MemoryFilter
    anchor: _Anchor | None
    height: int
    loaded: PagedSource | None = None
    first_screen: bool = False
    """Read a screenful (``height`` rows, and one more) first and show it, then the rest of
    the page: a search's page query costs up to twice its first screen's
    (``_read_first_page``)."""
    near_top: tuple[int, int] | None = None
    """(matches, rows): about how many of the list's first rows the search matches, as far
    as the rows on screen say (``_Ahead``), passed to the store with the first screen's
    read (``memories_at``)."""
    top_share: float = 1.0
    """The new source's ``PagedSource.top_share``."""


class _Ahead(NamedTuple):
    """What the rows on screen say of a new search's first rows (``MemoryList._narrowed``):
    ``source``, its first rows, when there are more than fit (or they are every row);
    else ``near_top``, (matches, rows): how many of about that many of the unsearched
    list's first rows it matches, when at least a page of rows was judged. ``top_share``:
    about what share of the list's first rows it matches (``PagedSource.top_share``; the
    source's own, when there is one)."""

    source: PagedSource | None
    near_top: tuple[int, int] | None
    top_share: float = 1.0


_NOTHING_AHEAD = _Ahead(None, None)


class MemoryList(PagedLineList[Memory]):
    """A memory list backed by a ``PagedSource``: cursor, marks (space) for bulk forget,
    match highlighting, a count that is read once per load."""

    BINDINGS: list[BindingType] = [
        Binding("space", "toggle_mark", "mark", show=False,
                tooltip="Mark / unmark for bulk forget", id="memory.mark"),
        Binding("escape", "clear_marks", "clear marks", show=False,
                tooltip="Clear the marks", id="memory.clear_marks"),
    ]

    class Loaded(Message):
        """A worker built a source for a load (internal); the handler sets ``painted`` once
        the frame showing it is painted (or at once, when the load is stale).
        ``provisional``: only the load's first screen (a ``FirstRowsSource``); its whole
        first page follows in another ``Loaded``."""

        def __init__(self, generation: int, source: PagedSource, anchor: _Anchor | None,
                     painted: threading.Event | None = None, *,
                     provisional: bool = False) -> None:
            super().__init__()
            self.generation = generation
            self.source = source
            self.anchor = anchor
            self.painted = painted or threading.Event()
            self.provisional = provisional

    class NextPageRead(Message):
        """A worker read a search's second page for ``source`` (internal)."""

        def __init__(self, generation: int, source: PagedSource, rows: list[Memory]) -> None:
            super().__init__()
            self.generation = generation
            self.source = source
            self.rows = rows

    class Counted(Message):
        """A worker counted the rows of a load (internal); ``capped``: the list holds at
        least ``count`` rows (the exact count follows)."""

        def __init__(self, generation: int, count: int, capped: bool = False) -> None:
            super().__init__()
            self.generation = generation
            self.count = count
            self.capped = capped

    class LoadFailed(Message):
        """A load failed; ``error`` says why in words."""

        def __init__(self, generation: int, error: str) -> None:
            super().__init__()
            self.generation = generation
            self.error = error

    def __init__(self, *, empty_text: str = "No memories.",
                 on_change: Callable[[MemoryList], None] | None = None,
                 name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.empty_text = empty_text
        self._on_change = on_change
        """Called (in the UI thread, at once) when the rows, count, marks or error change;
        the list paints its rows without waiting for what the owner draws then."""
        self._mailbox: LoadMailbox[_LoadRequest] = LoadMailbox()
        self._loader: Worker[None] | None = None
        self.loads_requested = 0
        """How many loads were handed to the loader (for tests)."""
        self.tz = ZoneInfo("UTC")
        self._source: PagedSource | None = None
        self._lane: QueryLane | None = None
        self._lane_engine: Engine | None = None
        self._pattern: re.Pattern[str] | None = None
        self._row_styles: RowStyles | None = None
        """The rows' styles while a frame is drawn."""
        self._row_styles_for: tuple[tuple[Style, float], tuple[object, ...],
                                    RowStyles] | None = None
        """The rows' styles last worked out, with the list's own style and opacity and the
        row parts' component styles they were worked out from (``frame_begun``)."""
        self.marked: set[str] = set()
        self.is_loading = True
        self._want_id: str | None = None
        self._provisional: int | None = None
        """The generation whose rows on screen were worked out ahead of its load."""
        self._reload_pending = False
        """A reload for a change in the store (``keep_position``) has not shown its rows yet:
        the rows on screen may be out of date, and no key narrows them."""
        self.at_least: int | None = None
        """While a search's exact count is not known: the list holds at least this many
        rows (``SEARCH_COUNT_CAP``)."""

    # ---- public -------------------------------------------------------------------------

    @property
    def source(self) -> PagedSource | None:
        """The source being shown."""
        return self._source

    @property
    def count(self) -> int | None:
        """How many memories the list holds (None while counting)."""
        return None if self._source is None else self._source.count

    @property
    def filter(self) -> MemoryFilter | None:
        """The filter being shown."""
        return None if self._source is None else self._source.filter

    def current(self) -> Memory | None:
        """The memory under the cursor (if its page is loaded)."""
        if self._source is None or not self.row_count():
            return None
        return self._source.get(self._cursor)

    def marked_ids(self) -> list[str]:
        """The marked memories' ids, sorted."""
        return sorted(self.marked)

    def show(self, engine: Engine, flt: MemoryFilter, *, keep_position: bool = False,
             first_page_now: bool = False) -> None:
        """Show a (checked) filter's memories; ``keep_position`` keeps the cursor's memory.
        The rows on screen stay until the new ones are read (off the UI thread); a load still
        running for an older call is interrupted. ``first_page_now``: a list's first load
        (no search, nothing on screen yet) reads its first page here, one index seek, so the
        next frame already shows rows; the worker then only counts, once that frame is
        drawn."""
        anchor = None
        if keep_position and self._source is not None:
            current = self.current()
            anchor = _Anchor(self._cursor, current.id if current else None,
                             round(self.scroll_y))
            self._reload_pending = True
        lane = self._lane_for(engine)
        ticket = lane.begin()  # from here on, an older load's read is interrupted
        if self._source is not None and anchor is None and self.is_attached:
            paint_hold(self.app).hold()  # the key's echo waits for its rows
        self._generation += 1
        self._pending.clear()
        self.is_loading = True
        self.error = None
        height = max(1, self.size.height or 24)
        if first_page_now and anchor is None and not flt.search and self._source is None:
            try:
                source = self._first_page(PagedSource(engine, flt))
            except MemtuiError as error:
                self._load_failed(error.message)
                return
            self._apply_loaded(source, None)
            if source.count is None:
                # the count waits for the first frame: a query running beside that frame
                # slows it down (by about a quarter on a loaded 2-core machine)
                self.call_after_refresh(self._count_first_load, _LoadRequest(
                    self._generation, lane, ticket, engine, flt, None, height, source))
            return
        if anchor is None:
            ahead = self._narrowed(engine, flt, height)
        else:  # (the same list read again: it holds the list as thinly as before)
            shown = self._source
            ahead = _Ahead(None, None, shown.top_share
                           if shown is not None and shown.filter == flt else 1.0)
        narrowed = ahead.source
        if narrowed is not None:
            # the new rows are in hand: painted now, before the query (which still runs, for
            # the rest of the page and the count) competes with the frame for the GIL
            self._apply_loaded(narrowed, None, provisional=True)
            self._provisional = self._generation
            if self.is_attached:
                paint_hold(self.app).paint_now(self.screen)
        self._request_load(_LoadRequest(
            self._generation, lane, ticket, engine, flt, anchor, height,
            first_screen=bool(flt.search) and anchor is None and narrowed is None
            and engine.identity.narrows_in_hand, near_top=ahead.near_top,
            top_share=ahead.top_share))

    def _narrowed(self, engine: Engine, flt: MemoryFilter, height: int) -> _Ahead:
        """What the rows on screen say of a new search's first rows: when it narrows the
        search shown and there are more of them than fit (or they are its every row), a
        source holding them, shown until the load's own first page comes; when they are
        fewer, after at least a page of rows was judged, how many matched in how many."""
        shown = self._source
        if shown is None or not flt.search or self._reload_pending:
            return _NOTHING_AHEAD  # (rows read before a change in the store are no start)
        first = shown.first_rows()
        narrowed = engine.identity.narrowed_rows(
            shown.filter, flt, first, whole=shown.count is not None and shown.count == len(first),
            enough=height * NARROWED_SCREENS)
        if narrowed is None:
            return _NOTHING_AHEAD
        matches, judged = len(narrowed.rows), narrowed.judged
        # the rows judged are about judged / share of the unsearched list's first rows;
        # none of them matching says fewer than one in them (the share never reaches 0)
        share = max(MIN_TOP_SHARE, shown.top_share * max(matches, 1) / judged) \
            if judged else shown.top_share
        # more rows than fit (or every row): the list still scrolls, so its scroll bar stays
        if not (narrowed.whole or matches > height):
            seen = judged >= shown.page_size and judged == len(first)
            return _Ahead(None, (matches, round(judged / shown.top_share)) if seen else None,
                          share)
        return _Ahead(FirstRowsSource.holding(engine, flt, list(narrowed.rows), sizes_of=shown,
                                              whole=narrowed.whole, top_share=share),
                      None, share)

    def _count_first_load(self, request: _LoadRequest) -> None:
        """Count the rows of a first load whose first page is shown (after the first
        frame), unless a newer load took over meanwhile."""
        if request.generation == self._generation and request.lane.is_current(request.ticket):
            self._request_load(request)

    def _request_load(self, request: _LoadRequest) -> None:
        """Hand a load to the list's loader (started on first use, or again if it ended)."""
        self.loads_requested += 1
        self._mailbox.put(request)
        loader = self._loader
        if loader is None or loader.is_finished:
            self._loader = self._serve_loads(self._mailbox)

    def on_unmount(self) -> None:
        """The list is gone: its loader ends (a load still waiting is dropped, and a read
        still running is stopped: a newer ticket makes it obsolete)."""
        self._mailbox.close()
        if self._lane is not None:
            self._lane.begin()

    def _lane_for(self, engine: Engine) -> QueryLane:
        """The list's query lane on this engine's store (made on first use)."""
        if self._lane is None or self._lane_engine is None \
                or self._lane_engine.store is not engine.store:
            self._lane = engine.query_lane()
            self._lane_engine = engine
        return self._lane

    @property
    def loader_idle(self) -> bool:
        """Whether the list's loader has nothing to do (no load waiting or running)."""
        return self._mailbox.idle

    def select_when_loaded(self, memory_id: str) -> None:
        """Put the cursor on this memory once the next load brings it (after an add)."""
        self._want_id = memory_id

    def show_nothing(self) -> None:
        """Show no list at all (only the empty text), e.g. when there is no project."""
        self._generation += 1
        self._reload_pending = False
        self._source = None
        self.is_loading = False
        self.error = None
        self.marked.clear()
        self.update_size()
        self.refresh()

    def forget_marks(self, memory_ids: list[str] | tuple[str, ...]) -> None:
        """Drop marks of memories that are gone."""
        self.marked.difference_update(memory_ids)

    # ---- loading (worker -> message -> handler) -----------------------------------------

    @staticmethod
    def _first_page(source: PagedSource) -> PagedSource:
        first = source.load_page(0)
        if len(first) < source.page_size:
            source.count = len(first)
        return source

    @work(thread=True, group=LOADER_GROUP, exit_on_error=False)
    def _serve_loads(self, mailbox: LoadMailbox[_LoadRequest]) -> None:
        """The list's loader: runs each load put in ``mailbox`` (the newest; an older one
        not started yet is dropped) until the list is removed. Never touches a widget: it
        posts ``Loaded``, ``Counted`` or ``LoadFailed``."""
        worker = get_current_worker()
        while not mailbox.closed and not worker.is_cancelled:
            request = mailbox.take(LOADER_WAKE_SECONDS)
            if request is not None:
                self._load(request, mailbox)

    def _load(self, request: _LoadRequest, mailbox: LoadMailbox[_LoadRequest]) -> None:
        """Build the source (or only count ``request.loaded``, whose first page is read),
        every query on the list's lane under the request's ticket: a newer load interrupts
        them."""
        generation, lane, ticket = request.generation, request.lane, request.ticket
        engine, flt, anchor = request.engine, request.flt, request.anchor
        try:
            if anchor is None or anchor.index == 0:
                source = request.loaded
                if source is None:
                    source = self._read_first_page(request, mailbox)
                    if source is None:
                        return
                    first = source.first_rows()  # (the source is the UI's once posted)
                    loaded_message = self.Loaded(generation, source, anchor)
                    self.post_message(loaded_message)
                    if not mailbox.quiet_for(COUNT_AFTER_PAINT_WAIT_SECONDS,
                                             loaded_message.painted.is_set) \
                            or not lane.is_current(ticket):
                        return
                    if flt.search and source.count is None \
                            and engine.identity.narrows_in_hand:
                        self._read_next_page(request, source, first)
                if source.count is None:
                    if flt.search and not self._capped_count(request, mailbox):
                        return
                    with lane.reading(ticket):
                        count = engine.identity.count_memories(flt)
                    self.post_message(self.Counted(generation, count))
                return
            source = PagedSource(engine, flt, top_share=request.top_share)
            margin = request.height * (PREFETCH_SCREENS + 1)
            with lane.reading(ticket):
                source.count_rows()
                source.ensure(max(0, anchor.scroll_y - margin), anchor.index + margin,
                              cheap_only=False)
            self.post_message(self.Loaded(generation, source, anchor))
        except QueryInterrupted:
            return  # a newer load took over; it reports for itself
        except MemtuiError as error:
            self.post_message(self.LoadFailed(generation, error.message))
        except Exception as error:  # never let the loader take the app down
            self.post_message(self.LoadFailed(generation, f"{error.__class__.__name__}: "
                                                          f"{error}"))

    def _read_first_page(self, request: _LoadRequest,
                         mailbox: LoadMailbox[_LoadRequest]) -> PagedSource | None:
        """A source with the list's first page read (in the loader). With
        ``request.first_screen``, a screenful is read first and posted (provisional
        ``Loaded``), and the rest of the page is read after it, once its frame is painted:
        the key's rows are on screen at the cost of its first screen, not of its page (a
        search walks the list until it has found the rows it wants). None when a newer load
        took over meanwhile."""
        lane, ticket = request.lane, request.ticket
        source = PagedSource(request.engine, request.flt, top_share=request.top_share)
        if not request.first_screen:
            with lane.reading(ticket):
                return self._first_page(source)
        # one row more than fit: the list still scrolls, so its scroll bar stays (one that
        # came and went would lay the whole screen out again, twice)
        wanted = min(request.height + 1, source.page_size)
        with lane.reading(ticket):
            first = source.fetch(PagePlan(0, "top", wanted, near_top=request.near_top))
        if len(first) < wanted:  # the whole list: its count is known, nothing more to read
            source.put(0, first)
            source.count = len(first)
            return source
        screen = FirstRowsSource.holding(request.engine, request.flt, first, sizes_of=source,
                                         top_share=request.top_share)
        shown = self.Loaded(request.generation, screen, None, provisional=True)
        self.post_message(shown)
        # the rest waits for the screen's frame: a query beside it would slow it down
        if not mailbox.quiet_for(COUNT_AFTER_PAINT_WAIT_SECONDS, shown.painted.is_set) \
                or not lane.is_current(ticket):
            return None
        with lane.reading(ticket):
            rest = source.fetch(PagePlan(0, "after", source.page_size - len(first),
                                         cursor=source.edge(first[-1])))
        source.put(0, first + rest)
        if len(first) + len(rest) < source.page_size:
            source.count = len(first) + len(rest)
        return source

    def _read_next_page(self, request: _LoadRequest, source: PagedSource,
                        first: list[Memory]) -> None:
        """Read a search's second page (by keyset after ``first``, its first page) and post
        it (``NextPageRead``): the next key works its rows out from both pages, so a word
        that only one row in four or five of the first page holds still fills the screen
        (``_narrowed``). Right after the first page's frame, before the count. Only a
        help: a failed read is left unsaid (the page is read again when scrolled to)."""
        plan = PagePlan(1, "after", source.page_size, cursor=source.edge(first[-1]))
        try:
            with request.lane.reading(request.ticket):
                rows = source.fetch(plan)
        except MemtuiError:
            return  # (a newer load's interrupt too: the caller's next wait sees that load)
        self.post_message(self.NextPageRead(request.generation, source, rows))

    def on_memory_list_next_page_read(self, message: NextPageRead) -> None:
        """Cache a search's second page in the source it was read for (nothing on screen
        changes: while the count is not known the list shows its first page)."""
        message.stop()
        if message.generation == self._generation and message.source is self._source:
            message.source.put(1, message.rows)

    def _capped_count(self, request: _LoadRequest,
                      mailbox: LoadMailbox[_LoadRequest]) -> bool:
        """A search's count, capped, once typing has paused: post it; True when an exact
        count is still wanted (the search holds more than the cap and no newer keystroke
        came)."""
        lane, ticket = request.lane, request.ticket
        if not mailbox.quiet_for(SEARCH_COUNT_PAUSE_SECONDS) or not lane.is_current(ticket):
            return False
        with lane.reading(ticket):
            count = request.engine.identity.count_memories_at_most(request.flt,
                                                                   SEARCH_COUNT_CAP + 1)
        if count <= SEARCH_COUNT_CAP:
            self.post_message(self.Counted(request.generation, count))
            return False
        self.post_message(self.Counted(request.generation, SEARCH_COUNT_CAP, capped=True))
        return mailbox.quiet_for(EXACT_COUNT_DELAY_SECONDS) and lane.is_current(ticket)

    def on_memory_list_loaded(self, message: Loaded) -> None:
        """Swap in a freshly built source, keeping the cursor's memory when it is there."""
        message.stop()
        if message.generation != self._generation:
            self._painted(message.painted)
            return
        anchor = message.anchor
        if message.provisional:  # a first screen: the rest of its page follows
            self._apply_loaded(message.source, None, provisional=True)
            self._provisional = message.generation
            if self.is_attached:
                paint_hold(self.app).paint_now(self.screen)
            self.call_after_refresh(self._painted, message.painted)
            return
        self._reload_pending = False
        if self._provisional == message.generation:
            # the rows shown were worked out ahead (``_narrowed``) or read as a first
            # screen, and are the top of these: a cursor moved meanwhile stays on its memory
            self._provisional = None
            if anchor is None and (self._cursor or round(self.scroll_y)):
                current = self.current()
                anchor = _Anchor(self._cursor, current.id if current else None,
                                 round(self.scroll_y))
        self._apply_loaded(message.source, anchor)
        if self.is_attached:  # the rows (and the echo): one frame, now
            paint_hold(self.app).paint_now(self.screen)
        self.call_after_refresh(self._painted, message.painted)

    def _painted(self, painted: threading.Event) -> None:
        """The frame showing a load's rows is painted: its loader may count now."""
        painted.set()
        self._mailbox.wake()

    def _changed(self) -> None:
        """Tell the owner (``on_change``) that the rows, count, marks or error changed."""
        if self._on_change is not None:
            self._on_change(self)

    def _apply_loaded(self, source: PagedSource, anchor: _Anchor | None, *,
                      provisional: bool = False) -> None:
        """Show ``source`` (cursor at the top, or kept at ``anchor``), drawing again only the
        rows that look different. ``provisional``: rows worked out ahead of the load, which
        leave a memory to select when loaded (``select_when_loaded``) to the load."""
        top, height = round(self.scroll_y), self.size.height
        before = self._row_looks(top, height) \
            if anchor is None and self._source is not None and self.row_count() else None
        self._source = source
        self._pattern = search_pattern(source.filter.search)
        self.at_least = None
        self.is_loading = self._source.count is None
        if not (provisional and height < min(self.virtual_size.height, self.row_count())):
            # (rows worked out or read ahead, more than fit, keep the scroll bar as it is
            # until the load's page comes: a bar that shrank to them and grew back with the
            # page was one more repaint of it per key, or a layout of the whole screen)
            self.update_size()
        index = 0
        if anchor is not None:
            found = self._source.index_of(anchor.memory_id) if anchor.memory_id else None
            index = found if found is not None else anchor.index
            self.scroll_to(y=anchor.scroll_y, animate=False, immediate=True)
        if self._want_id is not None and not provisional:
            wanted = self._source.index_of(self._want_id)
            self._want_id = None
            if wanted is not None:
                index = wanted
        self.move_cursor(index, announce=False)  # the owner hears of it next
        if before is not None and round(self.scroll_y) == top and self.row_count():
            # only the rows that look different: typing on in a word mostly finds the same
            # newest rows, and their lines stay as they are (on screen and in the frame)
            after = self._row_looks(top, height)
            width = max(1, self.row_width - ROW_LEAD_CELLS)
            changed = [not new.looks_like(old, width, self.tz)
                       for old, new in zip(before, after, strict=True)]
            for start, count in _runs(changed):  # one region for each run of changed rows
                self.refresh_lines(top + start, count)
        else:
            self.refresh()
        self._changed()

    def _row_looks(self, top: int, height: int) -> list[RowLook]:
        """What decides the look of each visible row, ``top`` down."""
        source, count = self._source, self.row_count()
        looks: list[RowLook] = []
        for index in range(top, top + height):
            memory = source.get(index) if source is not None and index < count else None
            if memory is None:
                looks.append(RowLook(None, blank=index >= count))
            else:
                looks.append(RowLook(memory, memory.id in self.marked, self._pattern))
        return looks

    def on_memory_list_counted(self, message: Counted) -> None:
        """The count arrived: size the scroll view."""
        message.stop()
        if message.generation != self._generation or self._source is None:
            return
        if message.capped:
            self.at_least = message.count
            self.update_size()
            self.refresh()
            self._changed()
            return
        self._source.count = message.count
        self.at_least = None
        self.is_loading = False
        self.update_size()
        self.refresh()
        self._changed()

    def on_memory_list_load_failed(self, message: LoadFailed) -> None:
        """Show why the list could not be read (the pane notifies)."""
        message.stop()
        if message.generation != self._generation:
            return
        self._provisional = None  # (rows worked out ahead stay, with the error said)
        self._reload_pending = False
        self._load_failed(message.error)

    def _load_failed(self, error: str) -> None:
        self.is_loading = False
        self.error = error
        self.update_size()  # (rows shown ahead kept the scroll bar of the rows before)
        self.refresh()
        self._changed()
        if self.is_attached:
            paint_hold(self.app).release()

    def pages_failed(self, error: str) -> None:
        """Far pages could not be read: show why, as for a failed load."""
        self._load_failed(error)

    # ---- LineList -----------------------------------------------------------------------

    def row_count(self) -> int:
        """Rows known: the count, or the first page while counting."""
        source = self._source
        if source is None:
            return 0
        if source.count is not None:
            return source.count
        return max(source.loaded_prefix(), self.at_least or 0)

    def row_text(self, index: int, width: int) -> Text | None:
        """Draw one memory as ``Text`` (``None`` while its page is being read)."""
        memory = self.row_at(index)
        if memory is None:
            return None
        return memory_row(
            memory, width, self.tz, marked=memory.id in self.marked, pattern=self._pattern,
            match_style=self.get_component_rich_style("line-list--match"),
            dim_style=self.get_component_rich_style("line-list--dim"),
            mark_style=self.get_component_rich_style("line-list--marked"))

    def frame_begun(self, base: Style) -> None:
        """The rows' styles for the frame: the last frame's while the list's own style
        (``base``, which holds its ancestors' background, colour and text style) and its
        opacity are the same and the stylesheet has not styled the row parts again since
        (it makes new component styles whenever it applies to the list: a theme, focus, a
        class), else worked out now. (Textual forgets the rich styles it works out from
        its component styles on every ``refresh``: working these three out again took
        0.3 ms of every frame of the list at 120x40.)"""
        look, parts = (base, self.opacity), self._row_parts_styles()
        kept = self._row_styles_for
        if kept is not None and kept[0] == look \
                and all(old is new for old, new in zip(kept[1], parts, strict=True)):
            self._row_styles = kept[2]
            return
        styles = RowStyles(base, *(base + self.get_component_rich_style(name)
                                   for name in ROW_PART_CLASSES))
        self._row_styles_for = (look, parts, styles)
        self._row_styles = styles

    def _row_parts_styles(self) -> tuple[object, ...]:
        """The stylesheet's current styles of the row parts (compared by identity)."""
        components = component_styles(self)
        return tuple(components.get(name) for name in ROW_PART_CLASSES)

    def frame_ended(self) -> None:
        """Outside a frame the rows have no styles (``row_segments`` answers None)."""
        self._row_styles = None

    def row_segments(self, index: int, width: int) -> tuple[list[Segment], int] | None:
        """Draw one memory straight to segments (``memory_row_segments``); ``None`` while
        its page is read, outside a frame, or for a row drawn from ``row_text``."""
        styles = self._row_styles
        memory = self.row_at(index) if styles is not None else None
        if memory is None or styles is None:
            return None
        return memory_row_segments(memory, width, self.tz, styles,
                                   marked=memory.id in self.marked, pattern=self._pattern)

    def render_line(self, y: int) -> Strip:
        """Draw a row, or the empty / loading / error line of an empty list."""
        if self.row_count() == 0:
            if self.error:
                message, style = f"Could not read the list: {self.error}", "bold red"
            elif self.is_loading:
                message, style = "Loading…", "italic"
            else:
                message, style = self.empty_text, ""
            return self.render_message_line(y, message, style)
        return super().render_line(y)

    # ---- marks --------------------------------------------------------------------------

    def action_toggle_mark(self) -> None:
        """Mark or unmark the cursor's memory (for bulk forget); the cursor stays (j moves)."""
        memory = self.current()
        if memory is None:
            return
        if memory.id in self.marked:
            self.marked.discard(memory.id)
        else:
            self.marked.add(memory.id)
        self._refresh_row(self._cursor)
        self._changed()

    def action_clear_marks(self) -> None:
        """Unmark everything."""
        if self.marked:
            self.marked.clear()
            self.refresh()
            self._changed()
