"""Pilot tests: live refresh from another connection, text safety, the keymap file, the
worker (progress, stopping on quit), header state."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from backends import elsewhere, plant_legacy_text
from pilot_harness import app_test, asks, demo_app, opened, press, screen_text, settle, status_text

from memtui.app.modals.confirm import ConfirmModal
from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.store.database import open_store

HOSTILE = "[@click=app.quit]Click me[/] [bold red]loud[/] \x1b[2J\x1b]52;c;SGk=\x07 end"
LIVE_WAIT_ROUNDS = 40
LIVE_WAIT_STEP = 0.05
HOLD_TIMEOUT_S = 120
"""How long a held worker waits for quit before going on (a safety net, never reached)."""


async def _until_count(pilot: Any, memory_list: Any, count: int) -> None:
    """Let the app poll until ``memory_list`` holds ``count`` rows (at most
    ``LIVE_WAIT_ROUNDS`` polls), then check it does."""
    for _ in range(LIVE_WAIT_ROUNDS):
        await pilot.pause(LIVE_WAIT_STEP)
        await settle(pilot)
        if memory_list.count == count:
            break
    assert memory_list.count == count


@app_test
async def test_a_write_from_another_connection_shows_up_keeping_selection(
        tmp_path: Path) -> None:
    async with opened(tmp_path, poll_interval=LIVE_WAIT_STEP) as (app, pilot):
        memory_list = app.pane("user").memory_list
        await press(pilot, "j", "j")
        selected = memory_list.current().id
        elsewhere(app.store.path, "alice",
                   lambda alice: alice.identity.add_memory("Written by another process.", "fact"))
        await _until_count(pilot, memory_list, 9)
        assert memory_list.current().id == selected  # the selection stays on its memory
        assert memory_list.cursor == 3
        assert "Written by another process." in screen_text(app)


@pytest.mark.postgres
@app_test
async def test_a_write_from_another_machine_shows_up_on_postgresql(tmp_path: Path,
                                                                    pg_url: str) -> None:
    """The app on a PostgreSQL store; another store (another machine) writes: the change
    message brings it in, the selection stays."""
    async with opened(tmp_path, store=build_demo_store(pg_url),
                      poll_interval=LIVE_WAIT_STEP) as (app, pilot):
        memory_list = app.pane("user").memory_list
        await press(pilot, "j", "j")
        selected = memory_list.current().id
        elsewhere(pg_url, "alice",  # its own connections, as on another machine
                   lambda alice: alice.identity.add_memory("Written on another machine.", "fact"))
        await _until_count(pilot, memory_list, 9)
        assert memory_list.current().id == selected
        assert "Written on another machine." in screen_text(app)
    app.store.close()


@app_test
async def test_a_forget_elsewhere_moves_the_cursor_to_a_neighbour(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = app.pane("user").memory_list
        await press(pilot, "j", "j")
        doomed = memory_list.current().id
        elsewhere(app.store.path, "alice", lambda alice: alice.identity.forget(doomed))
        app._poll()  # what the timer does
        await settle(pilot)
        assert memory_list.count == 7
        assert memory_list.cursor == 2
        assert memory_list.current().id != doomed


@app_test
async def test_the_running_app_holds_no_reader_that_keeps_forgotten_text(
        tmp_path: Path) -> None:
    """A forget from another process while the app shows (and polls) the list erases the
    text from the files: the app's connections hold no read transaction while idle."""
    async with opened(tmp_path, "j", "j", poll_interval=LIVE_WAIT_STEP) as (app, pilot):
        await pilot.pause(LIVE_WAIT_STEP * 2)
        doomed = app.pane("user").memory_list.current()
        result = elsewhere(app.store.path, "alice", lambda alice: alice.identity.forget(doomed.id))
        assert result.purged, result.purge_reason
        data = b"".join(Path(str(app.store.path) + suffix).read_bytes()
                        for suffix in ("", "-wal")
                        if Path(str(app.store.path) + suffix).exists())
        assert doomed.content.encode() not in data


