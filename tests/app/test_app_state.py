"""The app's state as reactives (#14 item 8): a pane re-reads by one rule (``stale`` and
``shown``), the selection is the History pane's target, and a forget's question is read
off the UI thread."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pilot_harness import app_test, asks, demo_app, opened, press, settle, status_text
from textual.widgets import Input

from memtui.app.modals.confirm import ConfirmModal
from memtui.engine.identity import IdentityApi


def _count_reads(app: Any, reads: Counter[str]) -> None:
    """Count each mounted pane's ``refresh_data`` calls in ``reads``."""
    for pane in app.panes():
        original = pane.refresh_data

        def counted(*args: Any, _pane: Any = pane, _original: Any = original,
                    **kwargs: Any) -> None:
            reads[_pane.PANE_ID] += 1
            _original(*args, **kwargs)

        pane.refresh_data = counted


@app_test
async def test_a_store_change_rereads_the_pane_on_screen_and_the_others_when_shown(
        tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        await press(pilot, "5", "2")  # the Log pane is mounted, then hidden
        reads: Counter[str] = Counter()
        _count_reads(app, reads)
        app.store_changed()
        await settle(pilot)
        assert reads == Counter(user=1)  # only the pane on screen, once
        assert app.pane("log").stale and not app.pane("user").stale
        assert not app.pane("log").display
        await press(pilot, "5")
        assert reads == Counter(user=1, log=1) and not app.pane("log").stale
        assert app.pane("log").display and not app.pane("user").display
        await press(pilot, "2")
        assert reads == Counter(user=1, log=1)  # nothing changed since: no read


@app_test
async def test_a_new_project_reads_the_project_pane_once(tmp_path: Path) -> None:
    async with opened(tmp_path, "3") as (app, pilot):
        reads: Counter[str] = Counter()
        _count_reads(app, reads)
        app.current_pane().set_project("infra")  # what choosing it with p does
        await settle(pilot)
        assert reads == Counter(project=1)
        pane = app.current_pane()
        assert pane.memory_list.filter is not None
        assert pane.memory_list.filter.project == "infra"


@app_test
async def test_the_selection_is_the_history_target_until_one_is_asked_for(
        tmp_path: Path) -> None:
    async with opened(tmp_path) as (app, pilot):
        memory_list = app.pane("user").memory_list
        first = memory_list.current()
        await press(pilot, "4")
        history = app.current_pane()
        assert history.PANE_ID == "history" and history.memory_id == first.id
        assert len(history.versions) == 1
        await press(pilot, "2", "j")  # another memory selected while History is hidden
        second = memory_list.current()
        assert app.selected_memory_id == second.id and history.stale
        await press(pilot, "4")  # History follows the selection, no h needed
        assert history.memory_id == second.id and len(history.versions) == 3
        app.selected_memory_id = first.id  # a selection made elsewhere, History on screen
        await settle(pilot)
        assert history.memory_id == first.id and not history.stale
        app.history_memory_id = second.id  # asked for (h): the selection no longer leads
        await settle(pilot)
        assert history.memory_id == second.id
        app.selected_memory_id = first.id
        await settle(pilot)
        assert history.memory_id == second.id and not history.stale


@app_test
async def test_a_forget_reads_its_question_off_the_ui_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = demo_app(tmp_path)
    calls: list[tuple[str, bool]] = []

    def spied(name: str) -> None:
        original = getattr(IdentityApi, name)

        def spy(self: IdentityApi, *args: Any, **kwargs: Any) -> Any:
            calls.append((name, threading.current_thread() is threading.main_thread()))
            return original(self, *args, **kwargs)

        monkeypatch.setattr(IdentityApi, name, spy)

    for name in ("get_memory", "write_refusal", "chain_size"):
        spied(name)
    async with opened(app) as (app, pilot):
        calls.clear()
        await asks(pilot, "j", "d")
        body = str(app.screen.query_one(".dialog-body").render())
        assert "indentation" in body and "3 versions in all" in body
        assert {name for name, _main in calls} == {"get_memory", "write_refusal",
                                                   "chain_size"}
        assert not [call for call in calls if call[1]]  # none on the UI thread


@app_test
async def test_a_refused_forget_counts_nothing(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    app = demo_app(tmp_path, user="carol")  # carol only reads webshop
    counted: list[str] = []
    original = IdentityApi.chain_size

    def spy(self: IdentityApi, memory_id: str) -> int:
        counted.append(memory_id)
        return original(self, memory_id)

    monkeypatch.setattr(IdentityApi, "chain_size", spy)
    async with opened(app, "3", "d") as (app, pilot):
        assert not isinstance(app.screen, ConfirmModal)
        assert "Read only: you may read project 'webshop' but not write" in status_text(app)
        assert counted == []
        await press(pilot, "colon")
        app.screen.query_one("#command-line", Input).value = "/memory forget no-such-memory"
        await press(pilot, "enter")
        await settle(pilot)
        assert "no-such-memory" in status_text(app) and counted == []
