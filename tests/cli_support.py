"""What the command-line tests share: one in-process run and its result, an empty ``$HOME``."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main


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


def run_main(*args: str) -> CliResult:
    """``memtui ARGS`` run in-process."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return CliResult(code, out.getvalue(), err.getvalue())


AGENT_HOME_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "CODEX_SQLITE_HOME")
"""Variables that would point the agents' homes away from ``$HOME``."""


def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$HOME`` under the test folder, the agents' homes inside it (their variables
    unset) and ``$MEMTUI_DB`` beside it."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("MEMTUI_DB", str(tmp_path / "env.db"))
    for name in AGENT_HOME_ENV:
        monkeypatch.delenv(name, raising=False)
    return folder
