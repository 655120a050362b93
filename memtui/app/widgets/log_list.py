"""``LogList``: the extraction log of any length, paged in from the store (``LogSource``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from memtui.app.widgets.paged_list import PREFETCH_SCREENS, PagedLineList
from memtui.app.widgets.paged_source import KeysetPages
from memtui.errors import MemtuiError
from memtui.store.models import LogEntry, PageCursor

if TYPE_CHECKING:
    from memtui.engine.api import Engine


class LogSource(KeysetPages[LogEntry]):
    """The acting user's extraction log by position, newest scan first, page by page."""

    TIME_FIELD = "at"
    KEY_FIELD = "task_id"  # (one log row per task)

    def count_rows(self) -> int:
        """Count the log rows (one query) and remember the answer."""
        self.count = self.engine.extraction.log_count()
        return self.count

    def read_keyset(self, limit: int, *, after: PageCursor | None = None,
                    before: PageCursor | None = None) -> list[LogEntry]:
        """``extraction.log``."""
        return self.engine.extraction.log(limit, after=after, before=before)

    def read_at(self, offset: int, limit: int, *, from_end: bool) -> list[LogEntry]:
        """``extraction.log_at``."""
        return self.engine.extraction.log_at(offset, limit, from_end=from_end)


class LogList(PagedLineList[LogEntry]):
    """The acting user's extraction log, newest scan first, paged from the store."""

    ERROR_TEXT = "Could not read the extraction log: {}"

    def __init__(self, render_row: Callable[[LogEntry, int], Text], *, empty_text: str = "",
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self._render_row = render_row
        self.empty_text = empty_text
        self.source: LogSource | None = None

    def show(self, engine: Engine) -> None:
        """Read the log again around the cursor, which stays on its task (else its row)."""
        current = self.current()
        index, top = self._cursor, round(self.scroll_y)
        height = max(1, self.size.height or 24)
        source = LogSource(engine)
        self._generation += 1
        self._pending.clear()
        try:
            source.count_rows()
            margin = height * (PREFETCH_SCREENS + 1)
            source.ensure(max(0, top - margin), max(index, top) + margin)
        except MemtuiError as error:
            self.error = error.message
            self.refresh()
            raise
        self.error = None
        self.source = source
        self.update_size()
        found = source.index_of(current.task_id) if current is not None else None
        self.scroll_to(y=top, animate=False, immediate=True)
        self.move_cursor(found if found is not None else index)
        self.refresh()

    def row_count(self) -> int:
        """The number of log rows."""
        return (self.source.count or 0) if self.source is not None else 0

    def row_text(self, index: int, width: int) -> Text | None:
        """One log row (``None`` while its page is being read)."""
        entry = self.row_at(index)
        return None if entry is None else self._render_row(entry, width)
