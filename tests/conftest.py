"""Shared fixtures: a fresh store with a fixed clock and sequential ids, engines, a CLI runner."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pg_support
import pytest
from cli_support import CliResult, run_main
from hypothesis import HealthCheck, settings
from pg_support import BACKENDS, pg_server_url, pg_store_url, pg_url  # noqa: F401  (fixtures: tests/pg_support.py)

from memtui.engine.api import Engine
from memtui.store.backend import StoreBackend
from memtui.store.database import open_store
from memtui.store.ids import SequentialIds
from memtui.store.timeutil import FixedClock

TEST_START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

# Property tests have no wall-clock bound: a loaded machine slows every example alike.
settings.register_profile("memtui", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memtui")


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the config file of the person running the tests (it may name a store)."""
    monkeypatch.setenv("MEMTUI_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.toml"))


@pytest.fixture(autouse=True)
def full_text_recall(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall ranks by full text alone whether or not the embeddings extra is installed
    (here and in the servers the tests start); tests of the vectors turn them on."""
    from memtui.engine.recall import RecallApi
    from memtui.engine.recall_vectors import VECTORS_ENV

    monkeypatch.setenv(VECTORS_ENV, "0")
    monkeypatch.setattr(RecallApi, "use_vectors", False)


@pytest.fixture
def clock() -> FixedClock:
    """A clock standing at TEST_START that moves only when told."""
    return FixedClock(TEST_START)


TERMINAL_COLUMNS, TERMINAL_LINES = 80, 24
"""The terminal the human-output tests mean (Rich reads the size from the environment or the
real terminal otherwise, so a wide terminal or ``pytest -n`` would change the output)."""


@pytest.fixture
def terminal_80(monkeypatch: pytest.MonkeyPatch) -> None:
    """Human output rendered for an 80x24 terminal, whatever terminal runs the tests (Rich
    takes the output for a terminal without colours: ``TTY_COMPATIBLE``, ``TERM=dumb``)."""
    monkeypatch.setenv("COLUMNS", str(TERMINAL_COLUMNS))
    monkeypatch.setenv("LINES", str(TERMINAL_LINES))
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("TERM", "dumb")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where a test's store lives."""
    return tmp_path / "memtui.db"




def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that uses the store runs on each backend (``backend``: ``BACKENDS``); a
    test marked ``sqlite_only`` on SQLite only."""
    if "backend" not in metafunc.fixturenames:
        return
    if any("backend" in marker.args[0] for marker in metafunc.definition.iter_markers("parametrize")):
        return  # the test chose its backends itself
    only = metafunc.definition.get_closest_marker("sqlite_only") is not None
    metafunc.parametrize("backend", BACKENDS[:1] if only else BACKENDS)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Drop this process's PostgreSQL template database."""
    if pg_support.configured_url() is not None:
        pg_support.drop_templates()


@pytest.fixture
def store_target(backend: str, db_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the test's store lives: the SQLite file ``db_path``, or a new PostgreSQL
    database holding a new store (its URL; ``pg_store_url``, dropped after the test)."""
    return str(db_path) if backend == "sqlite" else request.getfixturevalue("pg_store_url")


@pytest.fixture
def store(store_target: str, clock: FixedClock) -> Iterator[StoreBackend]:
    """A new store with the fixed clock and sequential ids, on each backend."""
    opened = open_store(store_target, clock=clock, ids=SequentialIds())
    yield opened
    opened.close()


@pytest.fixture
def engine_for(store: StoreBackend) -> Callable[[str], Engine]:
    """Engines acting as different users on the same store."""
    return lambda user: Engine(store, user)


@pytest.fixture
def cli(request: pytest.FixtureRequest, db_path: Path) -> Callable[..., CliResult]:
    """Run ``memtui --db <test store> ARGS`` in-process: ``cli("--user", "alice", "memory", ...)``.
    The test's store: the ``store`` fixture's backend when the test uses it, else the file."""
    target = (request.getfixturevalue("store_target") if "backend" in request.fixturenames
              else str(db_path))

    return lambda *args: run_main("--db", target, *args)


@pytest.fixture
def symbol_walks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders stale-memory checks walk for symbols (a spy on ``SymbolIndex.walk``)."""
    from memtui.engine import citations

    seen: list[Path] = []
    real = citations.SymbolIndex.walk

    def spy(self: citations.SymbolIndex, root: Path, now: float) -> citations.RootWords:
        seen.append(root)
        return real(self, root, now)

    monkeypatch.setattr(citations.SymbolIndex, "walk", spy)
    return seen


OPEN_UMASK = 0o022
"""The common umask under which a file made without an explicit mode is world-readable."""


@pytest.fixture
def open_umask() -> Iterator[None]:
    """Run the test under ``OPEN_UMASK`` (whatever the runner's is), so a file memtui forgets
    to make private shows it."""
    previous = os.umask(OPEN_UMASK)
    try:
        yield
    finally:
        os.umask(previous)
