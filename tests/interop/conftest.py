"""Fixtures of the contract suite: the real agent programs, a throwaway home, the fake model.

Every test here is marked ``interop``. Where the agents cannot be installed (no npm, no
registry) the tests skip with one line, except under ``$CI``, where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import memtui

from .agent_install import AgentProgram, AgentsUnavailable, install

AGENT_TIMEOUT_S = 240
"""The most one agent run may take before the test fails (a generous bound against a hang,
not a speed check: a turn against the fake model takes seconds)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``interop``."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.interop)


_installed: dict[str, AgentProgram] = {}


def agent_program(agent: str) -> AgentProgram:
    """The installed program of ``agent``; skips (fails under CI) when it cannot be had."""
    if agent not in _installed:
        try:
            _installed[agent] = install(agent)
        except (AgentsUnavailable, OSError, subprocess.TimeoutExpired) as error:
            message = f"{agent} could not be installed from npm: {error}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    return _installed[agent]


@pytest.fixture(scope="session")
def claude_program() -> AgentProgram:
    """Claude Code, as pinned."""
    return agent_program("claude-code")


@pytest.fixture(scope="session")
def codex_program() -> AgentProgram:
    """Codex CLI, as pinned."""
    return agent_program("codex")


@pytest.fixture(scope="session")
def gemini_program() -> AgentProgram:
    """Gemini CLI, as pinned."""
    return agent_program("gemini")


CHECKOUT = str(Path(memtui.__file__).resolve().parent.parent)
"""The checkout whose memtui the tests import: the venv's memtui and the hooks it installs
run this code (the venv's own install may point elsewhere)."""


def memtui_program() -> Path:
    """The ``memtui`` of the Python running the tests (its venv's bin folder)."""
    return Path(sys.executable).parent / "memtui"


@dataclass
class AgentHome:
    """A throwaway home (0700) with a project folder in it, and the environment to run an
    agent there: HOME, a PATH that holds node but not the test venv (so a bare ``memtui``
    would not be found), memtui's store in ``db``."""

    root: Path
    project: Path
    db: Path
    env: dict[str, str] = field(default_factory=dict)

    def run(self, argv: list[str | Path], *, cwd: Path | None = None,
            extra_env: dict[str, str] | None = None, stdin: str | None = None,
            timeout: float = AGENT_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        """Run a program in the home (cwd: the project) and return what it did."""
        env = {**self.env, **(extra_env or {})}
        return subprocess.run([str(a) for a in argv], cwd=cwd or self.project, env=env,
                              input=stdin if stdin is not None else "", capture_output=True,
                              text=True, timeout=timeout, check=False)

    def memtui(self, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        """Run this venv's memtui in the home against ``db``."""
        return self.run([memtui_program(), "--db", str(self.db), *args], **kwargs)  # type: ignore[arg-type]


def _node_path() -> str:
    node = shutil.which("node")
    return str(Path(node).parent) if node else ""


def new_agent_home(tmp_path: Path) -> AgentHome:
    """A new home (0700) under ``tmp_path`` with a project folder ``work/shop`` (the fixture's
    body; scenario modules that regenerate fixture homes call it too)."""
    root = tmp_path / "home"
    root.mkdir(mode=0o700)
    project = root / "work" / "shop"
    project.mkdir(parents=True)
    db = root / "memtui.db"
    path = os.pathsep.join(p for p in (_node_path(), "/usr/local/bin", "/usr/bin", "/bin") if p)
    env = {
        "HOME": str(root),
        "PATH": path,
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "USER": "alice",
        "LOGNAME": "alice",
        "MEMTUI_USER": "alice",
        "MEMTUI_DB": str(db),
        "MEMTUI_CONFIG": str(root / "memtui-config.toml"),
        "XDG_CONFIG_HOME": str(root / ".config"),
        "XDG_CACHE_HOME": str(root / ".cache"),
        "XDG_DATA_HOME": str(root / ".local" / "share"),
        "XDG_STATE_HOME": str(root / ".local" / "state"),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "TMPDIR": str(tmp_path),
        "PYTHONPATH": CHECKOUT,
    }
    return AgentHome(root, project, db, env)


@pytest.fixture
def agent_home(tmp_path: Path) -> Iterator[AgentHome]:
    """A new home for one test."""
    yield new_agent_home(tmp_path)
