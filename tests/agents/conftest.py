"""Fixtures of the agents tests: a test's Claude Code and Gemini CLI homes."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents_fixture import ClaudeFixture, GeminiFixture, build_claude_home, build_gemini_home


@pytest.fixture()
def claude(tmp_path: Path) -> ClaudeFixture:
    """A Claude Code home with every hard case (``agents_fixture.build_claude_home``)."""
    return build_claude_home(tmp_path)


@pytest.fixture()
def gemini(tmp_path: Path) -> GeminiFixture:
    """A Gemini CLI home with every hard case (``agents_fixture.build_gemini_home``)."""
    return build_gemini_home(tmp_path)
