"""``MemoryList``: a memory list of any size, drawn line by line, paged in from the store by
one long-lived loader thread (``ListLoading``); a key's rows and its echo are painted in one
frame (``PaintHold``), and only rows that look different are drawn again (``RowLook``)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import Worker, get_current_worker

from memtui.app.widgets.line_list import ROW_LEAD_CELLS
from memtui.app.widgets.list_loading import (
    Anchor,
    ListLoading,
    LoadRequest,
    LoadState,
    first_page,
    run_load,
)
from memtui.app.widgets.load_mailbox import LoadMailbox
from memtui.app.widgets.memory_row import (
    RowStyles,
    memory_row,
    memory_row_segments,
    shown_matches,
)
from memtui.app.widgets.paged_list import PREFETCH_SCREENS, PagedLineList
from memtui.app.widgets.paged_source import FirstRowsSource, KeysetPages, PagedSource
from memtui.app.widgets.paint_hold import paint_hold
from memtui.errors import MemtuiError
from memtui.store.models import Memory, MemoryFilter
from memtui.store.search_terms import search_terms

if TYPE_CHECKING:
    from memtui.engine.api import Engine

__all__ = ["MemoryList", "PagedSource", "search_pattern"]

ROW_PART_CLASSES = ("line-list--dim", "line-list--marked", "line-list--match")
"""The component classes a row's parts are drawn in (``RowStyles``)."""
LOADER_GROUP = "memory-list-loader"
"""The worker group of the lists' loaders (one long-lived worker per list)."""
LOADER_WAKE_SECONDS = 1.0
"""The idle loader looks this often whether its worker was cancelled."""


