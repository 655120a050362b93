"""The read-only Codex pane: threads with usage, why consolidation is stuck, groups, notes,
jobs and problems of a Codex home (the test fixture), text made safe; plus a snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_harness import SMALL, WIDE, CopySpy, app_test, demo_app, press, screen_text, settle
from textual.pilot import Pilot

from memtui.app.app import pane_key
from memtui.app.panes.codex import CodexPane

try:
    import codex_fixture as fx
except ImportError:  # tests/ imported as a package
    from tests import codex_fixture as fx


def _pane_key() -> str:
    key = pane_key(CodexPane.PANE_ID)
    assert key is not None, "the Codex pane has a key"
    return key


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture home at ``~/.codex`` (HOME is the test folder; CODEX_HOME unset)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CODEX_SQLITE_HOME", raising=False)
    return fx.build_codex_home(tmp_path)


def _pane(app: Any) -> CodexPane:
    pane = app.current_pane()
    assert isinstance(pane, CodexPane)
    return pane


def test_codex_pane_shows_the_home(codex_home: Path, tmp_path: Path) -> None:
    @app_test
    async def run() -> None:
        spy = CopySpy()
        app = demo_app(tmp_path, codex_home=tmp_path / ".codex", system_clipboard=spy)
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press(pilot, _pane_key())
            pane = _pane(app)
            threads = pane.item_list.items
            assert [t.thread_id for t in threads][:4] == [fx.THREAD_POLLUTED, fx.THREAD_API,
                                                          fx.THREAD_DOCS, fx.THREAD_V7]
            assert threads[2].usage_count == 21 and threads[0].memory_mode == "polluted"
            text = screen_text(app)
            assert "~/.codex" in text and "consolidation stuck" in text
            preview = str(app.screen.query_one("#codex-preview").render())
            for fragment in ("Why is consolidation stuck?", "lease expired", "worker-c",
                             "Task groups (2)", "team handbook", "Ad-hoc notes (2)",
                             "staging database is read-only", "Jobs (7)", "Problems (1)",
                             "Codex database: memories in memories_1.sqlite",
                             "state schema 40, memories schema 1",
                             "My Note (draft).md"):
                assert fragment in preview, fragment
            assert str(tmp_path) not in preview  # problem paths relative to the home
            await press(pilot, "j", "c")
            assert spy.copied == [fx.THREAD_API]
            scroll = app.screen.query_one("#codex-scroll")
            await press(pilot, "J")
            assert scroll.scroll_y > 0
            await press(pilot, "K")
            assert scroll.scroll_y == 0
            notes = codex_home / "memories" / "extensions" / "ad_hoc" / "notes"
            (notes / "2026-10-06T00-00-00-evil.md").write_text("[b]x[/b] \x1b[2J beep\x07\n")
            await press(pilot, "o")
            preview = str(app.screen.query_one("#codex-preview").render())
            assert "Ad-hoc notes (3)" in preview and "[b]x[/b] \\x1b[2J beep\\x07" in preview
            assert pane.item_list.current().thread_id == fx.THREAD_API  # cursor kept

    run()


def test_codex_pane_without_a_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nowhere"))

    @app_test
    async def run() -> None:
        app = demo_app(tmp_path, codex_home=tmp_path / "nowhere")
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await press(pilot, _pane_key())
            assert _pane(app).item_list.items == []
            preview = str(app.screen.query_one("#codex-preview").render())
            assert "Codex home not found" in preview and "Unknown" in preview
            assert "No Codex threads here" in preview and "nowhere: Codex home" in preview

    run()


def test_codex_pane_snapshot(snap_compare: Any, codex_home: Path, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot, animations=True)

    app = demo_app(tmp_path, codex_home=tmp_path / ".codex", start_pane=CodexPane.PANE_ID)
    # wide: the selected thread, the whole diagnosis and the task groups show at once
    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)
