"""A file built once per test run, shared by every pytest-xdist worker.

Each worker is its own process with its own session fixtures, so a session fixture that
generates a large store runs once per worker. ``built_once`` builds the file under the run's
shared temporary folder while holding a lock; the other workers wait for it and reuse it.
Without xdist the file lives in the session's own temporary folder, so no other run's file is
ever reused.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder every worker of this run shares (the session's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """The file ``name``, built by ``build(path)`` the first time any worker asks for it.

    The build writes a temporary name that is renamed into place only when it finished, so a
    worker never sees half a file, and a build that failed is tried again by the next worker.
    """
    folder = run_folder(tmp_path_factory) / "built-once"
    folder.mkdir(exist_ok=True)
    target = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            partial = folder / f"{name}.partial-{os.getpid()}"
            build(partial)
            partial.rename(target)
    return target
