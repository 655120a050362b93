"""Shared fixtures: a fresh store with a fixed clock and sequential ids, engines, a CLI runner."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pg_support import pg_server_url, pg_url  # noqa: F401  (fixtures: tests/pg_support.py)

from memtui.cli.main import main
from memtui.engine.api import Engine
from memtui.store.database import Store, open_store
from memtui.store.ids import SequentialIds
from memtui.store.timeutil import FixedClock

TEST_START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FixedClock:
    """A clock standing at TEST_START that moves only when told."""
    return FixedClock(TEST_START)


TERMINAL_COLUMNS, TERMINAL_LINES = 80, 24
"""The terminal the human-output tests mean (Rich reads the size from the environment or the
real terminal otherwise, so a wide terminal or ``pytest -n`` would change the output)."""


@pytest.fixture
def terminal_80(monkeypatch: pytest.MonkeyPatch) -> None:
    """Human output rendered for an 80x24 terminal, whatever terminal runs the tests."""
    monkeypatch.setenv("COLUMNS", str(TERMINAL_COLUMNS))
    monkeypatch.setenv("LINES", str(TERMINAL_LINES))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a test's store lives."""
    return tmp_path / "memtui.db"


@pytest.fixture
def store(db_path: Path, clock: FixedClock) -> Iterator[Store]:
    """A new store with the fixed clock and sequential ids."""
    opened = open_store(db_path, clock=clock, ids=SequentialIds())
    yield opened
    opened.close()


@pytest.fixture
def engine_for(store: Store) -> Callable[[str], Engine]:
    """Engines acting as different users on the same store."""
    return lambda user: Engine(store, user)


@dataclass
class CliResult:
    """What one command-line run printed and returned."""

    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.out)


@pytest.fixture
def cli(db_path: Path) -> Callable[..., CliResult]:
    """Run ``memtui --db <test store> ARGS`` in-process: ``cli("--user", "alice", "memory", ...)``."""

    def run(*args: str) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        code = main(["--db", str(db_path), *args], stdout=out, stderr=err)
        return CliResult(code, out.getvalue(), err.getvalue())

    return run
