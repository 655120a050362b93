"""``memory_row_segments`` draws exactly what ``memory_row`` draws: the same character in the
same style in every cell, for any memory, search and width (or declines, and the list draws
``memory_row``)."""

from __future__ import annotations

from dataclasses import replace
from zoneinfo import ZoneInfo

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from memtui.app.widgets.memory_list import search_pattern
from memtui.app.widgets.memory_row import RowStyles, memory_row, memory_row_segments
from memtui.store.models import Memory

CONSOLE = Console(width=400, color_system="truecolor")
BASE = Style(color="white", bgcolor="black")
DIM = Style(dim=True)
MARK = Style(bold=True, color="yellow")
MATCH = Style(bgcolor="red", underline=True)
STYLES = RowStyles(BASE, BASE + DIM, BASE + MARK, BASE + MATCH)
TZ = ZoneInfo("Europe/Berlin")

WORDS = ["pytest", "fixture", "fixtures", "staging", "cluster", "migrate", "invoice", "prefers",
         "small", "ünïcödé", "日本語", "emoji🙂", "tab\there", "line\nbreak", "\x1b[31mred",
         "bidi\u202eevil", "", " ", "a" * 90, "x"]


def _memory(content: str, kind: str, source: str, status: str, used: int,
            created: str) -> Memory:
    return Memory(id="mem_01", scope="user", owner="alice", project=None, kind=kind,
                  content=content, status=status, superseded_by=None, source=source,
                  source_thread_id=None, created_at=created, updated_at=created,
                  usage_count=used, last_used_at=None)


def _cells(segments: list[Segment], width: int) -> list[tuple[str, Style | None]]:
    strip = Strip(segments).crop_extend(0, width, BASE)
    return [(char, segment.style) for segment in strip for char in segment.text]


def _through_text(memory: Memory, width: int, marked: bool, search: str | None,
                  stale: bool = False) -> list:
    text = memory_row(memory, width, TZ, marked=marked, stale=stale,
                      pattern=search_pattern(search), match_style=MATCH, dim_style=DIM,
                      mark_style=MARK)
    text.truncate(width, overflow="ellipsis", pad=True)
    segments = Strip(list(text.render(CONSOLE)), width).apply_style(BASE)
    return _cells(list(segments), width)


memories = st.builds(
    _memory,
    content=st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join),
    kind=st.sampled_from(["fact", "preference", "decision", "a-very-long-kind"]),
    source=st.sampled_from(["manual", "codex", "claude-code", "mcp\x07bell"]),
    status=st.sampled_from(["active", "superseded", "pending"]),
    used=st.sampled_from([0, 1, 12, 123456]),
    created=st.sampled_from(["2026-05-27T07:08:09Z", "not a time", ""]))


@settings(max_examples=400, deadline=None)
@given(memory=memories, width=st.integers(1, 160), marked=st.booleans(), stale=st.booleans(),
       search=st.sampled_from([None, "pytest", "pytest fi", "f", "日本", "small inv", "zz"]))
@example(memory=_memory("", "fact", "manual", "active", 0, "2026-05-27T07:08:09Z"), width=25,
         marked=False, stale=False, search=None)  # declined, yet the empty row fits
def test_the_direct_row_draws_the_same_cells_as_the_text_row(memory: Memory, width: int,
                                                             marked: bool, stale: bool,
                                                             search: str | None) -> None:
    drawn = memory_row_segments(memory, width, TZ, STYLES, marked=marked, stale=stale,
                                pattern=search_pattern(search))
    text_row = memory_row(memory, width, TZ, marked=marked, stale=stale,
                          pattern=search_pattern(search))
    if drawn is None:  # only a row that does not fit: its content would get fewer than
        # MIN_CONTENT_WIDTH cells (memory_row overflows once there is content to show)
        filled = replace(memory, content="x" * 200)
        assert memory_row(filled, width, TZ, marked=marked, stale=stale).cell_len > width
        return
    assert text_row.cell_len <= width
    segments, cells = drawn
    assert cells == Segment.get_line_length(segments) <= width
    assert _cells(segments, width) == _through_text(memory, width, marked, search, stale)
    assert text_row.plain[0] == ("●" if marked else "!" if stale else " ")


def test_a_wide_row_is_drawn_directly_and_a_narrow_one_is_left_to_memory_row() -> None:
    memory = _memory("pytest fixtures are fine", "fact", "codex", "active", 2,
                     "2026-05-27T07:08:09Z")
    assert memory_row_segments(memory, 120, TZ, STYLES) is not None
    assert memory_row_segments(memory, 20, TZ, STYLES) is None


def test_a_match_cut_off_at_the_right_is_shown_with_what_precedes_it() -> None:
    memory = _memory("x " * 80 + "the pytest fixture at the end", "fact", "manual",
                     "active", 0, "2026-05-27T07:08:09Z")
    drawn = memory_row_segments(memory, 80, TZ, STYLES, pattern=search_pattern("pytest"))
    assert drawn is not None
    segments, _ = drawn
    text = "".join(segment.text for segment in segments)
    assert "…" in text and "pytest" in text
    assert [s.text for s in segments if s.style == STYLES.match] == ["pytest"]