def search_pattern(search: str | None) -> re.Pattern[str] | None:
    """A case-insensitive pattern of the words the store searches for (the last a prefix)."""
    terms = search_terms(search)
    if terms is None:
        return None
    alternatives = "|".join(re.escape(word) for word in sorted(set(terms.words), key=len,
                                                                reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE | re.UNICODE)


def worker_is_working(worker: Worker[Any]) -> bool:
    """Whether a worker still works: running, and for a list's long-lived loader, loading."""
    if not worker.is_running:
        return False
    node = worker.node
    return not (worker.group == LOADER_GROUP and isinstance(node, MemoryList)
                and node.loader_idle)


@dataclass(frozen=True)
class RowLook:
    """What decides how one list row looks (``memory`` None: blank, or still loading)."""

    memory: Memory | None
    marked: bool = False
    pattern: re.Pattern[str] | None = None
    blank: bool = False
    stale: bool = False

    def looks_like(self, other: RowLook, width: int, tz: ZoneInfo) -> bool:
        """Whether the two draw the same line at ``width`` (the same matches shown)."""
        mine, theirs = self.memory, other.memory
        if mine is None or theirs is None:
            return mine is None and theirs is None and self.blank == other.blank
        if mine.id != theirs.id or self.marked != other.marked or mine != theirs \
                or self.stale != other.stale:
            return False  # (the id first: most rows that change are another memory)
        return self.pattern == other.pattern or shown_matches(
            mine, width, tz, self.pattern) == shown_matches(mine, width, tz, other.pattern)


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """(start, length) of each run of True in ``flags``."""
    runs: list[tuple[int, int]] = []
    start = 0
    for flag, group in groupby(flags):
        length = len(list(group))
        if flag:
            runs.append((start, length))
        start += length
    return runs


class MemoryList(PagedLineList[Memory]):
    """A memory list backed by a ``PagedSource``: cursor, marks, match highlighting."""

    BINDINGS: list[BindingType] = [
        Binding("space", "toggle_mark", "mark", show=False,
                tooltip="Mark / unmark for bulk forget", id="memory.mark"),
        Binding("escape", "clear_marks", "clear marks", show=False,
                tooltip="Clear the marks", id="memory.clear_marks"),
    ]

    @dataclass
    class Loaded(Message):
        """A load's source was read (internal); ``painted`` is set once its frame is."""

        generation: int
        source: PagedSource
        anchor: Anchor | None
        painted: threading.Event = field(default_factory=threading.Event)

    @dataclass
    class Counted(Message):
        """A load's rows were counted (internal; ``capped``: at least ``count``)."""

        generation: int
        count: int
        capped: bool = False

    LoadFailed = PagedLineList.PagesFailed

    def __init__(self, *, empty_text: str = "No memories.",
                 on_change: Callable[[MemoryList], None] | None = None,
                 name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.empty_text = empty_text
        self._on_change = on_change
        """Called (UI thread) when the rows, count, marks or error change."""
        self._loading = ListLoading()
        self._mailbox: LoadMailbox[LoadRequest] = LoadMailbox()
        self._loader: Worker[None] | None = None
        self.loads_requested = 0
        """How many loads were handed to the loader (for tests)."""
        self.tz = ZoneInfo("UTC")
        self.source: PagedSource | None = None
        self._pattern: re.Pattern[str] | None = None
        self._row_styles: RowStyles | None = None
        """The rows' styles while a frame is drawn."""
        self.marked: set[str] = set()
        self.stale: frozenset[str] = frozenset()
        """Memories on screen whose cited files, symbols or commands are gone."""
        self._want_id: str | None = None

    @property
    def at_least(self) -> int | None:
        """While a search's exact count is not known: it holds at least this many rows."""
        return self._loading.at_least

    @property
    def state(self) -> LoadState:
        """Where the newest load stands."""
        return self._loading.state

    @property
    def is_loading(self) -> bool:
        """Whether the list is still being read or counted (an empty one says so)."""
        state = self._loading.state
        return state is LoadState.READING or (
            state in (LoadState.AHEAD, LoadState.COUNTING) and self.count is None)

    @property
    def filter(self) -> MemoryFilter | None:
        """The filter being shown."""
        return None if self.source is None else self.source.filter

    def _anchor(self) -> Anchor:
        """Where the cursor and the view are now."""
        current = self.current()
        return Anchor(self._cursor, current.id if current else None, round(self.scroll_y))

    def show(self, engine: Engine, flt: MemoryFilter, *, keep_position: bool = False,
             first_page_now: bool = False) -> None:
        """Show a (checked) filter's memories; ``keep_position`` keeps the cursor's memory.
        ``first_page_now``: a first load without a search reads its first page here (one
        index seek), so the next frame shows rows."""
        anchor = self._anchor() if keep_position and self.source is not None else None
        height = max(1, self.size.height or 24)
        request = self._loading.begin(engine, flt, anchor, height * (PREFETCH_SCREENS + 1))
        if self.source is not None and anchor is None and self.is_attached:
            paint_hold(self.app).hold()  # the key's echo waits for its rows
        self._drop_older(request.generation)
        if first_page_now and anchor is None and not flt.search and self.source is None:
            try:
                source = first_page(PagedSource(engine, flt))
            except MemtuiError as error:
                self.pages_failed(error.message)
                return
            self._loading.loaded(source)
            self._apply_loaded(source, None)
            if source.count is None:  # a query beside the first frame slows it down
                self.call_after_refresh(self._count_first_load, replace(request,
                                                                        loaded=source))
            return
        ahead = self._loading.ahead(request, self.source, height)
        if ahead is not None:  # painted before the query competes for the GIL
            self._apply_loaded(ahead, None, provisional=True)
            if self.is_attached:
                paint_hold(self.app).paint_now(self.screen)
        self._request_load(request)

    def show_rows(self, engine: Engine, flt: MemoryFilter, rows: list[Memory], *,
                  keep_position: bool = False) -> None:
        """Show ``rows``, the whole list of the checked ``flt`` (nothing is paged in)."""
        anchor = self._anchor() if keep_position and self.source is not None else None
        self._loading.nothing()
        self._drop_older(self._loading.generation)
        source = FirstRowsSource.holding(engine, flt, rows, sizes_of=KeysetPages(engine),
                                         whole=True)
        self._loading.loaded(source)
        self._apply_loaded(source, anchor)

    def _drop_older(self, generation: int) -> None:
        """A new load (``generation``): what older loads still bring is dropped."""
        self._generation = generation
        self._pending.clear()
        self.error = None

    def _count_first_load(self, request: LoadRequest) -> None:
        """Count a first load's rows (after its frame), unless a newer load took over."""
        if self._loading.accepts(request.generation) and request.lane.is_current(request.ticket):
            self._request_load(request)

    def _request_load(self, request: LoadRequest) -> None:
        """Hand a load to the list's loader (started on first use, or again if it ended)."""
        self.loads_requested += 1
        self._mailbox.put(request)
        loader = self._loader
        if loader is None or loader.is_finished:
            self._loader = self._serve_loads(self._mailbox)

    def on_unmount(self) -> None:
        """The list is gone: its loader ends, a read still running is stopped."""
        self._mailbox.close()
        self._loading.close()

    @property
    def loader_idle(self) -> bool:
        """Whether the list's loader has nothing to do (no load waiting or running)."""
        return self._mailbox.idle

    def select_when_loaded(self, memory_id: str) -> None:
        """Put the cursor on this memory once the next load brings it (after an add)."""
        self._want_id = memory_id

    def show_nothing(self) -> None:
        """Show no list at all (only the empty text), e.g. when there is no project."""
        self._loading.nothing()
        self._drop_older(self._loading.generation)
        self.source = None
        self.marked.clear()
        self.update_size()
        self.refresh()

    @work(thread=True, group=LOADER_GROUP, exit_on_error=False)
    def _serve_loads(self, mailbox: LoadMailbox[LoadRequest]) -> None:
        """The list's loader: runs the newest load put in ``mailbox`` until the list goes."""
        worker = get_current_worker()
        while not mailbox.closed and not worker.is_cancelled:
            request = mailbox.take(LOADER_WAKE_SECONDS)
            if request is not None:
                run_load(request, mailbox, self)

    def report_loaded(self, generation: int, source: PagedSource,
                      anchor: Anchor | None) -> threading.Event:
        """Post ``Loaded`` (from the loader); the event is set once its frame is painted."""
        message = self.Loaded(generation, source, anchor)
        self.post_message(message)
        return message.painted

    def report_counted(self, generation: int, count: int, capped: bool = False) -> None:
        """Post ``Counted`` (from the loader)."""
        self.post_message(self.Counted(generation, count, capped))

    def report_failed(self, generation: int, error: str) -> None:
        """Post ``LoadFailed`` (from the loader)."""
        self.post_message(self.LoadFailed(generation, error))

    def on_memory_list_loaded(self, message: Loaded) -> None:
        """Swap in a freshly built source, keeping the cursor's memory when it is there."""
        message.stop()
        if not self._loading.accepts(message.generation):
            self._painted(message.painted)
            return
        anchor = message.anchor
        if self._loading.loaded(message.source) and anchor is None \
                and (self._cursor or round(self.scroll_y)):
            anchor = self._anchor()  # the rows worked out ahead are the top of these
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

    def _apply_loaded(self, source: PagedSource, anchor: Anchor | None, *,
                      provisional: bool = False) -> None:
        """Show ``source`` (cursor at the top, or at ``anchor``), redrawing only rows that
        look different; ``provisional``: rows worked out ahead of the load."""
        top, height = round(self.scroll_y), self.size.height
        before = self._row_looks(top, height) \
            if anchor is None and self.source is not None and self.row_count() else None
        self.source = source
        self._pattern = search_pattern(source.filter.search)
        if not (provisional and height < min(self.virtual_size.height, self.row_count())):
            # (rows ahead that fill the view keep the scroll bar until the page comes: a bar
            # that shrank and grew back was a repaint, or a layout, more per key)
            self.update_size()
        index = 0
        if anchor is not None:
            found = self.source.index_of(anchor.memory_id) if anchor.memory_id else None
            index = found if found is not None else anchor.index
            self.scroll_to(y=anchor.scroll_y, animate=False, immediate=True)
        if self._want_id is not None and not provisional:
            wanted = self.source.index_of(self._want_id)
            self._want_id = None
            if wanted is not None:
                index = wanted
        self.move_cursor(index, announce=False)  # the owner hears of it next
        if before is not None and round(self.scroll_y) == top and self.row_count():
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
        source, count = self.source, self.row_count()
        looks: list[RowLook] = []
        for index in range(top, top + height):
            memory = source.get(index) if source is not None and index < count else None
            if memory is None:
                looks.append(RowLook(None, blank=index >= count))
            else:
                looks.append(RowLook(memory, memory.id in self.marked, self._pattern,
                                     stale=memory.id in self.stale))
        return looks

    def on_memory_list_counted(self, message: Counted) -> None:
        """The count arrived: size the scroll view."""
        message.stop()
        if not self._loading.accepts(message.generation) or self.source is None:
            return
        self._loading.counted(message.count, message.capped)
        if not message.capped:
            self.source.count = message.count
        self.update_size()
        self.refresh()
        self._changed()

    def pages_failed(self, error: str) -> None:
        """The newest load, or far pages, could not be read: show why; the rows stay."""
        self._loading.failed()
        self.error = error
        self.update_size()  # (rows shown ahead kept the scroll bar of the rows before)
        self.refresh()
        self._changed()
        if self.is_attached:
            paint_hold(self.app).release()

    def row_count(self) -> int:
        """Rows known: the count, or the first page while counting."""
        source = self.source
        if source is None:
            return 0
        return source.count if source.count is not None \
            else max(source.loaded_prefix(), self.at_least or 0)

    def row_text(self, index: int, width: int) -> Text | None:
        """Draw one memory as ``Text`` (``None`` while its page is being read)."""
        memory = self.row_at(index)
        if memory is None:
            return None
        return memory_row(
            memory, width, self.tz, marked=memory.id in self.marked,
            stale=memory.id in self.stale, pattern=self._pattern,
            match_style=self.get_component_rich_style("line-list--match"),
            dim_style=self.get_component_rich_style("line-list--dim"),
            mark_style=self.get_component_rich_style("line-list--marked"))

    def frame_begun(self, base: Style) -> None:
        """The rows' styles for the frame, worked out once from ``base``."""
        self._row_styles = RowStyles(base, *(base + self.get_component_rich_style(name)
                                             for name in ROW_PART_CLASSES))

    def frame_ended(self) -> None:
        """Outside a frame the rows have no styles (``row_segments`` answers None)."""
        self._row_styles = None

    def row_segments(self, index: int, width: int) -> tuple[list[Segment], int] | None:
        """One memory straight to segments (None while its page is read, or outside a frame)."""
        styles = self._row_styles
        memory = self.row_at(index) if styles is not None else None
        if memory is None or styles is None:
            return None
        return memory_row_segments(memory, width, self.tz, styles,
                                   marked=memory.id in self.marked,
                                   stale=memory.id in self.stale, pattern=self._pattern)

    def shown_rows(self) -> list[Memory]:
        """The loaded memories of the rows on screen."""
        top = int(self.scroll_offset.y)
        height = self.size.height or self.app.size.height
        found = (self.row_at(index) for index in range(top, top + height))
        return [memory for memory in found if memory is not None]

    def set_stale(self, memory_ids: frozenset[str]) -> None:
        """Mark these memories stale (``STALE_MARK``), redrawing when that changes."""
        if memory_ids != self.stale:
            self.stale = memory_ids
            self.refresh()

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
