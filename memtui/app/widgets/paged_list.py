"""``PagedLineList``: rows drawn from a ``KeysetPages`` source, pages prefetched around the
visible rows and far pages read by a worker. The base of ``MemoryList`` and ``LogList``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from textual import work
from textual.message import Message
from textual.strip import Strip

from memtui.app.widgets.line_list import LineList
from memtui.app.widgets.paged_source import KeysetPages, PagePlan
from memtui.errors import MemtuiError

R = TypeVar("R")

PREFETCH_SCREENS = 1
"""Pages are prefetched this many screens above and below the visible rows."""
FAR_PAGES_GROUP = "list-far-pages"
"""The worker group of far-page reads (one worker per batch of far pages)."""


class PagedLineList(LineList, Generic[R]):
    """A ``LineList`` whose rows come from a ``KeysetPages`` ``source``; empty, it shows
    ``empty_text``, or why its rows could not be read (``ERROR_TEXT``)."""

    ERROR_TEXT = "Could not read the list: {}"

    @dataclass
    class PagesFetched(Message):
        """A worker read far pages (internal)."""

        generation: int
        pages: dict[int, list[Any]]

    @dataclass
    class PagesFailed(Message):
        """Reading far pages failed; ``error`` says why in words (internal)."""

        generation: int
        error: str

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.source: KeysetPages[R] | None = None
        self._generation = 0
        self._pending: set[int] = set()
        self.error: str | None = None
        self.empty_text = ""

    @property
    def count(self) -> int | None:
        """How many rows the list holds (None while counting, or before the first load)."""
        return None if self.source is None else self.source.count

    @property
    def is_loading(self) -> bool:
        """Whether the list is still being read or counted (an empty one says so)."""
        return False

    def render_line(self, y: int) -> Strip:
        """Draw a row, or the empty / loading / error line of an empty list."""
        if self.row_count():
            return super().render_line(y)
        if self.error:
            return self.render_message_line(y, self.ERROR_TEXT.format(self.error), "bold red")
        if self.is_loading:
            return self.render_message_line(y, "Loading…", "italic")
        return self.render_message_line(y, self.empty_text)

    def current(self) -> R | None:
        """The row under the cursor (if its page is read)."""
        return self.source.get(self._cursor) if self.source and self.row_count() else None

    def row_at(self, index: int) -> R | None:
        """The row at ``index``, read now when its page is cheap (else ``None``)."""
        source = self.source
        if source is None:
            return None
        row = source.get(index)
        if row is None:
            self._request(index, index + 1)
            row = source.get(index)
        return row

    def rows_wanted(self, start: int, end: int) -> None:
        """Prefetch a screen above and below the visible rows."""
        margin = max(1, end - start) * PREFETCH_SCREENS
        self._request(max(0, start - margin), end + margin)

    def _request(self, start: int, end: int) -> None:
        source = self.source
        if source is None:
            return
        try:
            far = source.ensure(start, end)
        except MemtuiError as error:
            self.error = error.message
            return
        far = [page for page in far if page not in self._pending]
        if far:
            self._pending.update(far)
            self._fetch_far(self._generation, source, [source.plan(page) for page in far])

    @work(thread=True, group=FAR_PAGES_GROUP, exit_on_error=False)
    def _fetch_far(self, generation: int, source: KeysetPages[R], plans: list[PagePlan]) -> None:
        pages: dict[int, list[Any]] = {}
        try:
            for plan in plans:
                pages[plan.page] = source.fetch(plan)
        except Exception as error:  # reported, never raised into the app
            self.post_message(self.PagesFailed(generation, str(error)))
            return
        self.post_message(self.PagesFetched(generation, pages))

    def on_paged_line_list_pages_fetched(self, message: PagesFetched) -> None:
        """Far pages arrived: cache and draw them (an older load's pages are dropped)."""
        message.stop()
        if message.generation != self._generation or self.source is None:
            return
        for page, rows in message.pages.items():
            self.source.put(page, rows)
            self._pending.discard(page)
        self.refresh()
        self.post_message(self.CursorMoved(self, self._cursor))

    def on_paged_line_list_pages_failed(self, message: PagesFailed) -> None:
        """Far pages could not be read: say why. They stay asked for (drawn as ``…``) until
        the list is read again: asking at every frame would retry without end."""
        message.stop()
        if message.generation != self._generation:
            return
        self.pages_failed(message.error)

    def pages_failed(self, error: str) -> None:
        """Show why far pages could not be read (subclasses may say more)."""
        self.error = error
        self.refresh()
