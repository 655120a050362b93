"""The Log pane is a paged list to the very first task (issue 19, defect 4): keyset pages
of the extraction log from the store, never a silent cut at 1,000 rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pilot_harness import app_test, demo_app, on_ui_thread, opened, press, screen_text, settle

from memtui.app.widgets.log_list import LogSource
from memtui.engine.api import Engine
from memtui.errors import InvalidInput
from memtui.store.database import Store
from memtui.store.models import LogEntry, PageCursor
from memtui.store.timeutil import format_time

ROWS = 3_210
START = datetime(2025, 1, 1, tzinfo=UTC)
OUTCOMES = ("skipped", "extracted", "skipped", "error")


def _fill_log(store: Store, user: str, rows: int, prefix: str = "task") -> None:
    """``rows`` log rows of ``user`` straight through the store, one transaction (every
    third shares its time with the next: ties are ordered by task id)."""
    with store.transaction():
        for number in range(rows):
            store.tasks.upsert_log(LogEntry(
                task_id=f"{prefix}_{number:06d}", user=user, project="webshop",
                outcome=OUTCOMES[number % 4], reason="too_short" if number % 4 != 1 else None,
                memory_id=None, forced=False,
                at=format_time(START + timedelta(minutes=number - number % 3 // 2))))


def test_log_pages_read_every_row_in_order(store: Store) -> None:
    _fill_log(store, "alice", 1_234)
    _fill_log(store, "bob", 50, prefix="bobtask")
    engine = Engine(store, "alice")
    reference = engine.extraction.log(10_000)
    assert len(reference) == engine.extraction.log_count() == 1_234
    source = LogSource(engine, page_size=37, max_pages=3)
    assert source.rows(0, 2_000) == reference  # by keyset, page after page
    backwards = LogSource(engine, page_size=41, max_pages=2)
    backwards.count_rows()
    tail = backwards.rows(1_200, 1_234)  # read from the bottom, by position
    assert tail == reference[1_200:]
    assert reference[-1].task_id == "task_000000"  # the very first task
    edge = PageCursor(created_at=reference[500].at, id=reference[500].task_id)
    assert engine.extraction.log(5, after=edge) == reference[501:506]
    assert engine.extraction.log(5, before=edge) == reference[495:500]
    assert engine.extraction.log_at(3, 2, from_end=True) == reference[-5:-3]
    with pytest.raises(InvalidInput):
        engine.extraction.log_at(-1, 10)


@app_test
async def test_the_log_pane_scrolls_to_the_very_first_task(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    engine = Engine(app.store, "alice")
    _fill_log(app.store, "alice", ROWS)
    total = engine.extraction.log_count()
    assert total > 1_000 + ROWS // 2
    async with opened(app, "5") as (app, pilot):
        pane = app.current_pane()
        log_list = pane.item_list
        assert log_list.count == total
        assert f"{total:,} tasks" in screen_text(app)
        assert len(log_list.source.cached_pages()) <= 3  # never loaded whole
        await press(pilot, "G")
        assert log_list.cursor == total - 1
        assert log_list.current().task_id == "task_000000"
        assert "task_000000" in screen_text(app)
        await press(pilot, "pageup")
        assert log_list.current() is not None
        await press(pilot, "home")
        assert log_list.current() == engine.extraction.log(1)[0]
        log_list.move_cursor(2_500)  # a jump into the middle: read, then drawn
        await settle(pilot)
        assert log_list.current() == engine.extraction.log(2_501)[-1]


@app_test
async def test_far_log_pages_use_the_shared_worker_and_a_failure_is_not_retried_at_every_frame(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from memtui.app.widgets import paged_source
    from memtui.app.widgets.log_list import LogList
    from memtui.app.widgets.memory_list import MemoryList
    from memtui.app.widgets.paged_list import PagedLineList

    # one far-page worker for both big lists, not a copy in each
    for list_class in (LogList, MemoryList):
        assert issubclass(list_class, PagedLineList)
        for name in ("_fetch_far", "_request", "rows_wanted", "on_paged_line_list_pages_fetched"):
            assert name not in list_class.__dict__, (list_class, name)
    monkeypatch.setattr(paged_source, "CHEAP_OFFSET_ROWS", 0)
    app = demo_app(tmp_path)
    engine = Engine(app.store, "alice")
    _fill_log(app.store, "alice", ROWS)
    fetch = LogSource.fetch
    fetched = on_ui_thread(monkeypatch, LogSource, "fetch")
    async with opened(app, "5") as (app, pilot):
        log_list = app.current_pane().item_list
        middle = log_list.count // 2
        fetched.clear()
        log_list.move_cursor(middle)
        assert log_list.row_text(middle, 60) is None  # "…" until the worker is back
        await settle(pilot)
        assert False in fetched  # the far pages were read by a worker thread
        assert log_list.current() == engine.extraction.log(middle + 1)[-1]
        stale = log_list._generation - 1  # an older load's pages and errors are dropped
        log_list.post_message(LogList.PagesFetched(stale, {0: []}))
        log_list.post_message(LogList.PagesFailed(stale, "old error"))
        await settle(pilot)
        assert log_list.error is None and log_list.row_text(0, 60) is not None

        far_reads: list[int] = []

        def broken(self: LogSource, plan: paged_source.PagePlan) -> list[LogEntry]:
            if threading.current_thread() is threading.main_thread():
                return fetch(self, plan)  # the cheap reads while drawing still work
            far_reads.append(plan.page)
            raise OSError("disk I/O error")

        monkeypatch.setattr(LogSource, "fetch", broken)
        log_list.move_cursor(middle // 2)
        await settle(pilot)
        asked = list(far_reads)
        for _ in range(5):  # frames that draw the missing rows again
            log_list.refresh()
            await settle(pilot)
        assert log_list.error == "disk I/O error"
        assert len(asked) == 1 and far_reads == asked  # asked once, not at every frame
        assert log_list.row_text(middle // 2, 60) is None