@app_test
@pytest.mark.parametrize("notice", ["poll", "store_changed", "pane"])
async def test_a_store_change_while_the_app_shuts_down_reads_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notice: str) -> None:
    """Shutting down removes a pane's parts before the pane: a change noticed in between
    (the data-version poll fires, the app hears the store changed, or a pane alone is
    marked stale) reads nothing: no load is asked of the list's loader and no worker starts
    (the pane stays stale)."""
    from memtui.app.widgets.memory_list import MemoryList

    app = demo_app(tmp_path)
    seen: list[tuple[bool, int, int]] = []
    unmount = MemoryList.on_unmount

    def change_noticed_while_removed(widget: MemoryList) -> None:
        try:
            if app.is_running:  # a pane switch, not the shutdown's removal
                return
            elsewhere(app.store.path, "alice",  # a real change, as another process makes it
                       lambda alice: alice.identity.add_memory("Written during the quit.", "fact"))
            memory_list = app.pane("user").memory_list
            workers, loads = len(app.workers), memory_list.loads_requested
            if notice == "poll":
                app._poll()
            elif notice == "store_changed":
                app.store_changed()
            else:
                app.pane("user").stale = True
            seen.append((app.pane("user").stale, len(app.workers) - workers,
                         memory_list.loads_requested - loads))
        finally:
            unmount(widget)

    monkeypatch.setattr(MemoryList, "on_unmount", change_noticed_while_removed)
    async with opened(app) as (app, pilot):
        assert app.current_pane() is app.pane("user") and not app.pane("user").stale
        await pilot.press("q")
    marked = notice == "pane"  # the app marks nothing once it stops running
    assert seen and all(seen_one == (marked, 0, 0) for seen_one in seen), seen


