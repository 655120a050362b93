"""Gemini CLI's inbox patches in the Inbox pane (Pilot): rows beside memtui's pending
memories, the count, the diff; approve applies and reject dismisses, each after a confirm;
cancel changes nothing; a malformed patch or a symlink escape can only be dismissed; a file
changed between the read and the apply is refused with a clear message; the Gemini home is
read in worker threads; snapshots at 80x24 and 160x48.

The demo store has three pending memories for alice; the Gemini home built here adds one
patch to the project ``webshop`` (and, where a test says so, a malformed one)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pilot_harness
import pytest
from pilot_harness import SMALL, app_test, asks, opened, press, screen_text, settle, status_text

from memtui.app.modals.confirm import ConfirmModal
from memtui.app.panes.inbox import InboxPane
from memtui.engine.agents import gemini_review
from memtui.engine.demo import DEMO_NOW

PROJECT_PATH = "/home/alice/src/webshop"
"""Where projects.json says the project is (it need not exist: only shown)."""
INDEX = "- [Conventions](conventions.md) — naming and layout\n"
PATCH = ("--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n"
         " - [Conventions](conventions.md) — naming and layout\n"
         "+- CI runs on every push to main.\n")
BROKEN = "this is not a diff\n@@ nonsense @@\n"
PATCH_NAME = "webshop:private/0001-ci.patch"
BROKEN_NAME = "webshop:private/0002-broken.patch"
PENDING = 3
"""The demo store's pending memories (the rows above the Gemini ones)."""
PROPOSED = DEMO_NOW - timedelta(hours=2)


