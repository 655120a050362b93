"""The pane bar: one line naming the panes, the shown one marked, clickable, and a window
that keeps the shown pane in view when the names do not fit."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pilot_harness import app_test, opened, press, settle

from memtui.app.app import pane_labels
from memtui.app.panes import PANES
from memtui.app.widgets.pane_bar import GAP, MORE_LEFT, MORE_RIGHT, PaneBar, visible_window


def _cells(widths: list[int], start: int, end: int) -> int:
    used = sum(widths[start:end]) + GAP * (end - start - 1)
    return used + (1 + GAP if start > 0 else 0) + (GAP + 1 if end < len(widths) else 0)


def test_everything_fits_from_the_left() -> None:
    assert visible_window([5, 5, 5], 2, 17) == (0, 3)


def test_a_cut_keeps_the_active_name_and_marks_both_ends() -> None:
    widths = [9] * 9
    start, end = visible_window(widths, 6, 40)
    assert start <= 6 < end
    assert start > 0 and end < 9
    assert _cells(widths, start, end) <= 40


def test_the_first_name_needs_no_left_marker() -> None:
    assert visible_window([9] * 9, 0, 30)[0] == 0


def test_a_room_smaller_than_one_name_still_shows_the_active_one() -> None:
    assert visible_window([20, 20, 20], 1, 5) == (1, 2)


def test_no_names() -> None:
    assert visible_window([], 0, 80) == (0, 0)


@given(st.lists(st.integers(1, 30), min_size=1, max_size=15), st.data(),
       st.integers(1, 200))
def test_the_window_always_holds_the_active_name_and_fits_when_it_can(
        widths: list[int], data: st.DataObject, room: int) -> None:
    active = data.draw(st.integers(0, len(widths) - 1))
    start, end = visible_window(widths, active, room)
    assert 0 <= start <= active < end <= len(widths)
    if end - start > 1:
        assert _cells(widths, start, end) <= room


def test_labels_number_the_first_nine_panes() -> None:
    labels = pane_labels()
    assert [label.pane_id for label in labels] == [pane.PANE_ID for pane in PANES]
    assert labels[0].text == "1 Profile" and labels[1].text == "2 User"


@app_test
async def test_the_bar_marks_the_shown_pane_and_follows_keys(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        bar = app.screen.query_one(PaneBar)
        assert bar.active == "user"
        await press(pilot, "3")
        assert bar.active == "project" == app.current_pane().PANE_ID
        await press(pilot, "tab")
        assert bar.active == "history"


@app_test
async def test_clicking_a_name_shows_that_pane(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(120, 30)) as (app, pilot):
        bar = app.screen.query_one(PaneBar)
        start, _end, pane_id = next(span for span in bar._spans if span[2] == "log")
        await pilot.click(PaneBar, offset=(start + 1, 0))
        await settle(pilot)
        assert pane_id == "log" and app.current_pane().PANE_ID == "log"
        assert bar.active == "log"
        assert bar._spans[-1][1] < 115
        await pilot.click(PaneBar, offset=(115, 0))  # past the last name: nothing happens
        await settle(pilot)
        assert app.current_pane().PANE_ID == "log"


@app_test
async def test_hovering_a_name_highlights_it(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(120, 24)) as (app, pilot):  # every name fits
        bar = app.screen.query_one(PaneBar)
        start = next(span[0] for span in bar._spans if span[2] == "log")
        await pilot.hover(PaneBar, offset=(start, 0))
        await settle(pilot)
        assert bar._hover == "log" and bar.tooltip == "5 Log — show this pane"


@pytest.mark.parametrize("pane", ["profile", "settings", "codex", "agents"])
@app_test
async def test_a_narrow_bar_keeps_the_shown_pane_in_view(tmp_path: Path, pane: str) -> None:
    async with opened(tmp_path, size=(40, 20)) as (app, pilot):
        app.show_pane(pane)
        await settle(pilot)
        bar = app.screen.query_one(PaneBar)
        line = bar.render().plain
        assert len(line) <= 40
        shown = [span[2] for span in bar._spans]
        assert pane in shown
        assert (MORE_LEFT in line) == (shown[0] != PANES[0].PANE_ID)
        assert (MORE_RIGHT in line) == (shown[-1] != PANES[-1].PANE_ID)


@app_test
async def test_wide_terminals_give_names_room(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(160, 48)) as (app, pilot):
        line = app.screen.query_one(PaneBar).render().plain
        assert line.startswith(" 1 Profile   2 User ")


@app_test
async def test_next_pane_twice_at_once_moves_two_panes(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        app.action_next_pane(1)
        app.action_next_pane(1)  # the Project pane is still mounting
        await settle(pilot)
        assert app.active_pane_id == "history" == app.current_pane().PANE_ID
        assert app.screen.query_one(PaneBar).active == "history"


@app_test
async def test_the_inbox_name_carries_its_count(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(120, 24)) as (app, pilot):
        bar = app.screen.query_one(PaneBar)
        assert "8 Inbox (3)" in bar.render().plain
        bar.set_badge("inbox", "")
        assert "(3)" not in bar.render().plain and " 8 Inbox " in bar.render().plain
