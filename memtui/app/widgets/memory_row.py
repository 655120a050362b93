"""One memory as one row of a list: as a ``rich.text.Text`` (``memory_row``), and the same
cells drawn straight to segments (``memory_row_segments``, much faster: what the list paints,
except for a row narrower than its fixed columns)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from memtui.app.format import local_time
from memtui.store.models import Memory
from memtui.textsafe import one_line

MARK = "●"
STALE_MARK = "!"
"""The mark of a memory whose cited files, symbols or commands are gone (when not marked)."""
KIND_WIDTH = 10
TIME_WIDTH = 11
MIN_CONTENT_WIDTH = 4
"""A row's content keeps at least this many columns, however long its suffix."""
MATCH_CONTEXT_CHARS = 12
"""A row whose first match is off to the right starts this many characters before it."""
ELLIPSIS = "…"
MARK_CELLS = 2
"""A row starts with its mark (or a space) and a space."""


@dataclass(frozen=True)
class RowStyles:
    """The styles a row is drawn in, each combined with the list's own style."""

    base: Style
    dim: Style
    mark: Style
    match: Style


def _suffix(memory: Memory) -> str:
    """What follows the content: source (when not manual), status (when not active), use."""
    tail: list[str] = []
    if memory.source != "manual":
        tail.append(one_line(memory.source))
    if memory.status != "active":
        tail.append(one_line(memory.status))
    if memory.usage_count:
        tail.append(f"used {memory.usage_count}×")
    return ("  " + " · ".join(tail)) if tail else ""


def _columns(memory: Memory, tz: ZoneInfo) -> tuple[str, str]:
    """The kind and created-time columns, padded, each with its trailing space."""
    return (f"{one_line(memory.kind):<{KIND_WIDTH}} ",
            f"{local_time(memory.created_at, tz, with_year=False):<{TIME_WIDTH}} ")


def _row_parts(memory: Memory, width: int, tz: ZoneInfo) -> tuple[str, str, str, int]:
    """A row's kind and time columns, its suffix, and the cells left for its content."""
    kind, created = _columns(memory, tz)
    suffix = _suffix(memory)
    room = width - MARK_CELLS - cell_len(kind) - cell_len(created) - cell_len(suffix)
    return kind, created, suffix, room


def _shown_content(flat: str, room: int, pattern: re.Pattern[str] | None) -> str:
    """The content as the row shows it: from a little before the first match when that
    match would be cut off at the right."""
    if pattern is not None:
        found = pattern.search(flat)
        if found is not None and found.end() > room - 1:
            start = max(0, found.start() - MATCH_CONTEXT_CHARS)
            return ELLIPSIS + flat[start + 1:]  # show the match, not only the start
    return flat


def shown_matches(memory: Memory, width: int, tz: ZoneInfo, pattern: re.Pattern[str] | None,
                  ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The part of a memory's text its row shows at ``width`` and where ``pattern``
    highlights it: all that a new search can change in the row."""
    room = max(MIN_CONTENT_WIDTH, _row_parts(memory, width, tz)[3])
    flat = _shown_content(one_line(memory.content), room, pattern)
    if pattern is None:
        return flat, ()
    return flat, tuple(found.span() for found in pattern.finditer(flat))


def _mark(marked: bool, stale: bool) -> str:
    return MARK if marked else STALE_MARK if stale else " "


def memory_row(memory: Memory, width: int, tz: ZoneInfo, *, marked: bool = False,
               stale: bool = False, pattern: re.Pattern[str] | None = None,
               match_style: str | Style = "", dim_style: str | Style = "",
               mark_style: str | Style = "") -> Text:
    """One memory as a row: mark, kind, created time, content (literal), source and use."""
    kind, created, suffix, room = _row_parts(memory, width, tz)
    room = max(MIN_CONTENT_WIDTH, room)
    row = Text(no_wrap=True, overflow="ellipsis")
    row.append(_mark(marked, stale), style=mark_style if marked or stale else "")
    row.append(" ")
    row.append(kind, style=dim_style)
    row.append(created, style=dim_style)
    flat = _shown_content(one_line(memory.content), room, pattern)
    content = Text(flat, no_wrap=True, overflow="ellipsis")
    if pattern is not None and match_style:
        content.highlight_regex(pattern, match_style)
    content.truncate(room, overflow="ellipsis", pad=bool(suffix))
    row.append_text(content)
    if suffix:
        row.append(suffix, style=dim_style)
    return row


def _content_segments(flat: str, room: int, pad: bool, pattern: re.Pattern[str] | None,
                      styles: RowStyles) -> tuple[list[Segment], int]:
    """The content cut to ``room`` cells (padded when ``pad``), matches highlighted, as
    segments; and the cells they take (as ``Text.truncate`` draws it)."""
    length = cell_len(flat)
    shown = flat
    if length > room:
        shown = set_cell_size(flat, room - 1) + ELLIPSIS
        cells = room
    else:
        cells = length
    segments: list[Segment] = []
    position = 0
    if pattern is not None:
        end_of_text = len(shown)
        for found in pattern.finditer(flat):
            start, end = found.span()
            if start >= end_of_text:
                break
            if end <= start:
                continue
            end = min(end, end_of_text)
            if start > position:
                segments.append(Segment(shown[position:start], styles.base))
            segments.append(Segment(shown[start:end], styles.match))
            position = end
    if position < len(shown):
        segments.append(Segment(shown[position:], styles.base))
    if pad and cells < room:
        segments.append(Segment(" " * (room - cells), styles.base))
        cells = room
    return segments, cells


def memory_row_segments(memory: Memory, width: int, tz: ZoneInfo, styles: RowStyles, *,
                        marked: bool = False, stale: bool = False,
                        pattern: re.Pattern[str] | None = None,
                        ) -> tuple[list[Segment], int] | None:
    """``memory_row`` drawn straight to segments in ``styles``, and the cells they take;
    ``None`` when the row would not fit ``width`` (the caller draws ``memory_row`` then)."""
    kind, created, suffix, room = _row_parts(memory, width, tz)
    if room < MIN_CONTENT_WIDTH:
        return None
    flat = _shown_content(one_line(memory.content), room, pattern)
    segments = [Segment(_mark(marked, stale), styles.mark) if marked or stale
                else Segment(" ", styles.base),
                Segment(" ", styles.base), Segment(kind + created, styles.dim)]
    content, cells = _content_segments(flat, room, bool(suffix), pattern, styles)
    segments.extend(content)
    if suffix:
        segments.append(Segment(suffix, styles.dim))
    return segments, width - room + cells  # (the columns and suffix take width - room)
