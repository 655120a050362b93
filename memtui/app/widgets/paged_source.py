"""``PagedSource``: one memory list (a checked filter), read from the store page by page: a
page next to a cached one by keyset (an index seek), any other by position from the nearer
end. No Textual here; one instance is filled by one thread at a time."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from memtui.store.models import Memory, MemoryFilter, PageCursor

if TYPE_CHECKING:
    from memtui.engine.api import Engine

R = TypeVar("R")

PAGE_SIZE = 100
"""Rows per page (one query)."""
MAX_CACHED_PAGES = 24
"""Pages kept in the LRU (PAGE_SIZE * MAX_CACHED_PAGES rows at most in memory)."""
CHEAP_OFFSET_ROWS = 5_000
"""A page read by position this close to an end of the list is cheap enough to read while
drawing; farther ones are read in a worker thread."""


@dataclass(frozen=True)
class PagePlan:
    """How to read one page: by keyset from a neighbour, or by position from an end."""

    page: int
    method: str  # "after" | "before" | "top" | "bottom"
    limit: int
    offset: int = 0
    cursor: PageCursor | None = None

    @property
    def cheap(self) -> bool:
        """Whether the read is an index seek or a short offset scan."""
        return self.method in ("after", "before") or self.offset <= CHEAP_OFFSET_ROWS


class KeysetPages(Generic[R]):
    """Rows of one newest-first list by position, read through ``engine`` page by page and
    cached (LRU). Subclasses say how to count, how to read a page and which of a row's fields
    are its keyset position (``TIME_FIELD``, ``KEY_FIELD``)."""

    TIME_FIELD: ClassVar[str] = "created_at"
    """The row's time, newest first in the list."""
    KEY_FIELD: ClassVar[str] = "id"
    """The row's id: breaks ties of time, finds the row again after a reload."""

    def __init__(self, engine: Engine, *, page_size: int = PAGE_SIZE,
                 max_pages: int = MAX_CACHED_PAGES) -> None:
        self.engine = engine
        self.page_size = page_size
        self.max_pages = max_pages
        self.count: int | None = None
        self._pages: OrderedDict[int, list[R]] = OrderedDict()

    def count_rows(self) -> int:
        """Count the rows (one query) and remember the answer."""
        raise NotImplementedError

    def read_keyset(self, limit: int, *, after: PageCursor | None = None,
                    before: PageCursor | None = None) -> list[R]:
        """Rows after (older than) or just before (newer than) a position, in list order."""
        raise NotImplementedError

    def read_at(self, offset: int, limit: int, *, from_end: bool) -> list[R]:
        """Rows by position from the top (or, ``from_end``, from the bottom), list order."""
        raise NotImplementedError

    def edge(self, row: R) -> PageCursor:
        """A row's keyset position."""
        return PageCursor(created_at=getattr(row, self.TIME_FIELD),
                          id=getattr(row, self.KEY_FIELD))

    def page_of(self, index: int) -> int:
        """The page that holds row ``index``."""
        return index // self.page_size

    def get(self, index: int) -> R | None:
        """Row ``index`` if its page is cached (never queries)."""
        page = self._pages.get(index // self.page_size)
        if page is None:
            return None
        self._pages.move_to_end(index // self.page_size)
        offset = index % self.page_size
        return page[offset] if offset < len(page) else None

    def loaded_prefix(self) -> int:
        """Rows known from the top while the count is not known yet (the first page's)."""
        return len(self._pages.get(0, ()))

    def first_rows(self) -> list[R]:
        """The rows known from the top (a copy): the first page's, and the second's."""
        first = self._pages.get(0, [])
        second = self._pages.get(1) if len(first) == self.page_size else None
        return [*first, *second] if second else list(first)

    def cached_pages(self) -> list[int]:
        """Numbers of the cached pages, least recently used first."""
        return list(self._pages)

    def index_of(self, key: str) -> int | None:
        """The position of a cached row by id (None if no cached page holds it)."""
        for page, rows in self._pages.items():
            for offset, row in enumerate(rows):
                if getattr(row, self.KEY_FIELD) == key:
                    return page * self.page_size + offset
        return None

    def plan(self, page: int) -> PagePlan:
        """How to read ``page``, using a cached neighbour when there is one."""
        size = self.page_size
        before_page = self._pages.get(page - 1)
        if before_page is not None and len(before_page) == size:
            return PagePlan(page, "after", size, cursor=self.edge(before_page[-1]))
        after_page = self._pages.get(page + 1)
        if after_page:
            return PagePlan(page, "before", size, cursor=self.edge(after_page[0]))
        start = page * size
        if self.count is not None and start > self.count // 2:
            end = min(self.count, start + size)
            return PagePlan(page, "bottom", max(0, end - start), offset=self.count - end)
        return PagePlan(page, "top", size, offset=start)

    def fetch(self, plan: PagePlan) -> list[R]:
        """Run one page query (safe in any thread: the store gives each its connection)."""
        if plan.limit <= 0:
            return []
        if plan.method == "after":
            return self.read_keyset(plan.limit, after=plan.cursor)
        if plan.method == "before":
            return self.read_keyset(plan.limit, before=plan.cursor)
        return self.read_at(plan.offset, plan.limit, from_end=plan.method == "bottom")

    def put(self, page: int, rows: list[R]) -> None:
        """Cache a fetched page, evicting the least recently used beyond ``max_pages``."""
        self._pages[page] = rows
        self._pages.move_to_end(page)
        while len(self._pages) > self.max_pages:
            self._pages.popitem(last=False)

    def load_page(self, page: int) -> list[R]:
        """Fetch and cache one page (a cached page is returned as it is)."""
        cached = self._pages.get(page)
        if cached is not None:
            self._pages.move_to_end(page)
            return cached
        rows = self.fetch(self.plan(page))
        self.put(page, rows)
        return rows

    def pages_for(self, start: int, end: int) -> range:
        """The pages that hold rows ``start`` up to ``end`` (exclusive), within the count."""
        if self.count is not None:
            end = min(end, self.count)
        if end <= start:
            return range(0)
        return range(self.page_of(max(0, start)), self.page_of(end - 1) + 1)

    def ensure(self, start: int, end: int, *, cheap_only: bool = True) -> list[int]:
        """Load the missing pages for rows ``start..end``; with ``cheap_only``, return those
        that need a long offset scan (for a worker) instead."""
        left: list[int] = []
        for page in self.pages_for(start, end):
            if page in self._pages:
                self._pages.move_to_end(page)
                continue
            plan = self.plan(page)
            if cheap_only and not plan.cheap:
                left.append(page)
                continue
            self.put(page, self.fetch(plan))
        return left

    def rows(self, start: int, end: int) -> list[R]:
        """Rows ``start..end`` (exclusive), read page by page (counts first if needed)."""
        if self.count is None:
            self.count_rows()
        assert self.count is not None
        end = min(end, self.count)
        index = max(0, start)
        out: list[R] = []
        while index < end:
            page = self.load_page(self.page_of(index))
            offset = index % self.page_size
            taken = page[offset:offset + (end - index)]
            if not taken:
                break
            out.extend(taken)
            index += len(taken)
        return out


class PagedSource(KeysetPages[Memory]):
    """Rows of one memory list by position (``flt`` from ``identity.memory_filter``)."""

    def __init__(self, engine: Engine, flt: MemoryFilter, *, page_size: int = PAGE_SIZE,
                 max_pages: int = MAX_CACHED_PAGES) -> None:
        super().__init__(engine, page_size=page_size, max_pages=max_pages)
        self.filter = flt

    def count_rows(self) -> int:
        """Count the rows (one query) and remember the answer."""
        self.count = self.engine.identity.count_memories(self.filter)
        return self.count

    def read_keyset(self, limit: int, *, after: PageCursor | None = None,
                    before: PageCursor | None = None) -> list[Memory]:
        """``identity.memory_page``."""
        return self.engine.identity.memory_page(self.filter, limit, after=after, before=before)

    def read_at(self, offset: int, limit: int, *, from_end: bool) -> list[Memory]:
        """``identity.memories_at``."""
        return self.engine.identity.memories_at(self.filter, offset, limit, from_end=from_end)


class FirstRowsSource(PagedSource):
    """The first rows of a list worked out from the rows on screen ahead of its first page
    (``ListLoading.ahead``): never read from the store (the load's own source takes over)."""

    @classmethod
    def holding(cls, engine: Engine, flt: MemoryFilter, rows: list[Memory], *,
                sizes_of: KeysetPages[Memory], whole: bool = False) -> FirstRowsSource:
        """A source holding ``rows``, the first of ``flt``'s list, in pages as big as
        ``sizes_of``'s (``whole``: every row of the list, so its count is known)."""
        source = cls(engine, flt, page_size=sizes_of.page_size, max_pages=sizes_of.max_pages)
        size = sizes_of.page_size
        for page in range(0, (len(rows) + size - 1) // size):
            source.put(page, rows[page * size:(page + 1) * size])
        if whole:
            source.count = len(rows)
        return source

    def ensure(self, start: int, end: int, *, cheap_only: bool = True) -> list[int]:
        """Nothing to read (see class doc)."""
        return []

    def fetch(self, plan: PagePlan) -> list[Memory]:
        """Nothing is read (see class doc)."""
        return []