def _home(root: Path, *, broken: bool = False) -> Path:
    home = root / "gemini-home"
    memory = home / "tmp" / "webshop" / "memory"
    (memory / ".inbox" / "private").mkdir(parents=True)
    (home / "projects.json").write_text(f'{{"projects": {{"{PROJECT_PATH}": "webshop"}}}}\n')
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "conventions.md").write_text("Files are kebab-case.\n")
    patch = memory / ".inbox" / "private" / "0001-ci.patch"
    patch.write_text(PATCH)
    stamp = PROPOSED.timestamp()
    os.utime(patch, (stamp, stamp))
    if broken:
        bad = memory / ".inbox" / "private" / "0002-broken.patch"
        bad.write_text(BROKEN)
        os.utime(bad, (stamp + 60, stamp + 60))
    return home


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The Gemini CLI home with one patch (``_home``)."""
    return _home(tmp_path)


def _memory(home: Path) -> Path:
    return home / "tmp" / "webshop" / "memory"


def _patch(home: Path, name: str = "0001-ci.patch") -> Path:
    return _memory(home) / ".inbox" / "private" / name


def _pane(app: Any) -> InboxPane:
    pane = app.pane("inbox")
    assert isinstance(pane, InboxPane)
    return pane


def _keys(app: Any) -> list[str]:
    return [entry.key for entry in _pane(app).item_list.items]


async def _to_gemini(pilot: Any, row: int = 0) -> None:
    """Put the cursor on the Gemini row ``row`` (they come after memtui's own)."""
    await press(pilot, *(["j"] * (PENDING + row)))
    current = _pane(pilot.app).current()
    assert current is not None and current.origin == "gemini"


def _app(tmp_path: Path, home: Path, **config: Any) -> Any:
    """The demo app on the Inbox pane, ``home`` its Gemini CLI home."""
    return pilot_harness.demo_app(tmp_path, start_pane="inbox", gemini_home=home, **config)


@contextlib.asynccontextmanager
async def _on_patch(tmp_path: Path, home: Path, row: int = 0) -> AsyncIterator[tuple[Any, Any]]:
    """The app at 100x30 on the Inbox, the cursor on the Gemini row ``row``."""
    async with opened(_app(tmp_path, home), size=(100, 30)) as (app, pilot):
        await _to_gemini(pilot, row)
        yield app, pilot


@app_test
async def test_patches_are_rows_beside_pending_memories(tmp_path: Path) -> None:
    home = _home(tmp_path, broken=True)
    async with opened(_app(tmp_path, home), size=(120, 34)) as (app, pilot):
        assert _keys(app)[PENDING:] == [f"gemini:{PATCH_NAME}", f"gemini:{BROKEN_NAME}"]
        shown = screen_text(app)
        assert "8 Inbox (5)" in shown and "inbox 5" in shown  # the pane bar and the header
        assert "5 waiting (incl. 2 Gemini CLI patches)" in shown
        assert "MEMORY.md: - CI runs on every push to main." in shown
        assert "broken" in shown and "malformed patch" in shown
        await _to_gemini(pilot)
        shown = screen_text(app)
        assert PATCH_NAME in shown and f"webshop ({PROJECT_PATH})" in shown
        assert "tmp/webshop/memory/MEMORY.md" in shown
        assert "+- CI runs on every push to main." in shown
        assert "@@ -1 +1,2 @@" in shown


@app_test
async def test_approve_applies_after_a_confirm_that_shows_the_diff(
        tmp_path: Path, home: Path) -> None:
    async with _on_patch(tmp_path, home) as (app, pilot):
        question = await asks(pilot, "a")
        assert f"Apply {PATCH_NAME}?" in question
        assert "+- CI runs on every push to main." in question
        assert (_memory(home) / "MEMORY.md").read_text() == INDEX  # nothing before the yes
        await press(pilot, "y")
        assert (_memory(home) / "MEMORY.md").read_text() == \
            INDEX + "- CI runs on every push to main.\n"
        assert not _patch(home).exists()
        assert f"Applied {PATCH_NAME}" in status_text(app)
        assert f"gemini:{PATCH_NAME}" not in _keys(app)
        assert "8 Inbox (3)" in screen_text(app)


@app_test
async def test_cancel_leaves_the_files_as_they_were(tmp_path: Path, home: Path) -> None:
    before = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    async with _on_patch(tmp_path, home) as (app, pilot):
        for key in ("a", "x"):
            await asks(pilot, key)
            await press(pilot, "n")
            assert not isinstance(app.screen, ConfirmModal)
            assert "Nothing was changed" in status_text(app)
        assert {path: path.read_bytes() for path in home.rglob("*") if path.is_file()} == before
        assert f"gemini:{PATCH_NAME}" in _keys(app)


@app_test
async def test_reject_dismisses_the_patch_unapplied(tmp_path: Path, home: Path) -> None:
    async with _on_patch(tmp_path, home) as (app, pilot):
        await asks(pilot, "x")
        assert f"Dismiss {PATCH_NAME}?" in screen_text(app)
        await press(pilot, "y")
        assert not _patch(home).exists()
        assert (_memory(home) / "MEMORY.md").read_text() == INDEX
        assert f"Dismissed {PATCH_NAME}" in status_text(app)
        assert "8 Inbox (3)" in screen_text(app)


@app_test
async def test_a_malformed_patch_can_only_be_dismissed(tmp_path: Path) -> None:
    home = _home(tmp_path, broken=True)
    async with _on_patch(tmp_path, home, 1) as (app, pilot):
        entry = _pane(app).current()
        assert entry is not None and entry.problem is not None
        assert "malformed patch" in entry.problem and "\n" not in entry.problem
        assert "Cannot be applied" in screen_text(app)
        await press(pilot, "a")
        assert not isinstance(app.screen, ConfirmModal)
        assert "cannot be applied" in status_text(app) and "x dismisses it" in status_text(app)
        await press(pilot, "e")
        assert "cannot be edited" in status_text(app)
        assert _patch(home, "0002-broken.patch").exists()
        await asks(pilot, "x")
        await press(pilot, "y")
        assert not _patch(home, "0002-broken.patch").exists()
        assert _patch(home).exists()  # the good one waits on
        assert f"Dismissed {BROKEN_NAME}" in status_text(app)


@app_test
async def test_a_file_changed_between_read_and_apply_is_refused(tmp_path: Path, home: Path) -> None:
    async with _on_patch(tmp_path, home) as (app, pilot):
        await asks(pilot, "a")
        edited = INDEX + "- Gemini CLI wrote this meanwhile.\n"
        (_memory(home) / "MEMORY.md").write_text(edited)
        await press(pilot, "y")
        status = status_text(app)
        assert "tmp/webshop/memory/MEMORY.md changed since the inbox was read" in status
        assert "nothing was written" in status
        assert (_memory(home) / "MEMORY.md").read_text() == edited
        assert _patch(home).read_text() == PATCH
        assert f"gemini:{PATCH_NAME}" in _keys(app)  # read again: decide again


@app_test
async def test_a_patch_whose_file_leads_outside_the_home_is_never_applied(
        tmp_path: Path, home: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(INDEX)
    (_memory(home) / "MEMORY.md").unlink()
    (_memory(home) / "MEMORY.md").symlink_to(outside)
    async with _on_patch(tmp_path, home) as (app, pilot):
        entry = _pane(app).current()
        assert entry is not None and entry.problem is not None and "symlink" in entry.problem
        await press(pilot, "a")
        assert not isinstance(app.screen, ConfirmModal)
        assert outside.read_text() == INDEX


@app_test
async def test_a_bulk_decision_over_both_sources_asks_once(tmp_path: Path, home: Path) -> None:
    async with opened(_app(tmp_path, home), size=(100, 30)) as (app, pilot):
        await press(pilot, "j", "j", "space")  # the imported user memory, then the patch
        await press(pilot, "space")
        assert "2 marked" in screen_text(app)
        question = await asks(pilot, "a")
        assert "Approve 2 rows?" in question and "+- CI runs on every push to main." in question
        await press(pilot, "y")
        assert "Approved 2" in status_text(app)
        assert not _patch(home).exists()
        assert "8 Inbox (2)" in screen_text(app)


@app_test
async def test_the_gemini_home_is_read_in_worker_threads(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real_read = gemini_review.read_gemini_inbox

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(gemini_review, "read_gemini_inbox", spy)
    async with opened(_app(tmp_path, home), size=(100, 30)) as (app, pilot):
        await press(pilot, "2", "8")  # shown again: read again
    main = threading.main_thread().name
    assert len(threads) >= 3 and main not in threads


@app_test
async def test_no_gemini_home_adds_nothing(tmp_path: Path) -> None:
    no_home = tmp_path / "no-such-home"
    async with opened(_app(tmp_path, no_home), size=(100, 30)) as (app, pilot):
        assert len(_keys(app)) == PENDING
        assert "Gemini CLI patch" not in screen_text(app)


@app_test
async def test_a_patch_applied_in_the_agents_pane_leaves_the_count(
        tmp_path: Path, home: Path) -> None:
    async with opened(tmp_path, start_pane="agents", gemini_home=home,
                      size=(120, 34)) as (app, pilot):
        assert pilot_harness.inbox_count(app) == PENDING + 1
        rows = app.pane("agents").item_list.items  # type: ignore[attr-defined]
        index = next(number for number, row in enumerate(rows) if row.key == "webshop")
        await asks(pilot, *(["j"] * index), "D")
        await press(pilot, "y")
        assert not _patch(home).exists()
        assert pilot_harness.inbox_count(app) == PENDING


@pytest.mark.parametrize("size", ["80x24", "160x48"])
def test_inbox_with_a_gemini_patch_snapshot(snap_compare: Any, tmp_path: Path,
                                            size: str, home: Path) -> None:
    app = _app(tmp_path, home)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await _to_gemini(pilot)
        await settle(pilot, animations=True)

    assert snap_compare(app, terminal_size={"80x24": SMALL, "160x48": pilot_harness.WIDE}[size],
                        run_before=run_before)


def test_apply_question_snapshot(snap_compare: Any, tmp_path: Path, home: Path) -> None:
    app = _app(tmp_path, home)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await _to_gemini(pilot)
        await pilot.press("a")
        await settle(pilot, animations=True)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)
