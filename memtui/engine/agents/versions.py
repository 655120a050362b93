"""Which version of each agent is installed and which one wrote its files.

Installed: the ``package.json`` of the npm package the program on PATH belongs to, else a
version in its path (``.../versions/2.1.197``); the program is never run. Written: the
newest Claude Code transcript's ``version`` or Codex rollout's ``cli_version``. A few small
reads, since ``agents show`` and the Agents pane ask on every read.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from memtui.engine.agents.claude_stamp import transcript_version
from memtui.engine.agents.models import AGENT_CLAUDE, AGENT_CODEX, AGENT_GEMINI
from memtui.jsonable import JsonMixin

PROGRAMS = {AGENT_CLAUDE: "claude", AGENT_CODEX: "codex", AGENT_GEMINI: "gemini"}
PACKAGES = {AGENT_CLAUDE: "@anthropic-ai/claude-code", AGENT_CODEX: "@openai/codex",
            AGENT_GEMINI: "@google/gemini-cli"}
PACKAGE_SEARCH_DEPTH = 6
ROLLOUT_HEAD_BYTES = 64 * 1024
_VERSION = re.compile(r"^v?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$")


@dataclass(frozen=True)
class AgentVersion(JsonMixin):
    """An agent's program on PATH and its version, and the version found in its files."""

    agent: str
    program: str | None
    installed: str | None
    written: str | None
    written_in: str | None

    @property
    def words(self) -> str:
        """``2.1.197 on PATH; its files from 2.1.190`` (the parts known)."""
        parts = [f"{PROGRAMS.get(self.agent, self.agent)} not on PATH" if self.program is None
                 else f"{self.installed or 'version unknown'} on PATH"]
        if self.written:
            parts.append(f"files written by {self.written}")
        return "; ".join(parts)


def _package_version(program: Path, package: str) -> str | None:
    for folder in [program.parent, *program.parent.parents][:PACKAGE_SEARCH_DEPTH]:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                return None
            if isinstance(data, dict) and data.get("name") == package:
                version = data.get("version")
                return version if isinstance(version, str) else None
    return None


def _path_version(program: Path) -> str | None:
    return next((found.group(1) for part in reversed(program.parts)
                 if (found := _VERSION.match(part))), None)


def installed_version(agent: str, path_env: str | None = None) -> tuple[str | None, str | None]:
    """(program on PATH, its version) — either None when not found."""
    name = PROGRAMS.get(agent)
    found = shutil.which(name, path=path_env) if name else None
    if found is None:
        return None, None
    real = Path(os.path.realpath(found))
    return found, _package_version(real, PACKAGES[agent]) or _path_version(real)


def _newest(paths: list[Path]) -> Path | None:
    stamped: list[tuple[float, Path]] = []
    for path in paths:
        with contextlib.suppress(OSError):
            stamped.append((path.stat().st_mtime, path))
    return max(stamped)[1] if stamped else None


def _claude_written(home: Path) -> tuple[str | None, str | None]:
    try:
        newest = _newest([path for folder in (home / "projects").iterdir() if folder.is_dir()
                          for path in folder.glob("*.jsonl")])
    except OSError:
        return None, None
    version = transcript_version(newest) if newest is not None else None
    return (version, str(newest)) if version else (None, None)


def _newest_dated_folder(folder: Path) -> Path | None:
    """``sessions/YYYY/MM/DD``: the last of each level by name."""
    for _ in range(3):
        try:
            names = sorted((item for item in folder.iterdir() if item.is_dir()),
                           key=lambda item: item.name)
        except OSError:
            return None
        if not names:
            return None
        folder = names[-1]
    return folder


def _codex_written(home: Path) -> tuple[str | None, str | None]:
    day = _newest_dated_folder(home / "sessions")
    newest = _newest(list(day.glob("rollout-*.jsonl"))) if day else None
    if newest is None:
        return None, None
    try:
        with open(newest, "rb") as handle:
            first = handle.read(ROLLOUT_HEAD_BYTES).split(b"\n", 1)[0]
        meta = json.loads(first)
    except (OSError, ValueError):
        return None, None
    payload = meta.get("payload") if isinstance(meta, dict) else None
    version = payload.get("cli_version") if isinstance(payload, dict) else None
    return (version, str(newest)) if isinstance(version, str) and version else (None, None)


def written_version(agent: str, home: Path) -> tuple[str | None, str | None]:
    """(version, file) of the newest file the agent recorded its version in."""
    reader = {AGENT_CLAUDE: _claude_written, AGENT_CODEX: _codex_written}.get(agent)
    return reader(home) if reader else (None, None)


def agent_version(agent: str, home: Path | None, path_env: str | None = None) -> AgentVersion:
    """The agent's installed and written versions (``home`` None: no files read)."""
    program, installed = installed_version(agent, path_env)
    written, where = written_version(agent, home) if home is not None else (None, None)
    return AgentVersion(agent, program, installed, written, where)
