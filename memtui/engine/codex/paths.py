"""Where a Codex home and its files are (spec/40).

The home is ``--codex-home PATH``, else ``$CODEX_HOME``, else ``~/.codex``; the databases
(``state_5.sqlite``, ``memories_1.sqlite``) live in ``sqlite_home`` of ``config.toml``, else
``$CODEX_SQLITE_HOME``, else the home.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memtui.store.codex_db import CODEX_DB_FILE_NAME, STATE_DB_FILE_NAME

CODEX_HOME_ENV = "CODEX_HOME"
CODEX_SQLITE_HOME_ENV = "CODEX_SQLITE_HOME"
DEFAULT_CODEX_DIR_NAME = ".codex"

MEMORIES_DIR = "memories"
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
NOTES_DIR_PARTS = (MEMORIES_DIR, *AD_HOC_DIR_PARTS, NOTES_DIR)
"""The notes folder relative to the home."""


def _expand(value: str | os.PathLike[str]) -> Path:
    return Path(os.path.expanduser(os.fspath(value)))


def resolve_codex_home(cli_path: str | os.PathLike[str] | None = None,
                       env: Mapping[str, str] | None = None) -> Path:
    """The Codex home: ``cli_path``, else ``$CODEX_HOME``, else ``~/.codex`` (absolute)."""
    environ = os.environ if env is None else env
    if cli_path:
        return _expand(cli_path).absolute()
    if environ.get(CODEX_HOME_ENV):
        return _expand(environ[CODEX_HOME_ENV]).absolute()
    return (Path.home() / DEFAULT_CODEX_DIR_NAME).absolute()


def resolve_codex_sqlite_home(home: Path, env: Mapping[str, str] | None = None, *,
                              config_sqlite_home: str | None = None) -> Path:
    """The folder of Codex's databases: ``config_sqlite_home`` (``sqlite_home`` of
    ``config.toml``; relative to the home), else ``$CODEX_SQLITE_HOME``, else the home."""
    if config_sqlite_home:
        return (home / _expand(config_sqlite_home)).absolute()
    environ = os.environ if env is None else env
    value = environ.get(CODEX_SQLITE_HOME_ENV)
    return _expand(value).absolute() if value else home


def memories_dir(home: Path) -> Path:
    """``<home>/memories``."""
    return home / MEMORIES_DIR


def notes_dir(home: Path) -> Path:
    """``<home>/memories/extensions/ad_hoc/notes``."""
    return home.joinpath(*NOTES_DIR_PARTS)


def rollout_summaries_dir(home: Path) -> Path:
    """``<home>/memories/rollout_summaries``."""
    return memories_dir(home) / ROLLOUT_SUMMARIES_DIR


def codex_db_path(sqlite_home: Path) -> Path:
    """``<sqlite home>/memories_1.sqlite``."""
    return sqlite_home / CODEX_DB_FILE_NAME


def state_db_path(sqlite_home: Path) -> Path:
    """``<sqlite home>/state_5.sqlite``."""
    return sqlite_home / STATE_DB_FILE_NAME


def sessions_dir(home: Path) -> Path:
    """``<home>/sessions``."""
    return home / SESSIONS_DIR


def archived_sessions_dir(home: Path) -> Path:
    """``<home>/archived_sessions``."""
    return home / ARCHIVED_SESSIONS_DIR
