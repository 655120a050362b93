"""The symbol walk of stale-memory checks: one walk per folder per check, bounded entries,
skipped folders, the folder's words kept for a while, and no walk under a store
transaction."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memtui.engine import citations
from memtui.engine.api import Engine


def _project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def parse_config():\n    pass\n")
    return tmp_path


def test_one_check_walks_each_folder_once(engine_for: Callable[[str], Engine],
                                          tmp_path: Path, symbol_walks: list[Path]) -> None:
    engine = engine_for("alice")
    engine.identity.create_project("shop", root=str(_project(tmp_path)))
    texts = [f"gone_{n}() was removed" for n in range(5)] + ["parse_config() reads it"]
    memories = [engine.identity.add_memory(text, "fact", "shop") for text in texts]
    stale = engine.staleness.check(memories)
    assert len(symbol_walks) == 1
    assert set(stale) == {m.id for m in memories[:5]}
    assert stale[memories[0].id] == ("gone_0() not found",)


def test_the_folder_words_are_kept_until_the_ttl(tmp_path: Path, symbol_walks: list[Path]) -> None:
    now = [0.0]
    index = citations.SymbolIndex(clock=lambda: now[0])
    root = _project(tmp_path)
    assert "parse_config" in index.words(root).words
    (root / "src" / "app.py").write_text("def read_config():\n    pass\n# changed size\n")
    assert "parse_config" in index.words(root).words
    assert len(symbol_walks) == 1
    now[0] = citations.INDEX_TTL_SECONDS
    assert "parse_config" not in index.words(root).words
    assert len(symbol_walks) == 2


def test_a_walk_sees_at_most_max_scan_entries(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "MAX_SCAN_ENTRIES", 3)
    for n in range(3):
        (tmp_path / f"empty{n}").mkdir()  # folders count, not only files read
    (tmp_path / "zz.py").write_text("late_symbol = 1\n")
    found = citations.SymbolIndex().walk(tmp_path, 0.0)
    assert not found.whole and "late_symbol" not in found.words
    assert citations.Checker().missing("gone_symbol()", str(tmp_path)) == ()  # nothing known
    monkeypatch.setattr(citations, "MAX_SCAN_ENTRIES", 5)
    found = citations.SymbolIndex().walk(tmp_path, 0.0)
    assert found.whole and "late_symbol" in found.words


@pytest.mark.parametrize("folder", [".git", ".venv", "node_modules", "__pycache__"])
def test_hidden_and_vendored_folders_are_not_walked(tmp_path: Path, folder: str) -> None:
    (tmp_path / folder / "deep").mkdir(parents=True)
    (tmp_path / folder / "deep" / "lib.py").write_text("vendored_symbol = 1\n")
    (tmp_path / "main.py").write_text("own_symbol = 1\n")
    found = citations.SymbolIndex().walk(tmp_path, 0.0)
    assert found.whole and "own_symbol" in found.words
    assert "vendored_symbol" not in found.words


def test_system_folders_are_never_walked(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "fake.py").write_text("system_symbol = 1\n")
    monkeypatch.setattr(citations, "SYSTEM_FOLDERS", frozenset({str(tmp_path / "proc")}))
    found = citations.SymbolIndex().walk(tmp_path, 0.0)
    assert found.whole and "system_symbol" not in found.words


def test_a_root_that_cannot_be_read_knows_nothing(tmp_path: Path) -> None:
    found = citations.SymbolIndex().walk(tmp_path / "gone", 0.0)
    assert not found.whole and found.words == frozenset()


def test_injection_walks_no_folder_inside_a_store_transaction(
        engine_for: Callable[[str], Engine], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engine_for("alice")
    engine.identity.create_project("shop", root=str(_project(tmp_path)))
    engine.settings.update(use_memories=1, skip_stale_memories=1)
    engine.identity.add_memory("parse_config() reads the settings", "fact", "shop")
    engine.identity.add_memory("load_yaml() reads the settings", "fact", "shop")
    monkeypatch.setattr(citations, "INDEX_TTL_SECONDS", 0.0)  # every check walks
    store, held, walked_held = engine.store, [0], []
    for name in ("transaction", "snapshot"):
        real = getattr(store, name)

        def holding(*args: object, _real: Callable[..., Any] = real,
                    **kwargs: object) -> Iterator[object]:
            with _real(*args, **kwargs) as conn:
                held[0] += 1
                try:
                    yield conn
                finally:
                    held[0] -= 1

        monkeypatch.setattr(store, name, contextlib.contextmanager(holding))
    real_walk = citations.SymbolIndex.walk

    def spy(self: citations.SymbolIndex, root: Path, now: float) -> citations.RootWords:
        walked_held.append(held[0])
        return real_walk(self, root, now)

    monkeypatch.setattr(citations.SymbolIndex, "walk", spy)
    for result in (engine.injection.preview_for_project("shop"),
                   engine.injection.for_session("shop", apply=True)):
        assert result.injected and "parse_config" in result.prompt
        assert "load_yaml" not in result.prompt
    assert walked_held == [0, 0]


def test_recalls_in_a_row_walk_the_folder_once(engine_for: Callable[[str], Engine],
                                               tmp_path: Path, symbol_walks: list[Path],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "INDEX_TTL_SECONDS", 3600.0)  # however slow the machine
    engine = engine_for("alice")
    engine.identity.create_project("shop", root=str(_project(tmp_path)))
    gone = engine.identity.add_memory("gone_helper() loads the settings", "fact", "shop")
    for _recall in range(3):  # what each memory_recall checks
        memories = engine.recall.recall_memories("settings", 8, "shop", every_project=False)
        assert engine.staleness.check(memories) == {gone.id: ("gone_helper() not found",)}
    assert len(symbol_walks) == 1


def test_checks_at_once_share_one_walk(tmp_path: Path, symbol_walks: list[Path],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(citations, "INDEX_TTL_SECONDS", 3600.0)  # however slow the machine
    index, root, release = citations.SymbolIndex(), _project(tmp_path), threading.Event()
    real = citations.SymbolIndex._words

    def slow(self: citations.SymbolIndex, path: str, info: os.stat_result) -> frozenset[str]:
        release.wait(timeout=60)
        return real(self, path, info)

    monkeypatch.setattr(citations.SymbolIndex, "_words", slow)
    found: list[citations.RootWords] = []
    entered = threading.Semaphore(0)

    def check() -> None:
        entered.release()
        found.append(index.words(root))

    threads = [threading.Thread(target=check) for _n in range(3)]
    for thread in threads:
        thread.start()
    for _thread in threads:
        entered.acquire(timeout=60)
    time.sleep(0.2)  # lets the others reach the walk (a slow machine only weakens the test)
    release.set()
    for thread in threads:
        thread.join()
    assert len(symbol_walks) == 1 and len(found) == 3
    assert all("parse_config" in words.words for words in found)
