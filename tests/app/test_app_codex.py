"""The read-only Codex pane: threads with usage, why consolidation is stuck, groups, notes,
jobs and problems of a Codex home (the test fixture), text made safe; plus a snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import codex_fixture as fx
import pilot_harness
import pytest
from pilot_harness import app_test, demo_app, opened, press, screen_text, settle, status_text
from textual.pilot import Pilot

from memtui.app.app import pane_key
from memtui.app.panes.codex import CodexPane


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


@app_test
async def test_codex_pane_shows_the_home(codex_home: Path, tmp_path: Path) -> None:
    spy = pilot_harness.CopySpy()
    async with opened(tmp_path, codex_home=tmp_path / ".codex", system_clipboard=spy,
                      size=(100, 40)) as (app, pilot):
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


@app_test
async def test_codex_pane_without_a_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nowhere"))
    async with opened(tmp_path, codex_home=tmp_path / "nowhere") as (app, pilot):
        await press(pilot, _pane_key())
        assert _pane(app).item_list.items == []
        preview = str(app.screen.query_one("#codex-preview").render())
        assert "Codex home not found" in preview and "Unknown" in preview
        assert "No Codex threads here" in preview and "nowhere: Codex home" in preview


WAIT_ROUNDS = 3000
"""Short pauses a test waits for a held worker to reach a state (bounded by count)."""


async def _until(pilot: Pilot[Any], condition: Any) -> bool:
    for _ in range(WAIT_ROUNDS):
        if condition():
            return True
        await pilot.pause(0.01)
    return bool(condition())


def test_codex_pane_reads_the_home_in_a_worker_and_says_it_is_reading(
        codex_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from memtui.engine.codex.api import CodexApi

    gate = threading.Event()
    threads: list[bool] = []
    browse = CodexApi.browse

    def held(*args: Any, **kwargs: Any) -> Any:
        on_ui_thread = threading.current_thread() is threading.main_thread()
        threads.append(on_ui_thread)
        if not on_ui_thread:  # holding the UI thread would only hang the test
            gate.wait(timeout=600)  # a safety net for a broken test, not a time bound
        return browse(*args, **kwargs)

    monkeypatch.setattr(CodexApi, "browse", staticmethod(held))

    @app_test
    async def run() -> None:
        app = demo_app(tmp_path, codex_home=tmp_path / ".codex")
        async with app.run_test(size=(100, 40)) as pilot:
            try:
                await held_reads(app, pilot)
            finally:
                gate.set()  # a failed check must not leave the worker held (and the test hung)

    async def held_reads(app: Any, pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press(_pane_key())
        assert await _until(pilot, lambda: isinstance(app.current_pane(), CodexPane)
                            and threads)
        pane = _pane(app)
        title = pane.query_one("#codex-title")
        assert pane.reading and "~/.codex · reading…" in str(title.render())
        assert pane.item_list.items == []
        # the pane says so once a frame is drawn (the worker may have started before it)
        assert await _until(pilot, lambda: "Reading the Codex home…" in screen_text(app))
        await pilot.press("question_mark")  # the app answers keys while it reads
        assert await _until(pilot, lambda: app.screen.__class__.__name__ == "HelpModal")
        await pilot.press("escape")
        gate.set()
        await settle(pilot)
        assert threads == [False]  # read once, off the UI thread
        assert not pane.reading and len(pane.item_list.items) >= 4
        assert "o reloads" in str(title.render())
        gate.clear()
        await pilot.press("o")
        assert await _until(pilot, lambda: len(threads) == 2 and pane.reading)
        assert len(pane.item_list.items) >= 4  # the rows stay while it reads again
        assert "reading…" in str(title.render())
        gate.set()
        await settle(pilot)
        assert threads == [False, False] and not pane.reading
        assert "Read the Codex home again." in status_text(app)

    run()


@app_test
async def test_codex_pane_says_why_a_home_could_not_be_read(
        codex_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.engine.codex.api import CodexApi

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError("permission denied: memories_1.sqlite")

    monkeypatch.setattr(CodexApi, "browse", staticmethod(broken))
    async with opened(tmp_path, codex_home=tmp_path / ".codex", size=(100, 40)) as (app, pilot):
        await press(pilot, _pane_key())
        pane = _pane(app)
        assert not pane.reading and pane.item_list.items == []
        assert "could not be read" in str(pane.query_one("#codex-title").render())
        assert "Could not read the Codex home: permission denied" in status_text(app)
        assert "No Codex threads here" in screen_text(app)


def test_codex_pane_snapshot(snap_compare: Any, codex_home: Path, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("j")
        await settle(pilot, animations=True)

    app = demo_app(tmp_path, codex_home=tmp_path / ".codex", start_pane=CodexPane.PANE_ID)
    # wide: the selected thread, the whole diagnosis and the task groups show at once
    assert snap_compare(app, terminal_size=pilot_harness.WIDE, run_before=run_before)
