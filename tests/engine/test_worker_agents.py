"""The worker picks up what agents left: recorded sessions (test_hooks.py) and, when a Codex
home is configured, new Codex rollouts; which Codex home counts as configured."""

from __future__ import annotations

from pathlib import Path

import codex_fixture as fx
import pytest

from memtui.engine.agent_setup import INSTALL, codex_home_for_worker, plan, write_change
from memtui.engine.api import Engine
from memtui.engine.worker import BackgroundLoop
from memtui.store.database import Store


def test_each_round_imports_new_codex_rollouts(tmp_path: Path, store: Store) -> None:
    home = fx.build_codex_home(tmp_path)
    loop = BackgroundLoop(store, "alice", interval_s=None, codex_home=home)
    summary = loop.run_once()
    assert summary is not None
    alice = Engine(store, "alice")
    imported = {task.id for task in alice.tasks.list_tasks(limit=100) if task.source == "codex"}
    assert imported  # the rollouts became tasks, scanned by the same round's extraction
    assert summary.scanned >= len(imported)
    loop.run_once()  # a later round imports nothing twice
    again = {task.id for task in alice.tasks.list_tasks(limit=100) if task.source == "codex"}
    assert again == imported


def test_without_a_codex_home_the_worker_imports_no_rollouts(store: Store) -> None:
    BackgroundLoop(store, "alice", interval_s=None).run_once()
    assert Engine(store, "alice").tasks.list_tasks(limit=10) == []


def test_a_broken_codex_home_does_not_stop_the_round(tmp_path: Path, store: Store) -> None:
    not_a_folder = tmp_path / "codex-file"
    not_a_folder.write_text("x")
    loop = BackgroundLoop(store, "alice", interval_s=None, codex_home=not_a_folder)
    assert loop.run_once() is not None and loop.state.last_error is None


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


def test_which_codex_home_is_configured(fake_home: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert codex_home_for_worker() is None  # no ~/.codex at all
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_text('model = "o3"\n')
    assert codex_home_for_worker() is None  # Codex is there, memtui is not in it
    for change in plan("codex", INSTALL):
        write_change(change)
    assert codex_home_for_worker() == fake_home / ".codex"
    assert codex_home_for_worker(tmp_path / "given") == tmp_path / "given"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "env-home"))
    assert codex_home_for_worker() == tmp_path / "env-home"
