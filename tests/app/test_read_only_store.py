"""A read-only store file opens read-only in the app (issue 19): browsing works, every
write is refused with the reason, nothing is written to the file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from pilot_harness import app_test, opened, press, screen_text, status_text

from memtui.app.modals.editor import MemoryEditor
from memtui.app.widgets.key_bar import KeyBar
from memtui.engine.api import Engine
from memtui.engine.demo import build_demo_store
from memtui.errors import StoreError
from memtui.store.database import open_store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def read_only_demo(tmp_path: Path):
    path = tmp_path / "demo.db"
    build_demo_store(path).close()
    os.chmod(path, 0o444)
    yield path
    os.chmod(path, 0o644)


def test_a_read_only_file_opens_read_only_when_allowed(read_only_demo: Path) -> None:
    before = _digest(read_only_demo)
    with pytest.raises(StoreError, match="read-only"):
        open_store(read_only_demo)  # scripts still get the plain refusal
    store = open_store(read_only_demo, allow_read_only=True)
    try:
        assert store.read_only
        engine = Engine(store, "alice")
        assert engine.identity.list_memories(limit=5)
        assert "read-only" in engine.identity.write_refusal(None)
        with pytest.raises(StoreError, match="read-only: browsing works"):
            engine.identity.add_memory("Cannot be written.")
        with pytest.raises(StoreError, match="read-only"):
            engine.settings.set_many({"generate_memories": 1})
    finally:
        store.close()
    assert _digest(read_only_demo) == before


def test_a_writable_file_is_not_read_only(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db", allow_read_only=True)
    try:
        assert not store.read_only
    finally:
        store.close()


@app_test
async def test_the_app_browses_a_read_only_store_and_says_why_writes_fail(
        read_only_demo: Path, tmp_path: Path) -> None:
    store = open_store(read_only_demo, allow_read_only=True)
    async with opened(tmp_path, store=store) as (app, pilot):
        assert app.current_pane().memory_list.count == 8
        assert "Opened read-only" in status_text(app)
        header = app.get_screen_main().header_info()
        assert header.store_path.endswith("(read-only)")  # where the width allows
        offered = {item.description for item in app.screen.query_one(KeyBar).items()}
        assert not offered & {"note", "edit", "forget"}
        await press(pilot, "n")
        assert not isinstance(app.screen, MemoryEditor)
        assert "read-only" in status_text(app)
        await press(pilot, "g")
        assert "read-only" in status_text(app)
        await press(pilot, "5")
        assert "tasks" in screen_text(app)
    store.close()
