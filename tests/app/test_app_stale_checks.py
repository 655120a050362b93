"""Stale-memory checks in the app: the header's Inbox count reuses its last stale count
for a while (not past a write the app makes) and never runs two checks at once; the
memories pane's checks of the rows on screen walk the project's folder once however often
the cursor moves."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from pilot_harness import DEMO_USER, app_test, demo_app, demo_store, press, settle

from memtui.app import inbox_sources
from memtui.app.inbox_sources import StaleMemories
from memtui.app.panes.memories import MemoriesPane
from memtui.engine import citations
from memtui.engine.api import Engine
from memtui.engine.staleness import StalenessApi

WAIT_ROUNDS = 400
"""Pauses a test waits for the check's message (each 50 ms; generous for a busy machine)."""


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The actors of each ``StalenessApi.check`` (a spy)."""
    seen: list[str] = []
    real = StalenessApi.check

    def spy(self: StalenessApi, memories: list[object]) -> dict[str, tuple[str, ...]]:
        seen.append(self.actor)
        return real(self, memories)  # type: ignore[arg-type]

    monkeypatch.setattr(StalenessApi, "check", spy)
    return seen


@pytest.fixture
def counted(engine_for: Callable[[str], Engine],
            tmp_path: Path) -> tuple[Engine, StaleMemories, list[float]]:
    """alice with one stale memory, a stale source on a clock (the list) that counted it."""
    alice = engine_for("alice")
    alice.identity.create_project("shop", root=str(tmp_path))
    alice.identity.add_memory("The loader lives in src/loader.py", "fact", "shop")
    now = [0.0]
    source = StaleMemories(clock=lambda: now[0])
    assert source.count(alice) == 1
    return alice, source, now


def test_the_stale_count_is_reused_until_it_is_old(
        counted: tuple[Engine, StaleMemories, list[float]], checks: list[str],
        engine_for: Callable[[str], Engine]) -> None:
    alice, source, now = counted
    calls = len(checks)
    alice.identity.add_memory("Run make deploy to ship", "fact", "shop")
    assert source.count(alice) == 1  # the last count, nothing checked
    assert len(checks) == calls
    now[0] = inbox_sources.STALE_COUNT_SECONDS
    assert source.count(alice) == 2
    assert len(checks) > calls
    assert source.count(engine_for("bob")) == 0  # another actor: never alice's count


def test_a_count_while_another_counts_checks_nothing(
        counted: tuple[Engine, StaleMemories, list[float]], checks: list[str]) -> None:
    alice, source, now = counted
    now[0] = inbox_sources.STALE_COUNT_SECONDS
    calls = len(checks)
    with source._counting:  # another thread is counting
        assert source.count(alice) == 1
    assert len(checks) == calls


def test_a_write_of_the_app_is_counted_at_once(
        counted: tuple[Engine, StaleMemories, list[float]], checks: list[str]) -> None:
    alice, source, _now = counted
    entries = source.entries(alice)
    calls = len(checks)
    assert source.count(alice) == 1 and len(checks) == calls
    source.approve(alice, entries)  # kept: it still cites a file that is gone
    inbox_sources.inbox_sources().memories_changed()  # another app's sources: not this one's
    assert source.count(alice) == 1 and len(checks) == calls
    inbox_sources.InboxSources((source,)).memories_changed()  # what the app does on a write
    assert source.count(alice) == 1 and len(checks) > calls
    source.reject(alice, entries)
    assert source.count(alice) == 1  # the count from before, until the app says it wrote
    inbox_sources.InboxSources((source,)).memories_changed()
    assert source.count(alice) == 0  # the clock has not moved: not the count from before


def test_a_count_after_a_write_waits_for_the_one_under_way_and_counts_again(
        counted: tuple[Engine, StaleMemories, list[float]]) -> None:
    alice, source, _now = counted
    memory = alice.identity.list_memories(project="shop", limit=1)[0]
    answers: list[int] = []
    with source._counting:  # a count under way, begun before the write
        inbox_sources.InboxSources((source,)).memories_changed()
        alice.identity.forget(memory.id)
        after = threading.Thread(target=lambda: answers.append(source.count(alice)))
        after.start()
        after.join(0.2)
        assert after.is_alive() and not answers  # not the count from before the write
    after.join()
    assert answers == [0]


@app_test
async def test_moving_over_the_rows_walks_the_folder_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, symbol_walks: list[Path]) -> None:
    monkeypatch.setattr(citations, "INDEX_TTL_SECONDS", 3600.0)  # however slow the machine
    store = demo_store(tmp_path)
    root = tmp_path / "tool"
    root.mkdir()
    (root / "app.py").write_text("def helper_0():\n    pass\n")
    Engine(store, DEMO_USER).identity.create_project("tool", root=str(root))
    gone = [Engine(store, DEMO_USER).identity.add_memory(f"Call helper_{n}() to start", "fact",
                                                          "tool") for n in range(1, 4)]
    app = demo_app(tmp_path, project="tool", store=store)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        pane = app.pane("project")
        assert isinstance(pane, MemoriesPane)
        for _round in range(WAIT_ROUNDS):
            if pane.memory_list.stale:
                break
            await pilot.pause(0.05)
        assert pane.memory_list.stale == {memory.id for memory in gone}
        await press(pilot, "j", "j", "k", "j")
        await settle(pilot)
        assert [path.name for path in symbol_walks] == ["tool"]
