"""Fixtures of the app tests: the agents' fixture homes under a test ``$HOME``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agents_fixture import AGENT_ENV, build_claude_home, build_gemini_home


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code and Gemini CLI fixture homes under a HOME that is the test folder (paths
    show as ``~/…``)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    claude = build_claude_home(tmp_path)
    build_gemini_home(tmp_path)
    # the one row named by its folder (no cwd): its name holds the test folder's path,
    # which differs on every run; snapshots must not
    shutil.rmtree(claude.home / "projects" / claude.slug(claude.linked))
    return tmp_path
