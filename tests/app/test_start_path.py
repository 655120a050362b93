"""The start path stays lean: what the first frame loads, and the pieces made after it.

Speed itself is measured by ``python -m memtui.bench`` (never by a timed test); these tests
keep the structure that speed rests on: the modules a first paint must not import, the
queries it must not run (the header's counts are read by a worker after it), the model
classes resolved by area, the command line made off the first frame.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, demo_app, inbox_count, on_ui_thread, opened, press, settle

import memtui.store.models as models
from memtui.bench import app_start
from memtui.engine.demo import build_demo_store

NOT_AT_FIRST_PAINT = (
    "memtui.app.curator",  # the store-changing flows and their modals
    "memtui.app.clipboard",  # made on the first copy
    "memtui.app.modals",
    "memtui.app.commands",  # the /memory command line is made after the first frame
    "memtui.app.widgets.command_line",
    "memtui.engine.worker",  # the extraction loop is made when the first job starts
    "memtui.engine.extraction",
    "memtui.engine.review",  # the inbox count is read by a worker after the first frame
    "memtui.app.inbox_sources",
    "memtui.app.messages",  # the workers' messages: imported when a worker first posts
    "memtui.engine.redaction",
    "memtui.store.recall",
    "memtui.store.tasks",
    "memtui.store.models.tasks",
    "memtui.store.models.service",
    "textual.widgets._tabbed_content",  # the pane bar is one line of text
    "textual.widgets._progress_bar",  # made when a job first reports progress
)

HEADER_QUERIES = {
    "generate/use settings": "FROM user_settings",
    "last recorded run": "FROM audit",
    "inbox count": "memories_pending",
}
"""What the header shows from the store, by a fragment of its SQL: read by the header worker
after the first frame, never by the first paint."""


@pytest.fixture(scope="module")
def first_paint(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The JSON line of one real start (to the first frame with memory rows) on the demo."""
    db = tmp_path_factory.mktemp("start") / "demo.db"
    build_demo_store(db).close()
    result = subprocess.run(
        [sys.executable, str(Path(app_start.__file__)), "app", "--db", str(db),
         "--user", "alice", "--width", "80", "--height", "24", app_start.LIST_MODULES,
         app_start.LIST_QUERIES],
        capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_first_paint_shows_rows(first_paint: dict) -> None:
    assert first_paint["mode"] == "app"
    assert first_paint["imported_at"] <= first_paint["built_at"] <= first_paint["painted_at"]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_peak_memory_is_the_childs_own(first_paint: dict) -> None:
    # a child's ru_maxrss would carry the peak of the process it was forked from: the
    # benchmark reads the child's own high-water mark instead
    assert 10_000 < first_paint["peak_rss_kib"] < 1_000_000
    assert app_start.peak_rss_kib() is not None


@pytest.mark.parametrize("module", NOT_AT_FIRST_PAINT)
def test_the_first_paint_does_not_load(first_paint: dict, module: str) -> None:
    loaded = [name for name in first_paint["modules"]
              if name == module or name.startswith(module + ".")]
    assert loaded == []


def test_the_first_paint_queries_are_traced(first_paint: dict) -> None:
    queries = first_paint["queries"]
    assert any("FROM memories" in query for query in queries)  # the list's first page
    assert any("FROM profiles" in query for query in queries)  # the time zone of its rows


@pytest.mark.parametrize("what", sorted(HEADER_QUERIES))
def test_the_first_paint_runs_no_header_query(first_paint: dict, what: str) -> None:
    fragment = HEADER_QUERIES[what]
    assert [query for query in first_paint["queries"] if fragment in query] == []


def test_a_long_list_is_counted_after_the_first_paint(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    from memtui.bench.generate import BENCH_USER, generate_store

    # longer than a page: the first page alone does not give the count, a worker counts
    db = tmp_path_factory.mktemp("start-long") / "long.db"
    generate_store(db, 2_000, seed=5)
    result = subprocess.run(
        [sys.executable, str(Path(app_start.__file__)), "app", "--db", str(db),
         "--user", BENCH_USER, "--width", "80", "--height", "24", app_start.LIST_QUERIES],
        capture_output=True, text=True, timeout=120, check=True)
    queries = json.loads(result.stdout.strip().splitlines()[-1])["queries"]
    pages = [query for query in queries if query.startswith("SELECT m.id")]
    assert len(pages) == 1 and "LIMIT 100" in pages[0]  # one full first page, on screen
    counts = [query for query in queries if query.startswith("SELECT count(*) FROM memories")]
    assert counts == []  # counted by a worker once the first frame is drawn


def test_models_resolve_by_area_and_stay_the_same_class() -> None:
    from memtui.store.models.memories import Memory
    from memtui.store.models.tasks import EXTRACTED_OUTCOMES, Task

    assert models.Memory is Memory
    assert models.Task is Task
    assert models.EXTRACTED_OUTCOMES == EXTRACTED_OUTCOMES
    assert set(models.__all__) <= set(dir(models))


def test_every_exported_model_name_resolves() -> None:
    for name in models.__all__:
        assert getattr(models, name) is not None


def test_an_unknown_model_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchModel"):
        models.NoSuchModel  # noqa: B018
    with pytest.raises(ImportError):
        from memtui.store.models import NoSuchModel  # noqa: F401


@app_test
async def test_the_command_line_is_ready_after_the_first_frame(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        line = app.screen.query_one("#command-line")
        assert not line.display
        await press(pilot, "colon")
        assert line.display and line.has_focus
        assert len(app.screen.query("#command-line")) == 1


@app_test
async def test_a_job_shows_a_progress_bar_made_on_first_use(tmp_path: Path) -> None:
    from textual.widgets import ProgressBar

    from memtui.app.widgets.status import StatusLine

    async with opened(tmp_path) as (app, pilot):
        status = app.screen.query_one(StatusLine)
        assert not status.query(ProgressBar)
        status.progress(3, 10)
        await settle(pilot)
        bar = status.query_one(ProgressBar)
        assert status.has_class("-busy") and bar.display and bar.progress == 3
        status.progress(None, None)
        status.progress(5, 10)
        await settle(pilot)
        assert len(status.query(ProgressBar)) == 1 and bar.progress == 5


@app_test
async def test_the_command_line_opens_even_before_the_first_frame_is_done(
        tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("colon", "s")
        await settle(pilot)
        line = app.screen.query_one("#command-line")
        assert line.display and line.has_focus
        assert line.value == "/memory s"
        assert len(app.screen.query("#command-line")) == 1


@app_test
async def test_the_search_box_is_made_on_first_use_and_takes_the_keys(tmp_path: Path) -> None:
    from textual.widgets import Input

    from memtui.app.panes.memories import SearchPrompt

    async with opened(tmp_path) as (app, pilot):
        pane = app.pane("user")
        assert pane.search_box is None and pane.search_text == ""
        assert pane.query_one(SearchPrompt).render().plain.startswith("/ search")
        await pilot.press("slash", "r", "u", "f", "f")  # typed at once, before any settle
        await settle(pilot)
        box = pane.search_box
        assert isinstance(box, Input) and box.has_focus and box.value == "ruff"
        assert not pane.query(SearchPrompt) and len(pane.query(Input)) == 1
        assert pane.memory_list.row_count() == 1
        await press(pilot, "escape")
        assert box.value == "" and pane.memory_list.has_focus
        await press(pilot, "slash")
        assert pane.search_box is box and box.has_focus


@app_test
async def test_clicking_the_search_prompt_opens_the_search(tmp_path: Path) -> None:
    from memtui.app.panes.memories import SearchPrompt

    async with opened(tmp_path) as (app, pilot):
        await pilot.click(SearchPrompt)
        await settle(pilot)
        box = app.pane("user").search_box
        assert box is not None and box.has_focus


@app_test
async def test_the_first_frame_has_the_header_and_the_hint(tmp_path: Path) -> None:
    from memtui.app.app import START_MESSAGE, MemtuiApp
    from memtui.app.widgets.status import StatusHeader

    app = demo_app(tmp_path)
    app._started = lambda: None  # what comes after the first frame does not run
    assert isinstance(app, MemtuiApp)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        header = app.screen.query_one(StatusHeader).render().plain
        assert "alice" in header and "project webshop" in header and "worker idle" in header
        status = str(app.screen.query_one("#status-message").render())
        assert START_MESSAGE in status


@app_test
async def test_the_header_counts_arrive_after_the_first_frame_and_move_nothing(
        tmp_path: Path) -> None:
    from memtui.app.app import MemtuiApp
    from memtui.app.widgets.pane_bar import PaneBar
    from memtui.app.widgets.status import StatusHeader

    app = demo_app(tmp_path)
    assert isinstance(app, MemtuiApp)
    started = app._started
    app._started = lambda: None  # what comes after the first frame waits, for now
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        header = screen.query_one(StatusHeader)
        first = header.render().plain
        assert "alice" in first and "worker idle" in first
        assert "gen+use" not in first and "inbox" not in first and "last" not in first
        assert "(3)" not in screen.query_one(PaneBar).render().plain
        parts = [header, screen.query_one(PaneBar), screen.query_one("#panes"),
                 screen.query_one("#status"), screen.query_one("#keys")]
        regions = [part.region for part in parts]
        started()
        await settle(pilot)
        text = header.render().plain
        assert "inbox 3" in text and "gen+use on" in text and "worker idle · last" in text
        assert "(3)" in screen.query_one(PaneBar).render().plain
        assert [part.region for part in parts] == regions  # nothing moved or resized


@app_test
async def test_the_header_counts_follow_a_change_and_keep_a_count_that_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.app.inbox_sources import InboxSources
    from memtui.app.widgets.status import StatusHeader
    from memtui.errors import StoreError

    threads = on_ui_thread(monkeypatch, InboxSources, "count")
    async with opened(tmp_path, size=(100, 24)) as (app, pilot):
        header = app.screen.query_one(StatusHeader)
        await press(pilot, "g")  # generate off: the header says so once the worker read it
        assert "gen off use on" in header.render().plain
        assert threads and not any(threads)  # every count off the UI thread

        def broken(self: InboxSources, engine: Any) -> int:
            raise StoreError("database is locked")

        monkeypatch.setattr(InboxSources, "count", broken)
        await press(pilot, "g")
        assert inbox_count(app) == 3  # the last good count stays
        assert "inbox 3" in header.render().plain and "gen+use on" in header.render().plain


@app_test
async def test_once_started_the_collector_runs_less_often(tmp_path: Path) -> None:
    import gc

    from memtui.app.app import GC_YOUNG_THRESHOLD

    before = gc.get_threshold()
    gc.set_threshold(700, *before[1:])
    try:
        async with opened(tmp_path, size=(100, 30)) as (app, pilot):
            assert gc.get_threshold()[0] == GC_YOUNG_THRESHOLD > 700
            assert gc.get_threshold()[1:] == before[1:]  # the older generations as they were
            assert gc.isenabled()
    finally:
        gc.set_threshold(*before)