@app_test
async def test_hostile_text_is_shown_literally_and_does_nothing(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    Engine(app.store, "alice").identity.add_memory("hostile-mark", "fact")
    plant_legacy_text(app.store, "hostile-mark", HOSTILE)
    async with opened(app, size=(120, 30)) as (app, pilot):
        shown = screen_text(app)
        assert "[@click=app.quit]Click me[/] [bold red]loud[/]" in shown
        assert "\\x1b[2J" in shown and "\x1b" not in shown
        await pilot.click("#user-list", offset=(20, 0))  # click the hostile row
        await pilot.click("#user-preview", offset=(5, 1))
        await settle(pilot)
        assert app.is_running
        await press(pilot, "enter")  # the detail view
        assert "[@click=app.quit]" in screen_text(app)
        await pilot.click(".dialog-body", offset=(2, 0))
        await press(pilot, "escape", "h")  # history
        assert "[@click=app.quit]" in screen_text(app)
        svg = app.export_screenshot()
        assert "\x1b" not in svg
        assert app.is_running
    assert app.return_code in (None, 0)


@app_test
async def test_hostile_command_text_in_errors_and_notes(tmp_path: Path) -> None:
    async with opened(tmp_path, "colon", size=(120, 30)) as (app, pilot):
        line = app.screen.query_one("#command-line")
        line.value = "[@click=app.quit] \x1b[2J"
        await press(pilot, "enter")
        assert "[@click=app.quit]" in status_text(app)
        line.value = f"/memory note {HOSTILE}"
        await press(pilot, "enter")
        assert app.pane("user").memory_list.current().content.startswith("[@click=app.quit]")
        assert app.is_running


@app_test
async def test_keymap_file_rebinds_by_id(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"memory.forget" = "x"\n"no.such.binding" = "z"\n')
    async with opened(tmp_path, load_keymap=True, keymap_path=keymap) as (app, pilot):
        assert any("no.such.binding" in problem for problem in app.keymap_problems)
        await press(pilot, "d")
        assert not isinstance(app.screen, ConfirmModal)
        await asks(pilot, "x")


@app_test
async def test_a_broken_keymap_file_is_reported_not_fatal(tmp_path: Path) -> None:
    keymap = tmp_path / "keymap.toml"
    keymap.write_text("this is [not toml")
    async with opened(tmp_path, load_keymap=True, keymap_path=keymap) as (app, pilot):
        assert "not valid TOML" in status_text(app)
        await asks(pilot, "d")


def _with_tasks(folder: Path, count: int) -> Any:
    """The demo app with ``count`` more finished tasks of alice's (work for a backfill)."""
    app = demo_app(folder)
    engine = Engine(app.store, "alice")
    for number in range(count):
        engine.tasks.add_task("webshop", f"Task number {number}", "", "r" * 300,
                              "2026-11-20T10:00:00Z", "2026-11-20T10:30:00Z")
    return app


@app_test
async def test_backfill_reports_progress(tmp_path: Path) -> None:
    async with opened(_with_tasks(tmp_path, 120)) as (app, pilot):
        app.runner.start("backfill")
        assert "running backfill" in str(app.screen.query_one("#header").render())
        await settle(pilot)
        state = app.runner.state
        assert state.last_job == "backfill" and state.last_error is None
        assert state.total and state.done == state.total >= 120
        run = next(entry for entry in Engine(app.store, "alice").identity.audit(20)
                   if entry.action == "auto_memory_run")
        scanned, extracted = run.detail["scanned"], run.detail["extracted"]
        assert scanned >= 120 and extracted > 0
        assert f"{scanned} scanned, {extracted} new," in status_text(app)
        assert "idle · last" in str(app.screen.query_one("#header").render())


@app_test
async def test_quit_during_a_backfill_stops_between_transactions(tmp_path: Path) -> None:
    """The worker is held after its first transaction until quit asks it to stop: it must
    then stop before the next one, with exactly one batch written (not run to the end, not
    part of a batch)."""
    from memtui.engine.extraction import BATCH_SIZE

    app = _with_tasks(tmp_path, 3 * BATCH_SIZE)
    before = len(Engine(app.store, "alice").extraction.log(10_000))
    runner = app.runner
    first_batch_done = threading.Event()
    post_progress = runner._post_progress

    def hold_after_the_first_batch(done: int, total: int | None) -> None:
        post_progress(done, total)
        first_batch_done.set()
        runner._stop.wait(HOLD_TIMEOUT_S)  # the app's quit sets it

    runner._post_progress = hold_after_the_first_batch  # type: ignore[method-assign]
    async with opened(app) as (app, pilot):
        app.runner.start("backfill")
        while not first_batch_done.is_set():
            await pilot.pause(0.01)
        await pilot.press("q")
    assert runner._stop.is_set()
    for worker in list(app.workers):
        await worker.wait()
    check = open_store(app.store.path)
    try:
        engine = Engine(check, "alice")
        runs = [entry for entry in engine.identity.audit(20)
                if entry.action == "auto_memory_run" and entry.detail.get("kind") == "backfill"]
        logged = len(engine.extraction.log(10_000))
    finally:
        check.close()
    assert len(runs) == 1 and runs[0].detail["stopped"] is True
    assert runs[0].detail["scanned"] == BATCH_SIZE  # one whole transaction, then the stop
    assert 0 < logged - before <= BATCH_SIZE  # (a rescan updates a task's log row)


@app_test
async def test_worker_busy_is_said(tmp_path: Path) -> None:
    async with opened(_with_tasks(tmp_path, 60)) as (app, pilot):
        app.runner.start("backfill")
        app.runner.start("round")
        assert "busy" in status_text(app)
        await settle(pilot)


@app_test
async def test_header_shows_user_project_store_and_worker(tmp_path: Path) -> None:
    async with opened(tmp_path, size=(120, 24)) as (app, pilot):
        header = str(app.screen.query_one("#header").render())
        for part in ("alice", "project webshop", "~/demo/memtui.db", "worker idle · last"):
            assert part in header, part


@app_test
async def test_a_correction_elsewhere_keeps_the_cursor_on_the_new_version(
        tmp_path: Path) -> None:
    """Another process corrects the selected memory: the cursor follows its successor (the
    new version sorts first, by its time), not whichever row took the old one's place."""
    async with opened(tmp_path) as (app, pilot):
        memory_list = app.pane("user").memory_list
        await press(pilot, "j", "j", "j")
        old = memory_list.current()
        new = elsewhere(app.store.path, "alice",
                         lambda alice: alice.identity.supersede(old.id, "Corrected elsewhere."))
        app._poll()  # what the timer does
        await settle(pilot)
        assert memory_list.count == 8
        assert memory_list.current().id == new.id
        assert app.current_memory_id() == new.id


@app_test
async def test_header_says_whether_generate_and_use_are_on(tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):

        def header() -> str:
            return str(app.screen.query_one("#header").render())

        assert "gen+use on" in header()
        await press(pilot, "g")
        assert "gen off use on" in header()
        await press(pilot, "u")
        assert "gen+use off" in header()
        # the worker's state and its last run still fit at 80 columns
        assert "…" not in header() and header().rstrip().endswith("worker idle · last 11-06 06:03")
