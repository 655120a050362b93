"""Where a Codex home, its databases and its memory files are."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from memtui.store.codex_db import CODEX_DB_FILE_NAME
from memtui.store.codex_models import (
    LAYOUT_MEMORIES_V2,
    LAYOUT_NONE,
    LAYOUT_UNKNOWN,
    CodexLayout,
)

CODEX_HOME_ENV = "CODEX_HOME"
CODEX_SQLITE_HOME_ENV = "CODEX_SQLITE_HOME"
DEFAULT_CODEX_DIR_NAME = ".codex"

MEMORIES_DIR = "memories"
MEMORIES_V2_DIR = "memories_v2"
"""The memory files' folder of the ``memories_v2_1.sqlite`` layout (Codex 0.169)."""
EXPORT_FOLDERS = (MEMORIES_DIR, MEMORIES_V2_DIR)
_VERSIONED_DB_RE = re.compile(r"^memories_(v\d+)_\d+\.sqlite$")
MEMORY_SUMMARY_FILE = "memory_summary.md"
MEMORY_MD_FILE = "MEMORY.md"
RAW_MEMORIES_FILE = "raw_memories.md"
ROLLOUT_SUMMARIES_DIR = "rollout_summaries"
AD_HOC_DIR_PARTS = ("extensions", "ad_hoc")
INSTRUCTIONS_FILE = "instructions.md"
NOTES_DIR = "notes"
SKILLS_DIR = "skills"
SKILL_FILE = "SKILL.md"
PHASE2_DIFF_FILE = "phase2_workspace_diff.md"
GIT_DIR = ".git"
SESSIONS_DIR = "sessions"
ARCHIVED_SESSIONS_DIR = "archived_sessions"
CONFIG_FILE = "config.toml"

PROTECTED_MEMORY_NAMES = frozenset({GIT_DIR, PHASE2_DIFF_FILE, RAW_MEMORIES_FILE})
"""Names in the memories folder memtui never writes or deletes (Codex owns them)."""
NOTES_DIR_PARTS = (*AD_HOC_DIR_PARTS, NOTES_DIR)
"""The ad-hoc notes folder inside the memories folder."""


def _expand(value: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(os.fspath(value)))


def resolve_codex_home(cli_path: str | os.PathLike[str] | None = None,
                       env: Mapping[str, str] | None = None) -> Path:
    """The Codex home: ``cli_path``, else ``$CODEX_HOME``, else ``~/.codex`` (absolute)."""
    value = cli_path or (os.environ if env is None else env).get(CODEX_HOME_ENV)
    return (_expand(value) if value else Path.home() / DEFAULT_CODEX_DIR_NAME).absolute()


def resolve_codex_sqlite_home(home: Path, env: Mapping[str, str] | None = None, *,
                              config_sqlite_home: str | None = None) -> Path:
    """The folder of Codex's databases: ``config_sqlite_home`` (``sqlite_home`` of
    ``config.toml``; relative to the home), else ``$CODEX_SQLITE_HOME``, else the home."""
    if config_sqlite_home:
        return (home / _expand(config_sqlite_home)).absolute()
    value = (os.environ if env is None else env).get(CODEX_SQLITE_HOME_ENV)
    return _expand(value).absolute() if value else home


def memories_dir_name(layout: CodexLayout) -> str:
    """The memory files' folder name of a layout: ``memories_v2`` for the v2 layout; for an
    unknown ``memories_v<N>_<n>.sqlite``, ``memories_v<N>``; else ``memories``."""
    if layout.name == LAYOUT_MEMORIES_V2:
        return MEMORIES_V2_DIR
    if layout.name == LAYOUT_UNKNOWN:
        versions = (_VERSIONED_DB_RE.match(Path(info.path).name) for info in layout.unknown)
        return next((f"memories_{found.group(1)}" for found in versions if found), MEMORIES_DIR)
    return MEMORIES_DIR


def layout_memories_dir(home: Path, layout: CodexLayout) -> Path:
    """The memory files' folder of a home in its layout (see ``memories_dir_name``); with no
    database at all, ``memories_v2`` when only that folder is there (an export for 0.169)."""
    if layout.name == LAYOUT_NONE and (home / MEMORIES_V2_DIR).is_dir() \
            and not os.path.lexists(home / MEMORIES_DIR):
        return home / MEMORIES_V2_DIR
    return home / memories_dir_name(layout)


def codex_db_path(sqlite_home: Path) -> Path:
    """``<sqlite home>/memories_1.sqlite``."""
    return sqlite_home / CODEX_DB_FILE_NAME
