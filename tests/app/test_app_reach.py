"""Every pane's content is reachable by keys at 80x24 (issue 19, defect 8): the details
below a list scroll with ``J`` / ``K``, and the key bar says so."""

from __future__ import annotations

from pathlib import Path

import codex_fixture as fx
import pytest
from pilot_harness import app_test, opened, press, screen_text, settle

from memtui.app.panes import PANES
from memtui.app.panes.codex import CodexPane
from memtui.app.widgets.key_bar import KeyBar
from memtui.app.widgets.preview import PreviewScroll

MAX_PRESSES = 40
"""More ``J`` presses than any details area here needs to reach its end."""
DETAIL_PANES = [pane.PANE_ID for pane in PANES if pane.PANE_ID != "codex"]


def _key(pane_id: str) -> str:
    from memtui.app.app import pane_key

    key = pane_key(pane_id)
    assert key is not None
    return key


def test_the_codex_problems_are_reached_by_keys(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    fx.build_codex_home(tmp_path)

    @app_test
    async def run() -> None:
        async with opened(tmp_path, codex_home=tmp_path / ".codex") as (app, pilot):
            await press(pilot, _key(CodexPane.PANE_ID))
            bar = app.get_screen_main().query_one(KeyBar).render().plain
            assert "J detail↓" in bar and "K detail↑" in bar  # the way there is shown
            assert "My Note (draft).md" not in screen_text(app)
            scroll = app.screen.query_one("#codex-scroll", PreviewScroll)
            for _ in range(MAX_PRESSES):
                if scroll.scroll_y >= scroll.max_scroll_y:
                    break
                await press(pilot, "J")
            assert scroll.scroll_y == scroll.max_scroll_y > 0
            assert "Problems (1)" in screen_text(app)
            assert "skipped" in screen_text(app)  # the last line of the last problem
            await press(pilot, "K")
            assert scroll.scroll_y < scroll.max_scroll_y

    run()


@pytest.mark.parametrize("pane_id", DETAIL_PANES)
def test_every_details_area_scrolls_by_keys(tmp_path: Path, pane_id: str) -> None:
    """A details area longer than its room (a long document, a long task) scrolls by keys
    on every pane that has one."""

    @app_test
    async def run() -> None:
        async with opened(tmp_path, start_pane=pane_id) as (app, pilot):
            pane = app.current_pane()
            assert pane is not None
            previews = list(pane.query(PreviewScroll))
            if not previews:
                return  # no details area: its list or form scrolls by its own keys
            previews[0].show("\n".join(f"line {n}" for n in range(60)))
            await settle(pilot)
            target = pane.focus_target()
            if target is not None:
                target.focus()
            await press(pilot, "J")
            assert previews[0].scroll_y > 0
            await press(pilot, "K")
            assert previews[0].scroll_y == 0

    run()
